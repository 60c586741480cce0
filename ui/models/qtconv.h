// Conversions from core's standard types to Qt types, done once at the UI boundary.
#pragma once

#include <QString>
#include <string>

#include <nlohmann/json.hpp>

namespace tilescope::ui {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

/// Nanoseconds through core's formatDuration ("12.3 µs", "4.567 ms"); "-" for none.
QString formatNs(double ns);

}  // namespace tilescope::ui
