"""TileLang's half of the helper: the CUDA TileLang generates for a config's
program builder (compiler.compile_tilelang). The Triton helper's command line
runs it as its `tilelang` verb (tilescope/triton_helper/__init__.py); the
kernel file's loader is tilescope.common.kernel_file's."""
