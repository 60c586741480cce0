// The coverage view: the selected point's output tensor as declared tiles
// coloured by measured state, with tensor choice, dimension choice and slicing
// for rank > 2, and a legend. Clicking a tile selects it everywhere.
#pragma once

#include <memory>

#include "panels/pointpanel.h"

class QComboBox;
class QLabel;
class QHBoxLayout;
class QSpinBox;

namespace tilescope::ui {

class CoverageGrid;
class CoverageWidget;

class CoveragePanel : public PointPanel {
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

 private:
  void rebuild() override;
  void showPoint(const SelectionState& state) override;
  void showWithinPoint(const SelectionState& state) override;
  void rebuildDimControls();

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
