// Markdown writer: tables and findings as text, figures as PNGs next to the file.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include "export/documentwriters.h"

namespace tilescope::ui {

QString markdownEscape(const QString& text) {
  QString out;
  out.reserve(text.size());
  for (QChar c : text) {
    switch (c.unicode()) {
      // Markdown renders inline HTML: entities keep a "<script>" in a name inert.
      case '<': out += QStringLiteral("&lt;"); break;
      case '>': out += QStringLiteral("&gt;"); break;
      case '&': out += QStringLiteral("&amp;"); break;
      case '\n': out += QStringLiteral("<br>"); break;
      case '\r': break;
      case '|': case '\\': case '*': case '_': case '`': case '[': case ']': case '#':
        out += QLatin1Char('\\');
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

namespace {

QString tableMarkdown(const ExportTable& t) {
  QString m;
  if (!t.caption.isEmpty()) m += QStringLiteral("*%1*\n\n").arg(markdownEscape(t.caption));
  QStringList heads, rule;
  for (const QString& h : t.headers) {
    heads << markdownEscape(h);
    rule << QStringLiteral("---");
  }
  m += QStringLiteral("| %1 |\n| %2 |\n").arg(heads.join(QStringLiteral(" | ")), rule.join(QStringLiteral(" | ")));
  for (const QStringList& row : t.rows) {
    QStringList cells;
    for (const QString& c : row) cells << markdownEscape(c);
    m += QStringLiteral("| %1 |\n").arg(cells.join(QStringLiteral(" | ")));
  }
  return m + QLatin1Char('\n');
}

}  // namespace

bool writeMarkdown(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  const QFileInfo info(path);
  const QString dirName = info.completeBaseName() + QStringLiteral("_files");
  QDir dir = info.absoluteDir();
  if (!figures.isEmpty() && !dir.mkpath(dirName)) {
    if (error) *error = QStringLiteral("%1: cannot create the figure directory").arg(dir.filePath(dirName));
    return false;
  }
  for (const Figure& f : figures) {
    const QString png = dir.filePath(dirName + QLatin1Char('/') + f.id + QStringLiteral(".png"));
    if (!f.image.save(png, "PNG")) {
      if (error) *error = QStringLiteral("%1: cannot write the figure").arg(png);
      return false;
    }
  }
  QString m = QStringLiteral("# %1\n\n").arg(markdownEscape(doc.title));
  for (const ExportSection& s : doc.sections) {
    m += QStringLiteral("## %1\n\n").arg(markdownEscape(s.heading));
    for (const QString& p : s.paragraphs) m += markdownEscape(p) + QStringLiteral("\n\n");
    for (const ExportTable& t : s.tables) m += tableMarkdown(t);
    for (const QString& id : s.figureIds)
      for (const Figure& f : figures)
        if (f.id == id)  // the directory name comes from our own file name: URL-safe after percent-encoding
          m += QStringLiteral("![%1](%2)\n\n").arg(markdownEscape(f.title),
                                                    QString::fromLatin1(QUrl::toPercentEncoding(dirName)) +
                                                        QLatin1Char('/') + f.id + QStringLiteral(".png"));
  }
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  file.write(m.toUtf8());
  return file.error() == QFile::NoError;
}

}  // namespace tilescope::ui
