// Timing of the selected point: kernel vs baseline duration distributions and the
// speedup; for sweeps, the median time of every point against the baseline, with CV.
#pragma once

#include "panels/pointpanel.h"

class QLabel;

namespace tilescope::ui {

class ChartPlot;

class TimingPanel : public PointPanel {
  Q_OBJECT
 public:
  explicit TimingPanel(Selection* selection, QWidget* parent = nullptr);

  // For tests.
  ChartPlot* distributionPlot() const { return m_distribution; }
  ChartPlot* sweepPlot() const { return m_sweep; }
  QString summaryText() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild() override;

  QLabel* m_summary = nullptr;
  ChartPlot* m_distribution = nullptr;
  ChartPlot* m_sweep = nullptr;
};

}  // namespace tilescope::ui
