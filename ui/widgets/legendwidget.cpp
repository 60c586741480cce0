#include "widgets/legendwidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>

#include "style/colors.h"

namespace tilescope::ui {

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (int s = 0; s < kStateCount; ++s) {
    QPixmap swatch(14, 14);
    swatch.fill(stateColor(s));
    {
      QPainter p(&swatch);
      p.fillRect(swatch.rect(), QBrush(stateHatchColor(s), stateHatch(s)));
    }
    auto* icon = new QLabel(this);
    icon->setPixmap(swatch);
    layout->addWidget(icon);
    layout->addWidget(new QLabel(stateName(s), this));
    layout->addSpacing(2);  // with the layout's own spacing: the row fits a 1280-px window
  }
  layout->addStretch(1);
}

}  // namespace tilescope::ui
