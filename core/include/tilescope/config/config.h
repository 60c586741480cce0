// The kernel configuration model (docs/config.md, schema tilescope.config/1) and its loader.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilescope/base/dtype.h"

namespace tilescope {

inline constexpr const char* kConfigSchema = "tilescope.config/1";

/// How an error at the document's top level (path "") names its place.
inline constexpr const char* kConfigTopLevel = "(top level)";

/// A configuration error: `path` is the JSON path of the offending value
/// (`tensors.C.shape[1]`), `message` says what is wrong with it.
struct ConfigError : std::runtime_error {
  ConfigError(std::string path, std::string message);
  std::string path;
  std::string problem;
};

/// What the loader accepts at most (docs/config.md, "Limits"): a config is a few
/// KB written by a person; these bounds keep a hostile or corrupted file from
/// exhausting the stack, memory or time of `check`, the GUI or a sweep.
struct ConfigLimits {
  static constexpr std::size_t kMaxFileBytes = std::size_t{4} << 20;  ///< 4 MiB
  static constexpr int kMaxDepth = 32;                                ///< objects/arrays inside each other
  static constexpr std::size_t kMaxMembers = 1024;       ///< keys of one object (tensors, defines, ...)
  static constexpr std::size_t kMaxNameBytes = 256;      ///< define, param and tensor names, `name`
  static constexpr std::size_t kMaxStringBytes = 4096;   ///< entry, expressions, paths, options, commands
  static constexpr std::size_t kMaxTextBytes = 65536;    ///< `description`
  static constexpr std::size_t kMaxListLength = 1024;    ///< args, options, shape entries, ...
  static constexpr std::size_t kMaxSweepPoints = 10000;  ///< product of the sweep's value counts
  static constexpr std::size_t kMaxCaptures = 100000;    ///< sweep points x trials
};

struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> shape;    ///< expressions
  std::vector<std::string> strides;  ///< expressions in elements; empty = contiguous row-major
  std::string init;                  ///< "", randn, rand, zeros, ones, arange, npy:PATH
  std::uint64_t seed = 0;            ///< defaults to a hash of the tensor's name
  double scale = 1.0;
  bool output = false;
  std::string expected;  ///< "npy:PATH" on an output, or ""
};

/// Where a `bytes` argument gets a device pointer: the 8 bytes at `offset`
/// become the replay's address of `tensor` plus `delta` bytes.
struct ArgRelocation {
  std::uint32_t offset = 0;
  std::string tensor;
  std::int64_t delta = 0;
};

/// The most bytes a kernel's parameters can hold (CUDA 12.1+ on Volta and later).
inline constexpr std::size_t kMaxKernelParamBytes = 32764;

struct ArgSpec {
  std::string text;  ///< as written in the config ("bytes(1048)" for a bytes argument)
  bool isTensor = false;
  std::string tensor;  ///< when isTensor
  std::string expr;    ///< when !isTensor
  ScalarType type = ScalarType::i32;
  /// `{"kind": "bytes", ...}` (docs/config.md): a parameter passed as its raw
  /// bytes (a struct by value), with device pointers written in at `relocations`.
  bool isBytes = false;
  std::vector<std::uint8_t> bytes;         ///< the parameter's content (from `hex` or `file`)
  std::vector<ArgRelocation> relocations;  ///< as the config lists them
  std::vector<std::uint32_t> ambiguous;    ///< offsets a capture could not tell from integers (left as bytes)
  std::string file{};                      ///< a bytes argument's `file` as written ("": given as `hex`)
  std::uint32_t size{0};                   ///< a bytes argument's `size` as written (0: not given)
  bool integer = false;  ///< given as a JSON integer (2), not a string ("2"): written as one
};

struct LaunchSpec {
  std::vector<std::string> grid{"1", "1", "1"};
  std::vector<std::string> block{"1", "1", "1"};
  std::string sharedBytes = "0";
  /// CUDA: a thread-block cluster per launch (`launch.cluster`, extension);
  /// each dimension divides the grid's.
  std::vector<std::string> cluster{"1", "1", "1"};
  /// The kernel's host code raises the dynamic shared-memory limit this launch needs
  /// (`launch.shared_opt_in`, extension): capture sets it where the program's launch
  /// ran with dynamic shared memory, so no finding tells the program to opt in.
  bool sharedOptIn = false;
};

