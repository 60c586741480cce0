// The Triage view: a triage (tilescope.triage/1) as a sortable, filterable table
// (TriageModel behind a TriageFilter) beside the taxonomy as a bar chart; a click
// on a bar filters the table to that category, and a row opens its entry's report
// in the other views (reportRequested). It only displays: the main window loads
// the triage and the report.
#pragma once

#include <QWidget>

#include "models/triagemodel.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QStackedWidget;
class QTextBrowser;
class QTableView;

namespace tilescope::ui {

class ChartPlot;
class TriageFilter;
struct TaxonomyBar;

class TriagePanel : public QWidget {
  Q_OBJECT
 public:
  explicit TriagePanel(QWidget* parent = nullptr);

  /// `path`: the triage file (entry reports are relative to it).
  void setTriage(TriagePtr triage, const QString& path);
  void clear();
  TriagePtr triage() const { return m_model->triage(); }
  QString triagePath() const { return m_path; }

  TriageModel* model() const { return m_model; }
  TriageFilter* filter() const { return m_filter; }
  QTableView* table() const { return m_table; }
  QLineEdit* filterEdit() const { return m_filterEdit; }
  QComboBox* categoryBox() const { return m_category; }
  ChartPlot* taxonomyPlot() const { return m_taxonomy; }
  ChartPlot* speedupPlot() const { return m_speedups; }
  /// The bars the taxonomy chart shows now.
  QVector<TaxonomyBar> bars() const;
  QString summaryText() const;
  /// Shows only entries of `categoryKey` ("" for all), as the combo box and a bar click do.
  void setCategory(const QString& categoryKey);
  /// Opens the entry in proxy row `row` (its report), as a double click does.
  void openRow(int row);
  /// The selected entry's every column, whole (a click selects a row; "" when none is).
  QString detailsText() const;
  QTextBrowser* detailsView() const { return m_details; }

 signals:
  /// An entry's report (tilescope.report/1) to show in the other views.
  void reportRequested(const QString& path);

 private:
  void setupWidgets();
  void setupConnections();
  void replot();
  void fitColumns();
  void showDetails();
  void shareHeight();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  TriageModel* m_model;
  TriageFilter* m_filter;
  QString m_path;
  QStackedWidget* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  QLabel* m_summary = nullptr;
  QLineEdit* m_filterEdit = nullptr;
  QComboBox* m_category = nullptr;
  QTableView* m_table = nullptr;
  ChartPlot* m_taxonomy = nullptr;
  ChartPlot* m_speedups = nullptr;
  QTextBrowser* m_details = nullptr;
  QSplitter* m_split = nullptr;  ///< the table over the details and charts (shareHeight)
  bool m_splitMoved = false;     ///< a hand set the split: it is kept
};

}  // namespace tilescope::ui
