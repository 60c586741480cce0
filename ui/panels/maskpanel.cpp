#include "panels/maskpanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

#include "models/qtconv.h"
#include "style/colors.h"
#include "widgets/maskwidget.h"

namespace tilescope::ui {

MaskPanel::MaskPanel(Selection* selection, QWidget* parent) : PointPanel(selection, parent) {
  m_mask = new MaskWidget(this);
  m_list = new QListWidget(this);
  m_list->setMaximumWidth(150);
  m_info = new QLabel(this);
  m_info->setWordWrap(true);
  auto* right = new QWidget(this);
  auto* rl = new QVBoxLayout(right);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(new QLabel(tr("Boundary tiles"), right));
  rl->addWidget(m_list);
  auto* split = new QSplitter(this);
  split->addWidget(m_mask);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_info);
  layout->addWidget(split, 1);
  connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
    QListWidgetItem* item = m_list->item(row);
    if (!item || !m_selection) return;
    const QPoint t = item->data(Qt::UserRole).toPoint();
    m_selection->setTile(t.y(), t.x());
  });
}

QString MaskPanel::infoText() const { return m_info->text(); }

void MaskPanel::showPoint(const SelectionState& state) {
  m_tensor = state.tensor;
  rebuild();
}

void MaskPanel::showWithinPoint(const SelectionState& state) {
  if (!state.tensor.isEmpty() && state.tensor != m_tensor) {
    m_tensor = state.tensor;
    rebuild();
  }
  showTile(state.tileRow, state.tileCol);
}

void MaskPanel::rebuild() {
  m_list->clear();
  const Point* shown = shownPoint();
  if (!shown) {
    m_mask->setGrid(nullptr);
    return;
  }
  const Point& p = *shown;
  auto grid = std::make_shared<CoverageGrid>(p, m_tensor.toStdString());
  if (!grid->valid()) {
    m_mask->setGrid(nullptr);
    m_info->setText(tr("No tiling for this point"));
    return;
  }
  // The out-of-bounds evidence as the coverage view reads it (CoverageGrid::oobRegions).
  QList<OobEvidence> ev;
  auto clampInt = [](std::int64_t v) {
    return static_cast<int>(std::clamp<std::int64_t>(v, INT_MIN / 2, INT_MAX / 2));
  };
  for (const OobRegion& o : grid->oobRegions())
    ev.append({QRect(QPoint(clampInt(o.col0), clampInt(o.row0)), QPoint(clampInt(o.col1), clampInt(o.row1))),
               o.write});
  m_mask->setGrid(grid);
  m_mask->setEvidence(ev);
  // Boundary tiles, those with out-of-bounds evidence first: they are the culprits.
  const auto writers = grid->oobTiles(true), readers = grid->oobTiles(false);
  auto has = [](const std::vector<std::pair<int, int>>& v, std::pair<int, int> t) {
    return std::find(v.begin(), v.end(), t) != v.end();
  };
  std::vector<std::pair<int, int>> tiles = writers;
  for (const auto& t : readers)
    if (!has(tiles, t)) tiles.push_back(t);
  for (const auto& t : grid->boundaryTiles())
    if (!has(tiles, t)) tiles.push_back(t);
  const QSignalBlocker block(m_list);
  for (const auto& [tr_, tc] : tiles) {
    const bool w = has(writers, {tr_, tc}), r = has(readers, {tr_, tc});
    QString label = tr("tile (%1, %2)").arg(tr_).arg(tc);
    if (w)
      label += tr(" \u2716 writes OOB");
    else if (r)
      label += tr(" \u2716 reads OOB");
    auto* item = new QListWidgetItem(label, m_list);
    item->setData(Qt::UserRole, QPoint(tc, tr_));
    if (w || r) item->setForeground(oobColor(w));
  }
}

void MaskPanel::showTile(int tileRow, int tileCol) {
  m_mask->setTile(tileRow, tileCol);
  if (tileRow < 0 || !m_mask->grid()) {
    m_info->setText(tr("Select a tile to see its mask."));
    return;
  }
  QString text = tr("Tile (%1, %2): %3 in-bounds elements, %4 masked, %5 with out-of-bounds evidence")
                     .arg(tileRow)
                     .arg(tileCol)
                     .arg(m_mask->inBoundsCount())
                     .arg(m_mask->maskedCount())
                     .arg(m_mask->evidenceCount());
  const auto cta = m_mask->grid()->ctaOfTile(tileRow, tileCol);
  if (cta.size() == 3) text += tr(" · CTA blockIdx (%1, %2, %3)").arg(cta[0]).arg(cta[1]).arg(cta[2]);
  m_info->setText(text);
}

}  // namespace tilescope::ui