struct TileSpec {
  std::string tensor;
  std::vector<std::string> tile;    ///< extent per dimension (expressions)
  std::vector<std::string> origin;  ///< first index per dimension (expressions over pid_x…)
};

/// A define's value: integers are also expression symbols; strings only become -D flags.
/// Triton constexprs use the same type (kernel.constexprs), plus booleans.
struct DefineValue {
  bool isInt = true;
  std::int64_t i = 0;
  std::string s;                  ///< a string's text, or a non-integer number as JSON writes it
  bool isNumber = false;          ///< a non-integer number (s holds it)
  bool isBool = false;            ///< a Triton boolean constexpr (s is "true"/"false")
  std::string flagText() const;   ///< the text after `-DNAME=`
  nlohmann::json toJson() const;  ///< the value as the config wrote it
  /// The value of a JSON value: an integer, a boolean, a string, or any other
  /// JSON (a float, an integer past int64) kept as its text. Any nlohmann type.
  template <class Json>
  static DefineValue fromJson(const Json& v) {
    DefineValue d;
    if (v.is_number_integer() && !(v.is_number_unsigned() && v.template get<std::uint64_t>() > INT64_MAX)) {
      d.i = v.template get<std::int64_t>();
      return d;
    }
    d.isInt = false;
    d.isBool = v.is_boolean();
    d.isNumber = !v.is_boolean() && !v.is_string();
    d.s = v.is_string() ? v.template get<std::string>() : v.dump();
    return d;
  }
};

/// A Triton kernel's launch options (kernel.num_warps, ...): config keys, symbols of
/// its expressions, sweep keys, and the names the Triton helper and reports use.
inline constexpr const char* kNumWarps = "num_warps";
inline constexpr const char* kNumStages = "num_stages";
inline constexpr const char* kNumCtas = "num_ctas";
/// The names a Triton config adds to the symbols (docs/config.md): its launch options.
inline constexpr const char* kTritonOptionNames[] = {kNumWarps, kNumStages, kNumCtas};

struct KernelSpec {
  std::string language = "cuda";     ///< cuda (CUDA C++, PTX, cubin) | triton | tilelang
  std::string source;                ///< as written (relative to the config's folder)
  std::filesystem::path sourcePath;  ///< resolved
  std::filesystem::path baseDir;  ///< the config's folder: relative include paths in `options` resolve here
  std::string entry;
  std::string compiler = "nvrtc";  ///< nvrtc | nvcc (for .cu sources)
  std::vector<std::string> options;
  /// CUDA: -D defines. Triton/TileLang: the constexprs (kernel.constexprs), in file order.
  std::vector<std::pair<std::string, DefineValue>> defines;
  // Triton launch options (kernel.num_warps, ...); symbols of a Triton config's expressions.
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  /// Triton and TileLang kernels are Python: compiled by the helper, launched from their metadata.
  bool isPython() const { return language == "triton" || language == "tilelang"; }
  bool isTriton() const { return language == "triton"; }
};

struct ReferenceSpec {
  std::string op = "none";  ///< gemm | sdpa | kernel | npy | none
  // gemm
  std::string a, b, out;
  bool transA = false, transB = false;
  double alpha = 1.0, beta = 0.0;
  // sdpa (layout bhsd): q, k, v, out
  std::string q, k, v;
  std::optional<double> scale;
  bool causal = false;
  std::string layout = "bhsd";
  // kernel: a trusted second kernel
  KernelSpec kernel;
  std::vector<ArgSpec> args;
  LaunchSpec launch;
};

struct BaselineSpec {
  std::string kind = "none";  ///< cublas | sdpa | sdpa_math | none | command
  std::string command;        ///< for kind == command
  std::string parse = "json";
};

struct Tolerance {
  double rtol = 1e-2;
  double atol = 1e-2;
};

/// Run-control settings (docs/config.md `run`, an extension; all optional).
struct RunSettings {
  double timeoutS = 0;       ///< watchdog per worker; 0 = the tool's default
  double slowFactor = 1.5;   ///< slow_vs_baseline when kernel/baseline > this
  double timeBudgetS = 2.0;  ///< timing budget per timed function
  int minReps = 10;
  int maxReps = 1000;
  int warmup = 3;
  bool counters = true;              ///< the profiling pass: hardware counters and PC sampling
  std::string counterSet;            ///< "basic" | "full" | "none" when `counters` names a set, else
  std::vector<std::string> metrics;  ///< extra metrics by ncu name (checked against the chip's list)
};

