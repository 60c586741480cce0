#include "models/verdicttext.h"

#include <QDir>
#include <QFileInfo>
#include <set>
#include <string>
#include <utility>

#include "models/qtconv.h"
#include "tilescope/model/location.h"

namespace tilescope::ui {

bool isCheckedNotRun(const Report& r) { return r.verb == "check" && r.verdict == Verdict::ok; }

QString verdictLabel(const Report& r) {
  return isCheckedNotRun(r) ? QStringLiteral("checked, not run")
                            : QString::fromLatin1(verdictName(r.verdict));
}

namespace {

/// The findings a banner lists: warnings, each (category, message) once, report-level first.
std::vector<const Finding*> distinctWarnings(const Report& r) {
  std::vector<const Finding*> out;
  std::set<std::pair<std::string, std::string>> seen;
  auto take = [&](const Finding& f) {
    if (f.severity == Severity::warning && seen.insert({f.category, f.message}).second) out.push_back(&f);
  };
  for (const Finding& f : r.findings) take(f);
  for (const Point& p : r.points)
    for (const Finding& f : p.findings) take(f);
  return out;
}

/// The finding's message up to its explanation ("…: a warp's access is split …").
QString shortMessage(const Finding& f) {
  QString m = qs(f.message);
  if (const int colon = m.indexOf(QStringLiteral(": ")); colon > 20) m = m.left(colon);
  if (m.size() > 120) m = m.left(120) + QStringLiteral("…");
  return m.isEmpty() ? qs(f.category) : m;
}

}  // namespace

int warningCount(const Report& r) { return static_cast<int>(distinctWarnings(r).size()); }

QStringList warningLines(const Report& r, const QString& reportDir, int max) {
  QStringList out;
  for (const Finding* f : distinctWarnings(r)) {
    if (out.size() >= max) break;
    QString line = shortMessage(*f);
    const Location& l = f->location;
    if (!l.file.empty()) {
      line += QStringLiteral(" at ") + shownPath(qs(l.file), reportDir);
      if (l.line) line += QLatin1Char(':') + QString::number(*l.line);
    }
    out << line;
  }
  return out;
}

QString shownPath(const QString& file, const QString& reportDir) {
  if (file.isEmpty() || QDir::isRelativePath(file)) return file;
  if (!reportDir.isEmpty()) {
    const QString rel = QDir(reportDir).relativeFilePath(file);
    if (!rel.startsWith(QStringLiteral("..")) && QDir::isRelativePath(rel)) return rel;
  }
  return QFileInfo(file).fileName();
}

QString shownLocationText(const Location& l, const QString& reportDir) {
  if (l.file.empty()) return qs(locationText(l));
  Location shown = l;
  shown.file = shownPath(qs(l.file), reportDir).toStdString();
  return qs(locationText(shown));
}

}  // namespace tilescope::ui
