// openDocument: one way in for the files a person names (open_document.h).
#include "tilescope/export/open_document.h"

#include <optional>
#include <stdexcept>

#include "tilescope/base/json_input.h"

namespace tilescope {

namespace {

/// The schema a document names, or "".
std::string schemaOf(const nlohmann::json& j) {
  const auto it = j.is_object() ? j.find("schema") : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

[[noreturn]] void refuse(const std::filesystem::path& path, DocumentKind kind, const std::string& problem) {
  if (kind == DocumentKind::config) throw ConfigError(path.string(), problem);
  throw std::runtime_error(path.string() + ": " + problem);
}

}  // namespace

OpenedDocument openDocument(const std::filesystem::path& path, DocumentKind assumed) {
  const bool config = assumed == DocumentKind::config;
  OpenedDocument doc{assumed, path, nullptr, {}, {}};
  std::string text;
  try {
    text = readInputFile(path, config ? ConfigLimits::kMaxFileBytes : kMaxReportBytes);
  } catch (const JsonInputError& e) {
    refuse(path, assumed, e.problem);
  }
  // A report, the largest document by far, is decoded without a document
  // (reportFromText); anything else, and any text it leaves, is parsed.
  std::optional<Report> report;
  try {
    report = reportFromText(text);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  if (report) {
    doc.kind = DocumentKind::report;
    doc.report = std::make_shared<const Report>(std::move(*report));
    return doc;
  }
  nlohmann::json j;
  try {
    j = parseJson(text);  // the report's limits: a config's own are checked when it loads
  } catch (const std::exception& e) {
    if (!config) refuse(path, assumed, e.what());
    doc.configText = std::move(text);  // the config loader says where ("FILE:3:7: invalid JSON")
    return doc;
  }
  const std::string schema = schemaOf(j);
  if (startsWith(schema, "tilescope.config/") || (config && !startsWith(schema, "tilescope.report/"))) {
    doc.kind = DocumentKind::config;
    doc.configText = std::move(text);
    return doc;
  }
  if (startsWith(schema, "tilescope.triage/")) {
    doc.kind = DocumentKind::triage;
    doc.triage = std::move(j);
    return doc;
  }
  doc.kind = DocumentKind::report;
  try {
    doc.report = std::make_shared<const Report>(reportFromJson(j));
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  return doc;
}

Config loadConfigDocument(const OpenedDocument& doc) {
  std::filesystem::path dir = doc.path.parent_path();
  if (dir.empty()) dir = ".";
  Config c = parseConfigText(doc.configText, dir, doc.path.string());
  c.path = doc.path;
  return c;
}

}  // namespace tilescope
