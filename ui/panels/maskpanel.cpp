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
/// location.elements [[r0, c0], [r1, c1]] (inclusive) or location.element [r, c] of an OOB finding.
bool evidenceRect(const Finding& f, QRect* out) {
  const nlohmann::json& loc = f.location;
  if (!loc.is_object()) return false;
  auto pt = [](const nlohmann::json& j) { return QPoint(static_cast<int>(j.back().get<std::int64_t>()), static_cast<int>(j[j.size() - 2].get<std::int64_t>())); };
  if (loc.contains("elements") && loc["elements"].is_array() && loc["elements"].size() == 2 && loc["elements"][0].size() >= 2) {
    *out = QRect(pt(loc["elements"][0]), pt(loc["elements"][1]));
    return true;
  }
  if (loc.contains("element") && loc["element"].is_array() && loc["element"].size() >= 2) {
    *out = QRect(pt(loc["element"]), QSize(1, 1));
    return true;
  }
  return false;
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
