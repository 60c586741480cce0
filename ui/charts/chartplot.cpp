#include "charts/chartplot.h"

namespace tilescope::ui {

ChartPlot::ChartPlot(QWidget* parent) : QCustomPlot(parent) {
  setMinimumSize(240, 180);
  setNoAntialiasingOnDrag(true);
  applyChartStyle(this, colors());
}

void ChartPlot::clearChart() {
  clearPlottables();
  clearItems();
  for (QCPAxisRect* rect : axisRects())
    for (QCPAxis* axis : rect->axes()) {
      axis->setScaleType(QCPAxis::stLinear);  // a roofline's log axes do not outlive it
      axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
      axis->setLabel(QString());
      axis->setTickLabels(true);  // an empty chart's note hides them
      axis->setTickLabelRotation(0);
    }
  yAxis2->setVisible(false);
  legend->setVisible(false);
  if (m_title) m_title->setText(QString());
}

void ChartPlot::setTitle(const QString& title) {
  if (!m_title) {
    plotLayout()->insertRow(0);
    m_title = new QCPTextElement(this, title, QFont(font().family(), font().pointSize() + 1, QFont::Bold));
    plotLayout()->addElement(0, 0, m_title);
  }
  m_title->setText(title);
  m_title->setTextColor(colors().foreground);
}

QString ChartPlot::title() const { return m_title ? m_title->text() : QString(); }

void ChartPlot::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    applyChartStyle(this, colors());
    emit paletteChanged();
    replot(QCustomPlot::rpQueuedRefresh);
  }
}

}  // namespace tilescope::ui
