// One kernel launch recorded inside a user's program (`tilescope-run capture`,
// docs/capture.md): schema tilescope.launch/1, written by the Triton recorder
// (resources/python/tilescope/capture, from Triton's launch hooks) or by the CUDA
// recorder (libtilescope_inject.so, from CUPTI callbacks) into
// DIR/launches/<id>/launch.json, beside the .npy files of its arguments.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilescope {

inline constexpr const char* kLaunchSchema = "tilescope.launch/1";

/// A pointer-looking word of a `bytes` parameter (param_pointers.h's rules).
struct LaunchWord {
  std::uint32_t offset = 0;  ///< bytes into the parameter
  std::uint64_t value = 0;   ///< as the program passed it
  std::string cls;           ///< pointer | unreferenced | ambiguous
  std::string target;        ///< the argument or memory region it points into ("" when ambiguous)
  std::int64_t delta = 0;    ///< bytes from the target's first byte
};

/// One parameter of the launched kernel, in order.
struct LaunchArg {
  std::string name;  ///< the Python parameter's name; "p<i>" for a CUDA parameter
  /// tensor (a Triton tensor argument), pointer (a CUDA pointer parameter
  /// resolved to its allocation), scalar, constexpr, none (None), unresolved,
  /// bytes (a CUDA parameter of another size: a struct by value, its content
  /// in `before`), memory (a region of LaunchRecord::memory).
  std::string kind;
  // Tensors and pointers.
  std::string dtype;                         ///< TileScope's dtype (f32 ...); u8 for untyped bytes
  std::string torchDtype;                    ///< as the program had it (torch.float16), for notes
  std::vector<std::int64_t> shape, strides;  ///< elements
  std::int64_t storageOffset = 0;
  std::uint64_t dataPtr = 0;
  std::uint64_t allocationBase = 0, allocationSize = 0;  ///< CUDA: the allocation holding dataPtr
  /// CUDA: the bytes before dataPtr that `before`/`after` also hold (they start
  /// at dataPtr - leadBytes, on the program's 256-byte boundary; leadBytesFor).
  std::uint64_t leadBytes = 0;
  std::string before, after;  ///< .npy files in the launch folder ("" when not saved)
  bool changed = false;       ///< the launch changed its bytes: an output
  bool stored = false;        ///< Triton: the kernel stores through it (an output even when unchanged)
  bool isConst = false;       ///< CUDA: a pointer to const (from the demangled signature)
  std::string unsupported;    ///< why the bytes were not saved
  // Scalars and constexprs.
  std::string type;  ///< Triton's (i32, i64, fp32, i1 ...) or C++'s (int, float ...); "" unknown
  nlohmann::json value;
  // CUDA parameters.
  int index = -1;
  std::uint32_t offset = 0, size = 0;  ///< cuFuncGetParamInfo
  std::string reason;                  ///< unresolved: why
  std::vector<LaunchWord> words;       ///< bytes: its pointer-looking words
  /// pointer: the memory region (or argument) it points into when a struct's
  /// pointers reach its allocation below it; "" when it is its own tensor.
  std::string rebasedOnto;
  std::int64_t rebaseDelta = 0;
};

struct LaunchSource {
  std::string file;      ///< as the program had it (absolute)
  std::string function;  ///< the @triton.jit function, or the demangled CUDA name
  int defLine = 0;
  std::string copy;  ///< the copy in the capture folder, relative to it ("sources/x.py")
};

struct TritonLaunch {
  std::string version;
  int numWarps = 4, numStages = 3, numCtas = 1;
  nlohmann::json constexprs = nlohmann::json::object();  ///< name -> value
  nlohmann::json signature = nlohmann::json::object();
  nlohmann::json specialized = nlohmann::json::object();  ///< args the JIT made constants
  std::int64_t globalScratchSize = 0, profileScratchSize = 0;
  bool autotuned = false;
  nlohmann::json config;  ///< the autotuner's chosen config
};

struct SkippedArg {
  std::string arg, reason;
};

struct LaunchRecord {
  std::string recorder;  ///< triton | cuda
  std::string language;  ///< triton | cuda
  std::string id;        ///< the launch folder's name
  int pid = 0;
  std::int64_t seq = 0;     ///< this recorder's count of launches in the process
  std::int64_t index = -1;  ///< the process-wide launch index (-1: unknown)
  std::int64_t timeUnixNs = 0;
  std::string kernel;  ///< the name a person knows (Python function, demangled CUDA name)
  std::string symbol;  ///< the cubin's symbol
  LaunchSource source;
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1}, cluster{1, 1, 1};
  std::uint32_t sharedBytes = 0;
  std::optional<TritonLaunch> triton;
  std::string cubin;  ///< Triton: the JIT's cubin (launch folder); "" when not saved
  std::string image;  ///< CUDA: the module image holding the kernel (relative to the capture folder)
  std::vector<LaunchArg> args;
  /// Memory that pointers inside bytes parameters reach (kind memory, m<k>):
  /// saved before and after like a pointer parameter's reach.
  std::vector<LaunchArg> memory;
  std::vector<std::vector<std::string>> aliases;  ///< argument names sharing one address
  std::optional<double> kernelNs;                 ///< the program's own kernel time
  std::string fault;                              ///< the launch's CUDA error in the program, if any
  std::vector<std::string> notes;
  std::vector<SkippedArg> skipped;
};

/// Reads a launch record; throws std::runtime_error naming the file and the JSON
/// path of what is wrong. Unknown keys are ignored (newer recorders add fields).
LaunchRecord loadLaunchRecord(const std::filesystem::path& file);
LaunchRecord launchRecordFromJson(const nlohmann::json& j, const std::string& path = "");
nlohmann::json toJson(const LaunchRecord& r);

}  // namespace tilescope
