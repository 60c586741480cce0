#include "widgets/legendwidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPixmap>

#include "style/colors.h"

namespace tilescope::ui {

LegendWidget::LegendWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  for (int s = 0; s < kStateCount; ++s) {
    QPixmap swatch(12, 12);
    swatch.fill(stateColor(s));
    auto* icon = new QLabel(this);
    icon->setPixmap(swatch);
    layout->addWidget(icon);
    layout->addWidget(new QLabel(stateName(s), this));
    layout->addSpacing(8);
  }
  layout->addStretch(1);
}

}  // namespace tilescope::ui
