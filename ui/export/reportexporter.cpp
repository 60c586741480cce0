#include "export/reportexporter.h"

#include <QFileInfo>

#include "export/documentwriters.h"
#include "export/exportfigures.h"
#include "tilescope/diagnose/tree.h"

namespace tilescope::ui {

Document exportDocument(const tilescope::Report& r, const QString& note, std::size_t maxPointRows) {
  DocumentOptions options;
  options.note = note.toStdString();
  options.maxPointRows = maxPointRows;
  static const std::optional<Tree> tree = []() -> std::optional<Tree> {
    try {
      return loadDefaultTree();
    } catch (const std::exception& e) {
      qWarning("export: %s: the troubleshooting fix is left out", e.what());
      return std::nullopt;
    }
  }();
  options.tree = tree ? &*tree : nullptr;
  return buildDocument(r, options);
}

bool exportReport(const tilescope::Report& r, const QString& outPath, QString* error) {
  const QString ext = QFileInfo(outPath).suffix().toLower();
  using Writer = bool (*)(const Document&, const QVector<Figure>&, const QString&, QString*);
  Writer writer = nullptr;
  if (ext == QLatin1String("html") || ext == QLatin1String("htm"))
    writer = writeHtml;
  else if (ext == QLatin1String("pdf"))
    writer = writePdf;
  else if (ext == QLatin1String("md") || ext == QLatin1String("markdown"))
    writer = writeMarkdown;
  if (!writer) {
    if (error)
      *error = QStringLiteral("%1: unknown export format '.%2' (use .html, .pdf or .md)").arg(outPath, ext);
    return false;
  }
  QString note;
  const QVector<Figure> figures = renderFigures(r, &note);
  return writer(exportDocument(r, note), figures, outPath, error);
}

}  // namespace tilescope::ui
