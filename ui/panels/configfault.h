// The config rows a person must change for an error: an error surfaces at the key
// that failed (location.config of a launch-limit finding, "launch.shared_bytes";
// the ConfigError path "launch.grid[1]") but that key's expression is computed from
// tile parameters: the row at fault is the define, constexpr or param it names, the
// one edited since the last good check first.
#pragma once

#include <QStringList>

#include <nlohmann/json.hpp>

namespace tilescope::ui {

/// The form paths (kConfigPathRole, "kernel.defines.BLOCK_M") at fault for an
/// error at `errorPath` in `doc`. The parameters its expression names that differ
/// from `lastGood` (the document of the last check without an error; null when
/// none); else the tile parameters (defines, constexprs) it names; else the key
/// itself without its index ("launch.grid"). Empty for an empty `errorPath`.
QStringList configFaultPaths(const QString& errorPath, const nlohmann::ordered_json& doc,
                             const nlohmann::ordered_json& lastGood);

/// The key an error path names without its index: "launch.grid[1]" → "launch.grid".
QString configKeyOf(const QString& errorPath);

/// The expression text at `errorPath` ("ceil_div(M, BLOCK_M)"; a list joined with ", "), or "".
QString configExpressionAt(const QString& errorPath, const nlohmann::ordered_json& doc);

}  // namespace tilescope::ui