struct SweepAxis {
  std::string name;  ///< a define or a param
  std::vector<std::int64_t> values;
};

struct Config {
  std::string schema = kConfigSchema;
  std::string name;
  std::string description;     ///< optional free text (extension, docs/config.md)
  std::filesystem::path path;  ///< the file loaded ("" when parsed from text)
  std::filesystem::path dir;   ///< relative paths resolve against this
  KernelSpec kernel;
  std::vector<std::pair<std::string, std::int64_t>> params;  ///< in file order
  std::vector<TensorSpec> tensors;                           ///< in file order
  std::vector<ArgSpec> args;
  LaunchSpec launch;
  std::vector<TileSpec> tiles;
  ReferenceSpec reference;
  BaselineSpec baseline;
  Tolerance tolerance;
  RunSettings run;
  std::vector<SweepAxis> sweep;
  int trials = 1;
  /// The document as loaded (shared: every sweep point refers to the same one).
  std::shared_ptr<const nlohmann::json> raw;

  const TensorSpec* tensor(const std::string& name) const;
};

/// Loads and validates a config file; throws ConfigError naming the JSON path.
/// Every expression is checked to parse and to use only known symbols.
Config loadConfig(const std::filesystem::path& file);
/// Same, from a parsed document (dir resolves relative paths). nlohmann::json
/// sorts object keys, so "file order" (defines, params, tensors, sweep) becomes
/// alphabetical order here; parseConfigText keeps the text's order.
Config parseConfig(const nlohmann::json& doc, const std::filesystem::path& dir);
/// Same, from JSON text (keys in text order). `label` names the text in
/// "invalid JSON" errors ("<label>:<line>:<col>: invalid JSON: ...").
Config parseConfigText(const std::string& text, const std::filesystem::path& dir,
                       const std::string& label = "<config>");

/// One point of a sweep: the config with the sweep's values substituted.
struct SweepPoint {
  int index = 0;
  std::vector<std::pair<std::string, std::int64_t>> values;  ///< this point's sweep values
  Config config;              ///< defines/params replaced by the point's values
  std::string label() const;  ///< "BLOCK_M=64 BLOCK_N=32"
};

/// The cartesian product of config.sweep (a config without a sweep is one point).
/// Throws ConfigError at `sweep` above ConfigLimits::kMaxSweepPoints.
std::vector<SweepPoint> expandSweep(const Config& config);

/// The number of points of config.sweep (1 without a sweep), saturating at SIZE_MAX.
std::size_t sweepPointCount(const Config& config);
/// Throws ConfigError at `jsonPath` when points x trials exceeds
/// ConfigLimits::kMaxCaptures (or trials < 1).
void checkCaptureCount(const Config& config, std::int64_t trials, const std::string& jsonPath);

/// Inputs whose values the tool generates from a float distribution (randn, rand,
/// ones, arange on a float dtype; not .npy data, not outputs): the ones
/// `scaleInputs` changes.
std::vector<std::string> scalableInputs(const Config& config);
/// Multiplies the `scale` of every scalable input by `factor` (diagnose's
/// input_scale experiment: do NaN/Inf depend on the inputs' magnitude?).
void scaleInputs(Config& config, double factor);

/// The symbols every expression of a point sees: integer defines (constexprs), then
/// params, and for a Triton config num_warps, num_stages and num_ctas.
std::map<std::string, std::int64_t> pointSymbols(const Config& config);

/// a * b for a, b >= 0, saturating at INT64_MAX instead of overflowing (launch
/// geometry from expressions can reach 2^53 per dimension).
std::int64_t mulSaturating(std::int64_t a, std::int64_t b);
/// A point's defines as a report shows them (Point.defines): the defines, or a Triton
/// kernel's constexprs plus num_warps, num_stages and num_ctas.
nlohmann::json pointDefines(const Config& config);

/// Sets one integer symbol of a config: an integer define or constexpr, a param, or a
/// Triton launch option (num_warps, num_stages, num_ctas). Sweeps, `worker --set` and
/// diagnose's experiments all go through here. False when `name` is none of these.
bool setPointSymbol(Config& config, const std::string& name, std::int64_t value);

