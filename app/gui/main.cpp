// tilescope: the GUI workbench.
//   tilescope [FILE]                       opens a report (.json) or a config (.tscfg.json);
//                                          with no FILE, the bundled sample session
//   tilescope --export REPORT OUT.{pdf,html,md}   renders a report without a display
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <cstdio>
#include <cstring>
#include <memory>

#include "mainwindow.h"
#include "tilescope/report.h"
#if __has_include("export/reportexporter.h")
#include "export/reportexporter.h"
#define TILESCOPE_HAVE_EXPORTER 1
#endif

namespace {

int runExport(const QString& reportPath, const QString& outPath) {
  QTextStream err(stderr);
#ifdef TILESCOPE_HAVE_EXPORTER
  try {
    const tilescope::Report report = tilescope::loadReport(reportPath.toStdString());
    QString error;
    if (!tilescope::ui::exportReport(report, outPath, &error)) {
      err << "tilescope: export to " << outPath << " failed: " << error << "\n";
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    err << "tilescope: " << e.what() << "\n";
    return 2;
  }
#else
  Q_UNUSED(reportPath);
  Q_UNUSED(outPath);
  err << "tilescope: this build has no report exporter\n";
  return 2;
#endif
}

bool hasExportFlag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--export") == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication::setOrganizationName(QStringLiteral("TileScope"));
  QCoreApplication::setApplicationName(QStringLiteral("tilescope"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("TileScope: a workbench for debugging GPU kernels"));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption exportOpt(QStringLiteral("export"), QStringLiteral("Render REPORT to OUT (.pdf, .html or .md) without a display."));
  parser.addOption(exportOpt);
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A report (.json) or a config (.tscfg.json)."), QStringLiteral("[FILE]"));

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
  const QString file = args.isEmpty() ? tilescope::ui::MainWindow::sampleSessionPath() : args.front();
  if (!file.isEmpty() && !window.openFile(file)) {
    QTextStream(stderr) << "tilescope: " << window.lastError() << "\n";
    if (!args.isEmpty()) return 2;
  }
  window.show();
  return app.exec();
}
