#include "charts/unitticker.h"

#include <cmath>

namespace tilescope::ui {

const QVector<Unit>& durationUnits() {
  static const QVector<Unit> units = {{1.0, QStringLiteral("ns")}, {1e3, QStringLiteral("µs")},
                                      {1e6, QStringLiteral("ms")}, {1e9, QStringLiteral("s")}};
  return units;
}

const QVector<Unit>& byteUnits() {
  static const QVector<Unit> units = {{1.0, QStringLiteral("B")}, {1024.0, QStringLiteral("KiB")},
                                      {1024.0 * 1024, QStringLiteral("MiB")},
                                      {1024.0 * 1024 * 1024, QStringLiteral("GiB")}};
  return units;
}

const QVector<Unit>& flopsUnits() {
  static const QVector<Unit> units = {
      {1.0, QStringLiteral("FLOP/s")},   {1e3, QStringLiteral("kFLOP/s")},
      {1e6, QStringLiteral("MFLOP/s")},  {1e9, QStringLiteral("GFLOP/s")},
      {1e12, QStringLiteral("TFLOP/s")}, {1e15, QStringLiteral("PFLOP/s")}};
  return units;
}

const Unit& pickUnit(const QVector<Unit>& ladder, double magnitude) {
  magnitude = std::fabs(magnitude);
  const Unit* best = &ladder.front();
  for (const Unit& u : ladder)
    if (u.factor <= magnitude * (1.0 + 1e-9)) best = &u;
  return *best;
}

QString formatWithUnit(double value, const QVector<Unit>& ladder, int precision) {
  if (!std::isfinite(value)) return QStringLiteral("n/a");
  const Unit& u = pickUnit(ladder, value);
  return QStringLiteral("%1 %2").arg(QString::number(value / u.factor, 'g', precision), u.suffix);
}

QString formatDuration(double ns) { return formatWithUnit(ns, durationUnits()); }
QString formatBytes(double bytes) {
  // Small byte counts are exact integers: "48 B", not "48.0 B".
  if (std::fabs(bytes) < 1024) return QStringLiteral("%1 B").arg(qint64(bytes));
  return formatWithUnit(bytes, byteUnits());
}
QString formatPercent(double fraction, int decimals) {
  return QStringLiteral("%1 %").arg(QString::number(fraction * 100.0, 'f', decimals));
}

double UnitTicker::getTickStep(const QCPRange& range) {
  const double magnitude = qMax(std::fabs(range.lower), std::fabs(range.upper));
  const Unit& u = pickUnit(m_ladder, magnitude);
  const double exact = range.size() / (tickCount() + 1e-10) / u.factor;
  return cleanMantissa(exact) * u.factor;
}

QVector<QString> UnitTicker::createLabelVector(const QVector<double>& ticks, const QLocale& locale,
                                               QChar, int) {
  double magnitude = 0;
  for (double t : ticks) magnitude = qMax(magnitude, std::fabs(t));
  const Unit& u = pickUnit(m_ladder, magnitude);
  QVector<QString> labels;
  labels.reserve(ticks.size());
  for (double t : ticks) {
    const double v = t / u.factor;
    labels.append(QStringLiteral("%1 %2").arg(locale.toString(v, 'g', 4), u.suffix));
  }
  return labels;
}

QString PercentTicker::getTickLabel(double tick, const QLocale& locale, QChar, int) {
  return QStringLiteral("%1 %").arg(locale.toString(tick * 100.0, 'g', 3));
}

QSharedPointer<QCPAxisTicker> durationTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(durationUnits()));
}
QSharedPointer<QCPAxisTicker> byteTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(byteUnits()));
}
QSharedPointer<QCPAxisTicker> flopsTicker() {
  return QSharedPointer<QCPAxisTicker>(new UnitTicker(flopsUnits()));
}
QSharedPointer<QCPAxisTicker> percentTicker() {
  return QSharedPointer<QCPAxisTicker>(new PercentTicker);
}

}  // namespace tilescope::ui
