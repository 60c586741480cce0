"""TileScope's Python: the helpers the C++ runs as child processes and the
recorder it loads into a captured program (docs/architecture.md, "Python").

  common/           what the others share: constants the C++ has too, the kernel
                    file's loader, the reader of pointer arithmetic; imports
                    nothing of ours
  triton_helper/    compiles a @triton.jit kernel without a GPU, describes its
                    signature; the helper's command line (`__main__.py`)
  tilelang_helper/  TileLang's CUDA for a config (the helper's `tilelang` verb)
  capture/          the Triton launch recorder of `tilescope-run capture`
                    (`capture/site/sitecustomize.py` starts it)
  triage/           the runner of `tilescope-run triage`, one problem per process
                    (`__main__.py`)

Which subpackage may import which is checked by tests/layering/check_layers.py.
Nothing is imported here: the recorder loads this package into every Python
process of a captured program.
"""
