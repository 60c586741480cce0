#include "charts/unitticker.h"

#include <cmath>

namespace tilescope::ui {

QString formatDuration(double ns) { return QString::fromStdString(tilescope::formatDuration(ns)); }
QString formatBytes(double bytes) { return QString::fromStdString(tilescope::formatBytes(bytes)); }
QString formatFlops(double flopsPerSecond) {
  return QString::fromStdString(tilescope::formatFlops(flopsPerSecond));
}
QString formatPercent(double fraction, int decimals) {
  return QString::fromStdString(tilescope::formatPercent(fraction, decimals));
}
QString formatRatio(double factor) { return QString::fromStdString(tilescope::formatRatio(factor)); }

double UnitTicker::getTickStep(const QCPRange& range) {
  const double magnitude = qMax(std::fabs(range.lower), std::fabs(range.upper));
  const Unit& u = pickUnit(m_ladder, magnitude);
  const double exact = range.size() / (tickCount() + 1e-10) / u.factor;
  return cleanMantissa(exact) * u.factor;
}

QVector<QString> UnitTicker::createLabelVector(const QVector<double>& ticks, const QLocale& locale, QChar,
                                               int) {
  double magnitude = 0;
  for (double t : ticks) magnitude = qMax(magnitude, std::fabs(t));
  const Unit& u = pickUnit(m_ladder, magnitude);
  QVector<QString> labels;
  labels.reserve(ticks.size());
  // One unit for every tick of the axis (core's formatWithUnit picks one per value).
  for (double t : ticks)
    labels.append(
        QStringLiteral("%1 %2").arg(locale.toString(t / u.factor, 'g', 4), QString::fromUtf8(u.suffix)));
  return labels;
}

QString PercentTicker::getTickLabel(double tick, const QLocale& locale, QChar, int) {
  return QStringLiteral("%1 %").arg(locale.toString(tick * 100.0, 'g', 3));
}

QString LogFlopsTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return formatFlops(tick); }

QSharedPointer<QCPAxisTicker> durationTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(durationUnits()));
}
QSharedPointer<QCPAxisTicker> byteTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(byteUnits()));
}
QSharedPointer<QCPAxisTicker> flopsTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(flopsUnits()));
}
QSharedPointer<QCPAxisTicker> logFlopsTicker() {
  auto t = QSharedPointer<LogFlopsTicker>::create();
  t->setTickCount(5);
  t->setSubTickCount(8);
  return t;
}
QSharedPointer<QCPAxisTicker> percentTicker() { return QSharedPointer<QCPAxisTicker>(new PercentTicker); }

}  // namespace tilescope::ui
