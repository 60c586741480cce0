// The coverage view: the selected point's output tensor as declared tiles
// coloured by measured state, with tensor choice, dimension choice and slicing
// for rank > 2, and a legend. Clicking a tile selects it everywhere.
#pragma once

#include <QWidget>
#include <memory>

#include "reportview.h"

class QComboBox;
class QLabel;
class QHBoxLayout;
class QSpinBox;

namespace tilescope::ui {

class CoverageGrid;
class CoverageWidget;

class CoveragePanel : public QWidget, public ReportView {
  Q_OBJECT
 public:
  explicit CoveragePanel(Selection* selection, QWidget* parent = nullptr);

  CoverageWidget* coverageWidget() const { return m_widget; }
  QComboBox* layerBox() const { return m_layerBox; }
  const CoverageGrid* grid() const;
  QString summaryText() const;
  /// The lines that name out-of-bounds writes and reads and the tiles that made them ("" when none).
  static QString oobSummary(const CoverageGrid& grid);

  void onReportLoaded(const ReportPtr& report) override;
  void onReportClosed() override;
  void onSelectionChanged(const SelectionState& state) override;

 private:
  void rebuild();
  void rebuildDimControls();

  Selection* m_selection;
  ReportPtr m_report;
  int m_point = -1;
  int m_finding = -1;
  QString m_tensor;
  QComboBox* m_tensorBox;
  QComboBox* m_layerBox;
  QWidget* m_legend;
  QComboBox* m_rowDim;
  QComboBox* m_colDim;
  QWidget* m_sliceBox;
  QHBoxLayout* m_sliceLayout;
  QList<QSpinBox*> m_sliceSpins;
  QLabel* m_summary;
  CoverageWidget* m_widget;
  bool m_updating = false;
};

}  // namespace tilescope::ui
