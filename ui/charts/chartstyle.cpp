#include "charts/chartstyle.h"

#include "charts/qcp.h"

namespace tilescope::ui {

namespace {
QColor adapt(QColor c, bool dark) { return dark ? c.lighter(140) : c; }
}  // namespace

ChartColors chartColors(const QPalette& palette) {
  ChartColors c;
  c.background = palette.color(QPalette::Base);
  c.foreground = palette.color(QPalette::Text);
  c.dark = c.background.lightnessF() < 0.5;
  c.grid = c.foreground;
  c.grid.setAlpha(60);
  c.subGrid = c.foreground;
  c.subGrid.setAlpha(25);
  c.kernel = adapt(QColor(0x1f, 0x77, 0xb4), c.dark);    // blue
  c.baseline = adapt(QColor(0x7f, 0x7f, 0x7f), c.dark);  // grey: the reference, not the subject
  c.good = adapt(QColor(0x2c, 0xa0, 0x2c), c.dark);
  c.warning = adapt(QColor(0xff, 0x7f, 0x0e), c.dark);
  c.bad = adapt(QColor(0xd6, 0x27, 0x28), c.dark);
  c.marker = adapt(QColor(0x94, 0x67, 0xbd), c.dark);  // purple: "you are here"
  c.neutral = adapt(QColor(0x17, 0xbe, 0xcf), c.dark);
  return c;
}

QColor fillOf(const QColor& c, int alpha) {
  QColor f = c;
  f.setAlpha(alpha);
  return f;
}

void applyChartStyle(QCustomPlot* plot, const ChartColors& colors) {
  plot->setBackground(colors.background);
  const auto rects = plot->axisRects();
  for (QCPAxisRect* rect : rects) {
    const auto axes = rect->axes();
    for (QCPAxis* axis : axes) {
      const QPen pen(colors.foreground);
      axis->setBasePen(pen);
      axis->setTickPen(pen);
      axis->setSubTickPen(pen);
      axis->setTickLabelColor(colors.foreground);
      axis->setLabelColor(colors.foreground);
      axis->grid()->setPen(QPen(colors.grid, 0, Qt::DotLine));
      axis->grid()->setSubGridPen(QPen(colors.subGrid, 0, Qt::DotLine));
      axis->grid()->setZeroLinePen(Qt::NoPen);
    }
  }
  if (plot->legend) {
    plot->legend->setBrush(fillOf(colors.background, 200));
    plot->legend->setBorderPen(QPen(colors.grid));
    plot->legend->setTextColor(colors.foreground);
  }
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i)))
      title->setTextColor(colors.foreground);
}

}  // namespace tilescope::ui
