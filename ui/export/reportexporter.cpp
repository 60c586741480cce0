#include "export/reportexporter.h"

#include <QFileInfo>

#include "export/documentwriters.h"
#include "export/exportdocument.h"
#include "export/exportfigures.h"

namespace tilescope::ui {

bool exportReport(const tilescope::Report& r, const QString& outPath, QString* error) {
  const QString ext = QFileInfo(outPath).suffix().toLower();
  using Writer = bool (*)(const ExportDocument&, const QVector<Figure>&, const QString&, QString*);
  Writer writer = nullptr;
  if (ext == QLatin1String("html") || ext == QLatin1String("htm")) writer = writeHtml;
  else if (ext == QLatin1String("pdf")) writer = writePdf;
  else if (ext == QLatin1String("md") || ext == QLatin1String("markdown")) writer = writeMarkdown;
  if (!writer) {
    if (error) *error = QStringLiteral("%1: unknown export format '.%2' (use .html, .pdf or .md)").arg(outPath, ext);
    return false;
  }
  QString note;
  const QVector<Figure> figures = renderFigures(r, &note);
  const ExportDocument doc = buildExportDocument(r, figures, note);
  return writer(doc, figures, outPath, error);
}

}  // namespace tilescope::ui
