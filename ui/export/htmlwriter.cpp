// HTML and PDF writers: core's renderHtml, with the figures filled in (the PDF is
// the same HTML laid out by QTextDocument).
#include <QBuffer>
#include <QFile>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QUrl>

#include "export/documentwriters.h"

namespace tilescope::ui {

namespace {

FigureSource figureSource(const QVector<Figure>& figures, bool paged) {
  return [&figures, paged](const DocFigure& ref) -> std::optional<FigureImage> {
    for (const Figure& f : figures)
      if (f.id.toStdString() == ref.id) {
        if (!paged) return FigureImage{pngDataUri(f.image).toStdString(), f.image.width()};
        // The text width of A4 with 15 mm margins is ~ 680 px at 96 dpi: pictures fit it.
        return FigureImage{"figure:" + ref.id, qMin(f.image.width(), 660)};
      }
    return std::nullopt;
  };
}

}  // namespace

QString pngDataUri(const QImage& image) {
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
}

bool writeHtml(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    if (error) *error = QStringLiteral("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  const std::string html = renderHtml(doc, RenderOptions{figureSource(figures, false), false});
  file.write(html.data(), qint64(html.size()));
  return file.error() == QFile::NoError;
}

std::unique_ptr<QTextDocument> pagedDocument(const Document& doc, const QVector<Figure>& figures,
                                             QPagedPaintDevice* device) {
  auto text = std::make_unique<QTextDocument>();
  for (const Figure& f : figures)
    text->addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("figure:") + f.id),
                      QVariant(f.image));
  // Lay out on the printable area of the page: without a page size QTextDocument
  // lays out for an unbounded width and print() then scales the result down.
  const QPageLayout layout = device->pageLayout();
  text->setPageSize(layout.paintRectPixels(device->logicalDpiX()).size());
  text->setDocumentMargin(0);
  text->setHtml(QString::fromStdString(renderHtml(doc, RenderOptions{figureSource(figures, true), true})));
  return text;
}

bool writePdf(const Document& doc, const QVector<Figure>& figures, const QString& path, QString* error) {
  QPdfWriter writer(path);
  if (!writer.setPageSize(QPageSize(QPageSize::A4))) {
    if (error) *error = QStringLiteral("%1: the PDF writer refused A4").arg(path);
    return false;
  }
  writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
  writer.setResolution(96);
  writer.setTitle(QString::fromStdString(doc.title));
  writer.setCreator(QStringLiteral("TileScope"));
  pagedDocument(doc, figures, &writer)->print(&writer);
  QFile check(path);
  if (!check.exists() || check.size() == 0) {
    if (error) *error = QStringLiteral("%1: the PDF was not written (is the directory writable?)").arg(path);
    return false;
  }
  return true;
}

}  // namespace tilescope::ui
