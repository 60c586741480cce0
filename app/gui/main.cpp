// tilescope: the GUI workbench.
//   tilescope [FILE]                       opens a report (.json) or a config (.tscfg.json);
//                                          with no FILE, the bundled sample session
//   tilescope --export REPORT OUT.{pdf,html,md}   renders a report without a display
//   tilescope --screenshots DIR [REPORT...]       (hidden) PNGs of every panel, on the given
//                                          reports or the sample session and sweep (docs/screenshots)
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QListWidget>
#include <QPixmap>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>

#include "controllers/runcontroller.h"
#include "controllers/runstream.h"
#include "export/reportexporter.h"
#include "export/triageexporter.h"
#include "mainwindow.h"
#include "panels/capturedialog.h"
#include "panels/comparedialog.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/maskpanel.h"
#include "panels/sourcepanel.h"
#include "panels/triagepanel.h"
#include "tilescope/base/resources.h"
#include "tilescope/capture/capture.h"
#include "tilescope/capture/launch_record.h"
#include "tilescope/model/report.h"
#include "tilescope/run/stream.h"

namespace {

int runExport(const QString& reportPath, const QString& outPath) {
  QTextStream err(stderr);
  try {
    QString error;
    // A triage (tilescope.triage/1) exports through its own document.
    const auto isTriage = [&reportPath] {
      QFile file(reportPath);
      if (!file.open(QIODevice::ReadOnly) || file.size() > (qint64(512) << 20)) return false;
      try {
        return tilescope::isTriageDocument(tilescope::parseJson(file.readAll().toStdString()));
      } catch (const std::exception&) {
        return false;  // loadReport names the problem
      }
    };
    if (isTriage()) {
      if (tilescope::ui::exportTriage(tilescope::loadTriage(reportPath.toStdString()), outPath, &error))
        return 0;
      err << "tilescope: export to " << outPath << " failed: " << error << "\n";
      return 1;
    }
    const tilescope::Report report = tilescope::loadReport(reportPath.toStdString());
    if (!tilescope::ui::exportReport(report, outPath, &error)) {
      err << "tilescope: export to " << outPath << " failed: " << error << "\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    err << "tilescope: " << e.what() << "\n";
    return 2;
  }
}

bool hasFlag(int argc, char** argv, std::initializer_list<const char*> flags) {
  for (int i = 1; i < argc; ++i)
    for (const char* f : flags)
      if (std::strcmp(argv[i], f) == 0) return true;
  return false;
}

/// Whether a window system can be reached: X11, Wayland, or a platform the user chose.
bool hasDisplay() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
         !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// Lets queued layouts, replots and timers run so grabs show the finished panels.
void settle(int ms = 300) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 50);
}

// A config's check runs in the background (the analysis, then the compile):
// screenshots show its answer, not the moment before it.
void waitForCheck(tilescope::ui::MainWindow& window) {
  QElapsedTimer t;
  t.start();
  while (window.configPanel()->isChecking() && t.elapsed() < 300000)
    QApplication::processEvents(QEventLoop::AllEvents, 50);
}

// Screenshots show what needs a look: the window already opens on the point with
// the report's first error; in the mask view, the first tile of the boundary list
// (tiles with out-of-bounds evidence come first), else tile (0, 0).
void showWorstPoint(tilescope::ui::MainWindow& window) {
  if (!window.report()) return;
  settle(100);
  QListWidget* tiles = window.maskPanel()->boundaryList();
  if (tiles->count() > 0)
    tiles->setCurrentRow(0);
  else
    window.selection()->setTile(0, 0);
}

// The stream `tilescope-run capture --stream` printed for the bench's
// triton_add_bug.py (bench/gpu_capture_programs.sh): its GPU-recorded launches
// (tests/data/capture, in the source tree), written by the engine's stream
// writer; capture.json's configs and reasons from the engine's config writer.
// Empty where the fixtures are absent (an installed build).
QByteArray recordedCaptureStream(const std::filesystem::path& fixtures, const QString& dir) {
  using namespace tilescope;
  std::string lines;
  CaptureInfo info;
  info.command = {"python3", "triton_add_bug.py", "1000"};
  info.exit = {"exited", 0, "exited with status 0", 8.59};  // the bench's wall time (docs/measurements.md)
  try {
    for (const char* name : {"torch_add_struct", "triton_add_bug"}) {
      const LaunchRecord r = loadLaunchRecord(fixtures / (std::string(name) + ".launch.json"));
      CaptureEvent e{"launch", r.recorder, r.id, r.index, r.kernel, {r.grid.begin(), r.grid.end()},
                     r.fault,  {}};
      lines += toLine({e, {}}) + "\n";
      info.launches.push_back(launchSummary(r, info));
    }
  } catch (const std::exception&) {
    return {};
  }
  lines += toLine({CaptureDoneEvent{dir.toStdString(), toJson(info)}, {}}) + "\n";
  return QByteArray::fromStdString(lines);
}

