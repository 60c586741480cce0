// Layout at the default sizes (README.md#screenshots): short matrix row labels, a sortable
// Points table that shows what distinguishes the points, timing labels that do not
// collide and a legend that covers no point, experiments named by what they are, a
// 1-D tensor wrapped into rows, the coverage view fitted on open with indices along
// its edges, and a troubleshooting dock that cannot push the window off the screen.
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QtMath>
#include <QtTest>

#include "charts/chartplot.h"
#include "charts/timingcharts.h"
#include "mainwindow.h"
#include "models/pointsmodel.h"
#include "models/resultmatrixmodel.h"
#include "panels/coveragepanel.h"
#include "panels/runpanel.h"
#include "panels/timingpanel.h"
#include "panels/troubleshootpanel.h"
#include "style/colors.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/pointstable.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kSweep = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/gemm_sweep.json");
const QString kSession = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/session.json");
const QString kRacecheck = QStringLiteral(TILESCOPE_TEST_DATA "/classify/rec_racecheck_softmax_no_sync.txt");

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly | QIODevice::Text) ? QString::fromUtf8(f.readAll()) : QString();
}

/// A measured 1-D output of n elements in tiles of `tile`, elements [a, b) unwritten.
Point vectorPoint(std::int64_t n, std::int64_t tile, std::int64_t a, std::int64_t b) {
  Point p;
  CoverageInfo c;
  c.tensor = "y";
  c.shape = {n};
  c.elements = n;
  c.tile = {tile};
  c.tilesTotal = (n + tile - 1) / tile;
  c.measured = true;
  CellMap m;
  m.rows = 1;
  m.cols = n;
  m.states.assign(static_cast<size_t>(n), static_cast<std::uint8_t>(CellState::ok));
  for (std::int64_t i = a; i < b; ++i)
    m.states[static_cast<size_t>(i)] = static_cast<std::uint8_t>(CellState::unwritten);
  c.map = m;
  p.coverage.push_back(c);
  return p;
}
}  // namespace

