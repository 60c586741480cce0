// PDF export time of a large sweep: a 20,000-point report (the bundled gemm sweep's
// first point repeated with distinct labels and medians) through the GUI exporter,
// offscreen. Prints the time of each stage and the PDF's size.
//   QT_QPA_PLATFORM=offscreen build/dev/bench/bench_export_pdf [POINTS]
#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstdio>

#include "export/exportfigures.h"
#include "export/reportexporter.h"
#include "tilescope/base/resources.h"
#include "tilescope/export/document.h"

using namespace tilescope;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  Report r = loadReport(resourceDir() / "sample" / "gemm_sweep.json");
  const Point first = r.points.at(0);
  r.points.assign(std::size_t(n), first);
  for (int i = 0; i < n; ++i) {
    Point& p = r.points[std::size_t(i)];
    p.index = i;
    p.label = "BLOCK_M=" + std::to_string(16 << (i % 4)) + " K=" + std::to_string(i);
    p.timing.kernelNs.median *= 1.0 + (i % 97) / 100.0;
    p.findings.clear();
  }
  r.finalize();
  QTemporaryDir dir;
  QElapsedTimer t;
  t.start();
  const Document doc = ui::exportDocument(r);
  const double build = double(t.nsecsElapsed()) / 1e6;
  t.restart();
  const std::string html = renderHtml(doc);
  const double render = double(t.nsecsElapsed()) / 1e6;
  t.restart();
  const QVector<ui::Figure> figures = ui::renderFigures(r);
  const double figs = double(t.nsecsElapsed()) / 1e6;
  t.restart();
  QString error;
  const QString pdf = dir.filePath(QStringLiteral("large.pdf"));
  if (!ui::exportReport(r, pdf, &error)) {
    std::fprintf(stderr, "export failed: %s\n", qPrintable(error));
    return 1;
  }
  const double whole = double(t.nsecsElapsed()) / 1e6;
  std::printf("points: %d (tables list %zu)\n", n, DocumentOptions{}.maxPointRows);
  std::printf("document: %.1f ms, html: %.1f ms (%zu bytes), figures: %.0f ms (%lld)\n", build, render,
              html.size(), figs, static_cast<long long>(figures.size()));
  std::printf("pdf export (figures, document, layout, print): %.0f ms, %lld bytes\n", whole,
              static_cast<long long>(QFileInfo(pdf).size()));
  return 0;
}
