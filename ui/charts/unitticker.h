// Axis tickers and label formatting with units (hotspot's frequencypage style):
// ticks are chosen as round numbers *in the displayed unit*, so a byte axis reads
// 16 KiB, 32 KiB rather than 16.4 KB, and a duration axis 2 µs, 4 µs.
#pragma once

#include <QString>
#include <QVector>

#include "charts/qcp.h"

namespace tilescope::ui {

/// One display unit: the value is divided by `factor` and `suffix` appended.
struct Unit {
  double factor;
  QString suffix;
};

/// Unit ladders, smallest first.
const QVector<Unit>& durationUnits();   ///< ns, µs, ms, s (values in ns)
const QVector<Unit>& byteUnits();       ///< B, KiB, MiB, GiB (values in bytes)
const QVector<Unit>& flopsUnits();      ///< FLOP/s ... TFLOP/s (values in FLOP/s)

/// The largest unit whose factor is <= |magnitude| (the smallest for 0).
const Unit& pickUnit(const QVector<Unit>& ladder, double magnitude);
/// "1.23 µs": three significant digits in the unit picked for the value itself.
QString formatWithUnit(double value, const QVector<Unit>& ladder, int precision = 3);
QString formatDuration(double ns);
QString formatBytes(double bytes);
QString formatPercent(double fraction, int decimals = 1);  ///< 0.625 -> "62.5 %"

/// A ticker that picks one unit for the whole visible range and places ticks at
/// round values of that unit.
class UnitTicker : public QCPAxisTicker {
 public:
  explicit UnitTicker(QVector<Unit> ladder) : m_ladder(std::move(ladder)) {}
  const QVector<Unit>& ladder() const { return m_ladder; }

 protected:
  double getTickStep(const QCPRange& range) override;
  QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale,
                                     QChar formatChar, int precision) override;

 private:
  QVector<Unit> m_ladder;
};

/// Fractions 0..1 shown as percent.
class PercentTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

QSharedPointer<QCPAxisTicker> durationTicker();
QSharedPointer<QCPAxisTicker> byteTicker();
QSharedPointer<QCPAxisTicker> flopsTicker();
QSharedPointer<QCPAxisTicker> percentTicker();

}  // namespace tilescope::ui