class TstLayout : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void matrixRowsAreNamedBySweptValues() {
    const Report r = loadReport(kSweep.toStdString());
    ResultMatrixModel m;
    m.setReport(r);
    QCOMPARE(m.rowKeysText(), QStringLiteral("BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS"));
    for (int i = 0; i < m.rowCount(); ++i) {
      const Point& p = r.points[static_cast<size_t>(i)];
      const QString expect = QStringLiteral("%1, %2, %3, %4")
                                 .arg(p.defines["BLOCK_M"].get<int>())
                                 .arg(p.defines["BLOCK_N"].get<int>())
                                 .arg(p.defines["BLOCK_K"].get<int>())
                                 .arg(p.defines["NUM_WARPS"].get<int>());
      QCOMPARE(m.headerData(i, Qt::Vertical).toString(), expect);
      // The full label; the fastest correct point's says so after it.
      const QString tip = m.headerData(i, Qt::Vertical, Qt::ToolTipRole).toString();
      QVERIFY2(tip.startsWith(QString::fromStdString(p.label)), qPrintable(tip));
      QCOMPARE(tip.contains(QStringLiteral("fastest correct point")), p.index == m.bestPointIndex());
    }
    QVERIFY(m.bestPointIndex() >= 0);
  }

  void streamedMatrixRenamesRowsOnceAKeyVaries() {
    const Report r = loadReport(kSweep.toStdString());
    ResultMatrixModel m;
    m.reset(3, 1);
    m.setPoint(r.points[0], 0);  // alone, nothing is swept yet: too long a label to show whole
    QCOMPARE(m.headerData(0, Qt::Vertical).toString(), QStringLiteral("#0"));
    QSignalSpy renamed(&m, &QAbstractItemModel::headerDataChanged);
    m.setPoint(r.points[1], 1);  // NUM_WARPS 4 -> 8: every row is renamed
    QCOMPARE(renamed.size(), 1);
    QCOMPARE(renamed.front().at(1).toInt(), 0);
    QCOMPARE(renamed.front().at(2).toInt(), 2);
    QCOMPARE(m.headerData(0, Qt::Vertical).toString(), QStringLiteral("4"));
    QCOMPARE(m.headerData(1, Qt::Vertical).toString(), QStringLiteral("8"));
  }

  void matrixCellsKeepTheirWidthInTheDefaultDock() {
    // The Run dock's first-run width (MainWindow::setupDocks): 360 px.
    Selection sel;
    RunPanel panel(&sel);
    panel.resize(360, 640);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.onReportLoaded(std::make_shared<const Report>(loadReport(kSweep.toStdString())));
    QApplication::processEvents();
    QTableView* v = panel.matrixView();
    const QFontMetrics fm(v->font());
    // "slow" and "228.42 µs" both fit in the cell; the row labels take less than half the width.
    QVERIFY2(v->columnWidth(0) > fm.horizontalAdvance(QStringLiteral("228.42 \u00b5s")) + 8,
             qPrintable(QString::number(v->columnWidth(0))));
    QVERIFY(v->verticalHeader()->width() < v->width() / 2);
  }

  void diagnoseCapturesAreNamedByTheirExperiment() {
    const auto r = std::make_shared<const Report>(loadReport(kSession.toStdString()));
    PointsModel points;
    points.setReport(r);
    ResultMatrixModel matrix;
    matrix.setReport(*r);
    QSet<QString> seen;
    for (int i = 0; i < points.rowCount(); ++i) {
      const QString label = points.index(i, PointsModel::LabelColumn).data().toString();
      QVERIFY(label.startsWith(QString::fromStdString(r->points[static_cast<size_t>(i)].experiment)));
      QVERIFY(!label.startsWith(QLatin1Char('#')));
      QCOMPARE(matrix.headerData(i, Qt::Vertical).toString(), label);
      QCOMPARE(points.index(i, PointsModel::IndexColumn).data().toString(),
               QString::number(i));  // not "0" for every capture
      seen.insert(label);
    }
    QCOMPARE(seen.size(), points.rowCount());  // no two captures read alike
  }

  void pointsTableSortsAndSelectsThroughTheSort() {
    MainWindow w;
    w.resize(1400, 900);
    QVERIFY(w.openFile(kSweep));
    PointsTable* t = w.pointsTable();
    const ReportPtr r = w.report();
    // The label column shows every swept value whole.
    t->resize(900, 400);
    t->onReportLoaded(r);
    const QString first = t->model()->index(0, PointsModel::LabelColumn).data().toString();
    QCOMPARE(first, QStringLiteral("64, 32, 32, 4"));
    QVERIFY(t->columnWidth(PointsModel::LabelColumn) >= t->fontMetrics().horizontalAdvance(first));
    QCOMPARE(t->model()->headerData(PointsModel::LabelColumn, Qt::Horizontal).toString(),
             QStringLiteral("BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS"));
    // Sort by the kernel's median time, as a click on the header does.
    t->horizontalHeader()->setSortIndicator(PointsModel::TimeColumn, Qt::AscendingOrder);
    double last = -1;
    for (int row = 0; row < t->model()->rowCount(); ++row) {
      const Point& p = r->points[static_cast<size_t>(t->pointAtRow(row))];
      QVERIFY(p.timing.kernelNs.median >= last);
      last = p.timing.kernelNs.median;
    }
    QVERIFY(t->pointAtRow(0) != 0);  // the sort moved rows (point 0 is not the fastest)
    // Sorting by the label sorts the swept values as numbers: 128 after 64.
    t->horizontalHeader()->setSortIndicator(PointsModel::LabelColumn, Qt::DescendingOrder);
    QCOMPARE(r->points[static_cast<size_t>(t->pointAtRow(0))].defines["BLOCK_M"].get<int>(), 128);
    QCOMPARE(r->points[static_cast<size_t>(t->pointAtRow(t->model()->rowCount() - 1))]
                 .defines["BLOCK_M"]
                 .get<int>(),
             64);
    // Clicking a sorted row selects its point, and the selection selects the row back.
    t->selectRow(3);
    QCOMPARE(w.selection()->state().point, t->pointAtRow(3));
    w.selection()->setPoint(5);
    QCOMPARE(t->pointAtRow(t->currentIndex().row()), 5);
  }

  void timingLabelsDoNotCollideAndTheLegendCoversNoPoint() {
    for (const QString& path : {kSweep, kSession}) {
      Selection sel;
      TimingPanel panel(&sel);
      panel.resize(1200, 640);
      panel.show();
      QVERIFY(QTest::qWaitForWindowExposed(&panel));
      const auto r = std::make_shared<const Report>(loadReport(path.toStdString()));
      panel.onReportLoaded(r);
      ChartPlot* plot = panel.sweepPlot();
      plot->replot();
      fitSweepTickLabels(plot);  // for the width the first layout gave the axes
      plot->replot();
      // Labels: the swept values (or the experiments), not the full defines.
      auto ticker = plot->xAxis->ticker().dynamicCast<StrideTextTicker>();
      QVERIFY(ticker);
      QCOMPARE(ticker->ticks().size(), static_cast<int>(r->points.size()));
      if (path == kSweep)
        QCOMPARE(ticker->ticks().value(0), QStringLiteral("64, 32, 32, 4"));
      else
        QCOMPARE(ticker->ticks().value(1), QStringLiteral("trace"));
      // Neighbouring drawn labels keep their extent apart: level labels their width,
      // slanted ones a line's height across the slant.
      const QFontMetrics fm(plot->xAxis->tickLabelFont());
      const double apart = ticker->stride() * plot->axisRect()->width() / plot->xAxis->range().size();
      int widest = 0;
      for (const QString& l : std::as_const(ticker->ticks())) widest = qMax(widest, fm.horizontalAdvance(l));
      const double rot = plot->xAxis->tickLabelRotation();
      if (rot == 0)
        QVERIFY2(apart >= widest, qPrintable(QStringLiteral("%1 < %2").arg(apart).arg(widest)));
      else
        QVERIFY2(apart * qSin(qDegreesToRadians(qAbs(rot))) >= fm.height(),
                 qPrintable(QString::number(apart)));
      // The legend sits outside the axes: no data point lies under it.
      const QRect legend = plot->legend->outerRect();
      QVERIFY(plot->legend->visible());
      QVERIFY(!legend.intersects(plot->axisRect()->rect()));
      for (int g = 0; g < plot->graphCount(); ++g)
        for (auto it = plot->graph(g)->data()->constBegin(); it != plot->graph(g)->data()->constEnd(); ++it) {
          const QPointF px(plot->graph(g)->keyAxis()->coordToPixel(it->key),
                           plot->graph(g)->valueAxis()->coordToPixel(it->value));
          QVERIFY(!legend.contains(px.toPoint()));
        }
    }
  }

  void vectorIsWrappedIntoRows() {
    const std::int64_t n = 10000, tile = 256;
    const Point p = vectorPoint(n, tile, 5000, 5300);
    const CoverageGrid g(p, "y");
    QVERIFY(g.valid());
    QVERIFY2(g.rows() > 1, qPrintable(QString::number(g.rows())));
    const std::int64_t w = g.wrapWidth();
    QCOMPARE(g.cols(), w);
    QCOMPARE(w % tile, std::int64_t(0));  // every tile on one row
    QVERIFY(g.rows() * w >= n && (g.rows() - 1) * w < n);
    // Element i sits at (i / W, i % W) with its own state; the tail past the end is not the tensor's.
    QCOMPARE(g.stateAt(5100 / w, 5100 % w), static_cast<int>(kStateUnwritten));
    QCOMPARE(g.stateAt(4999 / w, 4999 % w), static_cast<int>(kStateOk));
    QVERIFY(g.contains((n - 1) / w, (n - 1) % w));
    QVERIFY(!g.contains((n - 1) / w, w - 1) || n % w == 0);
    QVERIFY(g.hoverText(5100 / w, 5100 % w).contains(QStringLiteral("y[5100]")));
    // 10000 % 256 = 16: the tile holding the last element crosses the end.
    QCOMPARE(g.boundaryTiles().size(), std::size_t(1));
    // Drawn fitted, the vector is a block many pixels high, not a line.
    CoverageWidget cw;
    cw.resize(800, 500);
    cw.setGrid(std::make_shared<const CoverageGrid>(g));
    cw.fitAll();
    const double height = cw.elementToWidget(QPointF(0, static_cast<double>(g.rows()))).y() -
                          cw.elementToWidget(QPointF(0, 0)).y();
    QVERIFY2(height > 100, qPrintable(QString::number(height)));
    // The row ruler counts in element indices: each row starts W further on.
    const auto rows = cw.axisTicks(Qt::Vertical);
    QVERIFY(rows.size() >= 2);
    QCOMPARE(rows[1].second % w, qint64(0));
  }

  void coverageFittedOnOpenWithIndicesAlongItsEdges() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFile(kSweep));
    QApplication::processEvents();
    CoverageWidget* cw = w.coveragePanel()->coverageWidget();
    // Zoomed in and panned by the user; opening a report (same shape) starts whole again.
    cw->zoomAt(QPointF(100, 100), 4.0);
    QVERIFY(!cw->isFitted());
    QVERIFY(w.openFile(kSweep));
    QApplication::processEvents();
    QVERIFY(cw->isFitted());
    const CoverageGrid* g = cw->grid();
    QVERIFY(g);
    const QMargins m = cw->rulerMargins();
    const QPointF tl = cw->elementToWidget(QPointF(0, 0));
    const QPointF br = cw->elementToWidget(
        QPointF(static_cast<double>(g->extentCols()), static_cast<double>(g->extentRows())));
    QVERIFY(tl.x() >= m.left() - 1 && tl.y() >= m.top() - 1);
    QVERIFY(br.x() <= cw->width() + 1 && br.y() <= cw->height() + 1);
    // It fills one dimension of what the rulers leave.
    QVERIFY(br.x() - tl.x() >= cw->width() - m.left() - 2 || br.y() - tl.y() >= cw->height() - m.top() - 2);
    for (Qt::Orientation o : {Qt::Horizontal, Qt::Vertical}) {
      const auto ticks = cw->axisTicks(o);
      QVERIFY(ticks.size() >= 3);
      QCOMPARE(ticks.front().second, qint64(0));
      for (int i = 1; i < ticks.size(); ++i) {
        QVERIFY(ticks[i].first > ticks[i - 1].first);
        QVERIFY(ticks[i].second > ticks[i - 1].second);
      }
      QVERIFY(ticks.back().second < (o == Qt::Horizontal ? g->extentCols() : g->extentRows()));
    }
  }

  void everySampleFitsALaptopScreen() {
    // At 1280 x 800 the window stays 1280 wide with each sample open: a long
    // summary line of the coverage view made it 1993 px wide with the traced one.
    for (const QString& sample : MainWindow::samplePaths()) {
      MainWindow w;
      w.resize(1280, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY2(w.openFile(sample), qPrintable(w.lastError()));
      QApplication::processEvents();
      QTest::qWait(50);
      QVERIFY2(w.width() <= 1280 && w.minimumSizeHint().width() <= 1280,
               qPrintable(QStringLiteral("%1: %2 px wide, at least %3")
                              .arg(sample)
                              .arg(w.width())
                              .arg(w.minimumSizeHint().width())));
    }
  }

  void classificationKeepsTheWindowOnTheScreen() {
    MainWindow w;
    const QRect avail = w.screen()->availableGeometry();
    w.resize(avail.width(), avail.height() - 40);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFile(kSession));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("troubleshootDock"));
    QVERIFY(dock);
    dock->raise();
    const QString log = readText(kRacecheck);
    QVERIFY(!log.isEmpty());
    w.troubleshootPanel()->classifyAndWalk(log);
    QApplication::processEvents();
    QTest::qWait(50);
    // The window and its docks fit the screen: the panel's minimum height is small.
    QVERIFY2(w.frameGeometry().height() <= avail.height(),
             qPrintable(QStringLiteral("%1 > %2").arg(w.frameGeometry().height()).arg(avail.height())));
    QVERIFY2(w.troubleshootPanel()->minimumSizeHint().height() < avail.height() / 3,
             qPrintable(QString::number(w.troubleshootPanel()->minimumSizeHint().height())));
    // The status bar is not covered: the dock ends above it.
    QVERIFY(dock->geometry().bottom() <= w.statusBar()->geometry().top());
  }
};

QTEST_MAIN(TstLayout)
#include "tst_layout.moc"
