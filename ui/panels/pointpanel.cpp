#include "panels/pointpanel.h"

namespace tilescope::ui {

PointPanel::PointPanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
  // The main window forwards the selection too: showing the same state twice changes nothing.
  if (m_selection)
    connect(m_selection, &Selection::selectionChanged, this,
            [this](const SelectionState& s) { onSelectionChanged(s); });
}

void PointPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  follow(m_selection ? m_selection->state() : SelectionState{}, true);
}

void PointPanel::onReportClosed() {
  m_report.reset();
  SelectionState none;
  none.point = -1;
  follow(none, true);
}

void PointPanel::onSelectionChanged(const SelectionState& state) { follow(state, state.point != m_point); }

void PointPanel::follow(const SelectionState& state, bool newPoint) {
  if (newPoint) {
    m_point = state.point;
    showPoint(state);
  }
  showWithinPoint(state);
}

void PointPanel::showPoint(const SelectionState&) { rebuild(); }

void PointPanel::showWithinPoint(const SelectionState&) {}

const Point* PointPanel::shownPoint() const {
  if (!m_report || m_point < 0 || m_point >= static_cast<int>(m_report->points.size())) return nullptr;
  return &m_report->points[static_cast<size_t>(m_point)];
}

}  // namespace tilescope::ui
