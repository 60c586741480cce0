// "Why is it slow?" for the selected point: the speed-of-light bars of the
// kernel and its baseline side by side, the roofline with the device's peaks,
// the counter table (kernel, baseline, ratio) and the hottest source lines of
// PC sampling with their main stall reasons (a click opens the line in the Source
// view, which shows every line's samples in its margin).
#pragma once

#include "panels/pointpanel.h"

class QLabel;
class QTableWidget;

namespace tilescope::ui {

class ChartPlot;

class SpeedOfLightPanel : public PointPanel {
  Q_OBJECT
 public:
  explicit SpeedOfLightPanel(Selection* selection, QWidget* parent = nullptr);

  // For tests and the exporter's checks.
  ChartPlot* solPlot() const { return m_sol; }
  ChartPlot* rooflinePlot() const { return m_roofline; }
  QTableWidget* metricsTable() const { return m_metrics; }
  QTableWidget* hotLinesTable() const { return m_lines; }
  QString summaryText() const;
  /// A recorded source path as the tables show it: the file name where the recording
  /// machine wrote an absolute path ("/work/x/kernels/gemm/gemm_tiled.cu" -> "gemm_tiled.cu").
  static QString sourceName(const std::string& recorded);
  /// Two durations of one point, said apart: the profiled launch's (ncu's
  /// gpu__time_duration) and Timing's median, with the baseline's beside them.
  static QString durationText(const Point& p);

 signals:
  /// A hot line was clicked: open `file` (as sourceName gives it) at `line` in the Source view.
  void sourceLineRequested(const QString& file, int line);

 private:
  void setupLayout();
  void rebuild() override;
  void fillMetrics(const Point& p);
  void fillHotLines(const Point& p);

  QLabel* m_summary = nullptr;
  ChartPlot* m_sol = nullptr;
  ChartPlot* m_roofline = nullptr;
  QTableWidget* m_metrics = nullptr;
  QTableWidget* m_lines = nullptr;
};

}  // namespace tilescope::ui
