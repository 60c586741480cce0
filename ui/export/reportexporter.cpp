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

DocumentWriter writerFor(const QString& outPath, QString* error) {
  const QString ext = QFileInfo(outPath).suffix().toLower();
  if (ext == QLatin1String("html") || ext == QLatin1String("htm")) return writeHtml;
  if (ext == QLatin1String("pdf")) return writePdf;
  if (ext == QLatin1String("md") || ext == QLatin1String("markdown")) return writeMarkdown;
  if (error)
    *error = QStringLiteral("%1: unknown export format '.%2' (use .html, .pdf or .md)").arg(outPath, ext);
  return nullptr;
}

bool exportReport(const tilescope::Report& r, const QString& outPath, QString* error) {
  const DocumentWriter writer = writerFor(outPath, error);
  if (!writer) return false;
  QString note;
  const QVector<Figure> figures = renderFigures(r, &note);
  return writer(exportDocument(r, note), figures, outPath, error);
}

}  // namespace tilescope::ui
