// The evidence views on reports recorded on a GPU (docs/report.md#a-point):
// out-of-bounds writes drawn past the tensor's edge in the coverage and mask
// views with the tiles that made them; report-level findings first, the window
// opening on the point that carries the first error, and the verdict banner.
#include <QComboBox>
#include <QListWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include "mainwindow.h"
#include "models/findingsmodel.h"
#include "models/qtconv.h"
#include "panels/configpanel.h"
#include "panels/coveragepanel.h"
#include "panels/findingspanel.h"
#include "panels/maskpanel.h"
#include "style/colors.h"
#include "widgets/banner.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/maskwidget.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kSamples = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/");

bool isOobPixel(QRgb px) {
  // The fill colour or the hatch drawn over it (the pattern's lines are 1 px).
  return px == oobColor(true).rgb() || px == oobHatchColor().rgb();
}
}  // namespace

class TstEvidence : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_evidence"));
    QSettings().clear();
  }

  // gemm_bug_no_mask at M=N=1000 with 64×64 tiles: C's last tile row (rows 960..1023)
  // writes rows 1000..1023 unmasked. The guard zone measured 24,024 elements past
  // C's end (bytes 0–48047), i.e. rows 1000..1023 and 24 elements of row 1024.
  void oobWriteIsDrawnWithItsTiles() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY2(w.openFile(kSamples + QStringLiteral("gemm_bug_no_mask.json")), qPrintable(w.lastError()));
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g);
    QCOMPARE(g->rows(), 1000);
    QCOMPARE(g->oobElements(true), 24024);
    QCOMPARE(g->oobElements(false), 0);
    QVERIFY(g->oobAt(1000, 0) && g->oobAt(1000, 0)->write);
    QVERIFY(g->oobAt(1023, 999));
    QVERIFY(g->oobAt(1024, 23));
    QVERIFY(!g->oobAt(1024, 24));
    QVERIFY(!g->oobAt(999, 999));  // inside the tensor: not out of bounds
    // The 16 tiles of the last tile row wrote them; tile (15, 3) is CTA blockIdx (3, 15, 0).
    const auto tiles = g->oobTiles(true);
    QCOMPARE(static_cast<int>(tiles.size()), 16);
    for (int c = 0; c < 16; ++c) QCOMPARE(tiles[static_cast<size_t>(c)], std::make_pair(15, c));
    QCOMPARE(g->ctaOfTile(15, 3), (std::vector<std::int64_t>{3, 15, 0}));
    QVERIFY(g->extentRows() >= 1024);
    QVERIFY2(
        w.coveragePanel()->summaryText().contains(QStringLiteral("24024 element(s) written out of bounds")),
        qPrintable(w.coveragePanel()->summaryText()));
    QVERIFY(g->hoverText(1010, 5).contains(QStringLiteral("WRITTEN out of bounds")));

    // Drawn: the fitted view shows the stray rows below the tensor in vermillion/hatch.
    CoverageWidget* cov = w.coveragePanel()->coverageWidget();
    cov->fitAll();
    const QImage img = cov->grab().toImage();
    auto pixelAt = [&](double row, double col) {
      const QPointF p = cov->elementToWidget(QPointF(col, row));
      return img.pixel(static_cast<int>(p.x() * img.devicePixelRatio()),
                       static_cast<int>(p.y() * img.devicePixelRatio()));
    };
    int oob = 0, inside = 0;
    for (int c = 10; c < 990; c += 20) {
      oob += isOobPixel(pixelAt(1012.5, c + 0.5));
      inside += isOobPixel(pixelAt(500.5, c + 0.5));
    }
    QVERIFY2(oob >= 40, qPrintable(QString::number(oob)));  // nearly every sample past the edge
    QCOMPARE(inside, 0);

    // The mask view: the culprits first in the boundary list; a culprit tile's
    // masked rows 1000..1023 are all evidence.
    QListWidget* list = w.maskPanel()->boundaryList();
    QVERIFY(list->count() >= 16);
    QVERIFY(list->item(0)->text().contains(QStringLiteral("writes OOB")));
    w.selection()->setTile(15, 3);
    const MaskWidget* mask = w.maskPanel()->maskWidget();
    QCOMPARE(mask->inBoundsCount(), 40 * 64);
    QCOMPARE(mask->maskedCount(), 24 * 64);
    QCOMPARE(mask->evidenceCount(), 24 * 64);
    QVERIFY(w.maskPanel()->infoText().contains(QStringLiteral("CTA blockIdx (3, 15, 0)")));
    // A tile on the right edge (columns 1000..1023 of rows < 1000) is masked but clean.
    w.selection()->setTile(3, 15);
    QCOMPARE(mask->evidenceCount(), 0);
  }

  // The traced report locates C[1000, 0] written by block (0, 15, 0), and draws the
  // whole run its guard zone measured (tst_traced has the rest).
  void tracedOobWriteIsLocatedAndWhole() {
    MainWindow w;
    QVERIFY2(w.openFile(kSamples + QStringLiteral("traced.json")), qPrintable(w.lastError()));
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g);
    QVERIFY(g->oobAt(1000, 0) && g->oobAt(1000, 0)->write);
    QCOMPARE(g->oobElements(true), 24024);
    QCOMPARE(static_cast<int>(g->oobTiles(true).size()), 16);
  }

  // The trace's footprint of C: which CTA wrote each 4×4 cell, measured. CTA 0 wrote
  // the top-left tile; the unmasked stores of the last tile column (cols 1000..1023)
  // land in the next row's first columns, so cells there have two writers.
  void tracedFootprintLayers() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openFile(kSamples + QStringLiteral("traced.json")));
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g && g->hasFootprint());
    QCOMPARE(g->footprintRows(), 250);
    QCOMPARE(g->footprintCellRows(), 4);
    QCOMPARE(g->footprintAt(true, 10, 40), std::make_pair(std::int64_t(0), std::int64_t(0)));
    // Row 10, cols 0..23 also took CTA 15's stores to row 9, cols 1000..1023.
    QCOMPARE(g->footprintAt(true, 10, 10), std::make_pair(std::int64_t(0), std::int64_t(15)));
    QCOMPARE(g->footprintAt(true, 10, 70).first, 1);  // the tile to its right: blockIdx (1, 0, 0)
    QCOMPARE(g->ctaIndex(17), (std::vector<std::int64_t>{1, 1, 0}));  // 16 × 16 grid
    int multi = 0;
    for (int r = 0; r < g->footprintRows(); ++r) {
      const auto [lo, hi] = g->footprintCell(true, r, 0);
      multi += lo != hi;
    }
    QVERIFY2(multi > 0 && g->footprintMultiWriterCells() > 0, qPrintable(QString::number(multi)));
    QVERIFY(g->hoverText(10, 70).contains(QStringLiteral("trace: written by CTA 1 (blockIdx 1, 0, 0)")));
    QVERIFY(w.coveragePanel()->summaryText().contains(QStringLiteral("by more than one CTA")));
    // The layer draws the writer's colour.
    QVERIFY(w.coveragePanel()->layerBox()->isEnabled());
    QVERIFY(w.coveragePanel()->showLayer(CoverageLayer::writes, QStringLiteral("C")));
    CoverageWidget* cov = w.coveragePanel()->coverageWidget();
    QCOMPARE(cov->effectiveLayer(), CoverageLayer::writes);
    cov->fitAll();
    const QImage img = cov->grab().toImage();
    const QPointF p = cov->elementToWidget(QPointF(90.5, 300.5));  // row 300, col 90: CTA (1, 4, 0) = 65
    QCOMPARE(QColor(img.pixel(p.toPoint())), CoverageWidget::ctaColor(65));
    // An untraced report has no footprint: the layer box is off.
    QVERIFY(w.openFile(kSamples + QStringLiteral("gemm_bug_no_mask.json")));
    QVERIFY(!w.coveragePanel()->layerBox()->isEnabled());
    QCOMPARE(cov->effectiveLayer(), CoverageLayer::state);
  }

  void reportLevelFindingsFirst() {
    MainWindow w;
    QVERIFY2(w.openFile(kSamples + QStringLiteral("session.json")), qPrintable(w.lastError()));
    const auto r = w.report();
    // diagnose's conclusion names the experiment "shape M=65 N=65 K=33", not point 0 (slow only).
    int shape = -1;
    for (std::size_t i = 0; i < r->points.size(); ++i)
      if (r->points[i].experiment == "shape M=65 N=65 K=33") shape = static_cast<int>(i);
    QVERIFY(shape > 0);
    QCOMPARE(w.selection()->state().point, shape);
    FindingsModel* m = w.findingsPanel()->model();
    QCOMPARE(m->reportLevelCount(), 1);  // the slow warning is point 0's own: not repeated
    QVERIFY(m->isReportLevel(0));
    QCOMPARE(m->index(0, FindingsModel::ScopeColumn).data().toString(), QStringLiteral("report"));
    QCOMPARE(m->index(0, FindingsModel::CategoryColumn).data().toString(), QStringLiteral("oob_write"));
    QCOMPARE(m->rowCount(),
             m->reportLevelCount() + static_cast<int>(r->points[std::size_t(shape)].findings.size()));
    QCOMPARE(m->index(1, FindingsModel::ScopeColumn).data().toString(), QStringLiteral("point"));
    // The verdict banner says what is wrong and the walk's fix.
    const Banner* banner = w.verdictBanner();
    QVERIFY(!banner->isHidden());
    QCOMPARE(banner->kind(), Banner::Kind::error);
    QVERIFY2(banner->text().contains(QStringLiteral("Verdict: fault")), qPrintable(banner->text()));
    QVERIFY(banner->text().contains(QStringLiteral("oob_write")));
    QVERIFY2(banner->text().contains(QStringLiteral("Fix")), qPrintable(banner->text()));
    // Selecting the conclusion from another point brings its point and tile back.
    w.selection()->setPoint(0);
    QCOMPARE(w.findingsPanel()->model()->reportLevelCount(), 1);
    w.findingsPanel()->view()->selectRow(0);
    QCOMPARE(w.selection()->state().point, shape);
    QCOMPARE(w.selection()->state().tileRow, 1);
    QCOMPARE(w.selection()->state().tileCol, 0);
    // The coverage of M=N=65 with 64×64 tiles: the stray rows 65..128 drawn past the edge.
    QVERIFY(w.coveragePanel()->grid()->oobAt(100, 3));
    // Closing forgets the verdict.
    w.closeReport();
    QVERIFY(banner->isHidden());
    QCOMPARE(w.findingsPanel()->model()->rowCount(), 0);
  }

  void runReportRepeatsNothing() {
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("gemm_bug_no_mask.json")));
    // A run's report-level findings are its point's: none is shown twice.
    QCOMPARE(w.findingsPanel()->model()->reportLevelCount(), 0);
    QCOMPARE(w.findingsPanel()->model()->rowCount(), static_cast<int>(w.report()->points[0].findings.size()));
    QVERIFY2(w.verdictBanner()->text().contains(QStringLiteral("Verdict: fault")),
             qPrintable(w.verdictBanner()->text()));
    // The report's config finds its kernel where the Source view does (the zoo's
    // kernels/gemm), so Check (Ctrl+K) checks it instead of calling the source missing.
    QVERIFY(w.configPanel()->jsonText().contains(QStringLiteral("gemm_tiled")));
    QVERIFY2(w.configPanel()->validationError().isEmpty(), qPrintable(w.configPanel()->validationError()));
    QVERIFY2(!w.configPanel()->statusText().contains(QStringLiteral("does not exist")),
             qPrintable(w.configPanel()->statusText()));
    QVERIFY(w.checkConfig());
    QTRY_VERIFY_WITH_TIMEOUT(w.report()->verb == "check", 60000);
    QVERIFY2(w.messageBanner()->text().isEmpty(), qPrintable(w.messageBanner()->text()));
  }

  void bannerTextIsReadable() {
    // WCAG AA: 4.5:1 for text on every banner tint.
    for (int k = 0; k < 4; ++k) {
      const BannerColors c = bannerColors(k);
      QVERIFY2(contrastRatio(c.background, c.text) >= 4.5, qPrintable(QString::number(k)));
    }
  }
};

QTEST_MAIN(TstEvidence)
#include "tst_evidence.moc"
