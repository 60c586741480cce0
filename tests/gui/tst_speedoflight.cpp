// SpeedOfLightPanel and the counter charts over a report recorded on a GPU
// (tests/data/reports_counters/README.md): the tiled GEMM against cuBLAS.
#include <QSignalSpy>
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
  /// The bundled sweep: 16 points with counters, PC sampling recorded with absolute paths.
  static ReportPtr sweep() {
    return std::make_shared<const Report>(
        loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/gemm_sweep.json"));
  }
  static QCPItemText* note(ChartPlot* plot) {
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(plot->item(i));
          t && t->objectName() == QLatin1String("plotNote"))
        return t;
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
    // A stall wraps whole (at ", "), never between its number and its "%".
    QCOMPARE(t->item(0, 3)->text(),
             QStringLiteral(
                 "mio_throttle\u00a067\u00a0%, short_scoreboard\u00a025\u00a0%, selected\u00a08\u00a0%"));
    // The recorded report: no lines, and the summary says why.
    SpeedOfLightPanel recorded(&selection);
    recorded.onReportLoaded(load());
    QCOMPARE(recorded.hotLinesTable()->rowCount(), 0);
    QVERIFY(recorded.summaryText().contains(QStringLiteral("no samples of gemm_tiled")));
  }

  void rooflineLegendAndLabelsKeepClearOfThePoints() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.resize(1000, 640);  // the screenshot's size
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.onReportLoaded(sweep());
    ChartPlot* roof = panel.rooflinePlot();
    roof->replot(QCustomPlot::rpImmediateRefresh);
    const QRect legend = roof->legend->outerRect();
    QVERIFY(roof->legend->visible() && !legend.isEmpty());
    const QRect area = roof->axisRect()->rect();
    int points = 0;
    for (const QString& name : {QStringLiteral("kernel"), QStringLiteral("cublas")}) {
      QCPGraph* g = graph(roof, name);
      QVERIFY(g);
      const QPointF at(roof->xAxis->coordToPixel(g->data()->at(0)->key),
                       roof->yAxis->coordToPixel(g->data()->at(0)->value));
      QVERIFY2(!legend.adjusted(-6, -6, 6, 6).contains(at.toPoint()),
               qPrintable(QStringLiteral("%1 at %2,%3 under the legend").arg(name).arg(at.x()).arg(at.y())));
      QVERIFY(area.contains(at.toPoint()));
      ++points;
    }
    QCOMPARE(points, 2);
    // Each point's label is whole inside the plot and clear of the legend.
    for (int i = 0; i < roof->itemCount(); ++i) {
      auto* t = qobject_cast<QCPItemText*>(roof->item(i));
      if (!t) continue;
      const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
      QVERIFY2(QRectF(area).contains(box), qPrintable(t->text() + QStringLiteral(" clipped")));
      QVERIFY2(!QRectF(legend).intersects(box), qPrintable(t->text() + QStringLiteral(" under the legend")));
    }
  }

  void logAxesLabelEachDecadeOnce() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.resize(1000, 640);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.onReportLoaded(sweep());
    ChartPlot* roof = panel.rooflinePlot();
    roof->replot(QCustomPlot::rpImmediateRefresh);
    for (QCPAxis* axis : {roof->xAxis, roof->yAxis}) {
      QCOMPARE(axis->scaleType(), QCPAxis::stLogarithmic);
      const QVector<double> ticks = axis->tickVector();
      const QVector<QString> labels = axis->tickVectorLabels();
      QVERIFY2(ticks.size() >= 3, qPrintable(QString::number(ticks.size())));
      const int minGap = axis == roof->yAxis ? roof->fontMetrics().height() : 24;
      for (int i = 1; i < ticks.size(); ++i) {
        QVERIFY2(ticks[i] / ticks[i - 1] >= 9.99, qPrintable(labels.join(QLatin1Char('|'))));
        const double gap = std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1]));
        QVERIFY2(gap >= minGap,
                 qPrintable(
                     QStringLiteral("labels %1 and %2 %3 px apart").arg(labels[i - 1], labels[i]).arg(gap)));
        QVERIFY(labels[i] != labels[i - 1]);
      }
    }
    // The FLOP/s axis reads in units, not raw exponents.
    QVERIFY2(roof->yAxis->tickVectorLabels().join(QLatin1Char(' ')).contains(QStringLiteral("TFLOP/s")),
             qPrintable(roof->yAxis->tickVectorLabels().join(QLatin1Char('|'))));
  }

  void anEmptyRooflineSaysWhy() {
    Report rep = *load();
    rep.points[0].counters = CountersInfo{};
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.resize(1000, 640);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.onReportLoaded(sweep());  // a roofline first: nothing of it may stay
    panel.onReportLoaded(std::make_shared<const Report>(rep));
    ChartPlot* roof = panel.rooflinePlot();
    QCOMPARE(roof->graphCount(), 0);
    QCPItemText* n = note(roof);
    QVERIFY(n);
    QVERIFY2(n->text().contains(QStringLiteral("no hardware counters")), qPrintable(n->text()));
    QVERIFY(note(panel.solPlot()));
    // The note's plot keeps its width (an empty legend row squeezed it to 276 of 480 px) and no stale
    // numbers.
    roof->replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(
        roof->axisRect()->outerRect().width() > roof->width() * 9 / 10,
        qPrintable(QStringLiteral("%1 of %2").arg(roof->axisRect()->outerRect().width()).arg(roof->width())));
    QVERIFY(!roof->xAxis->tickLabels() && !roof->yAxis->tickLabels());
    QCOMPARE(roof->xAxis->scaleType(), QCPAxis::stLinear);
    // Counters without a FLOP count: roofs, no point, and the note says so.
    Report noFlops = *load();
    noFlops.points[0].counters.kernel.metrics.clear();
    noFlops.points[0].counters.baseline.reset();
    panel.onReportLoaded(std::make_shared<const Report>(noFlops));
    QVERIFY(!graph(panel.rooflinePlot(), QStringLiteral("kernel")));
    QVERIFY(note(panel.rooflinePlot()));
    QVERIFY2(note(panel.rooflinePlot())->text().contains(QStringLiteral("No point to place")),
             qPrintable(note(panel.rooflinePlot())->text()));
    // A roofline with its points carries no note.
    panel.onReportLoaded(load());
    QVERIFY(!note(panel.rooflinePlot()));
  }

  void theTwoDurationsAreSaidApart() {
    // gemm_sweep's first point: 186.4 µs profiled (ncu's duration), 228.4 µs in Timing.
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.onReportLoaded(sweep());
    const QString text = panel.summaryText();
    for (const char* want : {"Duration 186.4 µs", "the one profiled launch", "Timing's 228.4 µs",
                             "median of 10 timed launches", "1.23×", "Baseline cublas: 7.232 µs profiled"})
      QVERIFY2(text.contains(QString::fromUtf8(want)),
               qPrintable(QString::fromUtf8(want) + QStringLiteral(" not in ") + text));
  }

  void hotLinesShowRelativePathsAndAskForTheSource() {
    Selection selection;
    SpeedOfLightPanel panel(&selection);
    panel.onReportLoaded(sweep());
    QTableWidget* t = panel.hotLinesTable();
    QCOMPARE(t->rowCount(), 20);
    for (int row = 0; row < t->rowCount(); ++row) {
      const QString cell = t->item(row, 0)->text();
      QVERIFY2(!cell.startsWith(QLatin1Char('/')) && !cell.contains(QStringLiteral(".stage")),
               qPrintable(cell));
    }
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("gemm_tiled.cu:157"));
    QVERIFY(t->item(0, 0)->toolTip().contains(QStringLiteral("/kernels/gemm/gemm_tiled.cu")));
    QSignalSpy asked(&panel, &SpeedOfLightPanel::sourceLineRequested);
    emit t->cellClicked(1, 2);
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).toString(), QStringLiteral("gemm_tiled.cu"));
    QCOMPARE(asked.at(0).at(1).toInt(), 112);
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
