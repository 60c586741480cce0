// The selected point's findings (severity, category, message, location, evidence),
// its compile log linked to the source, and the worker's stderr. Selecting a
// finding selects its tile in the coverage and mask views.
#pragma once

#include <QWidget>

#include "reportview.h"

class QTableView;
class QTabWidget;
class QPlainTextEdit;

namespace tilescope::ui {

class FindingsModel;
class LogPanel;

class FindingsPanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit FindingsPanel(Selection* selection, QWidget* parent = nullptr);

  FindingsModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  LogPanel* logPanel() const { return m_logPanel; }
  QString workerStderr() const;
  QString deviceOutput() const;  ///< the point's device_output (tests)
  /// Selects row `row` of the findings table (report-level rows first): sets
  /// Selection.finding, its tile, and for a report-level conclusion its point.
  void selectFinding(int row);

  void onReportLoaded(const ReportPtr& report) override;
 signals:
  /// A selected finding names a source line (a traced access, a compile error).
  void sourceLineRequested(const QString& file, int line);

 public:
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 private:
  void showPoint(int point);

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = -1;
  FindingsModel* m_model;
  QTabWidget* m_tabs;
  QTableView* m_view;
  LogPanel* m_logPanel;
  QPlainTextEdit* m_stderr;
  QPlainTextEdit* m_deviceOutput;
};

/// The declared tile a finding's location names: location.tile, else the tile of
/// location.elements' first element (tile extents from the point's coverage).
bool findingTile(const Point& p, const Finding& f, int* tileRow, int* tileCol);
/// The point a (report-level) finding belongs to: the point of the experiment that
/// proved it, else the first with an error finding of its category; -1 when none.
int pointOfFinding(const Report& r, const Finding& f);
/// The point a report opens on: core's headlinePoint (the one that shows the cause), else 0.
int firstErrorPoint(const Report& r);

}  // namespace tilescope::ui
