// loadConfig / parseConfig: the top level of tilescope.config/1 (docs/config.md).
#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope {

using detail::Json;
using detail::Node;

namespace {

JsonLimits configJsonLimits() {
  JsonLimits l;
  l.maxBytes = ConfigLimits::kMaxFileBytes;
  l.maxDepth = ConfigLimits::kMaxDepth;
  l.maxMembers = ConfigLimits::kMaxMembers;
  l.rejectDuplicateKeys = true;
  return l;
}

const char* const kFunctionNames[] = {"ceil_div", "min", "max", "pow2ceil"};
const char* const kTileNames[] = {"pid_x", "pid_y", "pid_z", "nctas_x", "nctas_y", "nctas_z"};

void parseParams(const Node& n, Config& c) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node p = n.member(it);
    for (const auto& [name, value] : c.kernel.defines)
      if (name == it.key())
        p.fail("'" + name + "' is both a " +
               (c.kernel.isPython() ? "constexpr (kernel.constexprs)" : "define (kernel.defines)") +
               " and a param");
    c.params.emplace_back(it.key(), p.integer());
  }
}

/// Names that cannot be symbols: functions, the names tiles expressions add, and a
/// Triton config's launch options.
void checkSymbolName(const Node& where, const std::string& name, const KernelSpec& k) {
  for (const char* f : kFunctionNames)
    if (name == f) where.fail("'" + name + "' is a function name and cannot be a symbol");
  for (const char* t : kTileNames)
    if (name == t) where.fail("'" + name + "' is reserved for tiles expressions");
  if (detail::isTritonOption(k, name))
    where.fail("'" + name + "' is a launch option of a Triton kernel: set kernel." + name);
}

detail::SymbolCheck baseSymbols(const Config& c) {
  detail::SymbolCheck s;
  for (const auto& [name, v] : c.kernel.defines) {
    if (v.isInt)
      s.names.insert(name);
    else
      s.stringDefines.insert(name);
  }
  for (const auto& [name, v] : c.params) s.names.insert(name);
  if (c.kernel.isTriton())
    for (const char* o : kTritonOptionNames) s.names.insert(o);
  return s;
}

void parseTolerance(const Node& n, Config& c) {
  n.onlyKeys({"rtol", "atol"});
  if (n.has("rtol")) c.tolerance.rtol = n.at("rtol").number();
  if (n.has("atol")) c.tolerance.atol = n.at("atol").number();
  if (c.tolerance.rtol < 0) n.at("rtol").fail("must be >= 0");
  if (c.tolerance.atol < 0) n.at("atol").fail("must be >= 0");
}

int parseTrials(const Node& n) {
  std::int64_t t = n.integer();
  if (t < 1 || t > 100000) n.fail("trials must be between 1 and 100000, found " + std::to_string(t));
  return static_cast<int>(t);
}

Config parseOrdered(const Json& doc, const std::filesystem::path& dir) {
  Node root{doc, ""};
  root.needObject();
  if (!doc.contains("schema"))
    throw ConfigError("schema", "missing (expected \"" + std::string(kConfigSchema) + "\")");
  Node schema = root.at("schema");
  if (!schema.j.is_string() || schema.j.get<std::string>() != kConfigSchema)
    schema.fail("expected \"" + std::string(kConfigSchema) + "\", found " + schema.j.dump());
  root.onlyKeys({"schema", "name", "description", "kernel", "params", "tensors", "args", "launch", "tiles",
                 "reference", "baseline", "tolerance", "run", "sweep", "trials"});

  Config c;
  c.dir = dir;
  c.raw = std::make_shared<const nlohmann::json>(nlohmann::json::parse(doc.dump()));
  if (root.has("name")) c.name = root.at("name").str(ConfigLimits::kMaxNameBytes);
  if (root.has("description")) c.description = root.at("description").str(ConfigLimits::kMaxTextBytes);
  detail::parseKernel(root.at("kernel"), dir, c.kernel, false);
  const char* definesKey = c.kernel.isPython() ? "constexprs" : "defines";
  for (const auto& [name, v] : c.kernel.defines)
    checkSymbolName(root.at("kernel").at(definesKey).at(name), name, c.kernel);
  if (root.has("params")) parseParams(root.at("params"), c);
  for (const auto& [name, v] : c.params) checkSymbolName(root.at("params").at(name), name, c.kernel);
  if (c.name.empty()) c.name = c.kernel.entry;

  detail::SymbolCheck symbols = baseSymbols(c);
  detail::parseTensors(root.at("tensors"), c, symbols);
  Node args = root.at("args");
  args.needShortArray();
  for (std::size_t i = 0; i < args.j.size(); ++i) c.args.push_back(detail::parseArg(args.at(i), c, symbols));
  c.launch = detail::parseLaunch(root.at("launch"), symbols, c.kernel);
  if (root.has("tiles")) {
    detail::SymbolCheck tileSymbols = symbols;
    for (const char* t : kTileNames) tileSymbols.names.insert(t);
    detail::parseTiles(root.at("tiles"), c, tileSymbols);
  }
  if (root.has("reference")) detail::parseReference(root.at("reference"), c, symbols);
  if (root.has("baseline")) detail::parseBaseline(root.at("baseline"), c);
  if (root.has("tolerance")) parseTolerance(root.at("tolerance"), c);
  if (root.has("run")) detail::parseRun(root.at("run"), c);
  if (root.has("trials")) c.trials = parseTrials(root.at("trials"));
  std::string trialsPath = "trials";
  if (root.has("sweep")) {
    Node sweep = root.at("sweep");
    detail::parseSweep(sweep, c);
    if (sweep.has("trials")) {
      if (root.has("trials")) sweep.at("trials").fail("trials is also given at the top level; give it once");
      c.trials = parseTrials(sweep.at("trials"));
      trialsPath = "sweep.trials";
    }
  }
  checkCaptureCount(c, c.trials, trialsPath);
  return c;
}

}  // namespace

Config parseConfigText(const std::string& text, const std::filesystem::path& dir, const std::string& label) {
  Json doc;
  try {
    doc = parseJsonOrdered(text, configJsonLimits());
  } catch (const JsonInputError& e) {
    // Broken JSON is located by line:col in the text; a limit by its JSON path.
    if (e.syntax) throw ConfigError(label + ":" + e.where, e.problem);
    throw ConfigError(e.where.empty() ? label : e.where, e.problem);  // the size limit is the text's
  }
  return parseOrdered(doc, dir);
}

Config parseConfig(const nlohmann::json& doc, const std::filesystem::path& dir) {
  // Through the text, so that a document built in memory meets the same limits.
  return parseConfigText(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), dir);
}

Config loadConfig(const std::filesystem::path& file) {
  std::string text;
  try {
    text = readInputFile(file, ConfigLimits::kMaxFileBytes);
  } catch (const JsonInputError& e) {
    throw ConfigError(file.string(), e.problem);
  }
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  Config c = parseConfigText(text, dir, file.string());
  c.path = file;
  return c;
}

const TensorSpec* Config::tensor(const std::string& tensorName) const {
  for (const auto& t : tensors)
    if (t.name == tensorName) return &t;
  return nullptr;
}

}  // namespace tilescope
