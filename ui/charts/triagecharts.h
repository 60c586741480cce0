// The triage's charts, drawn into any QCustomPlot (the Triage view and the
// exporter's offscreen plots share them): the taxonomy as horizontal bars, one
// per category with its count and percentage as a label (not colour alone), and
// the speedup distribution of the correct entries.
#pragma once

#include <QString>
#include <QVector>

#include "tilescope/triage/triage.h"

class QCustomPlot;

namespace tilescope::ui {

/// One bar of the taxonomy chart.
struct TaxonomyBar {
  QString category;
  int count = 0;
  double percent = 0;
};

/// A taxonomy key as the charts and the category filter print it: "checked" reads
/// "checked, not run" (a check measured nothing); the others as they are.
QString taxonomyLabel(const QString& category);
/// The category rows of the taxonomy (taxonomy(): the same counts as the table
/// and the exports), largest first.
QVector<TaxonomyBar> taxonomyBars(const TriageReport& r);
/// Draws them: `ok` in the "good" colour, `checked` (nothing ran), `not_run` neutral, the
/// failure categories in the "bad" colour. Returns the bars drawn.
QVector<TaxonomyBar> plotTaxonomy(QCustomPlot* plot, const TriageReport& r);
/// The speedup histogram (SpeedupSummary::bins) with 1× marked; false when no
/// correct entry has a speed (the plot then says so).
bool plotSpeedups(QCustomPlot* plot, const TriageReport& r);

}  // namespace tilescope::ui
