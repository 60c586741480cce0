// HTML and PDF writers (the PDF is the same HTML laid out by QTextDocument).
#include <QBuffer>
#include <QFile>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#include "export/documentwriters.h"

namespace tilescope::ui {

namespace {

QString esc(const QString& s) { return s.toHtmlEscaped(); }

// QTextDocument understands a small CSS subset: keep to it so the PDF looks like the page.
const char* const kCss =
    "body { font-family: sans-serif; font-size: 10pt; color: #222; }"
    "h1 { font-size: 18pt; } h2 { font-size: 14pt; margin-top: 18px; }"
    "table { border-collapse: collapse; margin: 6px 0; }"
    "th, td { border: 1px solid #bbb; padding: 3px 6px; text-align: left; vertical-align: top; }"
    "th { background: #eee; } .caption { font-style: italic; margin-top: 8px; }"
    ".figure { margin: 10px 0; } .figcaption { color: #555; font-size: 9pt; }";

QString tableHtml(const ExportTable& t) {
  QString h;
  if (!t.caption.isEmpty()) h += QStringLiteral("<p class=\"caption\">%1</p>\n").arg(esc(t.caption));
  h += QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">\n<tr>");
  for (const QString& head : t.headers) h += QStringLiteral("<th>%1</th>").arg(esc(head));
  h += QStringLiteral("</tr>\n");
  for (const QStringList& row : t.rows) {
    h += QStringLiteral("<tr>");
    for (const QString& cell : row) h += QStringLiteral("<td>%1</td>").arg(esc(cell));
    h += QStringLiteral("</tr>\n");
  }
  return h + QStringLiteral("</table>\n");
}

const Figure* figureById(const QVector<Figure>& figures, const QString& id) {
  for (const Figure& f : figures)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace

QString pngDataUri(const QImage& image) {
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

QString renderHtml(const ExportDocument& doc, const QVector<Figure>& figures,
                   const std::function<QString(const Figure&)>& imageSrc, bool forPdf) {
  QString h = QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>%1</title>\n<style>%2</style>\n</head><body>\n")
                  .arg(esc(doc.title), QString::fromLatin1(kCss));
  h += QStringLiteral("<h1>%1</h1>\n").arg(esc(doc.title));
  for (const ExportSection& s : doc.sections) {
    const QString brk = forPdf && s.pageBreakBefore ? QStringLiteral(" style=\"page-break-before: always\"") : QString();
    h += QStringLiteral("<h2%1>%2</h2>\n").arg(brk, esc(s.heading));
    for (const QString& p : s.paragraphs) h += QStringLiteral("<p>%1</p>\n").arg(esc(p));
    for (const ExportTable& t : s.tables) h += tableHtml(t);
    for (const QString& id : s.figureIds) {
      const Figure* f = figureById(figures, id);
      if (!f) continue;
      // The PDF page is ~ 180 mm wide: scale pictures to fit it.
      const int width = forPdf ? qMin(f->image.width(), 640) : f->image.width();
      h += QStringLiteral("<div class=\"figure\"><img src=\"%1\" width=\"%2\" alt=\"%3\"><p class=\"figcaption\">%3</p></div>\n")
               .arg(imageSrc(*f)).arg(width).arg(esc(f->title));
    }
  }
  return h + QStringLiteral("</body></html>\n");
}

bool writeHtml(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  file.write(renderHtml(doc, figures, [](const Figure& f) { return pngDataUri(f.image); }).toUtf8());
  return file.error() == QFile::NoError;
}

bool writePdf(const ExportDocument& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  QPdfWriter writer(path);
  if (!writer.setPageSize(QPageSize(QPageSize::A4))) {
    if (error) *error = QStringLiteral("%1: the PDF writer refused A4").arg(path);
    return false;
  }
  writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
  writer.setResolution(96);
  writer.setTitle(doc.title);
  writer.setCreator(QStringLiteral("TileScope"));
  QTextDocument text;
  for (const Figure& f : figures)
    text.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("figure:") + f.id), QVariant(f.image));
  text.setHtml(renderHtml(doc, figures, [](const Figure& f) { return QStringLiteral("figure:") + f.id; }, true));
  text.print(&writer);
  QFile check(path);
  if (!check.exists() || check.size() == 0) {
    if (error) *error = QStringLiteral("%1: the PDF was not written (is the directory writable?)").arg(path);
    return false;
  }
  return true;
}

}  // namespace tilescope::ui
