#include "models/qtconv.h"

#include <QStringList>

#include "tilescope/report.h"

namespace tilescope::ui {

QString formatJsonShort(const nlohmann::json& j, int maxChars) {
  if (j.is_null()) return {};
  QString s = QString::fromStdString(dumpJson(j));
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
