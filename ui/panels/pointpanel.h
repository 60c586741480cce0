// The lifecycle the per-point panels share (Timing, Occupancy, Speed of Light): hold
// the report snapshot and the selected point, and rebuild when either changes.
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

  /// Index into Report::points of the point shown.
  int currentPoint() const { return m_point; }

 protected:
  /// Redraws everything from m_report and m_point. Subclasses call it once at the
  /// end of their constructor (a base constructor cannot call it).
  virtual void rebuild() = 0;
  /// The point shown, or nullptr (no report, or an index past its points).
  const Point* shownPoint() const;

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = 0;
};

}  // namespace tilescope::ui
