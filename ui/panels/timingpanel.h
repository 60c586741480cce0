// Timing of the selected point: kernel vs baseline duration distributions and the
// speedup; for sweeps, the median time of every point against the baseline, with CV.
#pragma once

#include <QWidget>

#include "reportview.h"

class QLabel;

namespace tilescope::ui {

class ChartPlot;

class TimingPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit TimingPanel(Selection* selection, QWidget* parent = nullptr);

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

  // For tests.
  ChartPlot* distributionPlot() const { return m_distribution; }
  ChartPlot* sweepPlot() const { return m_sweep; }
  QString summaryText() const;
  int currentPoint() const { return m_point; }

 private:
  void rebuild();

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = 0;
  QLabel* m_summary = nullptr;
  ChartPlot* m_distribution = nullptr;
  ChartPlot* m_sweep = nullptr;
};

}  // namespace tilescope::ui
