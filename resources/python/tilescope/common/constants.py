"""The numbers and names that more than one part of TileScope's Python uses,
or that the C++ has too. Where the C++ has the same constant, the comment names
it ("C++: ...") and tests/unit/test_python_constants.cpp reads this file and
checks that the two agree (a constant the C++ keeps inside one source file is
found in that file's text): change both, or that test fails.

The test reads the file as text, so every constant is one line of the form
`NAME = VALUE  # comment`, VALUE a string in double quotes, an integer (decimal
or 0x hex) or `A << B`.
"""

# --- what crosses a process boundary ------------------------------------------------
RUNNER_SCHEMA = "tilescope.triage.runner/1"  # C++: kRunnerSchema (triage/triage_run.h)
LAUNCH_SCHEMA = "tilescope.launch/1"  # C++: kLaunchSchema (capture/launch_record.h); a recorded launch

# Exit statuses of the helpers and the runner (model/vocabulary.h).
EXIT_USAGE = 2  # C++: kExitUsage; a bad request, or a problem that could not be judged
EXIT_NO_GPU = 3  # C++: kExitNoGpu

# --- triage: seeds, poison and guard zones (docs/triage.md, "Traps") ---------------------
INIT_SEED = 42  # torch.manual_seed before each model is built: both get the same weights
DEFAULT_SEEDS = 3  # C++: TriageOptions::seeds; input seeds per problem shape (--seeds)
POISON_A = 0xFF  # NaN in every float format: unwritten elements show
POISON_B = 0x3C  # finite in every float format (f32 0.0115, f16 1.06): the second poison
GUARD_BYTES = 64 << 10  # C++: kGuardBytes (core/cuda tensors.h); the zone after each guarded tensor
INPUT_GUARD = 0xFF  # after an input: NaN in every float format, a load past the end shows
OUTPUT_GUARD = 0xA5  # C++: guardByte() of a tensor whose guard cannot be a NaN (config/tensor.cpp)

# --- triage: the folder search (core/include/tilescope/triage/triage_inputs.h) ----------
MAX_SEARCH_ENTRIES = 10000  # C++: kMaxTriageSearchEntries
MAX_SEARCH_FOLDERS = 10000  # C++: kMaxTriageSearchFolders
MAX_ROLE_LINE = 256  # C++: kMaxRoleLineChars
MAX_SOURCE_BYTES = 4 << 20  # C++: kMaxTriageSourceBytes (core/src/triage/triage_pairing.h); a larger .py is no problem
MAX_DEPTH = 8  # C++: kMaxDepth (core/src/triage/triage_inputs.cpp); folders below an input
MAX_MIRROR_DEPTH = 8  # C++: kMaxMirrorDepth (core/src/triage/triage_pairing.cpp); folders up to candidate[s]/

# --- capture: which buffers the recorder saves (capture/selection.h) --------------------
CAPTURE_MAX_BYTES = 4 << 30  # C++: LaunchSelection::maxBytes; a larger buffer is not saved

# --- triage: which kernels are the framework's, not the candidate's (one pattern, no backslashes) ---
LIBRARY_KERNELS = "^(void )?(at|c10|cub|cub_[A-Za-z0-9_]+|thrust|cutlass|cute|flash|pytorch_flash|cudnn|cublas[A-Za-z0-9_]*|nvte)::|^_ZN(2at|3c10|3cub|6thrust|7cutlass|4cute|5flash)|^(ampere|volta|turing|hopper|sm[0-9]+|nvjet|cutlass)_|cublas|cudnn|(^|[^A-Za-z0-9_])gemv|gemmk|splitKreduce|elementwise_kernel|reduce_kernel|indexSelect|CatArrayBatched|Memset|memcpy|fill_kernel|softmax_warp_(forward|backward)|cunn_[A-Za-z]+"  # C++: kLibraryKernelPattern (triage/triage_run.h); PyTorch's and its libraries' kernels by name
