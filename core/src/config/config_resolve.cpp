// Evaluating a config point: symbols, tensor shapes and strides, launch geometry.
#include <bit>
#include <charconv>
#include <limits>
#include <optional>

#include "config_detail.h"
#include "tilescope/base/expr.h"
#include "tilescope/base/format.h"
#include "tilescope/config/config.h"

namespace tilescope {

namespace {

// A tensor larger than 1 TiB is a typo in a shape, not a real problem size.
constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{1} << 40;
constexpr std::int64_t kExactLimit = std::int64_t{1} << 53;

std::int64_t eval(const std::string& expr, const SymbolTable& symbols, const std::string& path) {
  try {
    return evalInt(expr, symbols);
  } catch (const ExprError& e) {
    throw ConfigError(path, e.what());
  }
}

std::string indexed(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// a * b, or an error at `path` when the product reaches 2^53.
std::int64_t mulChecked(std::int64_t a, std::int64_t b, const std::string& path, const char* what) {
  if (a != 0 && b > (kExactLimit - 1) / a) throw ConfigError(path, std::string(what) + " reaches 2^53");
  return a * b;
}

ResolvedTensor resolveTensor(const TensorSpec& spec, const SymbolTable& symbols) {
  const std::string base = "tensors." + spec.name;
  ResolvedTensor t;
  t.spec = &spec;
  t.elements = 1;
  for (std::size_t i = 0; i < spec.shape.size(); ++i) {
    std::int64_t d = eval(spec.shape[i], symbols, indexed(base + ".shape", i));
    if (d <= 0)
      throw ConfigError(indexed(base + ".shape", i),
                        "dimension must be > 0, '" + spec.shape[i] + "' is " + std::to_string(d));
    t.shape.push_back(d);
    t.elements = mulChecked(t.elements, d, base + ".shape", "element count");
  }
  if (spec.strides.empty()) {
    t.strides.assign(t.shape.size(), 1);
    for (std::size_t i = t.shape.size(); i-- > 1;) t.strides[i - 1] = t.strides[i] * t.shape[i];
  } else {
    for (std::size_t i = 0; i < spec.strides.size(); ++i) {
      std::int64_t s = eval(spec.strides[i], symbols, indexed(base + ".strides", i));
      if (s < 0)
        throw ConfigError(indexed(base + ".strides", i),
                          "stride must be >= 0, '" + spec.strides[i] + "' is " + std::to_string(s));
      t.strides.push_back(s);
    }
  }
  // The buffer must reach the element with the largest offset.
  t.spanElements = 1;
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    t.spanElements += mulChecked(t.shape[i] - 1, t.strides[i], base + ".strides", "largest offset");
    if (t.spanElements >= kExactLimit) throw ConfigError(base + ".strides", "largest offset reaches 2^53");
  }
  if (t.bytes() > kMaxTensorBytes)
    throw ConfigError(base + ".shape", "tensor of " + std::to_string(t.bytes()) +
                                           " bytes is over the 1 TiB limit (check the shape)");
  return t;
}

}  // namespace

std::int64_t mulSaturating(std::int64_t a, std::int64_t b) {
  if (a <= 0 || b <= 0) return 0;  // a dimension below 1 is reported on its own
  return a > std::numeric_limits<std::int64_t>::max() / b ? std::numeric_limits<std::int64_t>::max() : a * b;
}

std::int64_t ResolvedLaunch::threadsPerBlock() const {
  return mulSaturating(mulSaturating(block[0], block[1]), block[2]);
}
std::int64_t ResolvedLaunch::blocks() const {
  return mulSaturating(mulSaturating(grid[0], grid[1]), grid[2]);
}

std::uint64_t ResolvedTensor::bytes() const {
  return static_cast<std::uint64_t>(spanElements) * (spec ? dtypeSize(spec->dtype) : 1);
}

const ResolvedTensor* ResolvedPoint::tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.spec && t.spec->name == name) return &t;
  return nullptr;
}

