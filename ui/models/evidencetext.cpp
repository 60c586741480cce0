#include "models/evidencetext.h"

#include <QLocale>
#include <cmath>

#include "models/qtconv.h"
#include "tilescope/base/format.h"
#include "tilescope/export/document.h"

namespace tilescope::ui {

namespace {

bool endsWith(const std::string& s, const char* suffix) {
  const std::string t = suffix;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

/// Keys whose value is a share 0..1 (occupancy, coalescing efficiency).
bool isFractionKey(const std::string& k) {
  return k == "achieved" || k == "theoretical" || startsWith(k, "efficiency") || endsWith(k, "_share") ||
         endsWith(k, "_fraction");
}

bool isIntegral(double v) { return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15; }

/// Numbers directly under a key become their text; thresholds go. Lists of numbers
/// (indices, shapes, points) stay as they are.
nlohmann::json readable(const nlohmann::json& j) {
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(e.is_object() ? readable(e) : e);
    return out;
  }
  if (!j.is_object()) return j;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : j.items()) {
    if (isThresholdKey(k)) continue;
    if (v.is_number() && !v.is_boolean())
      out[k] = evidenceValueText(k, v.get<double>()).toStdString();
    else
      out[k] = v.is_structured() ? readable(v) : v;
  }
  return out;
}

}  // namespace

QString groupedInteger(double value) {
  static const QLocale english(QLocale::English, QLocale::UnitedStates);
  return english.toString(static_cast<qlonglong>(std::llround(value)));
}

bool isThresholdKey(const std::string& key) {
  return startsWith(key, "threshold") || endsWith(key, "_threshold");
}

QString evidenceValueText(const std::string& key, double v) {
  if (!std::isfinite(v)) return qs(formatNumber(v));
  if (key == "bytes" || endsWith(key, "_bytes")) {
    const QString exact = QStringLiteral("%1 bytes").arg(groupedInteger(v));
    return std::fabs(v) < 1024 ? exact : QStringLiteral("%1 (%2)").arg(qs(formatBytes(v)), exact);
  }
  if (endsWith(key, "_ns")) return qs(formatDuration(v));
  if (endsWith(key, "_pct")) return qs(formatPercent(v / 100.0));
  if (isFractionKey(key)) return qs(formatPercent(v));
  if (key == "speedup" || endsWith(key, "_factor")) return qs(formatRatio(v));
  if (isIntegral(v) && std::fabs(v) >= 10000) return groupedInteger(v);
  return qs(formatNumber(v));
}

QVector<std::pair<QString, QString>> evidenceTextRows(const nlohmann::json& evidence) {
  QVector<std::pair<QString, QString>> rows;
  for (const auto& [k, v] : evidenceRows(readable(evidence))) rows.push_back({qs(k), qs(v)});
  return rows;
}

}  // namespace tilescope::ui