// File ▸ Capture from a program… as a capture of triton_add_bug.py ends.
bool shootCaptureDialog(tilescope::ui::MainWindow& window, const QString& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(tilescope::resourceDir() / "..", ec);
  const QString out = QStringLiteral("/tmp/tilescope-capture-triton");
  const QByteArray stream = recordedCaptureStream(source / "tests" / "data" / "capture", out);
  if (stream.isEmpty()) return false;
  window.captureFromProgram();
  tilescope::ui::CaptureDialog* dialog = window.captureDialog();
  tilescope::ui::CaptureDialog::Settings s;
  s.command = QStringLiteral("python3 triton_add_bug.py 1000");
  s.workingDir = QString::fromStdString((source / "bench" / "capture").string());
  s.outputDir = out;
  dialog->setSettings(s);
  dialog->controller()->stream()->feed(stream);
  dialog->launchTable()->selectRow(dialog->launchTable()->rowCount() - 1);
  settle();
  const bool saved = dialog->grab().save(path, "PNG");
  dialog->hide();
  return saved;
}

// File ▸ Compare with…: the unmasked GEMM's run beside its traced run, a tab per
// section ("compare-<section>.png").
int shootCompareDialog(tilescope::ui::MainWindow& window, const QString& dir) {
  const QString samples = QString::fromStdString((tilescope::resourceDir() / "sample").string());
  if (!window.openFile(QDir(samples).filePath(QStringLiteral("gemm_bug_no_mask.json"))) ||
      !window.compareWith(QDir(samples).filePath(QStringLiteral("traced.json"))))
    return 0;
  tilescope::ui::CompareDialog* dialog = window.compareDialog();
  int saved = 0;
  for (int i = 0; i < dialog->tabs()->count(); ++i) {
    dialog->tabs()->setCurrentIndex(i);
    settle();
    const QString name = dialog->tabs()->widget(i)->objectName();
    saved += dialog->grab().save(
        QDir(dir).filePath(QStringLiteral("compare-") + name + QStringLiteral(".png")), "PNG");
  }
  dialog->hide();
  return saved;
}

// The whole window at a laptop's 1280 x 800 and a desktop's 1920 x 1080, every dock
// where a first start puts it; a triage in front, in the room it takes (the window's).
void shootWindows(tilescope::ui::MainWindow& window,
                  const std::function<void(const QPixmap&, const QString&)>& save) {
  for (const QSize sz : {QSize(1280, 800), QSize(1920, 1080)}) {
    window.resetLayout();
    window.resize(sz);
    settle();
    auto* triage = window.findChild<QDockWidget*>(QStringLiteral("triageDock"));
    if (triage && window.triagePanel()->triage()) triage->raise();  // it takes the room, as opening it does
    settle();
    const QString suffix =
        sz.width() == 1280 ? QString() : QStringLiteral("-%1x%2").arg(sz.width()).arg(sz.height());
    save(window.grab(), QStringLiteral("window") + suffix);
    // The Source tab in front: the banner's line, whole, the branches the defines leave out greyed.
    if (auto* src = window.findChild<QDockWidget*>(QStringLiteral("sourceDock"));
        src && !window.sourcePanel()->shownPath().isEmpty()) {
      src->raise();
      settle(100);
      save(window.grab(), QStringLiteral("window-source") + suffix);
    }
  }
}

