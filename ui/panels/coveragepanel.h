// The coverage view: the selected point's output tensor as declared tiles
// coloured by measured state, with tensor choice, dimension choice and slicing
// for rank > 2, and a legend. Clicking a tile selects it everywhere.
#pragma once

#include <memory>

#include "panels/pointpanel.h"
#include "widgets/coveragegrid.h"

class QComboBox;
class QLabel;
class QHBoxLayout;
class QSpinBox;

namespace tilescope::ui {

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
  /// The tensor shown ("C", or an input such as "A" that only the trace measured).
  QString tensor() const { return m_tensor; }
  /// The layer combo's entries: "State", then "Measured writes: C (trace)", "Measured reads: A (trace)", …
  QStringList layerNames() const;
  /// Shows `layer` of `tensor` (its tensor too); false when the point has no such layer.
  bool showLayer(CoverageLayer layer, const QString& tensor = {});
  /// A tensor's shape: its coverage's, else its trace footprint's.
  static std::vector<std::int64_t> shapeOf(const Point& p, const QString& tensor);
  /// The tensors a point's trace has a footprint of, in the trace's order.
  static QStringList footprintTensors(const Point& p);

  void onReportLoaded(const ReportPtr& report) override;
  /// With the summary's wrapped lines at the panel's width: a panel squeezed below it
  /// would have its layout stack the legend over the map's bottom edge (its
  /// out-of-bounds band), so the main window gives the docks less instead.
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild() override;
  void showPoint(const SelectionState& state) override;
  void showWithinPoint(const SelectionState& state) override;
  void rebuildDimControls();
  void rebuildLayers();
  void applyLayer();
  void showTensor(const QString& tensor);
  bool hasCoverage(const QString& tensor) const;

  static constexpr int kTensorRole = Qt::UserRole + 1;  ///< a layer's tensor ("" for State)

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
