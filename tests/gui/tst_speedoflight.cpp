// SpeedOfLightPanel and the counter charts over a report recorded on a GPU
// (tests/data/reports_counters/README.md): the tiled GEMM against cuBLAS.
#include <QTableWidget>
#include <QtTest>

#include "charts/chartplot.h"
#include "charts/rooflinecharts.h"
#include "export/exportfigures.h"
#include "export/reportexporter.h"
#include "panels/speedoflightpanel.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

class TestSpeedOfLight : public QObject {
  Q_OBJECT
 private:
  static ReportPtr load() {
    return std::make_shared<const Report>(
        loadReport(TILESCOPE_TEST_DATA "/reports_counters/gemm_tiled_f16.json"));
  }
  static QCPBars* bars(ChartPlot* plot, const QString& name) {
    for (int i = 0; i < plot->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPBars*>(plot->plottable(i)); b && b->name() == name) return b;
    return nullptr;
  }
  static QCPGraph* graph(ChartPlot* plot, const QString& name) {
    for (int i = 0; i < plot->graphCount(); ++i)
      if (plot->graph(i)->name() == name) return plot->graph(i);
    return nullptr;
  }

 private slots:
  void speedOfLightBarsShowKernelAndBaselineSideBySide() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    const ReportPtr r = load();
    panel.onReportLoaded(r);
    const Point& p = r->points[0];
    QVERIFY(p.counters.collected);
    QVERIFY(p.counters.baseline);
    QCPBars* kernel = bars(panel.solPlot(), QStringLiteral("kernel"));
    QCPBars* base = bars(panel.solPlot(), QStringLiteral("cublas"));
    QVERIFY(kernel && base);
    QCOMPARE(kernel->dataCount(), 6);  // SM, memory, DRAM, L2, L1, tensor
    QCOMPARE(base->dataCount(), 6);
    // The top pair is compute (SM) throughput, straight from the counters.
    const double sm = p.counters.kernel.get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    QCOMPARE(kernel->data()->at(kernel->dataCount() - 1)->value, sm);
    QCOMPARE(base->brush().style(), Qt::BDiagPattern);  // hatched: colour is not the only cue
  }

  void rooflineHasTheDevicePeaksAndBothPoints() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    const ReportPtr r = load();
    panel.onReportLoaded(r);
    ChartPlot* roof = panel.rooflinePlot();
    QVERIFY(graph(roof, QStringLiteral("FP32 peak")));
    QVERIFY(graph(roof, QStringLiteral("Tensor peak (f16)")));
    QCPGraph* k = graph(roof, QStringLiteral("kernel"));
    QCPGraph* b = graph(roof, QStringLiteral("cublas"));
    QVERIFY(k && b);
    const CounterFigures f = counterFigures(r->points[0].counters.kernel);
    QCOMPARE(k->data()->at(0)->key, f.arithmeticIntensity);
    QCOMPARE(k->data()->at(0)->value, f.flopsPerSecond);
    QCOMPARE(roof->xAxis->scaleType(), QCPAxis::stLogarithmic);
    // The memory roof climbs at the device's DRAM bandwidth (database figure).
    const QCPGraph* fp32 = graph(roof, QStringLiteral("FP32 peak"));
    QVERIFY(fp32->data()->at(0)->value / fp32->data()->at(0)->key > 1e11);
  }

  void metricsTableHasTheBaselineColumnAndTheRatio() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    const ReportPtr r = load();
    panel.onReportLoaded(r);
    const CountersInfo& c = r->points[0].counters;
    QTableWidget* t = panel.metricsTable();
    QCOMPARE(t->rowCount(), int(c.metrics.size()));
    for (int row = 0; row < t->rowCount(); ++row) {
      const std::string name = c.metrics[size_t(row)];
      QCOMPARE(t->item(row, 0)->toolTip(), QString::fromStdString(name));
      const double k = c.kernel.get(name, NAN), b = c.baseline->get(name, NAN);
      if (k == k && b == b && b != 0)
        QCOMPARE(t->item(row, 3)->text(), QStringLiteral("%1×").arg(QString::number(k / b, 'g', 3)));
    }
    QVERIFY(panel.summaryText().contains(QString::fromStdString(c.chip)));
  }

  void hotLinesComeFromPcSampling() {
    // The recorded report's PC sampling is empty (README): lines added by hand.
    Report rep = *load();
    PcSamplingInfo& pc = rep.points[0].counters.pcSampling;
    pc.collected = true;
    pc.totalSamples = 1000;
    pc.lines = {
        {"gemm_tiled.cu", 88, 600, {{"mio_throttle", 400}, {"short_scoreboard", 150}, {"selected", 50}}},
        {"gemm_tiled.cu", 71, 300, {{"long_scoreboard", 300}}}};
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.onReportLoaded(std::make_shared<const Report>(rep));
    QTableWidget* t = panel.hotLinesTable();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("gemm_tiled.cu:88"));
    QCOMPARE(t->item(0, 1)->text(), QStringLiteral("600"));
    QCOMPARE(t->item(0, 2)->text(), QStringLiteral("60.0 %"));
    QCOMPARE(t->item(0, 3)->text(), QStringLiteral("mio_throttle 67 %, short_scoreboard 25 %, selected 8 %"));
    // The recorded report: no lines, and the summary says why.
    SpeedOfLightPanel recorded(&selection);
    recorded.onReportLoaded(load());
    QCOMPARE(recorded.hotLinesTable()->rowCount(), 0);
    QVERIFY(recorded.summaryText().contains(QStringLiteral("no samples of gemm_tiled")));
  }

  void aPointWithoutCountersSaysWhy() {
    Report rep = *load();
    rep.points[0].counters = CountersInfo{};
    rep.points[0].counters.note = "hardware counters unavailable: no permission";
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.onReportLoaded(std::make_shared<const Report>(rep));
    QCOMPARE(panel.summaryText(), QStringLiteral("hardware counters unavailable: no permission"));
    QCOMPARE(panel.metricsTable()->rowCount(), 0);
    QCOMPARE(panel.solPlot()->plottableCount(), 0);
    panel.onReportClosed();
    QCOMPARE(panel.summaryText(), QStringLiteral("No report loaded."));
  }

  void exportsCarryTheChartsAndTheTable() {
    const ReportPtr r = load();
    QString note;
    const QVector<Figure> figures = renderFigures(*r, &note);
    QStringList ids;
    for (const Figure& f : figures) ids << f.id;
    QVERIFY2(ids.contains(QStringLiteral("counters_speed_of_light")), qPrintable(ids.join(QLatin1Char(','))));
    QVERIFY(ids.contains(QStringLiteral("counters_roofline")));
    const Document doc = exportDocument(*r, note);
    const DocSection* hw = doc.section("counters");
    QVERIFY(hw);
    QCOMPARE(hw->heading, std::string("Hardware counters"));
    const DocTable* table = nullptr;
    bool roofline = false;
    for (const DocBlock& b : hw->blocks) {
      if (const auto* t = std::get_if<DocTable>(&b); t && !table) table = t;
      if (const auto* f = std::get_if<DocFigure>(&b)) roofline = roofline || f->id == "counters_roofline";
    }
    QVERIFY(table);
    QCOMPARE(table->rows.size(), r->points[0].counters.metrics.size());
    QCOMPARE(table->headers.size(), std::size_t(5));
    QVERIFY(roofline);
  }
};

QTEST_MAIN(TestSpeedOfLight)
#include "tst_speedoflight.moc"