// One PNG per panel and report: the central coverage view as laid out, each dock
// floated at a size that shows its content, grabbed with QWidget::grab().
int takeScreenshots(tilescope::ui::MainWindow& window, const QString& dir, QStringList reports) {
  QTextStream err(stderr);
  if (!QDir().mkpath(dir)) {
    err << "tilescope: --screenshots: cannot create " << dir << "\n";
    return 2;
  }
  const bool defaultSet = reports.isEmpty();
  if (defaultSet)
    for (const QString& f : tilescope::ui::MainWindow::samplePaths())
      if (f.endsWith(QLatin1String("/session.json")) || f.endsWith(QLatin1String("/gemm_sweep.json")) ||
          f.endsWith(QLatin1String("/gemm_bug_no_mask.json")) || f.endsWith(QLatin1String("/traced.json")))
        reports << f;
  const auto size = [](const QString& panel) {
    // Wide enough for the tree and the charts; the bottom docks are short when docked.
    // The Run dock near its first-run width (360 px): the sweep matrix must read there.
    static const QMap<QString, QSize> sizes{
        {QStringLiteral("troubleshoot"), {1200, 760}}, {QStringLiteral("findings"), {1200, 520}},
        {QStringLiteral("timing"), {1200, 640}},       {QStringLiteral("occupancy"), {1200, 640}},
        {QStringLiteral("mask"), {760, 720}},          {QStringLiteral("config"), {760, 720}},
        {QStringLiteral("run"), {420, 640}},           {QStringLiteral("points"), {1000, 460}}};
    return sizes.value(panel, QSize(1000, 640));
  };
  window.resize(1600, 1000);
  window.show();
  int saved = 0;
  for (const QString& report : std::as_const(reports)) {
    if (!window.openFile(report)) {
      err << "tilescope: --screenshots: " << window.lastError() << "\n";
      return 2;
    }
    waitForCheck(window);
    showWorstPoint(window);
    settle();
    // A config opens as its check (no GPU): "check-<config>".
    QString stem = QFileInfo(report).completeBaseName();
    if (window.report() && window.report()->verb == "check")
      stem = QStringLiteral("check-") + QFileInfo(report).fileName().section(QLatin1Char('.'), 0, 0);
    auto save = [&](const QPixmap& pm, const QString& panel) {
      const QString path = QDir(dir).filePath(stem + QLatin1Char('-') + panel + QStringLiteral(".png"));
      if (pm.save(path, "PNG"))
        ++saved;
      else
        err << "tilescope: --screenshots: cannot write " << path << "\n";
    };
    shootWindows(window, save);
    window.resize(1600, 1000);
    settle();
    save(window.centralWidget()->grab(), QStringLiteral("coverage"));
    // A traced report: the measured-writes layer too (who wrote each cell).
    if (QComboBox* layers = window.coveragePanel()->layerBox(); layers->isEnabled()) {
      layers->setCurrentIndex(1);
      settle(100);
      save(window.centralWidget()->grab(), QStringLiteral("coverage-writes"));
      // And the first input's reads (A of a GEMM), with the reads past its end.
      for (int i = 1; i < layers->count(); ++i)
        if (window.coveragePanel()->layerNames().value(i).startsWith(QLatin1String("Measured reads"))) {
          layers->setCurrentIndex(i);
          settle(100);
          save(window.centralWidget()->grab(), QStringLiteral("coverage-reads"));
          break;
        }
      layers->setCurrentIndex(0);
    }
    for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      QString panel = dock->objectName();
      panel.chop(4);  // "maskDock" -> "mask"
      // The Triage dock shows a triage, not a report: empty beside one.
      if (dock->widget() == window.triagePanel() && !window.triagePanel()->triage()) continue;
      dock->setFloating(true);
      dock->resize(size(panel));
      dock->show();
      dock->raise();
      settle();
      save(dock->widget()->grab(), panel);
      dock->setFloating(false);
    }
  }
  // The capture dialog with the default set (a named report is shot alone).
  if (defaultSet && shootCaptureDialog(window, QDir(dir).filePath(QStringLiteral("capture-dialog.png"))))
    ++saved;
  if (defaultSet) saved += shootCompareDialog(window, dir);
  QTextStream(stdout) << "tilescope: wrote " << saved << " screenshots to " << dir << "\n";
  return saved > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication::setOrganizationName(QStringLiteral("TileScope"));
  QCoreApplication::setApplicationName(QStringLiteral("tilescope"));
  QCoreApplication::setApplicationVersion(
      QString::fromStdString(tilescope::toolVersion()));  // CMake's PROJECT_VERSION
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("TileScope: a workbench for debugging GPU kernels"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption exportOpt(
      QStringLiteral("export"),
      QStringLiteral("Render REPORT to OUT (.pdf, .html or .md) without a display."));
  parser.addOption(exportOpt);
  QCommandLineOption shotsOpt(QStringLiteral("screenshots"),
                              QStringLiteral("Save a PNG of every panel to DIR and exit."),
                              QStringLiteral("DIR"));
  shotsOpt.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOption(shotsOpt);
  parser.addPositionalArgument(QStringLiteral("FILE"),
                               QStringLiteral("A report (.json) or a config (.tscfg.json)."),
                               QStringLiteral("[FILE]"));

  // --help and --version print and exit: they need no display (Qt aborted without one).
  if (hasFlag(argc, argv, {"-h", "--help", "--help-all", "-?", "-v", "--version"}) &&
      qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  if (hasFlag(argc, argv, {"--export"})) {
    // No display needed: the offscreen platform paints charts and PDFs. A
    // QApplication (not QGuiApplication) because QCustomPlot charts are widgets.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    parser.process(app);
    const QStringList args = parser.positionalArguments();
    if (args.size() != 2) {
      QTextStream(stderr) << "usage: tilescope --export REPORT OUT.{pdf,html,md}\n";
      return 2;
    }
    return runExport(args[0], args[1]);
  }

#ifdef Q_OS_LINUX
  if (!hasDisplay()) {
    // Qt would abort with a page about platform plugins; say what to do instead.
    QTextStream(stderr) << "tilescope: no display (DISPLAY and WAYLAND_DISPLAY are unset): run it in a "
                           "desktop session, over ssh -X, or in a virtual display (xvfb-run -a tilescope); "
                           "reports render without one: tilescope --export REPORT OUT.{pdf,html,md}\n";
    return 1;
  }
#endif
  QApplication app(argc, argv);
  parser.process(app);
  tilescope::ui::MainWindow window;
  window.setTheme(window.theme());
  const QStringList args = parser.positionalArguments();
  if (parser.isSet(shotsOpt)) return takeScreenshots(window, parser.value(shotsOpt), args);
  const QString file = args.isEmpty() ? tilescope::ui::MainWindow::sampleSessionPath() : args.front();
  // A file that does not open (missing, a directory, not JSON, a wrong value) is
  // shown in the window's message banner: the window opens either way.
  if (!file.isEmpty() && !window.openFile(file))
    QTextStream(stderr) << "tilescope: " << window.lastError() << "\n";
  window.show();
  return app.exec();
}
