// Opening a long sweep in the workbench (it was quadratic: 1,000 points took
// 10.5 s, 20,000 over 600 s): an N-point report (the bundled gemm sweep's first point
// repeated with distinct indices and labels, its maps and counters dropped so the
// file stays near 10 KB a point, as the reproducer's), written to a temporary file and
// opened through MainWindow::openFile, offscreen. Prints the time of the parse
// alone and of the whole open (parse, every panel, the first paint).
//   QT_QPA_PLATFORM=offscreen build/ci/bench/bench_open_sweep [POINTS...]
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstdio>
#include <cstdlib>

#include "mainwindow.h"
#include "tilescope/base/resources.h"
#include "tilescope/model/report.h"

using namespace tilescope;

namespace {

Report sweepOf(int n) {
  Report r = loadReport(resourceDir() / "sample" / "gemm_sweep.json");
  Point first = r.points.at(0);
  for (CoverageInfo& c : first.coverage) c.map.reset();
  for (CorrectnessInfo& c : first.correctness) {
    c.errorMap.reset();
    c.tiles.reset();
  }
  first.counters = CountersInfo{};
  r.points.assign(static_cast<std::size_t>(n), first);
  for (int i = 0; i < n; ++i) {
    Point& p = r.points[static_cast<std::size_t>(i)];
    p.index = i;
    p.label = "P=" + std::to_string(i);
    p.defines["P"] = i;
  }
  r.finalize();
  return r;
}

double msSince(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Point counts to generate, or report files to open as they are (the
  // reproducer's points_20000.json, made by its make.py).
  QStringList inputs;
  for (int i = 1; i < argc; ++i) inputs << QString::fromLocal8Bit(argv[i]);
  if (inputs.isEmpty()) inputs = {QStringLiteral("1000"), QStringLiteral("4000"), QStringLiteral("20000")};
  QTemporaryDir dir;
  ui::MainWindow window;
  window.resize(1600, 1000);
  window.show();
  for (const QString& input : std::as_const(inputs)) {
    const bool file = input.endsWith(QLatin1String(".json"));
    const int n = file ? 0 : input.toInt();
    const QString path = file ? input : dir.filePath(QStringLiteral("sweep_%1.json").arg(n));
    if (!file) saveReport(sweepOf(n), path.toStdString());
    QElapsedTimer t;
    t.start();
    std::size_t points = 0;
    try {
      points = loadReport(path.toStdString()).points.size();
    } catch (const std::exception& e) {  // a report over the size limit is refused: say so, go on
      std::printf("%s: not opened: %s\n", qPrintable(input), e.what());
      continue;
    }
    const double parse = msSince(t);
    t.restart();
    if (!window.openFile(path)) {
      std::fprintf(stderr, "open failed: %s\n", qPrintable(window.lastError()));
      return 1;
    }
    QApplication::processEvents();  // the queued replots and the first paint
    const double open = msSince(t);
    std::printf("%6zu points (%.0f MB): open %.2f s = parsing the report %.2f s + the views %.2f s\n", points,
                static_cast<double>(QFileInfo(path).size()) / 1e6, open / 1e3, parse / 1e3,
                (open - parse) / 1e3);
    std::fflush(stdout);
  }
  return 0;
}