std::map<std::string, std::int64_t> pointSymbols(const Config& config) {
  std::map<std::string, std::int64_t> s;
  for (const auto& [name, v] : config.kernel.defines)
    if (v.isInt) s[name] = v.i;
  for (const auto& [name, v] : config.params) s[name] = v;
  if (config.kernel.isTriton()) {
    s[kNumWarps] = config.kernel.numWarps;
    s[kNumStages] = config.kernel.numStages;
    s[kNumCtas] = config.kernel.numCtas;
  }
  return s;
}

std::map<std::string, std::int64_t> tileSymbols(const std::map<std::string, std::int64_t>& point,
                                                const ResolvedLaunch& launch, std::int64_t pidX,
                                                std::int64_t pidY, std::int64_t pidZ) {
  auto s = point;
  const std::int64_t values[] = {pidX, pidY, pidZ, launch.grid[0], launch.grid[1], launch.grid[2]};
  for (std::size_t i = 0; i < std::size(values); ++i) s[detail::kTileNames[i]] = values[i];
  return s;
}

/// `launch.cluster`: each dimension >= 1 and dividing the grid's, at most 16
/// CTAs in all (the most a Hopper cluster holds, non-portable above 8).
void resolveCluster(const LaunchSpec& launch, const std::string& jsonPath,
                    const std::map<std::string, std::int64_t>& symbols, ResolvedLaunch& r) {
  std::int64_t ctas = 1;
  for (int i = 0; i < 3; ++i) {
    const std::string cp = indexed(jsonPath + ".cluster", i);
    const std::string text = i < int(launch.cluster.size()) ? launch.cluster[i] : "1";
    r.cluster[i] = eval(text, symbols, cp);
    if (r.cluster[i] < 1 || r.cluster[i] > 16)
      throw ConfigError(cp,
                        "cluster dimension must be 1..16, '" + text + "' is " + std::to_string(r.cluster[i]));
    if (r.grid[i] % r.cluster[i] != 0)
      throw ConfigError(cp, "cluster dimension " + std::to_string(r.cluster[i]) + " does not divide grid " +
                                std::to_string(r.grid[i]));
    ctas *= r.cluster[i];
  }
  if (ctas > 16)
    throw ConfigError(jsonPath + ".cluster", "a cluster of " + std::to_string(ctas) + " CTAs: at most 16");
}

ResolvedLaunch resolveLaunch(const LaunchSpec& launch, const std::map<std::string, std::int64_t>& symbols,
                             const std::string& jsonPath) {
  ResolvedLaunch r;
  for (int i = 0; i < 3; ++i) {
    const std::string gp = indexed(jsonPath + ".grid", i), bp = indexed(jsonPath + ".block", i);
    r.grid[i] = i < static_cast<int>(launch.grid.size()) ? eval(launch.grid[i], symbols, gp) : 1;
    r.block[i] = i < static_cast<int>(launch.block.size()) ? eval(launch.block[i], symbols, bp) : 1;
    if (r.grid[i] < 1)
      throw ConfigError(
          gp, "grid dimension must be >= 1, '" + launch.grid[i] + "' is " + std::to_string(r.grid[i]));
    if (r.block[i] < 1)
      throw ConfigError(
          bp, "block dimension must be >= 1, '" + launch.block[i] + "' is " + std::to_string(r.block[i]));
  }
  r.sharedBytes = eval(launch.sharedBytes, symbols, jsonPath + ".shared_bytes");
  r.sharedOptIn = launch.sharedOptIn;
  if (r.sharedBytes < 0)
    throw ConfigError(jsonPath + ".shared_bytes",
                      "must be >= 0, '" + launch.sharedBytes + "' is " + std::to_string(r.sharedBytes));
  resolveCluster(launch, jsonPath, symbols, r);
  return r;
}

