#include "export/coverageimage.h"

#include <QPainter>

#include "style/colors.h"

namespace tilescope::ui {

namespace {

/// The map's states flattened row-major; accepts a flat list or a list of rows.
QVector<int> flatStates(const nlohmann::json& map, int rows, int cols) {
  QVector<int> out;
  const auto it = map.find("states");
  if (it == map.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_array())
      for (const auto& w : v) out.append(w.get<int>());
    else
      out.append(v.get<int>());
  }
  if (out.size() != qsizetype(rows) * cols) out.clear();  // malformed: draw nothing rather than garbage
  return out;
}

}  // namespace

QVector<int> coverageStateCounts(const nlohmann::json& map) {
  if (!map.is_object()) return {};
  const QVector<int> states = flatStates(map, map.value("rows", 0), map.value("cols", 0));
  if (states.isEmpty()) return {};
  QVector<int> counts(kStateCount, 0);
  for (int s : states)
    if (s >= 0 && s < kStateCount) ++counts[s];
  return counts;
}

QImage coverageImage(const CoverageInfo& coverage, int maxSide) {
  const nlohmann::json& map = coverage.map;
  if (!map.is_object()) return {};
  const int rows = map.value("rows", 0), cols = map.value("cols", 0);
  const QVector<int> states = flatStates(map, rows, cols);
  if (states.isEmpty()) return {};
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
  QString cell;
  if (map.contains("cell") && map["cell"].size() == 2)
    cell = QStringLiteral(", one cell = %1×%2 elements").arg(map["cell"][0].get<qint64>()).arg(map["cell"][1].get<qint64>());
  QStringList shape;
  for (auto d : coverage.shape) shape << QString::number(d);
  p.drawText(QRect(margin, 0, width - 2 * margin, titleH), Qt::AlignVCenter | Qt::AlignLeft,
             QStringLiteral("%1 [%2]%3").arg(QString::fromStdString(coverage.tensor), shape.join(QLatin1Char('x')), cell));
  const QPoint origin(margin, titleH);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      p.fillRect(origin.x() + c * cellPx, origin.y() + r * cellPx, cellPx, cellPx, stateColor(states[r * cols + c]));
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
