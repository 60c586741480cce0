// Check without a GPU (README.md#the-command-line, `check`; the workbench's Check):
// opening a config analyses it for the selected device in the background and the
// views show its declared tiles, masks, shared-memory budget and occupancy; then
// `tilescope-run check` compiles it and its answer (registers, spills, compile
// errors) replaces the declared-only one. Edits re-check once typing pauses; the
// device's launch limits are part of validation (a 2048-thread block is invalid).
// The window never waits: a Triton sweep, or 67 M one-element tiles, open without
// blocking the event loop.
#include <QElapsedTimer>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "controllers/checkcontroller.h"
#include "controllers/configcheck.h"
#include "gui_test_util.h"
#include "mainwindow.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/maskpanel.h"
#include "widgets/banner.h"
#include "widgets/coveragegrid.h"

using namespace tilescope;
using namespace tilescope::ui;
using tilescope::ui::test::longestStall;

namespace {
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");
const QString kFixture = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json");
const QString kRun = QStringLiteral(TILESCOPE_RUN_EXE);
const QString kKernels = QStringLiteral(TILESCOPE_SOURCE_DIR "/kernels/");
// The longest the window may stop answering (ms): the freezes these tests caught lasted 9–73 s.
constexpr qint64 kStallMs = 1000;

/// The CLI's report of `config`.
Report cliCheck(const QString& config) {
  QProcess p;
  p.start(kRun, {QStringLiteral("check"), config, QStringLiteral("-o"), QStringLiteral("-")});
  if (!p.waitForFinished(300000)) return {};
  return reportFromJson(parseJson(p.readAllStandardOutput().toStdString()));
}
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
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
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
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    // 64 warps = 2048 threads per block: every device of the database refuses it.
    QVERIFY(cfg->setFormValue(QStringLiteral("kernel.defines.NUM_WARPS"), QStringLiteral("64")));
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().contains(QStringLiteral("2048 threads per block exceed 1024")),
             qPrintable(cfg->validationError()));
    QVERIFY2(cfg->errorPath().startsWith(QStringLiteral("launch")), qPrintable(cfg->errorPath()));
    // The shown check says it too: the invalid_launch finding on every point.
    QVERIFY(w.report());
    QCOMPARE(w.report()->verdict, Verdict::launch_error);
    QCOMPARE(QString::fromStdString(w.report()->points[0].findings.front().category),
             QStringLiteral("invalid_launch"));
    QVERIFY(cfg->setFormValue(QStringLiteral("kernel.defines.NUM_WARPS"), QStringLiteral("32")));
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    QCOMPARE(w.report()->points[0].occupancy.threadsPerBlock, 1024);
  }

  void editsRecheckAfterTyping() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
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
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    QVERIFY(w.openFile(kFixture));
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("sweep"));
    QVERIFY(w.configPanel()->setFormValue(QStringLiteral("params.M"), QStringLiteral("300")));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("sweep"));
    // The Check action shows the check.
    QVERIFY(w.checkConfig());
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(w.report()->verb), QStringLiteral("check"), 120000);
    QCOMPARE(w.coveragePanel()->grid()->rows(), 300);
  }

  void deviceIsSelectable() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    const QStringList keys = checkDeviceKeys();
    const QString other = keys.front() == QStringLiteral("h100") ? keys.back() : keys.front();
    w.configPanel()->setDevice(other);
    QCOMPARE(w.configPanel()->device(), other);
    QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(w.report()->device.key), other, 120000);
  }

  // Check compiles, as `tilescope-run check` does, and says what the CLI says.
  void checkGivesTheClisRegistersAndOccupancy() {
    const QString config = kKernels + QStringLiteral("gemm/gemm_bug_no_mask.tscfg.json");
    const Report cli = cliCheck(config);
    QVERIFY(!cli.points.empty());
    const Point& expect = cli.points.front();
    if (!expect.compile.attempted) QSKIP("this tilescope-run was built without CUDA: check does not compile");
    QVERIFY(expect.compile.ok);
    QVERIFY(expect.compile.regs > 0);
    MainWindow w;
    w.configPanel()->checker()->setRunExecutable(kRun);
    QVERIFY(w.openFile(config));
    // The declared-only answer first (no registers), then the compiled one replaces it.
    QTRY_VERIFY_WITH_TIMEOUT(w.report() && w.report()->verb == "check", 60000);
    QTRY_VERIFY_WITH_TIMEOUT(w.configPanel()->isCompiled(), 300000);
    const Point& got = w.report()->points.front();
    QCOMPARE(got.compile.regs, expect.compile.regs);
    QCOMPARE(got.compile.spillStores, expect.compile.spillStores);
    QCOMPARE(got.occupancy.theoretical, expect.occupancy.theoretical);
    QCOMPARE(got.occupancy.limiter, expect.occupancy.limiter);
    QVERIFY2(w.configPanel()->statusText().contains(QStringLiteral("%1 registers").arg(expect.compile.regs)),
             qPrintable(w.configPanel()->statusText()));
    QVERIFY2(w.verdictBanner()->text().contains(QStringLiteral("Compiled")),
             qPrintable(w.verdictBanner()->text()));
  }

  void aKernelThatDoesNotCompileIsNotValid() {
    QTemporaryDir dir;
    QFile src(kKernels + QStringLiteral("gemm/gemm_tiled.cu"));
    QVERIFY(src.open(QIODevice::ReadOnly));
    QByteArray code = src.readAll();
    code.replace("__syncthreads();", "__syncthreads()");  // a syntax error
    QFile out(dir.filePath(QStringLiteral("gemm_tiled.cu")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(code);
    out.close();
    QVERIFY(QFile::copy(kKernels + QStringLiteral("gemm/gemm_bug_no_mask.tscfg.json"),
                        dir.filePath(QStringLiteral("broken.tscfg.json"))));
    const Report cli = cliCheck(dir.filePath(QStringLiteral("broken.tscfg.json")));
    if (cli.points.empty() || !cli.points.front().compile.attempted) QSKIP("check does not compile here");
    QCOMPARE(cli.verdict, Verdict::compile_error);
    MainWindow w;
    w.configPanel()->checker()->setRunExecutable(kRun);
    QVERIFY(w.openFile(dir.filePath(QStringLiteral("broken.tscfg.json"))));
    QTRY_VERIFY_WITH_TIMEOUT(w.configPanel()->isCompiled(), 300000);
    QCOMPARE(w.report()->verdict, Verdict::compile_error);
    QVERIFY2(w.configPanel()->statusText().contains(QStringLiteral("does not compile")),
             qPrintable(w.configPanel()->statusText()));
    QVERIFY2(w.verdictBanner()->text().contains(QStringLiteral("compile_error")),
             qPrintable(w.verdictBanner()->text()));
  }

  void withoutTilescopeRunTheDeclaredCheckStays() {
    MainWindow w;
    w.configPanel()->checker()->setRunExecutable(QStringLiteral("/nonexistent/tilescope-run"));
    QVERIFY(w.openFile(kConfig));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 60000);
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("check"));
    QVERIFY(!w.configPanel()->isCompiled());
    QVERIFY2(w.configPanel()->statusText().contains(QStringLiteral("not compiled")),
             qPrintable(w.configPanel()->statusText()));
  }

  // An 8-point Triton sweep froze the window 9–14 s. The bounds are far below that but well
  // above what a loaded 2-core CI machine's scheduler alone costs an event loop (101 ms seen).
  void aTritonSweepOpensWithoutBlocking() {
    MainWindow w;
    w.configPanel()->checker()->setRunExecutable(kRun);
    QElapsedTimer open;
    open.start();
    QVERIFY(w.openFile(kKernels + QStringLiteral("triton/matmul_sweep.tscfg.json")));
    QVERIFY2(open.elapsed() < kStallMs, qPrintable(QString::number(open.elapsed())));
    // Until the declared-only check is shown, and a while into the compile.
    const qint64 stall = longestStall([&] { return !w.report() || w.report()->verb != "check"; }, 60000);
    QVERIFY2(stall < kStallMs, qPrintable(QString::number(stall)));
    QCOMPARE(static_cast<int>(w.report()->points.size()), 8);
    const qint64 compiling = longestStall([] { return true; }, 2000);
    QVERIFY2(compiling < kStallMs, qPrintable(QString::number(compiling)));
    // The form offers a Triton kernel's knobs.
    for (const char* path : {"kernel.num_warps", "kernel.num_stages", "kernel.constexprs.BLOCK_M"})
      QVERIFY2(w.configPanel()->formItem(QString::fromLatin1(path)), path);
  }

  // 67 M one-element tiles: marking the error re-entered validation in a loop (73 s).
  void aHugeTilingNeitherLoopsNorBlocks() {
    QTemporaryDir dir;
    QVERIFY(QFile::copy(kKernels + QStringLiteral("gemm/gemm_tiled.cu"),
                        dir.filePath(QStringLiteral("gemm_tiled.cu"))));
    QFile cfg(QStringLiteral(TILESCOPE_TEST_DATA "/config/tiles_67M_ctas.tscfg.json"));
    QVERIFY(cfg.copy(dir.filePath(QStringLiteral("huge.tscfg.json"))));
    MainWindow w;
    QSignalSpy analysed(w.configPanel(), &ConfigPanel::validationFinished);
    QElapsedTimer open;
    open.start();
    QVERIFY(w.openFile(dir.filePath(QStringLiteral("huge.tscfg.json"))));
    QVERIFY2(open.elapsed() < kStallMs, qPrintable(QString::number(open.elapsed())));
    const qint64 stall = longestStall([&] { return w.configPanel()->isChecking(); }, 200000);
    QVERIFY2(stall < kStallMs, qPrintable(QString::number(stall)));
    QVERIFY(!w.configPanel()->isChecking());
    QCOMPARE(analysed.size(), 1);  // one analysis, not one per marked form item
    QVERIFY2(w.configPanel()->validationError().contains(QStringLiteral("shared")),
             qPrintable(w.configPanel()->validationError()));
  }
};

QTEST_MAIN(TstCheck)
#include "tst_check.moc"
