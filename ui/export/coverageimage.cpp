#include "export/coverageimage.h"

#include <QPainter>

#include "style/colors.h"

namespace tilescope::ui {

QVector<int> coverageStateCounts(const CellMap& map) {
  if (map.states.empty()) return {};
  QVector<int> counts(kStateCount, 0);
  for (std::uint8_t s : map.states)
    if (s < kStateCount) ++counts[s];
  return counts;
}

QImage coverageImage(const CoverageInfo& coverage, int maxSide) {
  // The reader checked rows × cols = states (report_json.cpp).
  if (!coverage.map || coverage.map->states.empty()) return {};
  const CellMap& map = *coverage.map;
  const int rows = static_cast<int>(map.rows), cols = static_cast<int>(map.cols);
  const int cellPx = qMax(2, maxSide / qMax(rows, cols));
  const int margin = 12, titleH = 24, legendRowH = 18;
  const QVector<int> counts = coverageStateCounts(map);
  int present = 0;
  for (int c : counts) present += c > 0;
  const int width = qMax(cols * cellPx + 2 * margin, 360);
  const int height = titleH + rows * cellPx + margin * 2 + present * legendRowH + margin;
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
  p.setPen(QPen(QColor(0, 0, 0, 120)));
  p.drawRect(origin.x(), origin.y(), cols * cellPx - 1, rows * cellPx - 1);
  int y = origin.y() + rows * cellPx + margin;
  p.setPen(Qt::black);
  for (int s = 0; s < kStateCount; ++s) {
    if (counts[s] == 0) continue;
    p.fillRect(margin, y + 3, 12, 12, stateColor(s));
    p.drawRect(margin, y + 3, 12, 12);
    p.drawText(QRect(margin + 20, y, width - margin - 20, legendRowH), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("%1: %2 cells").arg(stateName(s)).arg(counts[s]));
    y += legendRowH;
  }
  return image;
}

}  // namespace tilescope::ui
