// The main window on the fixture sweep: open it, select points and findings
// through the panels' own views, and check what every panel shows.
#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QListWidget>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableView>
#include <QTimer>
#include <QTreeWidget>
#include <QtTest>

#include "mainwindow.h"
#include "models/findingsmodel.h"
#include "models/resultmatrixmodel.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/findingspanel.h"
#include "panels/logpanel.h"
#include "panels/maskpanel.h"
#include "panels/runpanel.h"
#include "style/colors.h"
#include "style/palettes.h"
#include "widgets/banner.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/maskwidget.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kFixture = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json");
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");
}  // namespace

class TstMainWindow : public QObject {
  Q_OBJECT
 private:
  Report m_report;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QSettings().clear();
    m_report = loadReport(kFixture.toStdString());
  }

  void opensOnTheFirstBadPoint() {
    MainWindow w;
    QVERIFY2(w.openFile(kFixture), qPrintable(w.lastError()));
    QVERIFY(w.report());
    // Point 0 is ok; the window starts on point 3, whose compile error is the verdict
    // (and the root cause ranks first: a person fixes compile errors before wrong values).
    QCOMPARE(w.selection()->state().point, 3);
    QVERIFY2(w.verdictBanner()->text().contains(QStringLiteral("compile_error")),
             qPrintable(w.verdictBanner()->text()));
    w.selection()->setPoint(1);
    QCOMPARE(w.findingsPanel()->model()->rowCount(), static_cast<int>(m_report.points[1].findings.size()));
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g);
    QCOMPARE(g->tileState(3, 3), static_cast<int>(kStateUnwritten));
    QVERIFY(w.coveragePanel()->summaryText().contains(
        QStringLiteral("%1 unwritten").arg(m_report.points[1].coverage[0].unwritten)));
    QVERIFY(w.statusDeviceText().contains(QStringLiteral("NVIDIA H100 80GB HBM3")));
    QVERIFY(w.statusTargetText().contains(QStringLiteral("this machine")));
    QVERIFY(w.recentFiles().contains(QFileInfo(kFixture).absoluteFilePath()));
  }

  void matrixSelectsPointEverywhere() {
    MainWindow w;
    QVERIFY(w.openFile(kFixture));
    QTableView* matrix = w.runPanel()->matrixView();
    QCOMPARE(matrix->model()->rowCount(), 4);
    matrix->setCurrentIndex(w.runPanel()->matrixModel()->indexForPoint(2));
    QCOMPARE(w.selection()->state().point, 2);
    const Point& p = m_report.points[2];
    QCOMPARE(w.findingsPanel()->model()->rowCount(), static_cast<int>(p.findings.size()));
    QCOMPARE(w.findingsPanel()->workerStderr(), QString::fromStdString(p.workerStderr));
    QCOMPARE(w.coveragePanel()->grid()->tileCols(), 32);
    QCOMPARE(static_cast<std::int64_t>(w.maskPanel()->boundaryList()->count()), p.coverage[0].tilesCrossing);
  }

  void findingSelectsItsTile() {
    MainWindow w;
    QVERIFY(w.openFile(kFixture));
    w.selection()->setPoint(2);
    QTableView* view = w.findingsPanel()->view();
    // Row 0: oob_write in tile (1, 7), elements rows 128..249, cols 250..255.
    QCOMPARE(view->model()->index(0, FindingsModel::CategoryColumn).data().toString(),
             QStringLiteral("oob_write"));
    view->selectRow(0);
    const SelectionState s = w.selection()->state();
    QCOMPARE(s.finding, 0);
    QCOMPARE(s.tileRow, 1);
    QCOMPARE(s.tileCol, 7);
    // The coverage view brought the tile into view and frames it.
    const CoverageWidget* cov = w.coveragePanel()->coverageWidget();
    const QPointF centre = cov->widgetToElement(QPointF(cov->width() / 2.0, cov->height() / 2.0));
    QVERIFY2(centre.y() >= 128 && centre.y() < 256 && centre.x() >= 224 && centre.x() < 256,
             qPrintable(QStringLiteral("%1, %2").arg(centre.x()).arg(centre.y())));
    const MaskWidget* mask = w.maskPanel()->maskWidget();
    QCOMPARE(mask->tileRow(), 1);
    QCOMPARE(mask->tileCol(), 7);
    // In bounds: rows 128..249 × cols 224..249; the rest of the 128×32 tile is masked.
    QCOMPARE(mask->inBoundsCount(), (250 - 128) * (250 - 224));
    QCOMPARE(mask->maskedCount(), 128 * 32 - (250 - 128) * (250 - 224));
    QCOMPARE(mask->evidenceCount(), (249 - 128 + 1) * (255 - 250 + 1));
    QVERIFY(w.maskPanel()->infoText().contains(QStringLiteral("Tile (1, 7)")));
  }

  void compileErrorLinksToSource() {
    MainWindow w;
    QVERIFY(w.openFile(kFixture));
    w.selection()->setPoint(3);
    LogPanel* log = w.findingsPanel()->logPanel();
    QCOMPARE(log->diagnosticCount(), 2);
    QVERIFY(log->logHtml().contains(QStringLiteral("line=57")));
    // The compile_error finding names gemm_tiled.cu line 42; selecting it opens the source there.
    w.findingsPanel()->view()->selectRow(0);
    QCOMPARE(log->highlightedLine(), 42);
    QVERIFY(log->showSourceLine(QStringLiteral("gemm_tiled.cu"), 57));
    QCOMPARE(log->highlightedLine(), 57);
    QVERIFY(!log->showSourceLine(QStringLiteral("missing.cu"), 1));
    // No coverage for a point that never ran.
    QVERIFY(!w.coveragePanel()->grid());
  }

  void deviceOutputAndAssertLocation() {
    // A point whose kernel failed an assert: the Device output tab shows the text,
    // and selecting the device_assert finding asks for its source line.
    Report r = m_report;
    Point& p = r.points[1];
    p.deviceOutput =
        "gemm_tiled.cu:171: void gemm_tiled(): block: [15,3,0], thread: [40,0,0] Assertion `r < M` failed.\n";
    Finding f;
    f.category = "device_assert";
    f.message = "device-side assert failed at gemm_tiled.cu:171";
    f.location.file = "gemm_tiled.cu";
    f.location.line = 171;
    p.findings.insert(p.findings.begin(), f);
    const QString file = QDir::temp().filePath(QStringLiteral("tst_mainwindow_assert.json"));
    saveReport(r, file.toStdString());
    MainWindow w;
    QVERIFY(w.openFile(file));
    w.selection()->setPoint(1);
    QCOMPARE(w.findingsPanel()->deviceOutput(), QString::fromStdString(p.deviceOutput));
    QSignalSpy spy(w.findingsPanel(), &FindingsPanel::sourceLineRequested);
    const int row = w.findingsPanel()->model()->rowCount() -
                    static_cast<int>(p.findings.size());  // report-level rows first
    w.findingsPanel()->view()->selectRow(row);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(1).toInt(), 171);
    w.selection()->setPoint(0);
    QVERIFY(w.findingsPanel()->deviceOutput().isEmpty());
    QFile::remove(file);
  }

  void configValidatesLive() {
    MainWindow w;
    QVERIFY2(w.openFile(kConfig), qPrintable(w.lastError()));
    ConfigPanel* cfg = w.configPanel();
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    QVERIFY(w.runPanel()->configPath().endsWith(QStringLiteral("gemm_small.tscfg.json")));
    QVERIFY(cfg->formItem(QStringLiteral("kernel.defines.BLOCK_M")));
    QCOMPARE(cfg->formItem(QStringLiteral("params.M"))->text(1), QStringLiteral("250"));
    // An unknown symbol in the launch grid: the error names launch.grid and the form marks it.
    QVERIFY(
        cfg->setFormValue(QStringLiteral("launch.grid"), QStringLiteral("[\"ceil_div(N, BLOCK_Q)\", 1, 1]")));
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->errorPath().startsWith(QStringLiteral("launch.grid")), qPrintable(cfg->validationError()));
    QVERIFY(cfg->validationError().contains(QStringLiteral("BLOCK_Q")));
    QVERIFY(!cfg->formItem(QStringLiteral("launch.grid"))->toolTip(1).isEmpty());
    QVERIFY(cfg->jsonText().contains(QStringLiteral("BLOCK_Q")));
    // Fixing it in the JSON text clears the error.
    QString text = cfg->jsonText();
    text.replace(QStringLiteral("BLOCK_Q"), QStringLiteral("BLOCK_N"));
    cfg->setJsonText(text);
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    // A syntax error is reported as such.
    cfg->setJsonText(QStringLiteral("{ \"schema\": "));
    QVERIFY(cfg->validationError().startsWith(QStringLiteral("JSON syntax")));
    // The run command names the config.
    const QStringList cmd = w.runPanel()->commandLine(QStringLiteral("sweep"));
    QCOMPARE(cmd.mid(1),
             (QStringList{QStringLiteral("sweep"), w.runPanel()->configPath(), QStringLiteral("--stream")}));
    w.runPanel()->setRemoteHost(QStringLiteral("gpu01"));
    // A remote run is this machine's tilescope-run with --remote: it copies the
    // config's files to the host and starts the workers there (the same path as
    // the CLI's, tested against a real sshd in tests/cli/remote_sshd.sh).
    const QStringList remote = w.runPanel()->commandLine(QStringLiteral("diagnose"));
    QCOMPARE(remote.mid(1),
             (QStringList{QStringLiteral("diagnose"), w.runPanel()->configPath(), QStringLiteral("--stream"),
                          QStringLiteral("--remote"), QStringLiteral("gpu01")}));
    QCOMPARE(remote.front(), cmd.front());
    QVERIFY(w.statusTargetText().contains(QStringLiteral("gpu01")));
    // A hostile host (an ssh option that runs a local command) gives no command at all.
    w.runPanel()->setRemoteHost(QStringLiteral("-oProxyCommand=touch /tmp/tilescope-pwned"));
    QVERIFY(w.runPanel()->commandLine(QStringLiteral("run")).isEmpty());
    // Slurm: a sweep becomes `sweep --slurm` with the sbatch options, the remote host
    // aside (tests/cli/slurm.sh runs the CLI against a real slurmctld); run and
    // diagnose have no Slurm form.
    w.runPanel()->setRemoteHost(QStringLiteral("gpu01"));
    w.runPanel()->setSlurm(true);
    w.runPanel()->setSbatchOptions(QStringLiteral(" --gres=gpu:1 --partition=gpu "));
    QCOMPARE(
        w.runPanel()->commandLine(QStringLiteral("sweep")).mid(1),
        (QStringList{QStringLiteral("sweep"), w.runPanel()->configPath(), QStringLiteral("--stream"),
                     QStringLiteral("--slurm"), QStringLiteral("--sbatch=--gres=gpu:1 --partition=gpu")}));
    QVERIFY(w.runPanel()->commandLine(QStringLiteral("run")).isEmpty());
    QVERIFY(w.runPanel()->commandLine(QStringLiteral("diagnose")).isEmpty());
    QVERIFY2(w.statusTargetText().contains(QStringLiteral("Slurm (sbatch --gres=gpu:1")),
             qPrintable(w.statusTargetText()));
    w.runPanel()->setSlurm(false);
    QCOMPARE(w.runPanel()->commandLine(QStringLiteral("sweep")).last(), QStringLiteral("gpu01"));
    w.runPanel()->setRemoteHost(QString());
  }

  void badFileIsAnError() {
    MainWindow w;
    QVERIFY(!w.openFile(QStringLiteral(TILESCOPE_TEST_DATA "/reports/does_not_exist.json")));
    QVERIFY(w.lastError().contains(QStringLiteral("does_not_exist.json")));
    QVERIFY(!w.report());
  }

  void sampleSessionOpens() {
    // The no-argument start: the bundled session, or in a source tree the fixture sweep.
    const QString path = MainWindow::sampleSessionPath();
    QVERIFY(!path.isEmpty());
    MainWindow w;
    QVERIFY2(w.openFile(path), qPrintable(w.lastError()));
    QVERIFY(!w.report()->points.empty());
  }

  void findingsAreTheFrontTabAtTheBottom() {
    // The Triage dock, tabbed last, came to the front: a report opened on an empty dock.
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(kFixture));
    QStringList fronts;
    for (QTabBar* bar : w.findChildren<QTabBar*>())
      if (bar->isVisible() && bar->currentIndex() >= 0) fronts << bar->tabText(bar->currentIndex());
    QVERIFY2(fronts.contains(QStringLiteral("Findings")), qPrintable(fronts.join(QStringLiteral(", "))));
    QVERIFY(!fronts.contains(QStringLiteral("Triage")));
  }

  void resetLayoutBringsBackEveryDock() {
    MainWindow w;
    w.show();
    QList<QDockWidget*> docks = w.findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 5);
    QStringList shown;
    for (QDockWidget* d : docks)
      if (!d->isHidden()) shown << d->objectName();
    QVERIFY(!shown.isEmpty());
    for (QDockWidget* d : docks) d->hide();
    docks.front()->setFloating(true);
    w.resetLayout();
    for (QDockWidget* d : docks) {
      QCOMPARE(d->isHidden(), !shown.contains(d->objectName()));
      QVERIFY2(!d->isFloating(), qPrintable(d->objectName()));
    }
  }

  void unsavedConfigEditsAreAskedAboutOnClose() {
    // Closing the window dropped config edits without a word.
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(kConfig));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    QVERIFY(!w.configPanel()->isModified());
    QVERIFY(w.close());  // nothing to ask about
    w.show();
    QVERIFY(w.configPanel()->setFormValue(QStringLiteral("params.M"), QStringLiteral("256")));
    QVERIFY(w.configPanel()->isModified());
    // Answers the question once it is on the screen (polled: exec() shows it first).
    int asked = 0;
    auto answer = [&asked](QMessageBox::StandardButton button) {
      auto* timer = new QTimer;
      QObject::connect(timer, &QTimer::timeout, [timer, button, &asked] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box->objectName() != QLatin1String("unsavedConfigBox")) return;
        ++asked;
        box->button(button)->click();
        timer->deleteLater();
      });
      timer->start(20);
    };
    answer(QMessageBox::Cancel);
    QVERIFY(!w.close());
    QCOMPARE(asked, 1);
    QVERIFY(w.isVisible());
    QVERIFY(w.configPanel()->isModified());
    answer(QMessageBox::Discard);
    QVERIFY(w.close());
    QCOMPARE(asked, 2);
  }

  void themesAndClose() {
    MainWindow w;
    QVERIFY(w.openFile(kFixture));
    w.setTheme(Theme::dark);
    QCOMPARE(QApplication::palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
    w.setTheme(Theme::light);
    QCOMPARE(QApplication::palette().color(QPalette::Window), lightPalette().color(QPalette::Window));
    w.closeReport();
    QVERIFY(!w.report());
    QCOMPARE(w.findingsPanel()->model()->rowCount(), 0);
    QCOMPARE(w.runPanel()->matrixModel()->rowCount(), 0);
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
