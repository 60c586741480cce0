#include "panels/coveragepanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
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
  m_sliceBox = new QWidget(this);
  m_sliceLayout = new QHBoxLayout(m_sliceBox);
  m_sliceLayout->setContentsMargins(0, 0, 0, 0);
  auto* fit = new QPushButton(tr("Fit"), this);
  m_layerBox = new QComboBox(this);
  m_layerBox->addItem(tr("State"), static_cast<int>(CoverageLayer::state));
  m_layerBox->addItem(tr("Measured writes (trace)"), static_cast<int>(CoverageLayer::writes));
  m_layerBox->addItem(tr("Measured reads (trace)"), static_cast<int>(CoverageLayer::reads));
  m_layerBox->setToolTip(
      tr("With a traced report: which CTA wrote or read each cell (a colour per CTA; hatched where "
         "more than one did, grey where none did)"));
  m_summary = new QLabel(this);
  m_widget = new CoverageWidget(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Tensor"), this));
  bar->addWidget(m_tensorBox);
  bar->addWidget(new QLabel(tr("rows"), this));
  bar->addWidget(m_rowDim);
  bar->addWidget(new QLabel(tr("cols"), this));
  bar->addWidget(m_colDim);
  bar->addWidget(m_sliceBox);
  bar->addStretch(1);
  bar->addWidget(new QLabel(tr("Layer"), this));
  bar->addWidget(m_layerBox);
  bar->addWidget(fit);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(m_summary);
  layout->addWidget(m_widget, 1);
  m_legend = new LegendWidget(this);
  layout->addWidget(m_legend);

  connect(fit, &QPushButton::clicked, m_widget, &CoverageWidget::fitAll);
  connect(m_layerBox, &QComboBox::currentIndexChanged, this, [this] {
    m_widget->setLayer(static_cast<CoverageLayer>(m_layerBox->currentData().toInt()));
    m_legend->setVisible(m_widget->effectiveLayer() ==
                         CoverageLayer::state);  // the state legend does not apply to CTA colours
  });
  connect(m_tensorBox, &QComboBox::currentTextChanged, this, [this](const QString& t) {
    if (m_updating) return;
    m_tensor = t;
    rebuildDimControls();
    rebuild();
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

QString CoveragePanel::summaryText() const { return m_summary->text(); }

void CoveragePanel::rebuildDimControls() {
  const QSignalBlocker b1(m_rowDim), b2(m_colDim);
  m_rowDim->clear();
  m_colDim->clear();
  qDeleteAll(m_sliceSpins);
  m_sliceSpins.clear();
  const Point* p = shownPoint();
  if (!p) return;
  for (const auto& c : p->coverage) {
    if (qs(c.tensor) != m_tensor) continue;
    const int n = static_cast<int>(c.shape.size());
    for (int d = 0; d < n; ++d) {
      const QString label = QStringLiteral("dim %1 (%2)").arg(d).arg(c.shape[static_cast<size_t>(d)]);
      m_rowDim->addItem(label, d);
      m_colDim->addItem(label, d);
    }
    m_rowDim->setCurrentIndex(std::max(0, n - 2));
    m_colDim->setCurrentIndex(n - 1);
    // Rank > 2: one spin box per dimension; those of the two viewed dims are ignored.
    for (int d = 0; n > 2 && d < n; ++d) {
      auto* spin = new QSpinBox(m_sliceBox);
      spin->setPrefix(QStringLiteral("i%1=").arg(d));
      spin->setRange(0,
                     static_cast<int>(std::min<std::int64_t>(c.shape[static_cast<size_t>(d)] - 1, INT_MAX)));
      m_sliceLayout->addWidget(spin);
      m_sliceSpins << spin;
      connect(spin, &QSpinBox::valueChanged, this, [this] {
        if (!m_updating) rebuild();
      });
    }
  }
  const bool highRank = m_rowDim->count() > 2;
  m_rowDim->setEnabled(highRank);
  m_colDim->setEnabled(highRank);
  m_sliceBox->setVisible(highRank);
}

QString CoveragePanel::oobSummary(const CoverageGrid& g) {
  QString out;
  for (bool write : {true, false}) {
    const std::int64_t n = g.oobElements(write);
    if (n == 0) continue;
    const auto tiles = g.oobTiles(write);
    QStringList names;
    for (size_t i = 0; i < tiles.size() && i < 4; ++i)
      names << QStringLiteral("(%1, %2)").arg(tiles[i].first).arg(tiles[i].second);
    if (tiles.size() > 4)
      names << QStringLiteral("… (%1, %2)").arg(tiles.back().first).arg(tiles.back().second);
    out +=
        QLatin1Char('\n') +
        (write ? tr("\u2716 %1 element(s) written out of bounds (hatched, past the edge) by %2 tile(s): %3")
               : tr("\u2716 %1 element(s) read out of bounds by %2 tile(s): %3"))
            .arg(n)
            .arg(tiles.size())
            .arg(names.join(QStringLiteral(", ")));
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
  if (grid->valid()) text += oobSummary(*grid);
  m_layerBox->setEnabled(grid->valid() && grid->hasFootprint());
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
  m_legend->setVisible(m_widget->effectiveLayer() == CoverageLayer::state);
  if (m_selection) m_widget->setSelectedTile(m_selection->state().tileRow, m_selection->state().tileCol);
}

void CoveragePanel::onReportLoaded(const ReportPtr& report) {
  PointPanel::onReportLoaded(report);
  // Another report starts whole, even when its tensor has the shape of the last one
  // (switching points keeps the view: the eye compares them).
  m_widget->fitAll();
}

void CoveragePanel::showPoint(const SelectionState& state) {
  // The point's tensors, keeping the one in focus where the new point has it.
  m_updating = true;
  const QString keep = state.tensor.isEmpty() ? m_tensor : state.tensor;
  m_tensorBox->clear();
  if (const Point* p = shownPoint())
    for (const auto& c : p->coverage) m_tensorBox->addItem(qs(c.tensor));
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
