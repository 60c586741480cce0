#include "panels/maskpanel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QVBoxLayout>

#include "models/qtconv.h"
#include "widgets/maskwidget.h"

namespace tilescope::ui {

namespace {
/// The elements a finding names, in the last two dimensions: its box (lo..hi) where
/// the producer gave one, else first..last (inclusive).
bool evidenceRect(const Finding& f, QRect* out) {
  if (!f.location.elements) return false;
  const ElementRange& e = *f.location.elements;
  const bool box = e.lo.size() >= 2 && e.hi.size() == e.lo.size();
  const Index& a = box ? e.lo : e.first;
  const Index& b = box ? e.hi : (e.last.size() == e.first.size() ? e.last : e.first);
  if (a.size() < 2) return false;
  auto pt = [](const Index& i) {
    return QPoint(static_cast<int>(i[i.size() - 1]), static_cast<int>(i[i.size() - 2]));  // x = column, y = row
  };
  *out = QRect(pt(a), pt(b)).normalized();
  return true;
}
}  // namespace

MaskPanel::MaskPanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
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

void MaskPanel::showPoint(int point, const QString& tensor) {
  m_point = point;
  m_tensor = tensor;
  m_list->clear();
  if (!m_report || point < 0 || point >= static_cast<int>(m_report->points.size())) {
    m_mask->setGrid(nullptr);
    return;
  }
  const Point& p = m_report->points[static_cast<size_t>(point)];
  auto grid = std::make_shared<CoverageGrid>(p, tensor.toStdString());
  if (!grid->valid()) {
    m_mask->setGrid(nullptr);
    m_info->setText(tr("No tiling for this point"));
    return;
  }
  QList<OobEvidence> ev;
  for (const auto& f : p.findings) {
    if (f.category != "oob_write" && f.category != "oob_read") continue;
    if (!f.tensor.empty() && f.tensor != grid->tensor()) continue;
    QRect r;
    if (evidenceRect(f, &r)) ev.append({r, f.category == "oob_write"});
  }
  m_mask->setGrid(grid);
  m_mask->setEvidence(ev);
  const QSignalBlocker block(m_list);
  for (const auto& [tr_, tc] : grid->boundaryTiles()) {
    auto* item = new QListWidgetItem(tr("tile (%1, %2)").arg(tr_).arg(tc), m_list);
    item->setData(Qt::UserRole, QPoint(tc, tr_));
  }
}

void MaskPanel::showTile(int tileRow, int tileCol) {
  m_mask->setTile(tileRow, tileCol);
  if (tileRow < 0 || !m_mask->grid()) {
    m_info->setText(tr("Select a tile to see its mask."));
    return;
  }
  m_info->setText(tr("Tile (%1, %2): %3 in-bounds elements, %4 masked, %5 with out-of-bounds evidence")
                      .arg(tileRow).arg(tileCol).arg(m_mask->inBoundsCount()).arg(m_mask->maskedCount()).arg(m_mask->evidenceCount()));
}

void MaskPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_point = -1;
  onSelectionChanged(m_selection ? m_selection->state() : SelectionState{});
}

void MaskPanel::onReportClosed() {
  m_report.reset();
  showPoint(-1, {});
  showTile(-1, -1);
}

void MaskPanel::onSelectionChanged(const SelectionState& state) {
  if (state.point != m_point || (!state.tensor.isEmpty() && state.tensor != m_tensor)) showPoint(state.point, state.tensor);
  showTile(state.tileRow, state.tileCol);
}

}  // namespace tilescope::ui
