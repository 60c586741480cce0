#include "models/qtconv.h"

#include <QStringList>

namespace tilescope::ui {

namespace {
QString scalarText(const nlohmann::json& v) {
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  return QString::fromStdString(v.dump());
}
}  // namespace

QString formatLocation(const nlohmann::json& location) {
  if (location.is_null()) return {};
  if (!location.is_object()) return scalarText(location);
  QStringList parts;
  for (auto it = location.begin(); it != location.end(); ++it)
    parts << QStringLiteral("%1 %2").arg(QString::fromStdString(it.key()), scalarText(it.value()));
  return parts.join(QStringLiteral(", "));
}

QString formatJsonShort(const nlohmann::json& j, int maxChars) {
  if (j.is_null()) return {};
  QString s = QString::fromStdString(j.dump());
  if (s.size() > maxChars) s = s.left(maxChars - 1) + QChar(0x2026);
  return s;
}

QString formatNs(double ns) {
  if (ns <= 0) return QStringLiteral("-");
  if (ns < 1e3) return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
  if (ns < 1e6) return QStringLiteral("%1 \u00b5s").arg(ns / 1e3, 0, 'f', 2);
  if (ns < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 3);
  return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 3);
}

}  // namespace tilescope::ui
