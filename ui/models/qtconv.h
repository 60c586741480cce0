// Conversions from core's standard types to Qt types, done once at the UI boundary.
#pragma once

#include <QString>
#include <string>

#include <nlohmann/json.hpp>

namespace tilescope::ui {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

/// Compact JSON, elided to maxChars.
QString formatJsonShort(const nlohmann::json& j, int maxChars = 160);
/// Nanoseconds as "12.3 µs" / "4.56 ms".
QString formatNs(double ns);

}  // namespace tilescope::ui
