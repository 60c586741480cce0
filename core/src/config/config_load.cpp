// loadConfig / parseConfig: the top level of tilescope.config/1 (docs/config.md).
#include "config_detail.h"
#include "tilescope/base/json_input.h"

namespace tilescope {

using detail::Json;

namespace {

JsonLimits configJsonLimits() {
  JsonLimits l;
  l.maxBytes = ConfigLimits::kMaxFileBytes;
  l.maxDepth = ConfigLimits::kMaxDepth;
  l.maxMembers = ConfigLimits::kMaxMembers;
  l.rejectDuplicateKeys = true;
  return l;
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
  return detail::readConfigDocument(doc, dir);
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
