#include "panels/pointpanel.h"

namespace tilescope::ui {

PointPanel::PointPanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
  // The main window forwards the selection too: the point check below makes the second call free.
  if (m_selection)
    connect(m_selection, &Selection::selectionChanged, this, [this](const SelectionState& s) { onSelectionChanged(s); });
}

void PointPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_point = m_selection ? m_selection->state().point : 0;
  rebuild();
}

void PointPanel::onReportClosed() {
  m_report.reset();
  m_point = 0;
  rebuild();
}

void PointPanel::onSelectionChanged(const SelectionState& state) {
  if (state.point == m_point) return;
  m_point = state.point;
  rebuild();
}

const Point* PointPanel::shownPoint() const {
  if (!m_report || m_point < 0 || m_point >= static_cast<int>(m_report->points.size())) return nullptr;
  return &m_report->points[static_cast<size_t>(m_point)];
}

}  // namespace tilescope::ui
