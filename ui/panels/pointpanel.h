// The lifecycle the per-point panels share (Timing, Occupancy, Speed of Light,
// Coverage, Mask): hold the report snapshot and the selected point, show the point
// when either changes, and follow the rest of the selection within it.
// A panel made without the main window (a test) follows the selection by itself.
#pragma once

#include <QWidget>

#include "reportview.h"

namespace tilescope::ui {

class PointPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit PointPanel(Selection* selection, QWidget* parent = nullptr);

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

  /// Index into Report::points of the point shown (-1 once the report is closed).
  int currentPoint() const { return m_point; }

 protected:
  /// Redraws everything from m_report and m_point. Subclasses call it once at the
  /// end of their constructor (a base constructor cannot call it).
  virtual void rebuild() = 0;
  /// A report was loaded or closed (state.point is then -1), or another point was
  /// selected; m_point is state.point already. The default rebuilds.
  virtual void showPoint(const SelectionState& state);
  /// Every selection change, after showPoint where the point changed: what the
  /// panel follows within the point (tensor, tile, finding). The default: nothing.
  virtual void showWithinPoint(const SelectionState& state);
  /// The point shown, or nullptr (no report, or an index past its points).
  const Point* shownPoint() const;

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = 0;

 private:
  void follow(const SelectionState& state, bool newPoint);
};

}  // namespace tilescope::ui
