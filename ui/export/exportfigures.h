// The pictures an export embeds: the same chart builders as the panels, rendered
// offscreen with QCustomPlot::toPixmap, plus coverage maps drawn directly.
#pragma once

#include <QImage>
#include <QString>
#include <QVector>

#include "tilescope/model/report.h"

namespace tilescope::ui {

struct Figure {
  QString id;  ///< file-name safe: "timing_sweep", "coverage_C"
  QString title;
  QImage image;
};

/// The pictures of core's figure references (documentFigures: same ids and titles),
/// drawn for the point the export focuses on (focusPoint). Charts need a QApplication (QCustomPlot is a
/// QWidget); without one only the coverage pictures are drawn and *note says why.
QVector<Figure> renderFigures(const Report& r, QString* note = nullptr);

}  // namespace tilescope::ui
