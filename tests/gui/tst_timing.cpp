// TimingPanel over a hand-made H100 sweep report (tests/data/reports_charts).
#include <QtTest>
#include <cmath>

#include "charts/chartplot.h"
#include "charts/timingcharts.h"
#include "charts/unitticker.h"
#include "panels/timingpanel.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

class TestTiming : public QObject {
  Q_OBJECT
 private:
  static ReportPtr load(const char* name) {
    return std::make_shared<const Report>(
        loadReport(std::string(TILESCOPE_TEST_DATA "/reports_charts/") + name));
  }

 private slots:
  void units() {
    // The GUI's labels are core's formatters (the CLI and the exports read the same).
    QCOMPARE(ui::formatDuration(812000), QStringLiteral("812 µs"));
    QCOMPARE(ui::formatDuration(1365000), QStringLiteral("1.365 ms"));
    QCOMPARE(ui::formatDuration(2e9), QStringLiteral("2 s"));
    QCOMPARE(ui::formatBytes(48), QStringLiteral("48 B"));
    QCOMPARE(ui::formatBytes(66560), QStringLiteral("65 KiB"));
    QCOMPARE(ui::formatPercent(0.625), QStringLiteral("62.5 %"));
    QCOMPARE(ui::formatRatio(48.023858), QStringLiteral("48.0×"));
  }

  void distributionShowsKernelAndBaseline() {
    Selection selection;
    TimingPanel panel(&selection);
    const ReportPtr report = load("sweep_h100.json");
    panel.onReportLoaded(report);
    ChartPlot* dist = panel.distributionPlot();
    QCOMPARE(dist->plottableCount(), 2);
    auto* kernel = qobject_cast<QCPStatisticalBox*>(dist->plottable(0));
    auto* base = qobject_cast<QCPStatisticalBox*>(dist->plottable(1));
    QVERIFY(kernel && base);
    const Point& p0 = report->points[0];
    QCOMPARE(kernel->data()->at(0)->median, p0.timing.kernelNs.median);
    QCOMPARE(kernel->data()->at(0)->lowerQuartile, p0.timing.kernelNs.p10);
    QCOMPARE(kernel->data()->at(0)->upperQuartile, p0.timing.kernelNs.p90);
    QCOMPARE(base->data()->at(0)->median, p0.baseline.kernelNs.median);
    QCOMPARE(base->name(), QStringLiteral("cublas"));
    QVERIFY2(panel.summaryText().contains(QStringLiteral("1.25× slower than cublas")),
             qPrintable(panel.summaryText()));

    selection.setPoint(1);
    kernel = qobject_cast<QCPStatisticalBox*>(panel.distributionPlot()->plottable(0));
    QCOMPARE(kernel->data()->at(0)->median, report->points[1].timing.kernelNs.median);
  }

  void sweepPlotsEveryPointAgainstTheBaseline() {
    Selection selection;
    TimingPanel panel(&selection);
    const ReportPtr report = load("sweep_h100.json");
    panel.onReportLoaded(report);
    selection.setPoint(2);
    ChartPlot* sweep = panel.sweepPlot();
    QVERIFY(!sweep->isHidden());
    QCOMPARE(sweep->graphCount(), 3);
    QCOMPARE(sweep->graph(0)->dataCount(), int(report->points.size()));
    QCOMPARE(sweep->graph(1)->dataCount(), int(report->points.size()));
    for (int i = 0; i < sweep->graph(0)->dataCount(); ++i) {
      QCOMPARE(sweep->graph(0)->data()->at(i)->value, report->points[size_t(i)].timing.kernelNs.median);
      QCOMPARE(sweep->graph(2)->data()->at(i)->value, report->points[size_t(i)].timing.cv);  // CV, right axis
    }
    QCOMPARE(sweep->graph(2)->valueAxis(), sweep->yAxis2);
    QVERIFY(sweep->xAxis->tickLabelRotation() != 0);
    auto ticker = sweep->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    // Named by the swept values only (tst_layout checks the rule); the full label is longer.
    const QString tick = ticker->ticks().value(2.0);
    QVERIFY(tick.startsWith(QStringLiteral("128, 128")));
    QVERIFY(!tick.contains(QStringLiteral("BLOCK_M")));
    QCOMPARE(sweep->itemCount(), 1);  // the selected point's marker line
    auto* line = qobject_cast<QCPItemStraightLine*>(sweep->item(0));
    QVERIFY(line);
    QCOMPARE(line->point1->key(), 2.0);
  }

  void aShortSweepChartKeepsItsAxesReadable() {
    // In the default layout's Timing dock the chart's axes were
    // 20 px tall, the duration labels printed over each other.
    Selection selection;
    TimingPanel panel(&selection);
    panel.onReportLoaded(load("sweep_h100.json"));
    selection.setPoint(0);
    panel.resize(1000, 200);  // the Timing dock of the default layout at 1280 x 800
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    ChartPlot* sweep = panel.sweepPlot();
    QTRY_VERIFY(sweep->height() < 300);
    fitSweepTickLabels(sweep);
    sweep->replot();
    const int line = QFontMetrics(sweep->yAxis->tickLabelFont()).height();
    QVERIFY2(sweep->axisRect()->height() >= 4 * line,
             qPrintable(QStringLiteral("axes %1 px tall in a %2 px chart")
                            .arg(sweep->axisRect()->height())
                            .arg(sweep->height())));
    QVERIFY(!sweep->legend->visible());
    QVERIFY(sweep->xAxis->label().isEmpty());
    for (QCPAxis* axis : {sweep->yAxis, sweep->yAxis2}) {
      QVector<double> at;
      for (double t : axis->tickVector())
        if (axis->range().contains(t)) at << axis->coordToPixel(t);
      QVERIFY(at.size() >= 2);
      for (int i = 1; i < at.size(); ++i)
        QVERIFY2(std::abs(at[i] - at[i - 1]) >= line,
                 qPrintable(QString::number(std::abs(at[i] - at[i - 1]))));
    }
    // With room again, the legend and the keys come back.
    panel.resize(1000, 600);
    QTRY_VERIFY(sweep->height() >= 300);
    fitSweepTickLabels(sweep);
    sweep->replot();
    QVERIFY(sweep->legend->visible());
    QCOMPARE(sweep->xAxis->label(), QStringLiteral("BLOCK_M, BLOCK_N, NUM_WARPS"));
  }

  void singleRunHidesTheSweep() {
    Selection selection;
    TimingPanel panel(&selection);
    panel.onReportLoaded(load("run_h100.json"));
    QVERIFY(panel.sweepPlot()->isHidden());
    QCOMPARE(panel.distributionPlot()->plottableCount(), 2);
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TestTiming)
#include "tst_timing.moc"
