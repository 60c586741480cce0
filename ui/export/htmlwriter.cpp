// HTML and PDF writers: core's renderHtml, with the figures filled in (the PDF is
// the same HTML laid out by QTextDocument).
#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFile>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextLayout>
#include <QTextTable>
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

/// The width of a table cell's widest paragraph and of its longest word, each
/// fragment in its own font (the style sheet's 10 pt; bold in a header) as the
/// device lays it out.
std::pair<double, double> cellWidths(const QTextTableCell& cell, QPaintDevice* device) {
  static const QRegularExpression space(QStringLiteral("\\s+"));
  double natural = 0, word = 0;
  const int end = cell.lastCursorPosition().position();
  QTextDocument* doc = cell.firstCursorPosition().document();
  for (QTextBlock block = doc->findBlock(cell.firstCursorPosition().position());
       block.isValid() && block.position() <= end; block = block.next()) {
    double line = 0;
    for (auto it = block.begin(); !it.atEnd(); ++it) {
      const QTextFragment fragment = it.fragment();
      const QFontMetricsF fm(fragment.charFormat().font(), device);
      line += fm.horizontalAdvance(fragment.text());
      for (const QString& w : fragment.text().split(space, Qt::SkipEmptyParts))
        word = qMax(word, fm.horizontalAdvance(w));
    }
    natural = qMax(natural, line);
  }
  return {natural, word};
}

/// Column widths from the cells' content: QTextDocument shares a page's width
/// out equally, so a column of short numbers got as much as one of long names
/// and headers broke mid-word ("Referenc|e", "Mismatch|es"). Each column gets
/// its longest word at least (up to a third of the page: a metric's name may
/// still break) and a share of the rest by its widest cell.
void fitTableColumns(QTextTable* table, double pageWidth, QPaintDevice* device) {
  const int cols = table->columns();
  if (cols < 2) return;
  QVector<double> word(cols, 0), natural(cols, 0);
  for (int r = 0; r < table->rows(); ++r)
    for (int c = 0; c < cols; ++c) {
      const auto [line, longest] = cellWidths(table->cellAt(r, c), device);
      // 15 % of slack: the printed layout's glyphs run a little wider than measured here.
      natural[c] = qMax(natural[c], 1.15 * line);
      word[c] = qMax(word[c], 1.15 * longest);
    }
  const double padding = 2 * (table->format().cellPadding() + table->format().border()) + 8;
  // A table whose longest words alone overrun the page (the compile table's ten
  // columns) is set smaller, down to 70 %, rather than broken inside its words.
  double words = 0;
  for (int c = 0; c < cols; ++c) words += qMin(word[c], pageWidth / 3) + padding;
  if (words > pageWidth) {
    const double scale = qMax(0.7, (pageWidth - cols * padding) / (words - cols * padding));
    QTextCursor all(table->document());
    all.setPosition(table->firstPosition());
    all.setPosition(table->lastPosition(), QTextCursor::KeepAnchor);
    QTextCharFormat smaller;
    smaller.setFontPointSize(10.0 * scale);  // the style sheet's 10 pt (document_render.cpp)
    all.mergeCharFormat(smaller);
    for (int c = 0; c < cols; ++c) {
      word[c] *= scale;
      natural[c] *= scale;
    }
  }
  // A column whose widest cell fits a fair share gets all of it; the others
  // their longest word, then what is left by how much more they would use
  // (a long message counts as half a page at most, not as the whole line).
  const double fair = pageWidth / cols;
  QVector<double> width(cols), want(cols, 0);
  double used = 0, wanted = 0;
  for (int c = 0; c < cols; ++c) {
    const bool fits = natural[c] + padding <= fair;
    width[c] = fits ? natural[c] + padding : qMin(word[c], pageWidth / 3) + padding;
    if (!fits) want[c] = qMax(0.0, qMin(natural[c], pageWidth / 2) + padding - width[c]);
    used += width[c];
    wanted += want[c];
  }
  const double room = qMax(0.0, pageWidth - used);
  for (int c = 0; c < cols; ++c)
    if (wanted > 0) width[c] += room * want[c] / wanted;
  double total = 0;
  for (double w : width) total += w;
  QVector<QTextLength> constraints;
  for (double w : width) constraints << QTextLength(QTextLength::PercentageLength, 100.0 * w / total);
  QTextTableFormat format = table->format();
  format.setColumnWidthConstraints(constraints);
  table->setFormat(format);
}

/// Whether `block` holds one of the figures (an image named "figure:<id>").
bool isFigureBlock(const QTextBlock& block) {
  for (auto it = block.begin(); !it.atEnd(); ++it) {
    const QTextCharFormat format = it.fragment().charFormat();
    if (format.isImageFormat() && format.toImageFormat().name().startsWith(QLatin1String("figure:")))
      return true;
  }
  return false;
}

/// The page a laid-out line of `block` lies on (its first or last line).
int pageOf(const QTextBlock& block, bool last, double pageHeight) {
  const QTextLayout* layout = block.layout();
  if (!layout || layout->lineCount() == 0) return -1;
  const QTextLine line = layout->lineAt(last ? layout->lineCount() - 1 : 0);
  return int((layout->position().y() + line.y()) / pageHeight);
}

/// A figure whose caption (the block after it) fell onto the next page alone
/// starts that page itself (QTextDocument has no keep-with-next). Whether one
/// moved: the first only, as it shifts those after it.
bool keepCaptionsWithFigures(QTextDocument* text) {
  (void)text->documentLayout()->documentSize();  // finishes the lazy layout
  const double height = text->pageSize().height();
  for (QTextBlock b = text->begin(); b.isValid(); b = b.next()) {
    const QTextBlock caption = b.next();
    if (!caption.isValid() || !isFigureBlock(b) ||
        b.blockFormat().pageBreakPolicy() & QTextFormat::PageBreak_AlwaysBefore)
      continue;
    const int figurePage = pageOf(b, true, height), captionPage = pageOf(caption, false, height);
    if (figurePage < 0 || captionPage <= figurePage) continue;
    QTextBlockFormat breakBefore;
    breakBefore.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    QTextCursor(b).mergeBlockFormat(breakBefore);
    return true;
  }
  return false;
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
  const QSizeF page = device->pageLayout().paintRectPixels(device->logicalDpiX()).size();
  text->setDocumentMargin(0);
  text->setHtml(QString::fromStdString(renderHtml(doc, RenderOptions{figureSource(figures, true), true})));
  // Every table, also those inside another frame (a section that starts a page),
  // fitted before the document has a layout: changed under a layout, each table
  // was laid out again on its own and QTextDocumentLayout's lazy layout lost the
  // blocks after it (no lines: every figure, some headings and the coverage
  // section's page never reached the PDF).
  QList<QTextFrame*> frames = text->rootFrame()->childFrames();
  while (!frames.isEmpty()) {
    QTextFrame* frame = frames.takeFirst();
    frames << frame->childFrames();
    if (auto* table = qobject_cast<QTextTable*>(frame)) fitTableColumns(table, page.width(), device);
  }
  // Then laid out once, whole, with the device's font metrics (those fitTableColumns
  // measured with; print() would otherwise lay a copy out again at another scale):
  // setPageSize lays every block out afresh.
  text->documentLayout()->setPaintDevice(device);
  text->setPageSize(page);
  // After each figure moved to keep its caption, laid out again, whole.
  for (int moved = 0; moved < 32 && keepCaptionsWithFigures(text.get()); ++moved) text->setPageSize(page);
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
