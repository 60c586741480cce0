// Sweep expansion and the resolved config document of a point.
#include <charconv>
#include <cstdint>

#include "config_detail.h"
#include "tilescope/config/config.h"

namespace tilescope {

std::string DefineValue::flagText() const { return isInt ? std::to_string(i) : s; }

nlohmann::json DefineValue::toJson() const {
  if (isInt) return i;
  if (isBool) return s == "true";
  if (isNumber) return nlohmann::json::parse(s);
  return s;
}

bool setPointSymbol(Config& c, const std::string& name, std::int64_t value) {
  bool found = false;
  for (auto& [n, v] : c.kernel.defines)
    if (n == name) {
      v = DefineValue{};  // an override makes it an integer (and a symbol)
      v.i = value;
      found = true;
    }
  for (auto& [n, v] : c.params)
    if (n == name) {
      v = value;
      found = true;
    }
  if (c.kernel.isTriton()) {
    int* options[] = {&c.kernel.numWarps, &c.kernel.numStages, &c.kernel.numCtas};
    for (std::size_t i = 0; i < 3; ++i)
      if (name == kTritonOptionNames[i]) {
        *options[i] = static_cast<int>(value);
        found = true;
      }
  }
  return found;
}

void applySetOverride(Config& c, const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos) throw ConfigError("--set", "expected NAME=VALUE, got '" + kv + "'");
  const std::string name = kv.substr(0, eq), text = kv.substr(eq + 1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw ConfigError("--set", "'" + name + "': the value '" + text + "' is not an integer" +
                                   (ec == std::errc::result_out_of_range ? " in int64 range" : ""));
  if (!setPointSymbol(c, name, value))
    throw ConfigError("--set", "'" + name + "' is neither a define nor a param" +
                                   (c.kernel.isTriton() ? " nor a Triton launch option" : ""));
}

nlohmann::json pointDefines(const Config& config) {
  nlohmann::json d = nlohmann::json::object();
  for (const auto& [name, v] : config.kernel.defines) d[name] = v.toJson();
  if (config.kernel.isTriton()) {
    d[kNumWarps] = config.kernel.numWarps;
    d[kNumStages] = config.kernel.numStages;
    d[kNumCtas] = config.kernel.numCtas;
  }
  return d;
}

std::string SweepPoint::label() const {
  std::string s;
  for (const auto& [name, v] : values) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(v);
  return s;
}

std::size_t sweepPointCount(const Config& config) {
  std::size_t total = 1;
  for (const auto& axis : config.sweep) {
    const std::size_t n = axis.values.size();
    if (n != 0 && total > SIZE_MAX / n) return SIZE_MAX;
    total *= n;
  }
  return total;
}

void checkCaptureCount(const Config& config, std::int64_t trials, const std::string& jsonPath) {
  const std::size_t points = sweepPointCount(config);
  if (points > ConfigLimits::kMaxSweepPoints)
    throw ConfigError("sweep", "the sweep has " + std::to_string(points) + " points, over the limit of " +
                                   std::to_string(ConfigLimits::kMaxSweepPoints));
  if (trials < 1) throw ConfigError(jsonPath, "trials must be >= 1, found " + std::to_string(trials));
  if (static_cast<std::uint64_t>(trials) > ConfigLimits::kMaxCaptures / points)
    throw ConfigError(jsonPath, std::to_string(points) + " point(s) x " + std::to_string(trials) +
                                    " trials is over the limit of " +
                                    std::to_string(ConfigLimits::kMaxCaptures) + " captures");
}

std::vector<SweepPoint> expandSweep(const Config& config) {
  const std::size_t total = sweepPointCount(config);
  if (total > ConfigLimits::kMaxSweepPoints)
    throw ConfigError("sweep", "the sweep has " + std::to_string(total) + " points, over the limit of " +
                                   std::to_string(ConfigLimits::kMaxSweepPoints));
  std::vector<SweepPoint> points;
  points.reserve(total);
  for (std::size_t index = 0; index < total; ++index) {
    SweepPoint p;
    p.index = static_cast<int>(index);
    p.config = config;
    p.config.sweep.clear();  // a point is not a sweep
    // Mixed-radix digits of `index`, the last axis fastest (file order, first key slowest).
    std::size_t rest = index;
    std::vector<std::int64_t> chosen(config.sweep.size());
    for (std::size_t a = config.sweep.size(); a-- > 0;) {
      const auto& values = config.sweep[a].values;
      chosen[a] = values[rest % values.size()];
      rest /= values.size();
    }
    for (std::size_t a = 0; a < config.sweep.size(); ++a) {
      p.values.emplace_back(config.sweep[a].name, chosen[a]);
      setPointSymbol(p.config, config.sweep[a].name, chosen[a]);
    }
    points.push_back(std::move(p));
  }
  return points;
}

nlohmann::json configToJson(const Config& config) {
  // The loaded document, with the point's values written over it by the field lists.
  detail::Json doc =
      config.raw && config.raw->is_object() ? detail::Json(*config.raw) : detail::Json::object();
  detail::writePointFields(config, doc);
  return nlohmann::json(doc);
}

}  // namespace tilescope
