#include "export/coverageimage.h"

#include <QPainter>

#include "style/colors.h"
#include "widgets/coveragegrid.h"

namespace tilescope::ui {

namespace {

/// The regions past the edge as the coverage view hatches them; their union (image pixels).
QRect drawOob(QPainter& p, const CoverageGrid& grid, QPoint origin, double pxPerRow, double pxPerCol) {
  QRect all;
  for (const OobRegion& o : grid.oobRegions()) {
    const QRect box(origin.x() + int(o.col0 * pxPerCol), origin.y() + int(o.row0 * pxPerRow),
                    std::max(2, int((o.col1 - o.col0 + 1) * pxPerCol + 0.5)),
                    std::max(2, int((o.row1 - o.row0 + 1) * pxPerRow + 0.5)));
    p.fillRect(box, oobColor(o.write));
    p.fillRect(box, QBrush(oobHatchColor(), o.write ? Qt::DiagCrossPattern : Qt::FDiagPattern));
    all = all.united(box);
  }
  return all;
}

}  // namespace

QVector<int> coverageStateCounts(const CellMap& map) {
  if (map.states.empty()) return {};
  QVector<int> counts(kStateCount, 0);
  for (std::uint8_t s : map.states)
    if (s < kStateCount) ++counts[s];
  return counts;
}

QImage coverageImage(const Point& point, const CoverageInfo& coverage, int maxSide, QRect* oobRect) {
  // The reader checked rows × cols = states (report_json.cpp).
  if (oobRect) *oobRect = {};
  if (!coverage.map || coverage.map->states.empty()) return {};
  const CellMap& map = *coverage.map;
  const int rows = static_cast<int>(map.rows), cols = static_cast<int>(map.cols);
  const int cellPx = qMax(2, maxSide / qMax(rows, cols));
  // Past the edge: a 2-D tensor's out-of-bounds evidence, in elements (at most twice the shape).
  const CoverageGrid grid(point, coverage.tensor);
  const bool plain = coverage.shape.size() == 2 && grid.valid() && grid.wrapWidth() <= 0;
  const double pxPerRow = plain ? double(cellPx) / std::max<std::int64_t>(map.cell[0], 1) : 0;
  const double pxPerCol = plain ? double(cellPx) / std::max<std::int64_t>(map.cell[1], 1) : 0;
  const int beyondH = plain ? int((grid.extentRows() - grid.rows()) * pxPerRow + 0.99) : 0;
  const int beyondW = plain ? int((grid.extentCols() - grid.cols()) * pxPerCol + 0.99) : 0;
  const std::int64_t oob[2] = {plain ? grid.oobElements(false) : 0, plain ? grid.oobElements(true) : 0};
  const int margin = 12, titleH = 24, legendRowH = 18;
  const QVector<int> counts = coverageStateCounts(map);
  int present = (oob[0] > 0) + (oob[1] > 0);
  for (int c : counts) present += c > 0;
  const int width = qMax(cols * cellPx + beyondW + 2 * margin, 360);
  const int height = titleH + rows * cellPx + beyondH + margin * 2 + present * legendRowH + margin;
  QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter p(&image);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.setPen(Qt::black);
  const QString cell = QStringLiteral(", one cell = %1×%2 elements").arg(map.cell[0]).arg(map.cell[1]);
  QStringList shape;
  for (auto d : coverage.shape) shape << QString::number(d);
  p.drawText(QRect(margin, 0, width - 2 * margin, titleH), Qt::AlignVCenter | Qt::AlignLeft,
             QStringLiteral("%1 [%2]%3")
                 .arg(QString::fromStdString(coverage.tensor), shape.join(QLatin1Char('x')), cell));
  const QPoint origin(margin, titleH);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      p.fillRect(origin.x() + c * cellPx, origin.y() + r * cellPx, cellPx, cellPx,
                 stateColor(map.states[static_cast<std::size_t>(r * cols + c)]));
  const QRect drawn = plain ? drawOob(p, grid, origin, pxPerRow, pxPerCol) : QRect();
  if (oobRect) *oobRect = drawn;
  p.setPen(QPen(QColor(0, 0, 0, 120)));
  p.drawRect(origin.x(), origin.y(), cols * cellPx - 1, rows * cellPx - 1);  // the tensor's edge
  int y = origin.y() + rows * cellPx + beyondH + margin;
  p.setPen(Qt::black);
  auto legendRow = [&](const QBrush& fill, const QBrush& hatch, const QString& text) {
    p.fillRect(margin, y + 3, 12, 12, fill);
    p.fillRect(margin, y + 3, 12, 12, hatch);
    p.drawRect(margin, y + 3, 12, 12);
    p.drawText(QRect(margin + 20, y, width - margin - 20, legendRowH), Qt::AlignVCenter | Qt::AlignLeft,
               text);
    y += legendRowH;
  };
  for (int s = 0; s < kStateCount; ++s)
    if (counts[s] > 0)
      legendRow(stateColor(s), Qt::NoBrush, QStringLiteral("%1: %2 cells").arg(stateName(s)).arg(counts[s]));
  for (bool write : {true, false})
    if (oob[write] > 0)
      legendRow(oobColor(write), QBrush(oobHatchColor(), write ? Qt::DiagCrossPattern : Qt::FDiagPattern),
                QStringLiteral("%1 out of bounds (past the edge): %2 elements")
                    .arg(write ? QStringLiteral("written") : QStringLiteral("read"))
                    .arg(oob[write]));
  return image;
}

}  // namespace tilescope::ui