std::optional<std::int64_t> exactIntegerLiteral(const std::string& text, ScalarType type) {
  if (type != ScalarType::u64 && type != ScalarType::i64) return std::nullopt;
  const std::string_view s = trimmed(text);
  if (s.empty()) return std::nullopt;
  const char* end = s.data() + s.size();
  if (type == ScalarType::u64) {
    std::uint64_t u = 0;
    auto [p, ec] = std::from_chars(s.data(), end, u);
    if (ec != std::errc() || p != end) return std::nullopt;
    return std::bit_cast<std::int64_t>(u);
  }
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

ResolvedScalarArg resolveScalarArg(const ArgSpec& arg, const std::map<std::string, std::int64_t>& symbols,
                                   const std::string& jsonPath) {
  ResolvedScalarArg r;
  r.type = arg.type;
  if (arg.type == ScalarType::f32 || arg.type == ScalarType::f64) {
    try {
      r.f = evalFloat(arg.expr, symbols);
    } catch (const ExprError& e) {
      throw ConfigError(jsonPath, e.what());
    }
    return r;
  }
  if (auto exact = exactIntegerLiteral(arg.expr, arg.type)) {
    r.i = *exact;
    r.f = arg.type == ScalarType::u64 ? double(std::bit_cast<std::uint64_t>(r.i)) : double(r.i);
    return r;
  }
  r.i = eval(arg.expr, symbols, jsonPath);
  r.f = static_cast<double>(r.i);
  std::int64_t lo = 0, hi = kExactLimit;
  if (arg.type == ScalarType::i32)
    lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  if (arg.type == ScalarType::u32) hi = std::numeric_limits<std::uint32_t>::max();
  if (arg.type == ScalarType::i64) lo = -kExactLimit;
  if (r.i < lo || r.i > hi)
    throw ConfigError(jsonPath, "value " + std::to_string(r.i) + " of '" + arg.expr +
                                    "' does not fit :" + scalarTypeName(arg.type) +
                                    (arg.type == ScalarType::i32 ? " (write \"" + arg.expr + ":i64\")" : ""));
  return r;
}

ResolvedPoint resolvePoint(const Config& config) {
  ResolvedPoint p;
  p.symbols = pointSymbols(config);
  for (const auto& spec : config.tensors) p.tensors.push_back(resolveTensor(spec, p.symbols));
  for (const auto& t : p.tensors) {
    if (t.spec->init.rfind("npy:", 0) == 0) checkTensorNpy(config, t, false);
    if (!t.spec->expected.empty()) checkTensorNpy(config, t, true);
  }
  p.launch = resolveLaunch(config.launch, p.symbols, "launch");
  for (std::size_t i = 0; i < config.args.size(); ++i)
    if (!config.args[i].isTensor && !config.args[i].isBytes)
      resolveScalarArg(config.args[i], p.symbols, indexed("args", i));
  // Tiles: evaluate for the first CTA so that a bad expression fails here, not mid-capture.
  auto first = tileSymbols(p.symbols, p.launch, 0, 0, 0);
  for (const auto& tile : config.tiles) {
    for (std::size_t i = 0; i < tile.tile.size(); ++i) {
      std::string path = indexed("tiles." + tile.tensor + ".tile", i);
      if (eval(tile.tile[i], first, path) < 1) throw ConfigError(path, "tile extent must be >= 1");
    }
    for (std::size_t i = 0; i < tile.origin.size(); ++i)
      eval(tile.origin[i], first, indexed("tiles." + tile.tensor + ".origin", i));
  }
  if (config.reference.op == "kernel") {
    auto refSymbols = p.symbols;
    for (const auto& [name, v] : config.reference.kernel.defines)
      if (v.isInt) refSymbols[name] = v.i;
    resolveLaunch(config.reference.launch, refSymbols, "reference.launch");
    for (std::size_t i = 0; i < config.reference.args.size(); ++i)
      if (!config.reference.args[i].isTensor && !config.reference.args[i].isBytes)
        resolveScalarArg(config.reference.args[i], refSymbols, indexed("reference.args", i));
  }
  return p;
}

}  // namespace tilescope
