// loadConfig / parseConfig: the top level of tilescope.config/1 (SPEC §1).
#include <fstream>
#include <sstream>

#include "config_detail.h"

namespace tilescope {

using detail::Json;
using detail::Node;

namespace {

const char* const kFunctionNames[] = {"ceil_div", "min", "max", "pow2ceil"};
const char* const kTileNames[] = {"pid_x", "pid_y", "pid_z", "nctas_x", "nctas_y", "nctas_z"};

void parseParams(const Node& n, Config& c) {
  n.needObject();
  for (auto it = n.j.begin(); it != n.j.end(); ++it) {
    Node p{it.value(), n.path + "." + it.key()};
    for (const auto& [name, value] : c.kernel.defines)
      if (name == it.key()) p.fail("'" + name + "' is both a define (kernel.defines) and a param");
    c.params.emplace_back(it.key(), p.integer());
  }
}

/// Names that cannot be symbols: functions and the names tiles expressions add.
void checkSymbolName(const Node& where, const std::string& name) {
  for (const char* f : kFunctionNames)
    if (name == f) where.fail("'" + name + "' is a function name and cannot be a symbol");
  for (const char* t : kTileNames)
    if (name == t) where.fail("'" + name + "' is reserved for tiles expressions");
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
  if (!doc.contains("schema")) throw ConfigError("schema", "missing (expected \"" + std::string(kConfigSchema) + "\")");
  Node schema = root.at("schema");
  if (!schema.j.is_string() || schema.j.get<std::string>() != kConfigSchema)
    schema.fail("expected \"" + std::string(kConfigSchema) + "\", found " + schema.j.dump());
  root.onlyKeys({"schema", "name", "description", "kernel", "params", "tensors", "args", "launch", "tiles",
                 "reference", "baseline", "tolerance", "run", "sweep", "trials"});

  Config c;
  c.dir = dir;
  c.raw = nlohmann::json::parse(doc.dump());
  if (root.has("name")) c.name = root.at("name").str();
  if (root.has("description")) c.description = root.at("description").str();
  detail::parseKernel(root.at("kernel"), dir, c.kernel, false);
  for (const auto& [name, v] : c.kernel.defines) checkSymbolName(Node{doc["kernel"]["defines"][name], "kernel.defines." + name}, name);
  if (root.has("params")) parseParams(root.at("params"), c);
  for (const auto& [name, v] : c.params) checkSymbolName(Node{doc["params"][name], "params." + name}, name);
  if (c.name.empty()) c.name = c.kernel.entry;

  detail::SymbolCheck symbols = baseSymbols(c);
  detail::parseTensors(root.at("tensors"), c, symbols);
  Node args = root.at("args");
  args.needArray();
  for (std::size_t i = 0; i < args.j.size(); ++i) c.args.push_back(detail::parseArg(args.at(i), c, symbols));
  c.launch = detail::parseLaunch(root.at("launch"), symbols);
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
  if (root.has("sweep")) {
    Node sweep = root.at("sweep");
    detail::parseSweep(sweep, c);
    if (sweep.has("trials")) {
      if (root.has("trials")) sweep.at("trials").fail("trials is also given at the top level; give it once");
      c.trials = parseTrials(sweep.at("trials"));
    }
  }
  return c;
}

/// 1-based line and column of a byte offset (nlohmann reports bytes read so far).
std::string lineCol(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

/// nlohmann's what() starts with "[json.exception.parse_error.101] parse error at line 1, column 2: ".
std::string parseProblem(const std::string& what) {
  auto colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

Config parseConfigText(const std::string& text, const std::filesystem::path& dir, const std::string& label) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw ConfigError(label + ":" + lineCol(text, e.byte), "invalid JSON: " + parseProblem(e.what()));
  }
  return parseOrdered(doc, dir);
}

Config parseConfig(const nlohmann::json& doc, const std::filesystem::path& dir) {
  return parseOrdered(Json::parse(doc.dump()), dir);
}

Config loadConfig(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in || std::filesystem::is_directory(file)) throw ConfigError(file.string(), "cannot open config");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  Config c = parseConfigText(buffer.str(), dir, file.string());
  c.path = file;
  return c;
}

const TensorSpec* Config::tensor(const std::string& tensorName) const {
  for (const auto& t : tensors)
    if (t.name == tensorName) return &t;
  return nullptr;
}

}  // namespace tilescope
