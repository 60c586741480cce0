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
  QList<int> sizes;
  for (int i = 1; i < argc; ++i) sizes << std::atoi(argv[i]);
  if (sizes.isEmpty()) sizes = {1000, 4000, 20000};
  QTemporaryDir dir;
  ui::MainWindow window;
  window.resize(1600, 1000);
  window.show();
  for (int n : sizes) {
    const QString path = dir.filePath(QStringLiteral("sweep_%1.json").arg(n));
    saveReport(sweepOf(n), path.toStdString());
    QElapsedTimer t;
    t.start();
    (void)loadReport(path.toStdString());
    const double parse = msSince(t);
    t.restart();
    if (!window.openFile(path)) {
      std::fprintf(stderr, "open failed: %s\n", qPrintable(window.lastError()));
      return 1;
    }
    QApplication::processEvents();  // the queued replots and the first paint
    const double open = msSince(t);
    std::printf("%6d points (%.0f MB): open %.2f s = parsing the report %.2f s + the views %.2f s\n", n,
                static_cast<double>(QFileInfo(path).size()) / 1e6, open / 1e3, parse / 1e3,
                (open - parse) / 1e3);
    std::fflush(stdout);
  }
  return 0;
}
