// A row of coloured swatches naming the coverage states.
#pragma once

#include <QWidget>

namespace tilescope::ui {

class LegendWidget : public QWidget {
  Q_OBJECT
 public:
  explicit LegendWidget(QWidget* parent = nullptr);
};

}  // namespace tilescope::ui
