// A QCustomPlot that re-applies the chart style when the palette changes and asks
// its owner to rebuild (series colours depend on the palette too).
#pragma once

#include "charts/qcp.h"

#include "charts/chartstyle.h"

namespace tilescope::ui {

class ChartPlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit ChartPlot(QWidget* parent = nullptr);
  ChartColors colors() const { return chartColors(palette()); }
  /// Removes every plottable, item and extra layout element (titles), resets axes.
  void clearChart();
  /// Sets a title row above the axis rect (created on first use).
  void setTitle(const QString& title);
  QString title() const;

 signals:
  void paletteChanged();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  QCPTextElement* m_title = nullptr;
};

}  // namespace tilescope::ui
