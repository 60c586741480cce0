#include "widgets/fitcolumn.h"

#include <QResizeEvent>
#include <QVBoxLayout>

namespace tilescope::ui {

FitColumn::FitColumn(QWidget* parent) : QWidget(parent), m_layout(new QVBoxLayout(this)) {}

QSize FitColumn::minimumSizeHint() const {
  QSize s = QWidget::minimumSizeHint();
  const QMargins m = m_layout->contentsMargins();
  const int w = std::max(width(), s.width()) - m.left() - m.right();
  int h = m.top() + m.bottom(), shown = 0;
  for (int i = 0; i < m_layout->count(); ++i) {
    QLayoutItem* item = m_layout->itemAt(i);
    if (item->isEmpty()) continue;
    int ih = item->minimumSize().height();
    if (m_layout->stretch(i) == 0 && item->hasHeightForWidth()) ih = std::max(ih, item->heightForWidth(w));
    h += ih;
    ++shown;
  }
  h += std::max(0, shown - 1) * std::max(0, m_layout->spacing());
  s.setHeight(std::max(s.height(), h));
  return s;
}

void FitColumn::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // The wrapped rows' line counts follow the width, and with them the minimum height.
  if (event->oldSize().width() != event->size().width()) updateGeometry();
}

}  // namespace tilescope::ui
