#include "panels/coveragepanel.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>

#include "models/qtconv.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/legendwidget.h"

namespace tilescope::ui {

CoveragePanel::CoveragePanel(Selection* selection, QWidget* parent) : PointPanel(selection, parent) {
  m_tensorBox = new QComboBox(this);
  m_rowDim = new QComboBox(this);
  m_colDim = new QComboBox(this);
  for (QComboBox* box : {m_tensorBox, m_rowDim, m_colDim})
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "2 (2048)" whole, never "2 (2("
  m_sliceBox = new QWidget(this);
  m_sliceLayout = new QHBoxLayout(m_sliceBox);
  m_sliceLayout->setContentsMargins(0, 0, 0, 0);
  auto* fit = new QPushButton(tr("Fit"), this);
  // The style's 80-px button minimum, for a three-letter word, widened the window.
  fit->setMinimumWidth(fit->fontMetrics().horizontalAdvance(fit->text()) + 24);
  fit->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
  m_layerBox = new QComboBox(this);
  // "Measured reads: A (trace)" whole in its list; closed, it may shorten: its
  // longest name widened the window past a laptop's screen.
  m_layerBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_layerBox->setMinimumContentsLength(6);
  m_layerBox->view()->setTextElideMode(Qt::ElideNone);
  m_layerBox->setToolTip(
      tr("State: the measured state of an output. With a traced report, one layer per tensor the trace "
         "measured (outputs and inputs): which CTA wrote or read each cell (a colour per CTA; hatched "
         "where more than one did, grey where none did)"));
  m_summary = new QLabel(this);
  // Its lines name tiles and counts: wrapped, or the window grew past the screen (1993 px).
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);
  m_widget = new CoverageWidget(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Tensor"), this));
  bar->addWidget(m_tensorBox);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Layer"), this));
  bar->addWidget(m_layerBox);
  bar->addWidget(fit);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  // Which two dimensions a tensor of rank > 2 shows and the index of the others,
  // on a row of their own, shown for such tensors only: beside the tensor and
  // layer selectors they made the window 1578 px wide, or were squeezed.
  m_sliceLayout->addWidget(new QLabel(tr("rows"), m_sliceBox));
  m_sliceLayout->addWidget(m_rowDim);
  m_sliceLayout->addWidget(new QLabel(tr("cols"), m_sliceBox));
  m_sliceLayout->addWidget(m_colDim);
  m_sliceLayout->addStretch(1);
  layout->addWidget(m_sliceBox);
  layout->addWidget(m_summary);
  layout->addWidget(m_widget, 1);
  m_legend = new LegendWidget(this);
  layout->addWidget(m_legend);

  connect(fit, &QPushButton::clicked, m_widget, &CoverageWidget::fitAll);
  connect(m_layerBox, &QComboBox::currentIndexChanged, this, [this] {
    if (m_updating) return;
    // A layer names its tensor: choosing "Measured reads: A" shows A.
    const QString tensor = m_layerBox->currentData(kTensorRole).toString();
    if (!tensor.isEmpty() && tensor != m_tensor) {
      showTensor(tensor);
      return;
    }
    if (tensor.isEmpty() && !hasCoverage(m_tensor) && m_tensorBox->count() > 0) {
      showTensor(m_tensorBox->itemText(0));  // State: an output's
      return;
    }
    applyLayer();
  });
  connect(m_tensorBox, &QComboBox::currentTextChanged, this, [this](const QString& t) {
    if (!m_updating) showTensor(t);
  });
  auto dimsChanged = [this] {
    if (!m_updating) rebuild();
  };
  connect(m_rowDim, &QComboBox::currentIndexChanged, this, dimsChanged);
  connect(m_colDim, &QComboBox::currentIndexChanged, this, dimsChanged);
  connect(m_widget, &CoverageWidget::tileClicked, this, [this](int r, int c) {
    if (m_selection) m_selection->setTile(r, c);
  });
}

const CoverageGrid* CoveragePanel::grid() const { return m_widget->grid(); }

QSize CoveragePanel::minimumSizeHint() const {
  QSize s = PointPanel::minimumSizeHint();
  if (!m_summary->isHidden() && layout()) {
    const QMargins m = layout()->contentsMargins();
    const int w = std::max(width(), s.width()) - m.left() - m.right();
    s.rheight() += std::max(0, m_summary->heightForWidth(w) - m_summary->minimumSizeHint().height());
  }
  return s;
}

void CoveragePanel::resizeEvent(QResizeEvent* event) {
  PointPanel::resizeEvent(event);
  // The summary's line count follows the width, and with it the minimum height.
  if (event->oldSize().width() != event->size().width()) updateGeometry();
}

QString CoveragePanel::summaryText() const { return m_summary->text(); }

void CoveragePanel::rebuildDimControls() {
  const QSignalBlocker b1(m_rowDim), b2(m_colDim);
  m_rowDim->clear();
  m_colDim->clear();
  qDeleteAll(m_sliceSpins);
  m_sliceSpins.clear();
  const Point* p = shownPoint();
  const std::vector<std::int64_t> shape = p ? shapeOf(*p, m_tensor) : std::vector<std::int64_t>();
  const int n = static_cast<int>(shape.size());
  for (int d = 0; d < n; ++d) {
    // "2 (1024)": dimension 2, of extent 1024 (after "rows"/"cols": short, read whole).
    const QString label = QStringLiteral("%1 (%2)").arg(d).arg(shape[static_cast<size_t>(d)]);
    m_rowDim->addItem(label, d);
    m_colDim->addItem(label, d);
  }
  for (QComboBox* box : {m_rowDim, m_colDim}) {
    box->setMinimumWidth(0);
    box->setMinimumWidth(box->sizeHint().width());  // never clipped to "2 (1("
    box->setToolTip(tr("Dimension (extent) of the tensor drawn along the %1")
                        .arg(box == m_rowDim ? tr("rows") : tr("columns")));
  }
  if (n > 0) {
    m_rowDim->setCurrentIndex(std::max(0, n - 2));
    m_colDim->setCurrentIndex(n - 1);
  }
  // Rank > 2: one spin box per dimension; those of the two viewed dims are ignored.
  for (int d = 0; n > 2 && d < n; ++d) {
    auto* spin = new QSpinBox(m_sliceBox);
    const auto last = static_cast<int>(std::min<std::int64_t>(shape[static_cast<size_t>(d)] - 1, INT_MAX));
    spin->setPrefix(QStringLiteral("i%1=").arg(d));
    spin->setRange(0, last);
    spin->setToolTip(tr("Index of dimension %1 (0..%2) the view shows; ignored for the two viewed dimensions")
                         .arg(d)
                         .arg(last));
    // Wide enough for its prefix and largest value at any style: a squeezed box reads "i…".
    const QFontMetrics fm(spin->font());
    spin->setMinimumWidth(fm.horizontalAdvance(QStringLiteral("i%1=%2").arg(d).arg(last)) + 36);
    m_sliceLayout->insertWidget(m_sliceLayout->count() - 1, spin);  // before the stretch
    m_sliceSpins << spin;
    connect(spin, &QSpinBox::valueChanged, this, [this] {
      if (!m_updating) rebuild();
    });
  }
  const bool highRank = m_rowDim->count() > 2;
  m_rowDim->setEnabled(highRank);
  m_colDim->setEnabled(highRank);
  m_sliceBox->setVisible(highRank);
}

std::vector<std::int64_t> CoveragePanel::shapeOf(const Point& p, const QString& tensor) {
  for (const auto& c : p.coverage)
    if (qs(c.tensor) == tensor) return c.shape;
  if (p.trace.traced())
    for (const TraceFootprint& fp : p.trace.footprints)
      if (qs(fp.tensor) == tensor) return fp.shape;
  return {};
}

QStringList CoveragePanel::footprintTensors(const Point& p) {
  QStringList out;
  if (p.trace.traced())
    for (const TraceFootprint& fp : p.trace.footprints)
      if (!fp.shape.empty()) out << qs(fp.tensor);
  return out;
}

bool CoveragePanel::hasCoverage(const QString& tensor) const {
  if (const Point* p = shownPoint())
    for (const auto& c : p->coverage)
      if (qs(c.tensor) == tensor) return true;
  return false;
}

void CoveragePanel::showTensor(const QString& tensor) {
  m_updating = true;
  m_tensor = tensor;
  if (m_tensorBox->currentText() != tensor) m_tensorBox->setCurrentText(tensor);
  rebuildDimControls();
  m_updating = false;
  rebuild();
}

void CoveragePanel::rebuildLayers() {
  // State (an output's), then one layer per footprint the trace measured: "Measured
  // reads: A" for an input as much as "Measured writes: C" for the output.
  const CoverageLayer wasLayer = static_cast<CoverageLayer>(m_layerBox->currentData().toInt());
  const QString wasTensor = m_layerBox->currentData(kTensorRole).toString();
  m_updating = true;
  m_layerBox->clear();
  m_layerBox->addItem(tr("State"), static_cast<int>(CoverageLayer::state));
  if (const Point* p = shownPoint(); p && p->trace.traced())
    for (const TraceFootprint& fp : p->trace.footprints) {
      auto add = [&](CoverageLayer layer, const QString& text) {
        m_layerBox->addItem(text, static_cast<int>(layer));
        m_layerBox->setItemData(m_layerBox->count() - 1, qs(fp.tensor), kTensorRole);
      };
      if (fp.cellsWritten > 0 || !fp.writeBoxes.empty())
        add(CoverageLayer::writes, tr("Measured writes: %1 (trace)").arg(qs(fp.tensor)));
      if (fp.cellsRead > 0 || !fp.readBoxes.empty())
        add(CoverageLayer::reads, tr("Measured reads: %1 (trace)").arg(qs(fp.tensor)));
    }
  // Keep the layer where the tensor has it; an input has no state: its first layer.
  int pick = hasCoverage(m_tensor) ? 0 : -1;
  for (int i = 1; i < m_layerBox->count(); ++i) {
    if (m_layerBox->itemData(i, kTensorRole).toString() != m_tensor) continue;
    if (pick < 0) pick = i;
    if (static_cast<CoverageLayer>(m_layerBox->itemData(i).toInt()) == wasLayer &&
        (wasTensor == m_tensor || wasTensor.isEmpty()) && wasLayer != CoverageLayer::state)
      pick = i;
  }
  m_layerBox->setCurrentIndex(std::max(pick, 0));
  m_layerBox->setEnabled(m_layerBox->count() > 1);
  m_updating = false;
  applyLayer();
}

void CoveragePanel::applyLayer() {
  m_widget->setLayer(static_cast<CoverageLayer>(m_layerBox->currentData().toInt()));
  // The state legend does not apply to CTA colours.
  m_legend->setVisible(m_widget->effectiveLayer() == CoverageLayer::state);
}

QStringList CoveragePanel::layerNames() const {
  QStringList out;
  for (int i = 0; i < m_layerBox->count(); ++i) out << m_layerBox->itemText(i);
  return out;
}

bool CoveragePanel::showLayer(CoverageLayer layer, const QString& tensor) {
  for (int i = 0; i < m_layerBox->count(); ++i)
    if (static_cast<CoverageLayer>(m_layerBox->itemData(i).toInt()) == layer &&
        (layer == CoverageLayer::state || m_layerBox->itemData(i, kTensorRole).toString() == tensor)) {
      m_layerBox->setCurrentIndex(i);
      return true;
    }
  return false;
}

QString CoveragePanel::oobSummary(const CoverageGrid& g) {
  QString out;
  for (bool write : {true, false}) {
    const std::int64_t n = g.oobElements(write);
    if (n == 0) continue;
    QString line;
    if (g.declared()) {
      const auto tiles = g.oobTiles(write);
      QStringList names;
      for (size_t i = 0; i < tiles.size() && i < 4; ++i)
        names << QStringLiteral("(%1, %2)").arg(tiles[i].first).arg(tiles[i].second);
      if (tiles.size() > 4)
        names << QStringLiteral("… (%1, %2)").arg(tiles.back().first).arg(tiles.back().second);
      line =
          (write ? tr("\u2716 %1 element(s) written out of bounds (hatched, past the edge) by %2 tile(s): %3")
                 : tr("\u2716 %1 element(s) read out of bounds by %2 tile(s): %3"))
              .arg(n)
              .arg(tiles.size())
              .arg(names.join(QStringLiteral(", ")));
    } else {
      line = (write ? tr("\u2716 %1 element(s) written out of bounds (past the edge)")
                    : tr("\u2716 %1 element(s) read out of bounds (past the edge)"))
                 .arg(n);
    }
    // The trace counts every bad access; its first per instruction is what it locates.
    if (const std::int64_t k = g.oobAccesses(write); k > 0)
      line += tr("; the trace counted %1 bad %2 at %3 instruction(s), the first of each marked")
                  .arg(k)
                  .arg(write ? tr("writes") : tr("reads"))
                  .arg(g.oobInstructions(write));
    out += QLatin1Char('\n') + line;
  }
  return out;
}

void CoveragePanel::rebuild() {
  const Point* shown = shownPoint();
  if (!shown) {
    m_widget->setGrid(nullptr);
    m_summary->setText(tr("No report"));
    return;
  }
  const Point& p = *shown;
  CoverageGrid::View view;
  view.rowDim = m_rowDim->currentData().isValid() ? m_rowDim->currentData().toInt() : -1;
  view.colDim = m_colDim->currentData().isValid() ? m_colDim->currentData().toInt() : -1;
  for (QSpinBox* s : m_sliceSpins) view.slice.push_back(s->value());
  auto grid = std::make_shared<CoverageGrid>(p, m_tensor.toStdString(), view);
  QString text;
  for (const auto& c : p.coverage) {
    if (qs(c.tensor) != m_tensor) continue;
    text = c.measured ? tr("%1: %2 elements, %3 written, %4 unwritten; %5 tiles, %6 crossing the edge")
                            .arg(qs(c.tensor))
                            .arg(c.elements)
                            .arg(c.written)
                            .arg(c.unwritten)
                            .arg(c.tilesTotal)
                            .arg(c.tilesCrossing)
                      : tr("%1: declared tiling only (not measured on a GPU); %2 tiles, %3 crossing the edge")
                            .arg(qs(c.tensor))
                            .arg(c.tilesTotal)
                            .arg(c.tilesCrossing);
  }
  if (!grid->declared() && grid->valid())
    text = tr("%1: an input, no declared tiles: the trace's footprint of it (%2 elements)")
               .arg(m_tensor)
               .arg(grid->rows() * grid->cols());
  if (grid->valid()) text += oobSummary(*grid);
  if (grid->valid() && grid->hasFootprint())
    for (const TraceFootprint& fp : p.trace.footprints)
      if (fp.tensor == grid->tensor())
        text += tr("\ntrace: %1 written, %2 by more than one CTA, %3 read (device cells, element-exact up to "
                   "4 M elements); "
                   "the layers draw cells of %4×%5")
                    .arg(fp.cellsWritten)
                    .arg(fp.cellsMultiWriter)
                    .arg(fp.cellsRead)
                    .arg(fp.cellH)
                    .arg(fp.cellW);
  m_summary->setText(
      grid->valid()
          ? text
          : tr("This point has no coverage data (%1).").arg(QString::fromLatin1(verdictName(p.verdict))));
  m_widget->setGrid(grid->valid() ? grid : nullptr);
  rebuildLayers();
  if (m_selection) m_widget->setSelectedTile(m_selection->state().tileRow, m_selection->state().tileCol);
}

void CoveragePanel::onReportLoaded(const ReportPtr& report) {
  PointPanel::onReportLoaded(report);
  // Another report starts whole, even when its tensor has the shape of the last one
  // (switching points keeps the view: the eye compares them).
  m_widget->fitAll();
}

void CoveragePanel::showPoint(const SelectionState& state) {
  // The point's tensors, keeping the one in focus where the new point has it: the
  // outputs, then every tensor only the trace measured (a GEMM's A and B).
  m_updating = true;
  const QString keep = state.tensor.isEmpty() ? m_tensor : state.tensor;
  m_tensorBox->clear();
  if (const Point* p = shownPoint()) {
    for (const auto& c : p->coverage) m_tensorBox->addItem(qs(c.tensor));
    for (const QString& t : footprintTensors(*p))
      if (m_tensorBox->findText(t) < 0) {
        m_tensorBox->addItem(t);
        m_tensorBox->setItemData(m_tensorBox->count() - 1, tr("%1: an input the trace measured").arg(t),
                                 Qt::ToolTipRole);
      }
  }
  const int i = m_tensorBox->findText(keep);
  m_tensorBox->setCurrentIndex(i >= 0 ? i : 0);
  m_tensor = m_tensorBox->currentText();
  rebuildDimControls();
  m_updating = false;
  rebuild();
}

void CoveragePanel::showWithinPoint(const SelectionState& state) {
  if (!state.tensor.isEmpty() && state.tensor != m_tensor && m_tensorBox->findText(state.tensor) >= 0)
    m_tensorBox->setCurrentText(state.tensor);
  m_widget->setSelectedTile(state.tileRow, state.tileCol);
  // A newly selected finding brings its tile into view (a click in this view does not move it).
  if (state.finding >= 0 && state.finding != m_finding && state.tileRow >= 0)
    m_widget->showTile(state.tileRow, state.tileCol);
  m_finding = state.finding;
}

}  // namespace tilescope::ui
