// The one selection shared by every panel: which point (sweep point × trial),
// which tensor, which tile/element is under attention.
#pragma once

#include <QObject>
#include <QString>

namespace tilescope::ui {

struct SelectionState {
  int point = 0;                      ///< index into Report::points
  QString tensor;                     ///< output tensor in focus ("" = the first)
  int tileRow = -1, tileCol = -1;     ///< selected declared tile (-1: none)
  qint64 elemRow = -1, elemCol = -1;  ///< selected element (-1: none)
  int finding = -1;  ///< row of the Findings table: report-level findings, then the point's (-1: none)
  bool operator==(const SelectionState&) const = default;
};

class Selection : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  const SelectionState& state() const { return m_state; }
  void setState(const SelectionState& s) {
    if (s == m_state) return;
    m_state = s;
    emit selectionChanged(m_state);
  }
  void setPoint(int point) {
    auto s = m_state;
    s.point = point;
    s.finding = -1;
    setState(s);
  }
  void setTile(int row, int col) {
    auto s = m_state;
    s.tileRow = row;
    s.tileCol = col;
    setState(s);
  }

 signals:
  void selectionChanged(const tilescope::ui::SelectionState& state);

 private:
  SelectionState m_state;
};

}  // namespace tilescope::ui
