// Frame time of the coverage view on a 16384×16384 output (a 512×512 state map,
// 128×128 tiles): fitted, zoomed into a tile, and at single-element zoom.
// The target is a frame in under 16 ms (60 Hz); this benchmark prints ms per
// frame and does not judge (timings belong to benchmarks, not to tests).
// Run: QT_QPA_PLATFORM=offscreen build/dev/bench/bench_coverage_view
#include <QElapsedTimer>
#include <QSet>
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
  std::vector<std::uint8_t> states(kMap * kMap, kStateOk);
  // A scatter of every state so the image is not uniform.
  for (int i = 0; i < kMap * kMap; i += 97)
    states[static_cast<size_t>(i)] = static_cast<std::uint8_t>((i / 97) % kStateCount);
  c.map = CellMap{kMap, kMap, {kN / kMap, kN / kMap}, {}, std::move(states)};
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
    // QBENCHMARK runs this function several times while it calibrates: print once per row.
    static QSet<QString> printed;
    if (!printed.contains(QString::fromLatin1(QTest::currentDataTag()))) {
      printed.insert(QString::fromLatin1(QTest::currentDataTag()));
      std::printf("coverage view 16384x16384, %s: %.2f ms per frame (target < 16 ms)\n",
                  QTest::currentDataTag(), ms);
    }
  }
};

QTEST_MAIN(TstCoverageBench)
#include "bench_coverage_view.moc"
