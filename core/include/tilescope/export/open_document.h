// Opening a file a person names: a TileScope config or a report, told apart by
// its schema and read with the input limits (a regular file, a size, a nesting
// depth). The CLI (`export`, `check`) and the workbench open files through it,
// so a wrong file gets the same message in both.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "tilescope/config/config.h"
#include "tilescope/model/report.h"

namespace tilescope {

/// triage: a tilescope.triage/1 file (docs/triage.md), handed over parsed: the
/// triage layer, above this one, reads it (triageFromJson).
enum class DocumentKind { config, report, triage };

struct OpenedDocument {
  DocumentKind kind = DocumentKind::report;
  std::filesystem::path path;
  std::shared_ptr<const Report> report;  ///< kind report: read and checked
  std::string configText;                ///< kind config: the text as read (loadConfigDocument validates it)
  nlohmann::json triage;                 ///< kind triage: the parsed document
};

/// Reads `path` and tells a config (schema "tilescope.config/N") from a report.
/// Text that is not JSON, or JSON of neither schema, is taken for `assumed`, so
/// its error is that kind's: a report's is a std::runtime_error "PATH: where: what"
/// ("PATH: line 3, column 7: invalid JSON: ...", "PATH: points[2].verdict: ..."),
/// a config's a ConfigError naming the file, as loadConfig throws. At most
/// kMaxReportBytes are read, ConfigLimits::kMaxFileBytes when a config is assumed.
OpenedDocument openDocument(const std::filesystem::path& path, DocumentKind assumed = DocumentKind::report);

/// The config of a document openDocument took for one, validated as loadConfig
/// validates it (ConfigError names the JSON path).
Config loadConfigDocument(const OpenedDocument& doc);

}  // namespace tilescope
