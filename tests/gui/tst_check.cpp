// Check without a GPU (README.md#the-command-line, `check`): opening a config analyses it statically
// for the selected device and the views show its declared tiles, masks,
// shared-memory budget and occupancy; edits re-check once typing pauses; the
// device's launch limits are part of validation (a 2048-thread block is invalid).
#include <QListWidget>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QtTest>

#include "controllers/configcheck.h"
#include "mainwindow.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/maskpanel.h"
#include "widgets/banner.h"
#include "widgets/coveragegrid.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");
const QString kFixture = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json");
}  // namespace

class TstCheck : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_check"));
    QSettings().clear();
    QVERIFY(checkDeviceKeys().contains(QStringLiteral("h100")));
  }

  void openingAConfigChecksIt() {
    MainWindow w;
    QVERIFY2(w.openFile(kConfig), qPrintable(w.lastError()));
    const ReportPtr r = w.report();
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->verb), QStringLiteral("check"));
    QCOMPARE(static_cast<int>(r->points.size()), 4);  // the 2 × 2 sweep
    QCOMPARE(QString::fromStdString(r->device.key), QStringLiteral("h100"));
    // C[250, 250] in declared BLOCK_M × BLOCK_N tiles: the last tile row and column cross the edge.
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g);
    QVERIFY(!g->measured());
    QCOMPARE(g->rows(), 250);
    const std::int64_t bm = r->points[0].defines.value("BLOCK_M", std::int64_t(0)),
                       bn = r->points[0].defines.value("BLOCK_N", std::int64_t(0));
    QCOMPARE(g->tileRows(), bm);
    QCOMPARE(g->tileCols(), bn);
    QCOMPARE(g->tilesDown(), static_cast<int>((250 + bm - 1) / bm));
    QCOMPARE(static_cast<int>(g->boundaryTiles().size()), g->tilesDown() + g->tilesAcross() - 1);
    QCOMPARE(g->extentRows(), g->tilesDown() * bm);  // the masked part past the edge is drawn
    QCOMPARE(g->extentCols(), g->tilesAcross() * bn);
    QVERIFY(w.coveragePanel()->summaryText().contains(QStringLiteral("declared tiling only")));
    QVERIFY(w.maskPanel()->boundaryList()->count() > 0);
    // Occupancy and the shared-memory budget, without a GPU.
    QVERIFY(r->points[0].occupancy.computed);
    QVERIFY(r->points[0].occupancy.theoretical > 0);
    QCOMPARE(r->points[0].occupancy.threadsPerBlock, 128);
    QVERIFY(w.verdictBanner()->text().contains(QStringLiteral("Checked without a GPU")));
    QVERIFY(w.windowTitle().contains(QStringLiteral("(check)")));
  }

  void launchLimitsAreValidation() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    ConfigPanel* cfg = w.configPanel();
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    // 64 warps = 2048 threads per block: every device of the database refuses it.
    QVERIFY(cfg->setFormValue(QStringLiteral("kernel.defines.NUM_WARPS"), QStringLiteral("64")));
    QVERIFY2(cfg->validationError().contains(QStringLiteral("2048 threads per block exceed 1024")),
             qPrintable(cfg->validationError()));
    QVERIFY2(cfg->errorPath().startsWith(QStringLiteral("launch")), qPrintable(cfg->errorPath()));
    // The shown check says it too: the invalid_launch finding on every point.
    QVERIFY(w.report());
    QCOMPARE(w.report()->verdict, Verdict::launch_error);
    QCOMPARE(QString::fromStdString(w.report()->points[0].findings.front().category),
             QStringLiteral("invalid_launch"));
    QVERIFY(cfg->setFormValue(QStringLiteral("kernel.defines.NUM_WARPS"), QStringLiteral("32")));
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    QCOMPARE(w.report()->points[0].occupancy.threadsPerBlock, 1024);
  }

  void editsRecheckAfterTyping() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    auto* text = w.configPanel()->findChild<QPlainTextEdit*>();
    QVERIFY(text);
    QString json = text->toPlainText();
    QVERIFY(json.contains(QStringLiteral("\"M\": 250")));
    json.replace(QStringLiteral("\"M\": 250"), QStringLiteral("\"M\": 500"));
    text->setPlainText(json);  // as if typed: the debounce timer runs the check
    QCOMPARE(w.coveragePanel()->grid()->rows(), 250);
    QTRY_COMPARE(w.coveragePanel()->grid()->rows(), 500);
  }

  void aRunReportIsNotReplacedByEdits() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    QVERIFY(w.openFile(kFixture));
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("sweep"));
    QVERIFY(w.configPanel()->setFormValue(QStringLiteral("params.M"), QStringLiteral("300")));
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("sweep"));
    // The Check action shows the check.
    QVERIFY(w.checkConfig());
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("check"));
    QCOMPARE(w.coveragePanel()->grid()->rows(), 300);
  }

  void deviceIsSelectable() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    const QStringList keys = checkDeviceKeys();
    const QString other = keys.front() == QStringLiteral("h100") ? keys.back() : keys.front();
    w.configPanel()->setDevice(other);
    QCOMPARE(w.configPanel()->device(), other);
    QCOMPARE(QString::fromStdString(w.report()->device.key), other);
  }
};

QTEST_MAIN(TstCheck)
#include "tst_check.moc"
