// Frame time of the coverage view on a 16384×16384 output (a 512×512 state map,
// 128×128 tiles): fitted, zoomed into a tile, and at single-element zoom.
// Must stay under 16 ms per frame (60 Hz). Prints ms per frame.
#include <QElapsedTimer>
#include <QtTest>
#include <cstdio>

#include "style/colors.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
Point largePoint() {
  constexpr int kN = 16384, kMap = 512;
  Point p;
  CoverageInfo c;
  c.tensor = "C";
  c.shape = {kN, kN};
  c.elements = static_cast<std::int64_t>(kN) * kN;
  c.tile = {128, 128};
  c.measured = true;
  std::vector<int> states(kMap * kMap, kStateOk);
  // A scatter of every state so the image is not uniform.
  for (int i = 0; i < kMap * kMap; i += 97) states[static_cast<size_t>(i)] = (i / 97) % kStateCount;
  c.map = {{"rows", kMap}, {"cols", kMap}, {"cell", {kN / kMap, kN / kMap}}, {"states", states}};
  p.coverage.push_back(c);
  return p;
}
}  // namespace

class TstCoverageBench : public QObject {
  Q_OBJECT
 private:
  std::shared_ptr<const CoverageGrid> m_grid;
  double measure(CoverageWidget& w, QImage& target) {
    constexpr int kFrames = 30;
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < kFrames; ++i) w.render(&target);
    return t.nsecsElapsed() / 1e6 / kFrames;
  }

 private slots:
  void initTestCase() {
    QElapsedTimer t;
    t.start();
    m_grid = std::make_shared<CoverageGrid>(largePoint(), "C");
    QVERIFY(m_grid->valid());
    qInfo("grid build: %.1f ms", t.nsecsElapsed() / 1e6);
  }

  void frame_data() {
    QTest::addColumn<int>("mode");
    QTest::newRow("fit") << 0;
    QTest::newRow("tile") << 1;
    QTest::newRow("elements") << 2;
  }

  void frame() {
    QFETCH(int, mode);
    CoverageWidget w;
    w.resize(1600, 1000);
    w.setGrid(m_grid);
    if (mode == 1) w.showTile(64, 64);
    if (mode == 2) w.setView(CoverageWidget::kMaxScale / 2, QPointF(8000, 8000));
    QImage target(w.size(), QImage::Format_ARGB32_Premultiplied);
    QBENCHMARK { w.render(&target); }
    const double ms = measure(w, target);
    qInfo("coverage view 16384x16384, %s: %.2f ms per frame", QTest::currentDataTag(), ms);
    QVERIFY2(ms < 16.0, qPrintable(QStringLiteral("%1 ms per frame").arg(ms)));
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
#if __has_include("tst_coverage_bench.moc")
QTEST_MAIN(TstCoverageBench)
#include "tst_coverage_bench.moc"
#else
int main() {
  std::fputs("tst_coverage_bench: built without AUTOMOC; set AUTOMOC ON for the GUI tests in tests/CMakeLists.txt\n", stderr);
  return 1;
}
#endif
