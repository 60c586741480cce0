// OccupancyPanel over a hand-made H100 sweep report (tests/data/reports_charts).
#include <QTableWidget>
#include <QtTest>

#include "charts/chartplot.h"
#include "charts/devicecomparison.h"
#include "panels/occupancypanel.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

class TestOccupancy : public QObject {
  Q_OBJECT
 private:
  ReportPtr load() {
    return std::make_shared<const Report>(loadReport(TILESCOPE_TEST_DATA "/reports_charts/sweep_h100.json"));
  }
  static QCPBars* limiterBars(ChartPlot* plot) {
    for (int i = 0; i < plot->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPBars*>(plot->plottable(i)); b && b->name() == QLatin1String("limiter"))
        return b;
    return nullptr;
  }

 private slots:
  void curvesAndMarkerFollowTheSelectedPoint() {
    Selection selection;
    OccupancyPanel panel(&selection);
    const ReportPtr report = load();
    panel.onReportLoaded(report);
    const OccupancyInfo& occ = report->points[0].occupancy;
    ChartPlot* block = panel.curvePlot(OccupancyCurve::BlockSize);
    QCOMPARE(block->graphCount(), 2);
    QCOMPARE(block->graph(0)->dataCount(), int(occ.curves->blockSize.size()));
    QCOMPARE(block->graph(1)->dataCount(), 1);
    QCOMPARE(block->graph(1)->data()->at(0)->key, 128.0);
    QCOMPARE(block->graph(1)->data()->at(0)->value, 0.3125);
    QVERIFY(panel.limiterLabel().contains(QStringLiteral("registers")));
    QVERIFY(panel.limiterLabel().contains(QStringLiteral("5 blocks")));

    selection.setPoint(2);  // 64 KiB of shared memory per block: only 3 blocks fit
    QCOMPARE(panel.currentPoint(), 2);
    ChartPlot* smem = panel.curvePlot(OccupancyCurve::SharedMemory);
    QCOMPARE(smem->graph(1)->data()->at(0)->key, 65536.0 + 1024.0);
    QCOMPARE(smem->graph(1)->data()->at(0)->value, 0.375);
    QVERIFY2(panel.limiterLabel().startsWith(QStringLiteral("limiter: shared memory")),
             qPrintable(panel.limiterLabel()));
    QCPBars* bars = limiterBars(panel.resourcePlot());
    QVERIFY(bars);
    QCOMPARE(bars->dataCount(), 1);
    // 3 resident blocks x 66560 B of the H100's 233472 B per SM.
    QCOMPARE(bars->data()->at(0)->value, 3.0 * 66560.0 / 233472.0);
  }

  void otherDevicesComeFromTheDatabase() {
    const DeviceDb* db = defaultDeviceDb();
    QVERIFY(db);
    Selection selection;
    OccupancyPanel panel(&selection);
    const ReportPtr report = load();
    panel.onReportLoaded(report);
    QCOMPARE(panel.deviceTable()->rowCount(), int(db->all().size()));
    int h100Row = -1;
    for (int r = 0; r < panel.deviceTable()->rowCount(); ++r)
      if (panel.deviceTable()->item(r, 0)->font().bold()) h100Row = r;
    QVERIFY(h100Row >= 0);
    QCOMPARE(panel.deviceTable()->item(h100Row, 0)->text(), QStringLiteral("H100"));
    // core's model and the fixture (NVIDIA's rules worked by hand) agree on the H100.
    QCOMPARE(panel.deviceTable()->item(h100Row, 2)->text(),
             QString::number(report->points[0].occupancy.blocksPerSm));
    QCOMPARE(panel.deviceTable()->item(h100Row, 4)->text(), QStringLiteral("fits"));
    selection.setPoint(2);  // 64 KiB dynamic: above the 48 KiB default limit everywhere
    QCOMPARE(panel.deviceTable()->item(h100Row, 4)->text(), QStringLiteral("needs opt-in"));
  }

  void closedReportClearsAndRendersOffscreen() {
    Selection selection;
    OccupancyPanel panel(&selection);
    panel.onReportLoaded(load());
    panel.resize(1000, 900);
    const QPixmap pm = panel.curvePlot(OccupancyCurve::Registers)->toPixmap(400, 300);
    QCOMPARE(pm.size(), QSize(400, 300));
    panel.onReportClosed();
    QCOMPARE(panel.curvePlot(OccupancyCurve::BlockSize)->graphCount(), 0);
    QVERIFY(panel.limiterLabel().isEmpty());
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TestOccupancy)
#include "tst_occupancy.moc"
