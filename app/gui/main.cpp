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
#include <QTextStream>
#include <cstdio>
#include <cstring>
#include <memory>

#include "export/reportexporter.h"
#include "export/triageexporter.h"
#include "mainwindow.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/maskpanel.h"
#include "tilescope/model/report.h"

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

bool hasExportFlag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--export") == 0) return true;
  return false;
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

// One PNG per panel and report: the central coverage view as laid out, each dock
// floated at a size that shows its content, grabbed with QWidget::grab().
int takeScreenshots(tilescope::ui::MainWindow& window, const QString& dir, QStringList reports) {
  QTextStream err(stderr);
  if (!QDir().mkpath(dir)) {
    err << "tilescope: --screenshots: cannot create " << dir << "\n";
    return 2;
  }
  if (reports.isEmpty())
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
      dock->setFloating(true);
      dock->resize(size(panel));
      dock->show();
      dock->raise();
      settle();
      save(dock->widget()->grab(), panel);
      dock->setFloating(false);
    }
  }
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

  if (hasExportFlag(argc, argv)) {
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
