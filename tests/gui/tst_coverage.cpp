// CoverageGrid (tile state lookup, slicing, hover text) and CoverageWidget (zoom maths) on the fixture.
#include <QtTest>

#include "style/colors.h"
#include "tilescope/model/report.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/maskwidget.h"

using namespace tilescope;
using namespace tilescope::ui;

class TstCoverage : public QObject {
  Q_OBJECT
 private:
  Report m_report;

 private slots:
  void initTestCase() { m_report = loadReport(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json"); }

  void tileStates() {
    // Point 1: BLOCK 64×64 over a 250×250 C; tile (3, 3) was never written, tile (0, 0) holds mismatches.
    const CoverageGrid g(m_report.points[1], "C");
    QVERIFY(g.valid());
    QCOMPARE(g.rows(), 250);
    QCOMPARE(g.tileRows(), 64);
    QCOMPARE(g.tileCols(), 64);
    QCOMPARE(g.tilesDown(), 4);
    QCOMPARE(g.tileState(3, 3), static_cast<int>(kStateUnwritten));
    QCOMPARE(g.tileState(0, 0), static_cast<int>(kStateMismatch));
    QCOMPARE(g.tileState(1, 2), static_cast<int>(kStateOk));
    QCOMPARE(g.tileState(4, 0), static_cast<int>(kStateOob));  // past the last tile
    QCOMPARE(g.stateAt(200, 200), static_cast<int>(kStateUnwritten));
    QCOMPARE(g.stateAt(100, 100), static_cast<int>(kStateOk));
    QCOMPARE(g.stateAt(250, 0), static_cast<int>(kStateOob));
    const auto err = g.tileErrors(0, 0);
    QVERIFY(err.has_value());
    QCOMPARE(err->first, 12);
  }

  void boundaryTilesMatchDeclared() {
    // Point 2: 128×32 tiles over 250×250: the last tile row and column cross the edge.
    const Point& p = m_report.points[2];
    const CoverageGrid g(p, "C");
    const auto tiles = g.boundaryTiles();
    QCOMPARE(static_cast<std::int64_t>(tiles.size()), p.coverage.front().tilesCrossing);
    QCOMPARE(g.tileState(1, 7), static_cast<int>(kStateOob));
  }

  void noCoverageForCompileError() {
    const CoverageGrid g(m_report.points[3], "C");
    QVERIFY(!g.valid());
  }

  void hoverText() {
    const CoverageGrid g(m_report.points[1], "C");
    const QString t = g.hoverText(10, 20);
    QVERIFY2(t.contains(QStringLiteral("element C[10, 20]")), qPrintable(t));
    QVERIFY2(t.contains(QStringLiteral("tile (0, 0): rows 0..63, cols 0..63")), qPrintable(t));
    QVERIFY2(t.contains(QStringLiteral("CTA blockIdx (0, 0, 0)")), qPrintable(t));
    QVERIFY2(t.contains(QStringLiteral("state: mismatched")), qPrintable(t));
    QVERIFY2(t.contains(QStringLiteral("expected 1.5, actual 1.25")), qPrintable(t));
    // The last, partial tile names its clipped range.
    QVERIFY(g.hoverText(249, 249).contains(QStringLiteral("tile (3, 3): rows 192..249, cols 192..249")));
    QVERIFY(g.hoverText(249, 249).contains(QStringLiteral("state: unwritten")));
  }

  void sliceHigherRank() {
    // [B=2, H=3, S=8, D=16], the map over the flattening [48, 16] at one element per cell.
    Point p;
    CoverageInfo c;
    c.tensor = "O";
    c.shape = {2, 3, 8, 16};
    c.tile = {1, 1, 4, 8};
    c.measured = true;
    std::vector<std::uint8_t> states(48 * 16, kStateOk);
    const int flatRow = (1 * 3 + 2) * 8 + 5;  // b=1, h=2, s=5
    states[static_cast<size_t>(flatRow * 16 + 9)] = kStateUnwritten;
    c.map = CellMap{48, 16, {1, 1}, {}, states};
    p.coverage.push_back(c);

    CoverageGrid::View v;
    v.slice = {1, 2, 0, 0};
    const CoverageGrid g(p, "O", v);  // default view: S × D
    QCOMPARE(g.rows(), 8);
    QCOMPARE(g.cols(), 16);
    QCOMPARE(g.stateAt(5, 9), static_cast<int>(kStateUnwritten));
    QCOMPARE(g.tileState(1, 1), static_cast<int>(kStateUnwritten));
    QCOMPARE(g.tileState(0, 1), static_cast<int>(kStateOk));
    QVERIFY(g.hoverText(5, 9).contains(QStringLiteral("O[1, 2, 5, 9]")));

    v.slice = {0, 0, 0, 0};
    QCOMPARE(CoverageGrid(p, "O", v).stateAt(5, 9), static_cast<int>(kStateOk));

    // H × D at b=1, s=5.
    CoverageGrid::View hv;
    hv.rowDim = 1;
    hv.colDim = 3;
    hv.slice = {1, 0, 5, 0};
    const CoverageGrid h(p, "O", hv);
    QCOMPARE(h.rows(), 3);
    QCOMPARE(h.stateAt(2, 9), static_cast<int>(kStateUnwritten));
    QCOMPARE(h.stateAt(1, 9), static_cast<int>(kStateOk));
  }

  void zoomMaths() {
    CoverageWidget w;
    w.resize(400, 300);
    w.setGrid(std::make_shared<CoverageGrid>(m_report.points[1], "C"));
    w.fitAll();
    // Fit: the declared 64×64 tiles reach row 256 past the 250-row edge (their masked
    // part is drawn); the 300 px less the column ruler over 256 rows is the tighter axis.
    QCOMPARE(w.grid()->extentRows(), 256);
    const double fitted = (300.0 - w.rulerMargins().top()) / 256.0;
    QCOMPARE(w.scale(), fitted);
    const QPointF pos(123, 77);
    const QPointF before = w.widgetToElement(pos);
    w.zoomAt(pos, 4.0);
    QCOMPARE(w.scale(), 4 * fitted);
    const QPointF after = w.widgetToElement(pos);
    QVERIFY(std::abs(after.x() - before.x()) < 1e-9 && std::abs(after.y() - before.y()) < 1e-9);
    const QPointF back = w.elementToWidget(w.widgetToElement(QPointF(10, 20)));
    QVERIFY(std::abs(back.x() - 10) < 1e-9 && std::abs(back.y() - 20) < 1e-9);
    // Down to single elements, but no further than kMaxScale.
    for (int i = 0; i < 20; ++i) w.zoomAt(pos, 2.0);
    QCOMPARE(w.scale(), CoverageWidget::kMaxScale);
    w.showTile(3, 3);
    const QPointF centre = w.widgetToElement(QPointF(200, 150));
    QVERIFY2(centre.x() >= 192 && centre.x() < 250 && centre.y() >= 192 && centre.y() < 250,
             qPrintable(QStringLiteral("%1,%2").arg(centre.x()).arg(centre.y())));
  }

  void keyboardZoomsAndPans() {
    // The coverage view zoomed and panned by mouse only.
    CoverageWidget w;
    w.resize(400, 300);
    w.setGrid(std::make_shared<CoverageGrid>(m_report.points[1], "C"));
    w.fitAll();
    const double fitted = w.scale();
    const QPointF centre(200, 150);
    const QPointF at = w.widgetToElement(centre);
    QTest::keyClick(&w, Qt::Key_Plus);
    QVERIFY(w.scale() > fitted);
    const QPointF still = w.widgetToElement(centre);  // zoomed about the centre
    QVERIFY(std::abs(still.x() - at.x()) < 1e-9 && std::abs(still.y() - at.y()) < 1e-9);
    QTest::keyClick(&w, Qt::Key_Plus);
    const QPointF before = w.origin();
    QTest::keyClick(&w, Qt::Key_Right);
    QVERIFY(w.origin().x() > before.x());
    QCOMPARE(w.origin().y(), before.y());
    QTest::keyClick(&w, Qt::Key_Down);
    QVERIFY(w.origin().y() > before.y());
    QVERIFY(!w.isFitted());
    QTest::keyClick(&w, Qt::Key_Minus);
    QTest::keyClick(&w, Qt::Key_0);
    QCOMPARE(w.scale(), fitted);
  }

  void maskPlaceholderFitsANarrowDock() {
    // The Mask view's placeholder was one line, clipped at both
    // ends in the default layout's narrow dock. Its pixels stay clear of the edges.
    MaskWidget w;
    w.resize(150, 200);
    const QImage image = w.grab().toImage();
    const QRgb base = w.palette().color(QPalette::Base).rgb();
    int inked = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        if (image.pixel(x, y) == base) continue;
        ++inked;
        QVERIFY2(x >= 4 && x < image.width() - 4, qPrintable(QStringLiteral("ink at x = %1").arg(x)));
      }
    QVERIFY(inked > 50);  // the text is drawn
  }

  void paintsStateColours() {
    CoverageWidget w;
    w.setGrid(std::make_shared<CoverageGrid>(m_report.points[1], "C"));
    const QPoint o(w.rulerMargins().left(), w.rulerMargins().top());  // the tensor starts past the rulers
    w.resize(250 + o.x(), 250 + o.y());
    w.fitAll();  // about 1 px per element
    QImage img(w.size(), QImage::Format_RGB32);
    w.render(&img);
    QCOMPARE(QColor(img.pixel(o + QPoint(220, 220))), stateColor(kStateUnwritten));
    QCOMPARE(QColor(img.pixel(o + QPoint(100, 120))), stateColor(kStateOk));
    QCOMPARE(QColor(img.pixel(o + QPoint(20, 10))), stateColor(kStateMismatch));
    // Cells stay aligned to elements up to the partial last cell: the gap starts at row/col 192.
    const QPoint at192 = w.elementToWidget(QPointF(200.5, 193.5)).toPoint();
    const QPoint at190 = w.elementToWidget(QPointF(200.5, 190.5)).toPoint();
    QCOMPARE(QColor(img.pixel(at192)), stateColor(kStateUnwritten));
    QCOMPARE(QColor(img.pixel(at190)), stateColor(kStateOk));
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TstCoverage)
#include "tst_coverage.moc"
