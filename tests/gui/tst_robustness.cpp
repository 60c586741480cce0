// No file crashes the window (docs/security.md, "What is not trusted"): a missing
// file, a directory, a source file, JSON of the wrong shape and the inputs that
// crashed the GUI under fuzzing (../shared/repro/fuzz: nesting 100,000 deep, a
// number out of range, an object replaced by a number) each give an error that
// names the path and the problem. And run failures (item 6): every exit status,
// ssh's own failure, progress reset, stale status cleared.
#include <QDir>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include "controllers/runcontroller.h"
#include "mainwindow.h"
#include "panels/configpanel.h"
#include "panels/runpanel.h"
#include "widgets/banner.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");
const QString kFixture = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json");

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
}  // namespace

class TstRobustness : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QByteArray m_oldPath;

  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
    f.write(bytes);
    return path;
  }
  void writeScript(const QString& name, const QString& body) {
    const QString path = write(name, "#!/bin/sh\n" + body.toUtf8() + "\n");
    QFile::setPermissions(path, QFile::permissions(path) | QFileDevice::ExeOwner);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_robustness"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    // The config's kernel source, beside the mutated copies.
    QVERIFY(QFile::copy(QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_tiled.cu"),
                        m_dir.filePath(QStringLiteral("gemm_tiled.cu"))));
    m_oldPath = qgetenv("PATH");
    qputenv("PATH", m_dir.path().toUtf8() + ':' + m_oldPath);
  }
  void cleanupTestCase() { qputenv("PATH", m_oldPath); }

  void badReports_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("problem");
    const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
    QTest::newRow("source file") << "kernel.cu" << QByteArray("__global__ void k() {}\n") << "invalid JSON";
    QTest::newRow("empty") << "empty.json" << QByteArray() << "invalid JSON";
    QTest::newRow("array") << "array.json" << QByteArray("[1, 2]") << "array, not an object";
    QTest::newRow("number") << "number.json" << QByteArray("42") << "an integer, not an object";
    QTest::newRow("null") << "null.json" << QByteArray("null") << "null, not an object";
    QTest::newRow("deep") << "deep.json" << deep << "line 1, column 129: nested deeper than 128 levels";
    QTest::newRow("deep extra") << "deep_extra.json"
                                << QByteArray("{\"schema\":\"tilescope.report/1\",\"extra\":") + deep + "}"
                                << "nested deeper than 128 levels";
    QTest::newRow("points number") << "points.json"
                                   << QByteArray("{\"schema\":\"tilescope.report/1\",\"points\":5}")
                                   << "points";
    QTest::newRow("device array") << "device.json"
                                  << QByteArray("{\"schema\":\"tilescope.report/1\",\"device\":[1]}")
                                  << "device";
    QTest::newRow("finding null")
        << "finding.json"
        << QByteArray("{\"schema\":\"tilescope.report/1\",\"points\":[{\"findings\":[null]}]}")
        << "findings[0]";
    QTest::newRow("out of range")
        << "range.json" << QByteArray("{\"schema\":\"tilescope.report/1\",\"points\":[{\"wall_s\":-1e400}]}")
        << "points[0].wall_s: number overflow";
    QTest::newRow("binary") << "binary.json" << QByteArray("\x00\xff\xfe{", 4) << "invalid JSON";
  }

  void badReports() {
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    const QString path = write(name, bytes);
    MainWindow w;
    QVERIFY(!w.openFile(path));
    QVERIFY2(w.lastError().contains(path), qPrintable(w.lastError()));
    QVERIFY2(w.lastError().contains(problem), qPrintable(w.lastError()));
    QVERIFY(!w.report());
    // Shown in the window, not only returned: the message banner and the status bar.
    QVERIFY(!w.messageBanner()->isHidden());
    QCOMPARE(w.messageBanner()->kind(), Banner::Kind::error);
    QVERIFY(w.messageBanner()->text().contains(path));
    QVERIFY(w.statusBar()->currentMessage().contains(path));
    // The window still works: a good report opens and clears the message.
    QVERIFY(w.openFile(kFixture));
    QVERIFY(w.messageBanner()->isHidden());
  }

  void missingAndDirectory() {
    MainWindow w;
    const QString missing = m_dir.filePath(QStringLiteral("nonexistent.json"));
    QVERIFY(!w.openFile(missing));
    QVERIFY(w.lastError().contains(missing) && w.lastError().contains(QStringLiteral("no such file")));
    QVERIFY(!w.openFile(m_dir.path()));
    QVERIFY2(w.lastError().contains(QStringLiteral("is a directory")), qPrintable(w.lastError()));
    QVERIFY(!w.lastError().contains(QStringLiteral("basic_filebuf")));
    const QString cfgDir = m_dir.filePath(QStringLiteral("dir.tscfg.json"));
    QVERIFY(QDir().mkpath(cfgDir));
    QVERIFY(!w.openFile(cfgDir));
    QVERIFY2(w.lastError().contains(cfgDir) && w.lastError().contains(QStringLiteral("directory")),
             qPrintable(w.lastError()));
  }

  // Configs open whatever they hold; what is wrong is a validation error, not a crash.
  void badConfigs_data() {
    QTest::addColumn<QString>("mutation");
    QTest::addColumn<QString>("problem");
    QTest::newRow("tensors number") << "\"tensors\": 5,"
                                    << "tensors";
    QTest::newRow("kernel string") << "\"kernel\": \"k\","
                                   << "kernel";
    QTest::newRow("launch array") << "\"launch\": [1],"
                                  << "launch";
    QTest::newRow("params null") << "\"params\": null,"
                                 << "params";
    QTest::newRow("out of range") << "\"baseline\": -1e400,"
                                  << "JSON syntax";
    QTest::newRow("deep description")
        << QStringLiteral("\"description\": ") + QString(100000, QLatin1Char('[')) +
               QString(100000, QLatin1Char(']')) + QLatin1Char(',')
        << "JSON syntax";
  }

  void badConfigs() {
    QFETCH(QString, mutation);
    QFETCH(QString, problem);
    // A duplicate key: nlohmann keeps the last, so the mutation placed after "{" loses
    // to the original; put it last instead by replacing the final "}".
    QByteArray text = readAll(kConfig).trimmed();
    QVERIFY(text.endsWith('}'));
    text.chop(1);
    QString key = mutation.section(QLatin1Char(':'), 0, 0).trimmed();
    text += ", " + mutation.toUtf8();
    text.chop(1);  // the trailing comma
    text += "}";
    const QString path = write(QStringLiteral("bad.tscfg.json"), text);
    MainWindow w;
    QVERIFY2(w.openFile(path), qPrintable(w.lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    const QString err = w.configPanel()->validationError();
    QVERIFY2(!err.isEmpty(), qPrintable(key));
    QVERIFY2(err.contains(problem), qPrintable(err));
    QVERIFY(!err.contains(QStringLiteral("[json.exception")));
  }

  void helpAndExportDefaults() {
    MainWindow w;
    // Help ▸ Keyboard Shortcuts lists the menus' own shortcuts.
    const QString keys = w.shortcutsText();
    QVERIFY2(keys.contains(QStringLiteral("F5")) && keys.contains(QStringLiteral("Check (no GPU)")),
             qPrintable(keys));
    QVERIFY(w.statusTargetText().contains(QStringLiteral("this machine")) &&
            !w.statusTargetText().contains(QStringLiteral("GPU")));
    // Export starts beside the report, named after it, and a bare name takes the filter's extension.
    QVERIFY(w.openFile(kFixture));
    QCOMPARE(w.defaultExportPath(), QFileInfo(kFixture).dir().filePath(QStringLiteral("gemm_sweep.html")));
    QCOMPARE(MainWindow::withExportExtension(QStringLiteral("/tmp/out"), QStringLiteral("PDF (*.pdf)")),
             QStringLiteral("/tmp/out.pdf"));
    QCOMPARE(MainWindow::withExportExtension(QStringLiteral("/tmp/out.md"), QStringLiteral("PDF (*.pdf)")),
             QStringLiteral("/tmp/out.md"));
  }

  void exitStatusMessages() {
    const QString tail =
        QStringLiteral("ssh: Could not resolve hostname gpu-nowhere: Name or service not known");
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 0, true, {}, false).isEmpty());
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 1, true, {}, false).isEmpty());
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 0, false, {}, false)
                .contains(QStringLiteral("without a report")));
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 2, false, {}, false)
                .contains(QStringLiteral("configuration error")));
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 3, false, {}, false)
                .contains(QStringLiteral("no GPU")));
    QVERIFY(RunPanel::failureMessage(QStringLiteral("run"), 3, false, {}, true)
                .contains(QStringLiteral("cannot be reached")));
    const QString ssh = RunPanel::failureMessage(QStringLiteral("run"), 255, false, tail, true);
    QVERIFY(ssh.contains(QStringLiteral("ssh failed")) && ssh.contains(QStringLiteral("gpu-nowhere")));
    QVERIFY(RunPanel::failureMessage(QStringLiteral("sweep"), 127, false, {}, true)
                .contains(QStringLiteral("not found on the remote host")));
    QVERIFY(RunPanel::failureMessage(QStringLiteral("sweep"), 42, false, {}, false)
                .contains(QStringLiteral("exit status 42")));
  }

  void runFailuresAreVisible_data() {
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("expected");
    QTest::newRow("usage") << ""
                           << "echo 'kernel.entry: expected a string' >&2; exit 2"
                           << "kernel.entry";
    QTest::newRow("no gpu") << ""
                            << "echo 'no CUDA device' >&2; exit 3"
                            << "no GPU";
    QTest::newRow("no report") << ""
                               << "exit 0"
                               << "without a report";
    QTest::newRow("other") << ""
                           << "exit 9"
                           << "exit status 9";
    // A remote run is the local tilescope-run with --remote: an unreachable host
    // is its exit 3 with ssh's reason (tests/cli/remote_sshd.sh runs the real one).
    QTest::newRow("ssh")
        << "gpu-nowhere"
        << "echo \"tilescope-run: error: cannot reach host 'gpu-nowhere' over ssh: ssh: Could not resolve "
           "hostname gpu-nowhere: Name or service not known\" >&2; exit 3"
        << "Could not resolve hostname";
  }

  void runFailuresAreVisible() {
    QFETCH(QString, host);
    QFETCH(QString, script);
    QFETCH(QString, expected);
    // The fake is found on PATH as tilescope-run (also for the remote case: the
    // local tilescope-run copies the files and reaches the host).
    writeScript(QStringLiteral("tilescope-run"), script);
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    if (!RunPanel::runExecutable().startsWith(m_dir.path()))
      QSKIP("a real tilescope-run sits next to the test binary");
    w.runPanel()->setRemoteHost(host);
    QSignalSpy failed(w.runPanel(), &RunPanel::runFailed);
    QSignalSpy finished(w.runPanel(), &RunPanel::runFinished);
    w.runPanel()->startRun();
    QVERIFY(finished.wait(10000));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.front().front().toString().contains(expected),
             qPrintable(failed.front().front().toString()));
    // Seen wherever the user looks: banner, status bar, run panel; progress not at 100 %.
    QVERIFY(!w.messageBanner()->isHidden());
    QVERIFY2(w.messageBanner()->text().contains(expected), qPrintable(w.messageBanner()->text()));
    QVERIFY(w.statusBar()->currentMessage().contains(expected));
    QVERIFY(w.runPanel()->statusText().contains(expected));
    QVERIFY(!w.runPanel()->statusText().contains(QStringLiteral("Starting")));
    QCOMPARE(w.runPanel()->progressValue(), 0);
    // Another report loads: the failure no longer describes what is shown.
    QVERIFY(w.openFile(kFixture));
    QVERIFY(w.messageBanner()->isHidden());
    QVERIFY(!w.runPanel()->statusText().contains(expected));
    QFile::remove(m_dir.filePath(QStringLiteral("tilescope-run")));
  }

  void runLogKeepsLinesWhole() {
    // A line of stderr that reached the pipe in two pieces was
    // logged as two lines (each read of the pipe became a paragraph of the log).
    writeScript(
        QStringLiteral("split-stderr"),
        QStringLiteral("printf 'first half, ' >&2; sleep 0.3; printf 'second half\\nnext line\\n' >&2\n"
                       "sleep 0.2; printf 'no newline at the end' >&2; exit 0"));
    RunController c;
    c.setRunExecutable(m_dir.filePath(QStringLiteral("split-stderr")));
    QSignalSpy log(&c, &RunController::logAvailable);
    c.startCapture({});
    QTRY_VERIFY_WITH_TIMEOUT(!c.isRunning(), 10000);
    QStringList lines;
    for (const QList<QVariant>& args : std::as_const(log))
      lines << args.front().toString().split(QLatin1Char('\n'));
    QVERIFY2(lines.contains(QStringLiteral("first half, second half")),
             qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY(lines.contains(QStringLiteral("next line")));
    QVERIFY(lines.contains(QStringLiteral("no newline at the end")));
  }

  void slurmSweepCancelsItsJob() {
    // Cancel sends SIGTERM to a Slurm sweep, so that tilescope-run can scancel
    // its jobs (tests/cli/slurm.sh checks that it does); the fake records its
    // arguments and the signal.
    const QString args = m_dir.filePath(QStringLiteral("slurm-args")),
                  term = m_dir.filePath(QStringLiteral("slurm-term"));
    writeScript(QStringLiteral("tilescope-run"),
                // Opening the config runs `check` in the background (CheckController): not recorded.
                QStringLiteral("[ \"$1\" = check ] && exit 2\n"
                               "trap 'echo TERM > %2; exit 143' TERM\necho \"$@\" > %1\n"
                               "i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done")
                    .arg(args, term));
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    if (!RunPanel::runExecutable().startsWith(m_dir.path()))
      QSKIP("a real tilescope-run sits next to the test binary");
    w.runPanel()->setSlurm(true);
    w.runPanel()->setSbatchOptions(QStringLiteral("--gres=gpu:1"));
    QSignalSpy cancelled(w.runPanel()->controller(), &RunController::runCancelled);
    QSignalSpy finished(w.runPanel(), &RunPanel::runFinished);
    w.runPanel()->startSweep();
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(args), 5000);
    QFile a(args);
    QVERIFY(a.open(QIODevice::ReadOnly));
    QVERIFY2(a.readAll().contains("--stream --slurm --sbatch=--gres=gpu:1"), qPrintable(args));
    w.runPanel()->cancel();
    QVERIFY(finished.wait(10000));
    QCOMPARE(cancelled.count(), 1);
    QVERIFY2(QFile::exists(term), "the Slurm sweep was not sent SIGTERM");
    QVERIFY(w.runPanel()->statusText().contains(QStringLiteral("cancelled")));
    QFile::remove(m_dir.filePath(QStringLiteral("tilescope-run")));
  }
};

QTEST_MAIN(TstRobustness)
#include "tst_robustness.moc"