/// Applies one `NAME=VALUE` override (`tilescope-run worker --set`) through
/// setPointSymbol. Throws ConfigError at "--set" naming the problem: no `=`, a
/// value that is not a whole decimal integer in int64 range, or a NAME that is none
/// of the point's symbols.
void applySetOverride(Config& config, const std::string& assignment);

/// Evaluated launch geometry and tensor shapes of one point.
struct ResolvedTensor {
  const TensorSpec* spec = nullptr;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  ///< elements
  std::int64_t elements = 0;          ///< product of shape
  std::int64_t spanElements = 0;      ///< 1 + max offset reachable through strides
  std::uint64_t bytes() const;        ///< spanElements * dtype size
};

struct ResolvedLaunch {
  std::int64_t grid[3] = {1, 1, 1};
  std::int64_t block[3] = {1, 1, 1};
  std::int64_t sharedBytes = 0;
  std::int64_t cluster[3] = {1, 1, 1};
  bool sharedOptIn = false;              ///< LaunchSpec::sharedOptIn
  std::int64_t threadsPerBlock() const;  ///< saturates at INT64_MAX
  std::int64_t blocks() const;           ///< saturates at INT64_MAX
};

/// A plain decimal literal ("4359484439294640128", "-3") of a :u64 or :i64
/// argument: exact over the type's whole range, where an expression is exact
/// below 2^53 only (a captured 64-bit integer is often above it). The value's
/// bits as an int64 (a u64 above 2^63 wraps, as its 8 bytes do); nullopt for
/// another type or anything but a literal.
std::optional<std::int64_t> exactIntegerLiteral(const std::string& text, ScalarType type);

struct ResolvedScalarArg {
  ScalarType type = ScalarType::i32;
  std::int64_t i = 0;
  double f = 0;
};

struct ResolvedPoint {
  std::map<std::string, std::int64_t> symbols;
  std::vector<ResolvedTensor> tensors;  ///< same order as config.tensors
  ResolvedLaunch launch;
  const ResolvedTensor* tensor(const std::string& name) const;
};

/// Evaluates every expression of a config point; throws ConfigError with the JSON path.
ResolvedPoint resolvePoint(const Config& config);

/// Evaluates a launch block (grid/block >= 1, shared_bytes >= 0); errors name
/// `jsonPath`.grid[i] etc. (used for the main launch and a reference kernel's).
ResolvedLaunch resolveLaunch(const LaunchSpec& launch, const std::map<std::string, std::int64_t>& symbols,
                             const std::string& jsonPath = "launch");

/// The symbols a `tiles` expression sees for CTA (x, y, z): the point's symbols
/// plus pid_x pid_y pid_z and nctas_x nctas_y nctas_z (the grid).
std::map<std::string, std::int64_t> tileSymbols(const std::map<std::string, std::int64_t>& pointSymbols,
                                                const ResolvedLaunch& launch, std::int64_t pidX,
                                                std::int64_t pidY, std::int64_t pidZ);

/// Evaluates one scalar argument (integer or floating, by its type).
ResolvedScalarArg resolveScalarArg(const ArgSpec& arg, const std::map<std::string, std::int64_t>& symbols,
                                   const std::string& jsonPath);

/// Tensor data in .npy files (`init`/`expected` "npy:PATH"; the format is npy.h's).
struct NpyArray;
/// The file an "npy:PATH" reference names (relative paths against config.dir).
std::filesystem::path npyRefPath(const Config& config, const std::string& ref);
/// Checks the tensor's `init` (expected == false) or `expected` file against its
/// dtype and resolved shape; throws ConfigError at tensors.NAME.init / .expected
/// naming the file and both dtypes and shapes.
void checkTensorNpy(const Config& config, const ResolvedTensor& tensor, bool expected);
/// Same check, then the data (C order over the tensor's logical shape); include
/// npy.h to use the result.
NpyArray loadTensorNpy(const Config& config, const ResolvedTensor& tensor, bool expected);

/// The config as JSON (for the report's `config` field): the raw document with
/// `name`, defines and params of the point substituted.
nlohmann::json configToJson(const Config& config);

}  // namespace tilescope
