// Axis tickers with units (hotspot's frequencypage style): ticks are chosen as round
// numbers *in the displayed unit*, so a byte axis reads 16 KiB, 32 KiB rather than
// 16.4 KB, and a duration axis 2 µs, 4 µs. The ladders and the formatters are core's
// (tilescope/base/format.h): a chart's label and the table beside it read the same.
#pragma once

#include <QString>
#include <vector>

#include "charts/qcp.h"
#include "tilescope/base/format.h"

namespace tilescope::ui {

/// core's formatters as QString, for labels and table cells.
QString formatDuration(double ns);
QString formatBytes(double bytes);
QString formatFlops(double flopsPerSecond);
QString formatPercent(double fraction, int decimals = 1);  ///< 0.625 -> "62.5 %"
QString formatRatio(double factor);                        ///< 48.02 -> "48.0×"

/// A ticker that picks one unit for the whole visible range and places ticks at
/// round values of that unit.
class UnitTicker : public QCPAxisTicker {
 public:
  explicit UnitTicker(const std::vector<Unit>& ladder) : m_ladder(ladder) {}
  const std::vector<Unit>& ladder() const { return m_ladder; }

 protected:
  double getTickStep(const QCPRange& range) override;
  QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale, QChar formatChar,
                                     int precision) override;

 private:
  const std::vector<Unit>& m_ladder;  ///< one of core's static ladders
};

/// Fractions 0..1 shown as percent.
class PercentTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

/// A log axis (one tick per power of ten, as many as fit) labelled in FLOP/s:
/// a linear ticker on a log axis piles its labels up at the top.
class LogFlopsTicker : public QCPAxisTickerLog {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

QSharedPointer<QCPAxisTicker> durationTicker();
QSharedPointer<QCPAxisTicker> byteTicker();
QSharedPointer<QCPAxisTicker> flopsTicker();
QSharedPointer<QCPAxisTicker> logFlopsTicker();
QSharedPointer<QCPAxisTicker> percentTicker();

}  // namespace tilescope::ui
