// JSON text in and out with the limits a report is read with: the parseJson and
// dumpJson every reader and writer of reports, streams and capture folders
// uses, without the report model (model/report.h includes this).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "tilescope/base/json_input.h"

namespace tilescope {

/// Deepest nesting of arrays and objects a report or stream line may have:
/// deeper documents are rejected while parsing (a hostile file must not exhaust the
/// stack of a recursive reader). The deepest report TileScope writes nests about 10.
inline constexpr int kMaxJsonDepth = 128;
/// The largest report file read (a 10,000-point sweep with maps is about 100 MiB).
inline constexpr std::size_t kMaxReportBytes = std::size_t{512} << 20;
/// The limits a report is read with (json_input.h): kMaxReportBytes, kMaxJsonDepth,
/// 65,536 members an object, no duplicate keys.
JsonLimits reportJsonLimits();
/// Parses JSON text with reportJsonLimits() (parseJson of json_input.h). Throws
/// std::runtime_error "line L, column C: invalid JSON: ...", "line L, column C:
/// nested deeper than 128 levels" or, for a value, "JSON.PATH: what is wrong".
nlohmann::json parseJson(const std::string& text);
nlohmann::json parseJson(std::istream& in);
/// JSON text of `j`: invalid UTF-8 in strings (compile logs, worker stderr) is
/// replaced by U+FFFD instead of throwing. `indent` as json::dump (-1: one line).
std::string dumpJson(const nlohmann::json& j, int indent = -1);

}  // namespace tilescope
