// Palette-aware chart colours: axes, grid and text follow the widget palette (so a
// dark theme gives dark charts); series use fixed hues lightened on dark backgrounds.
#pragma once

#include <QColor>
#include <QPalette>

class QCustomPlot;

namespace tilescope::ui {

struct ChartColors {
  QColor background, foreground, grid, subGrid;
  QColor kernel, baseline, good, warning, bad, marker, neutral;
  bool dark = false;
};

ChartColors chartColors(const QPalette& palette);
/// Colours axes, tick labels, grids, legend and background of every axis rect.
void applyChartStyle(QCustomPlot* plot, const ChartColors& colors);
/// A translucent fill of `c` for bars and boxes.
QColor fillOf(const QColor& c, int alpha = 110);

}  // namespace tilescope::ui
