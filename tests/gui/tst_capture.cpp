// File ▸ Capture from a program… (docs/capture.md, "In the workbench"): the
// form says what is wrong before anything runs; a capture runs the real
// `tilescope-run capture --stream` in the background (this machine has no GPU:
// it ends with the CLI's one line, exit 3, and the event loop never waits);
// the launch table is fed by the stream lines of a recorded capture, written by
// the engine's own stream writer from the GPU-recorded launches of
// tests/data/capture; a launch's config opens in the workbench.
#include <QElapsedTimer>
#include <QFile>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <functional>

#include "controllers/runcontroller.h"
#include "controllers/runstream.h"
#include "gui_test_util.h"
#include "mainwindow.h"
#include "panels/capturedialog.h"
#include "panels/configpanel.h"
#include "tilescope/base/format.h"
#include "tilescope/capture/capture.h"
#include "tilescope/capture/launch_record.h"
#include "tilescope/run/stream.h"
#include "widgets/banner.h"

using namespace tilescope;
using namespace tilescope::ui;
using tilescope::ui::test::longestStall;

namespace {
const QString kRun = QStringLiteral(TILESCOPE_RUN_EXE);
const std::filesystem::path kCaptures = std::filesystem::path(TILESCOPE_TEST_DATA) / "capture";
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");

/// The GPU-recorded launches, in the order a program would have made them.
std::vector<LaunchRecord> recordedLaunches() {
  std::vector<LaunchRecord> out;
  for (const char* name :
       {"cuda_saxpy", "cuda_row_sums", "cupy_softsign", "torch_add_struct", "triton_add_bug"})
    out.push_back(loadLaunchRecord(kCaptures / (std::string(name) + ".launch.json")));
  return out;
}

/// The `capture` event `tilescope-run capture --stream` forwards for a recorded launch.
std::string launchLine(const LaunchRecord& r) {
  CaptureEvent e;
  e.captureEvent = "launch";
  e.recorder = r.recorder;
  e.id = r.id;
  e.index = r.index;
  e.kernel = r.kernel;
  e.grid.assign(r.grid.begin(), r.grid.end());
  return toLine({e, {}}) + "\n";
}

/// capture.json as capture writes it for these launches: a config where the
/// engine's config writer makes one, else its reason.
CaptureInfo captureOf(const std::vector<LaunchRecord>& records) {
  CaptureInfo info;
  info.command = {"python3", "program.py"};
  info.exit = {"exited", 0, "exited with status 0", 2.5};
  for (const LaunchRecord& r : records) info.launches.push_back(launchSummary(r, info));
  // capture.json lists launches by index, then id.
  std::stable_sort(info.launches.begin(), info.launches.end(), [](const auto& a, const auto& b) {
    return a.index != b.index ? a.index < b.index : a.id < b.id;
  });
  return info;
}

std::string doneLine(const QString& dir, const CaptureInfo& info) {
  return toLine({CaptureDoneEvent{dir.toStdString(), toJson(info)}, {}}) + "\n";
}

/// Feeds `text` in uneven chunks, as a pipe delivers it (lines split anywhere).
void feedInChunks(RunStream* stream, const std::string& text) {
  const QByteArray bytes = QByteArray::fromStdString(text);
  for (qsizetype at = 0, n = 7; at < bytes.size(); at += n, n = n * 3 % 101 + 1)
    stream->feed(bytes.mid(at, n));
}

QString cell(const CaptureDialog& d, int row, int col) { return d.launchTable()->item(row, col)->text(); }

int rowOfKernel(const CaptureDialog& d, const QString& kernel) {
  for (int r = 0; r < d.launchTable()->rowCount(); ++r)
    if (cell(d, r, CaptureDialog::colKernel) == kernel) return r;
  return -1;
}

QStringList strings(std::initializer_list<const char*> list) {
  QStringList out;
  for (const char* s : list) out << QString::fromUtf8(s);
  return out;
}

QPushButton* button(QWidget& w, const QString& text) {
  for (QPushButton* b : w.findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}
}  // namespace

class TstCapture : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_capture"));
  }

  void validationSaysWhatToFix() {
    QTemporaryDir tmp;
    CaptureDialog::Settings ok;
    ok.command = QStringLiteral("python3 train.py --steps 10");
    ok.outputDir = tmp.filePath(QStringLiteral("new"));
    QCOMPARE(CaptureDialog::validate(ok), QString());

    auto problem = [&](auto change) {
      CaptureDialog::Settings s = ok;
      change(s);
      return CaptureDialog::validate(s);
    };
    QVERIFY(problem([](auto& s) { s.command.clear(); }).startsWith(QStringLiteral("Enter the program")));
    QVERIFY(
        problem([](auto& s) { s.command = QStringLiteral("  \"\"  "); }).startsWith(QStringLiteral("Enter")));
    QVERIFY(
        problem([](auto& s) { s.outputDir.clear(); }).startsWith(QStringLiteral("Choose an output folder")));

    QFile file(tmp.filePath(QStringLiteral("a-file")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QCOMPARE(
        problem([&](auto& s) { s.outputDir = file.fileName(); }),
        QStringLiteral("Output folder %1 is a file: choose a new or empty folder.").arg(file.fileName()));
    // tmp holds a-file now: not empty.
    QVERIFY(problem([&](auto& s) { s.outputDir = tmp.path(); }).contains(QStringLiteral("is not empty")));
    QVERIFY(QDir(tmp.path()).mkdir(QStringLiteral("empty")));
    QCOMPARE(problem([&](auto& s) { s.outputDir = tmp.filePath(QStringLiteral("empty")); }), QString());

    const QString badRegex = problem([](auto& s) { s.kernelRegex = QStringLiteral("gemm_(bf16"); });
    QVERIFY2(badRegex.startsWith(QStringLiteral("Kernel regex 'gemm_(bf16' is not a regular expression: ")),
             qPrintable(badRegex));
    QCOMPARE(problem([](auto& s) { s.kernelRegex = QStringLiteral("^gemm_(bf16|fp8)"); }), QString());
    // RE2, as `capture --kernel`: lookaround is refused here too, not only when the capture starts.
    QVERIFY(problem([](auto& s) {
              s.kernelRegex = QStringLiteral("gemm(?=_bf16)");
            }).startsWith(QStringLiteral("Kernel regex 'gemm(?=_bf16)' is not a regular expression: ")));
    QVERIFY(problem([](auto& s) {
              s.maxBytes = QStringLiteral("4X");
            }).startsWith(QStringLiteral("Max bytes '4X'")));
    QCOMPARE(problem([](auto& s) { s.maxBytes = QStringLiteral("512M"); }), QString());
    QVERIFY(problem([](auto& s) {
              s.workingDir = QStringLiteral("/no/such/dir");
            }).contains(QStringLiteral("not a folder")));
    // On a remote host the working directory is the host's.
    QCOMPARE(problem([](auto& s) {
               s.workingDir = QStringLiteral("/no/such/dir");
               s.remoteHost = QStringLiteral("gpu-box");
             }),
             QString());
    QVERIFY(problem([](auto& s) {
              s.remoteHost = QStringLiteral("-oProxyCommand=x");
            }).startsWith(QStringLiteral("Remote host '-oProxyCommand=x': ")));

    // The dialog refuses to start and shows the same sentence.
    CaptureDialog d;
    CaptureDialog::Settings bad = ok;
    bad.kernelRegex = QStringLiteral("(");
    d.setSettings(bad);
    QVERIFY(!d.startCapture());
    QVERIFY(!d.isRunning());
    QCOMPARE(d.statusText(), CaptureDialog::validate(bad));
  }

  void theFormBecomesTheCommandLine() {
    CaptureDialog::Settings s;
    s.command = QStringLiteral("python3 \"my script.py\" --n 3");
    s.outputDir = QStringLiteral("/tmp/cap");
    s.workingDir = QStringLiteral("/srv/work");
    s.kernelRegex = QStringLiteral("add.*");
    s.launchSkip = 2;
    s.launchCount = 1;
    s.maxBytes = QStringLiteral("1G");
    s.remoteHost = QStringLiteral("gpu-box");
    s.keepCachingAllocator = true;
    QCOMPARE(CaptureDialog::arguments(s), strings({"--stream",
                                                   "-o",
                                                   "/tmp/cap",
                                                   "--kernel",
                                                   "add.*",
                                                   "--launch-skip",
                                                   "2",
                                                   "--launch-count",
                                                   "1",
                                                   "--max-bytes",
                                                   "1G",
                                                   "--cwd",
                                                   "/srv/work",
                                                   "--remote",
                                                   "gpu-box",
                                                   "--keep-caching-allocator",
                                                   "--",
                                                   "python3",
                                                   "my script.py",
                                                   "--n",
                                                   "3"}));
  }

  // The real tilescope-run, on this machine without a GPU.
  void aCaptureWithoutAGpuEndsWithTheCliLine() {
    if (QFile::exists(QStringLiteral("/dev/nvidiactl"))) QSKIP("this machine has a GPU driver");
    QTemporaryDir tmp;
    // What the CLI says, run directly.
    QProcess cli;
    cli.start(kRun, {QStringLiteral("capture"), QStringLiteral("-o"), tmp.filePath(QStringLiteral("cli")),
                     QStringLiteral("--"), QStringLiteral("true")});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 3);
    const QStringList lines =
        QString::fromUtf8(cli.readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1);  // one clear line
    const QString line = lines.front();
    QVERIFY2(line.startsWith(QStringLiteral("tilescope-run capture: ")), qPrintable(line));

    CaptureDialog d;
    d.controller()->setRunExecutable(kRun);
    CaptureDialog::Settings s;
    s.command = QStringLiteral("python3 -c pass");
    s.outputDir = tmp.filePath(QStringLiteral("gui"));
    s.workingDir = tmp.path();
    d.setSettings(s);
    d.show();
    QVERIFY(d.startCapture());
    QVERIFY(d.isRunning());
    QVERIFY(d.statusText().startsWith(QStringLiteral("Capturing: running python3")));
    const qint64 stall = longestStall([&] { return d.isRunning(); }, 60000);
    QVERIFY(!d.isRunning());
    QVERIFY2(stall < 1000, qPrintable(QStringLiteral("the event loop stalled %1 ms").arg(stall)));
    QVERIFY2(d.statusText().contains(line), qPrintable(d.statusText()));
    QVERIFY2(d.statusText().contains(QStringLiteral("(exit 3)")), qPrintable(d.statusText()));
    QCOMPARE(d.findChild<Banner*>()->kind(), Banner::Kind::error);
    QVERIFY(d.logText().contains(line));
    QCOMPARE(d.launchTable()->rowCount(), 0);
    QVERIFY(button(d, QStringLiteral("&Capture"))->isEnabled());
    QVERIFY(!button(d, QStringLiteral("Ca&ncel Capture"))->isEnabled());
    QVERIFY(!QFileInfo::exists(s.outputDir));  // nothing ran, nothing was written
  }

  // A remote host that cannot be reached: the CLI's line, read as such.
  void anUnreachableHostIsSaidSo() {
    if (QStandardPaths::findExecutable(QStringLiteral("ssh")).isEmpty()) QSKIP("no ssh here");
    QTemporaryDir tmp;
    CaptureDialog d;
    d.controller()->setRunExecutable(kRun);
    CaptureDialog::Settings s;
    s.command = QStringLiteral("python3 train.py");
    s.outputDir = tmp.filePath(QStringLiteral("cap"));
    s.remoteHost = QStringLiteral("no-such-host.invalid");  // .invalid never resolves (RFC 2606)
    d.setSettings(s);
    QVERIFY(d.startCapture());
    QVERIFY(d.statusText().startsWith(QStringLiteral("Capturing: running python3 on no-such-host.invalid")));
    QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 60000);
    const QString status = d.statusText();
    QVERIFY2(
        status.startsWith(QStringLiteral("capture: no GPU on the remote host, or it cannot be reached "
                                         "(exit 3): tilescope-run capture: --remote no-such-host.invalid "
                                         "cannot be reached: ")),
        qPrintable(status));
    QCOMPARE(d.findChild<Banner*>()->kind(), Banner::Kind::error);
  }

  // Cancel stops the program (its whole process group), and the capture still
  // ends with capture.json saying so. capture checks the driver's device node
  // first, so this runs on a GPU host only; the program itself needs no GPU.
  void cancelStopsTheProgramAndSaysSo() {
    if (!QFile::exists(QStringLiteral("/dev/nvidiactl")))
      QSKIP("capture runs nothing without /dev/nvidiactl");
    QTemporaryDir tmp;
    const QString alive = tmp.filePath(QStringLiteral("alive"));
    CaptureDialog d;
    d.controller()->setRunExecutable(kRun);
    CaptureDialog::Settings s;
    s.command = QStringLiteral("sh -c \"while :; do touch %1; sleep 0.05; done\"").arg(alive);
    s.outputDir = tmp.filePath(QStringLiteral("cap"));
    d.setSettings(s);
    QVERIFY(d.startCapture());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(alive), 30000);
    QVERIFY(d.isRunning());
    QVERIFY(button(d, QStringLiteral("Ca&ncel Capture"))->isEnabled());
    button(d, QStringLiteral("Ca&ncel Capture"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 30000);
    QVERIFY2(d.statusText().startsWith(
                 QStringLiteral("The program was stopped: the capture was cancelled (SIGTERM) after ")),
             qPrintable(d.statusText()));
    QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("cap/capture.json"))));
    // The loop is gone: nothing touches the file again.
    QFile::remove(alive);
    QTest::qWait(500);
    QVERIFY(!QFile::exists(alive));
  }

  // The workbench closing during a capture stops the program as Cancel does.
  void closingDuringACaptureStopsTheProgram() {
    if (!QFile::exists(QStringLiteral("/dev/nvidiactl")))
      QSKIP("capture runs nothing without /dev/nvidiactl");
    QTemporaryDir tmp;
    const QString alive = tmp.filePath(QStringLiteral("alive"));
    {
      CaptureDialog d;
      d.controller()->setRunExecutable(kRun);
      CaptureDialog::Settings s;
      s.command = QStringLiteral("sh -c \"while :; do touch %1; sleep 0.05; done\"").arg(alive);
      s.outputDir = tmp.filePath(QStringLiteral("cap"));
      d.setSettings(s);
      QVERIFY(d.startCapture());
      QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(alive), 30000);
    }
    QFile::remove(alive);
    QTest::qWait(500);
    QVERIFY(!QFile::exists(alive));
    QVERIFY(QFile::exists(tmp.filePath(QStringLiteral("cap/capture.json"))));
  }

  void theTableListsARecordedCapture() {
    const std::vector<LaunchRecord> records = recordedLaunches();
    CaptureDialog d;
    RunStream* stream = d.controller()->stream();
    std::string launches;
    for (const LaunchRecord& r : records) launches += launchLine(r);
    feedInChunks(stream, launches);
    QCOMPARE(d.launchTable()->rowCount(), 5);
    QVERIFY(d.statusText().startsWith(QStringLiteral("Capturing: 5 launches recorded so far")));
    // As they arrived; the grids as the program launched them.
    const std::vector<std::pair<const char*, const char*>> expected = {{"saxpy", "4096 × 1 × 1"},
                                                                       {"row_sums", "256 × 1 × 1"},
                                                                       {"softsign", "391 × 1 × 1"},
                                                                       {"at::native::", "4 × 1 × 1"},
                                                                       {"add_kernel", "1 × 1 × 1"}};
    for (int r = 0; r < 5; ++r) {
      QVERIFY2(cell(d, r, CaptureDialog::colKernel).startsWith(QString::fromUtf8(expected[r].first)),
               qPrintable(cell(d, r, CaptureDialog::colKernel)));
      QCOMPARE(cell(d, r, CaptureDialog::colGrid), QString::fromUtf8(expected[r].second));
      QCOMPARE(cell(d, r, CaptureDialog::colConfig), QStringLiteral("written when the program ends"));
      QVERIFY(d.configOfRow(r).isEmpty());
    }
    QCOMPARE(cell(d, 4, CaptureDialog::colLanguage), QStringLiteral("triton"));
    QCOMPARE(cell(d, 0, CaptureDialog::colLanguage), QStringLiteral("cuda"));

    QTemporaryDir dir;
    feedInChunks(stream, doneLine(dir.path(), captureOf(records)));
    QCOMPARE(d.launchTable()->rowCount(), 5);
    // capture.json's order: by launch index, then id.
    QCOMPARE(cell(d, 0, CaptureDialog::colIndex), QStringLiteral("0"));
    QCOMPARE(cell(d, 4, CaptureDialog::colIndex), QStringLiteral("2"));
    const int add = rowOfKernel(d, QStringLiteral("add_kernel"));
    QVERIFY(add >= 0);
    QCOMPARE(cell(d, add, CaptureDialog::colLanguage), QStringLiteral("triton"));
    QCOMPARE(cell(d, add, CaptureDialog::colConfig), QStringLiteral("add_kernel-t1377-0000.tscfg.json"));
    QCOMPARE(d.configOfRow(add),
             QDir(dir.path()).filePath(QStringLiteral("add_kernel-t1377-0000.tscfg.json")));
    const int torch = rowOfKernel(d, QString::fromStdString(records[3].kernel));
    QCOMPARE(torch, 0);  // index 0, and its id sorts first
    QVERIFY(cell(d, torch, CaptureDialog::colConfig).startsWith(QStringLiteral("no config: ")));
    QVERIFY(cell(d, torch, CaptureDialog::colConfig).contains(QStringLiteral("struct passed by value")));
    QVERIFY(d.configOfRow(torch).isEmpty());
    QCOMPARE(d.statusText(), QStringLiteral("The program exited with status 0 after %1: 5 launches "
                                            "recorded, 4 configs in %2.")
                                 .arg(QString::fromStdString(formatDuration(2.5e9)), dir.path()));
    QCOMPARE(d.findChild<Banner*>()->kind(), Banner::Kind::ok);
    QCOMPARE(cell(d, 1, CaptureDialog::colKernel), QStringLiteral("saxpy"));
    QCOMPARE(d.firstConfig(), d.configOfRow(1));  // the first launch with a config
  }

  void aBrokenCaptureDoneIsSaidNotSwallowed() {
    CaptureDialog d;
    QSignalSpy failed(d.controller(), &RunController::runFailed);
    d.controller()->stream()->feed(
        R"({"schema":"tilescope.stream/1","event":"capture_done","dir":"/x","capture":{"schema":"other"}})"
        "\n");
    QCOMPARE(failed.count(), 1);
    QVERIFY2(d.statusText().startsWith(QStringLiteral("stream event 'capture_done'")),
             qPrintable(d.statusText()));
    d.controller()->stream()->feed(
        R"({"schema":"tilescope.stream/1","event":"capture_done","dir":"/x","capture":3})"
        "\n");
    QCOMPARE(failed.count(), 2);
    QVERIFY2(d.statusText().contains(QStringLiteral("capture")), qPrintable(d.statusText()));
  }

  // File ▸ Capture from a program… shows the dialog; a row's config opens as File ▸ Open's.
  void aCapturedConfigOpensInTheWorkbench() {
    MainWindow w;
    QAction* action = nullptr;
    for (QAction* a : w.menuBar()->actions().front()->menu()->actions())
      if (a->text() == QStringLiteral("Ca&pture from a program…")) action = a;
    QVERIFY(action);
    action->trigger();
    CaptureDialog* d = w.captureDialog();
    QVERIFY(d && d->isVisible());

    CaptureInfo info;
    info.exit = {"exited", 1, "exited with status 1", 0.25};
    CapturedLaunch none;
    none.id = "c1-0000";
    none.index = 0;
    none.kernel = "fused";
    none.reason = "a 96-byte parameter (a struct passed by value) cannot be replayed yet";
    CapturedLaunch gemm;
    gemm.id = "c1-0001";
    gemm.index = 1;
    gemm.kernel = "gemm";
    gemm.config = "gemm_small.tscfg.json";
    info.launches = {none, gemm};
    const QString dir = QFileInfo(kConfig).absolutePath();
    d->controller()->stream()->feed(QByteArray::fromStdString(doneLine(dir, info)));
    QCOMPARE(d->findChild<Banner*>()->kind(), Banner::Kind::warning);  // the program exited 1
    QVERIFY(d->statusText().startsWith(QStringLiteral("The program exited with status 1")));
    QCOMPARE(d->firstConfig(), QFileInfo(kConfig).absoluteFilePath());
    QVERIFY(button(*d, QStringLiteral("Open &First Config"))->isEnabled());

    // A row without a config says why instead.
    QTableWidget* t = d->launchTable();
    auto doubleClick = [t](int row) {
      // An item view opens on a double click that follows a press on the same item.
      const QPoint at = t->visualItemRect(t->item(row, CaptureDialog::colKernel)).center();
      QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, at);
      QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, at);
    };
    doubleClick(0);
    QVERIFY2(d->statusText().contains(QStringLiteral("has no config to open")), qPrintable(d->statusText()));
    QVERIFY(!button(*d, QStringLiteral("&Open Config"))->isEnabled());
    QVERIFY(w.configPanel()->configPath().isEmpty());

    doubleClick(1);
    QTRY_COMPARE(QFileInfo(w.configPanel()->configPath()).canonicalFilePath(),
                 QFileInfo(kConfig).canonicalFilePath());
    QVERIFY(button(*d, QStringLiteral("&Open Config"))->isEnabled());
  }
};

QTEST_MAIN(TstCapture)
#include "tst_capture.moc"
