// The traced sample (resources/sample/traced.json, what the workbench opens by
// default) tells as much as the untraced run of the same bug: the 24,024 elements its guard zone saw written
// past C's end are drawn with the 16 tiles that wrote them, every tensor the trace measured (A and B too) can
// be shown, with the reads past their ends, and the banner leads with the located write and the fix, in the
// kernel's language.
#include <QComboBox>
#include <QListWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "export/reportexporter.h"
#include "mainwindow.h"
#include "panels/coveragepanel.h"
#include "panels/maskpanel.h"
#include "tilescope/analysis/oob_extent.h"
#include "tilescope/export/document.h"
#include "widgets/banner.h"
#include "widgets/coveragegrid.h"
#include "widgets/coveragewidget.h"
#include "widgets/maskwidget.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kSamples = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/");
}  // namespace

class TstTraced : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_traced"));
    QSettings().clear();
  }

  void tracedOobWriteDrawsWhatTheGuardZoneSaw() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY2(w.openFile(kSamples + QStringLiteral("traced.json")), qPrintable(w.lastError()));
    w.selection()->setPoint(0);
    const CoverageGrid* g = w.coveragePanel()->grid();
    QVERIFY(g);
    QCOMPARE(QString::fromStdString(g->tensor()), QStringLiteral("C"));
    // As many as the untraced run draws (gemm_bug_no_mask.json, tst_evidence): rows
    // 1000..1023 whole and 24 elements of row 1024.
    QCOMPARE(g->oobElements(true), 24024);
    QVERIFY(g->oobAt(1000, 0) && g->oobAt(1000, 0)->write);
    QVERIFY(g->oobAt(1023, 999));
    QVERIFY(g->oobAt(1024, 23));
    QVERIFY(!g->oobAt(1024, 24));
    QVERIFY(g->hoverText(1010, 500).contains(QStringLiteral("WRITTEN out of bounds")));
    QCOMPARE(static_cast<int>(g->oobTiles(true).size()), 16);
    // The trace's own count beside it.
    QCOMPARE(g->oobAccesses(true), 24600);
    const QString summary = w.coveragePanel()->summaryText();
    QVERIFY2(summary.contains(QStringLiteral("24024 element(s) written out of bounds")), qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("24600 bad writes")), qPrintable(summary));

    // The mask view: every tile of the last tile row is a culprit, each with its masked rows as evidence.
    MaskPanel* mask = w.maskPanel();
    int culprits = 0;
    for (int i = 0; i < mask->boundaryList()->count(); ++i)
      culprits += mask->boundaryList()->item(i)->text().contains(QStringLiteral("writes OOB"));
    QCOMPARE(culprits, 16);
    w.selection()->setTile(15, 7);
    QVERIFY2(mask->infoText().contains(QStringLiteral("1536 with out-of-bounds evidence")),
             qPrintable(mask->infoText()));
  }

  void tritonTracedPointDrawsAll448() {
    // The Triton diagnose's traced capture (experiment "trace") of add_bug_store_no_mask.
    const Report r = loadReport((kSamples + QStringLiteral("triton_session.json")).toStdString());
    int traced = -1;
    for (size_t i = 0; i < r.points.size(); ++i)
      if (r.points[i].trace.traced()) traced = static_cast<int>(i);
    QVERIFY(traced >= 0);
    const CoverageGrid g(r.points[static_cast<size_t>(traced)], "out");
    QCOMPARE(g.oobElements(true), 448);
  }

  void guardZoneRunOfATracedFinding() {
    // core's answer, which the views and the exports share.
    const Report r = loadReport((kSamples + QStringLiteral("traced.json")).toStdString());
    const Point& p = r.points.front();
    const Finding* oob = nullptr;
    for (const Finding& f : p.findings)
      if (f.category == "oob_write") oob = &f;
    QVERIFY(oob);
    QCOMPARE(oob->location.elements->first, oob->location.elements->last);  // the trace's first access
    const auto e = oobElements(*oob, {1000, 1000});
    QVERIFY(e.has_value());
    QCOMPARE(e->first, (Index{1000, 0}));
    QCOMPARE(e->last, (Index{1024, 23}));
    QCOMPARE(elementCount(*e, {1000, 1000}), 24024);
  }

  void everyTracedTensorIsOffered() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openFile(kSamples + QStringLiteral("traced.json")));
    CoveragePanel* cov = w.coveragePanel();
    const Point& p = w.report()->points.front();
    QVERIFY(p.trace.footprints.size() >= 3);
    const QStringList layers = cov->layerNames();
    // Every tensor with a footprint has a layer: the inputs' reads as much as C's writes.
    for (const TraceFootprint& fp : p.trace.footprints) {
      const QString t = QString::fromStdString(fp.tensor);
      bool offered = false;
      for (const QString& l : layers) offered = offered || l.contains(QStringLiteral(": %1 ").arg(t));
      QVERIFY2(offered, qPrintable(t + QStringLiteral(" not in ") + layers.join(QStringLiteral(" | "))));
    }
    QVERIFY(cov->layerBox()->isEnabled());
    // Choosing A's reads shows A, coloured by the CTAs that read it, with the reads past its end.
    QVERIFY(cov->showLayer(CoverageLayer::reads, QStringLiteral("A")));
    QCOMPARE(cov->tensor(), QStringLiteral("A"));
    const CoverageGrid* g = cov->grid();
    QVERIFY(g && g->valid());
    QVERIFY(!g->declared());
    QCOMPARE(g->rows(), 1000);
    QCOMPARE(g->cols(), 1024);
    QVERIFY(g->hasFootprint());
    QCOMPARE(cov->coverageWidget()->effectiveLayer(), CoverageLayer::reads);
    QVERIFY(g->footprintAt(false, 999, 1023).first >= 0);  // the last row was read
    QVERIFY(g->oobElements(false) >= 4);                   // the first bad read of each of 4 instructions
    QCOMPARE(g->oobAccesses(false), 393216);
    QVERIFY(g->oobAt(1000, 0) && !g->oobAt(1000, 0)->write);
    QVERIFY2(cov->summaryText().contains(QStringLiteral("393216 bad reads")), qPrintable(cov->summaryText()));
    // And back: C's State layer.
    QVERIFY(cov->showLayer(CoverageLayer::writes, QStringLiteral("C")));
    QCOMPARE(cov->tensor(), QStringLiteral("C"));
    QVERIFY(cov->showLayer(CoverageLayer::state));
    QCOMPARE(cov->coverageWidget()->effectiveLayer(), CoverageLayer::state);
  }

  // The banner leads with the cause (the located write, not the NaN it leaves) and the fix.
  void theBannerIsTheCauseAndItsFix() {
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("traced.json")));
    const QString text = w.verdictBanner()->text();
    QVERIFY2(text.startsWith(QStringLiteral("Verdict: fault — oob_write: C:")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Fix (Stores past the end of a tensor: missing store mask)")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("if (row < M && col < N)")), qPrintable(text));
    // The export says the same.
    const Document doc = exportDocument(*w.report());
    QVERIFY2(QString::fromStdString(doc.banner.headline).startsWith(QStringLiteral("C: 2-byte write")),
             doc.banner.headline.c_str());
    QVERIFY2(doc.banner.fix.find("missing store mask") != std::string::npos, doc.banner.fix.c_str());
    QVERIFY(renderMarkdown(doc).find("row < M && col < N") != std::string::npos);
  }

  void aTritonSessionGetsATritonFixOnAFailingPoint() {
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("triton_session.json")));
    const QString text = w.verdictBanner()->text();
    QVERIFY2(text.contains(QStringLiteral("tl.store(out_ptr + offs, out, mask=offs < n_elements)")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("CUDA")) && !text.contains(QStringLiteral("row < M")),
             qPrintable(text));
    const int p = w.selection()->state().point;
    QVERIFY(w.report()->points[static_cast<size_t>(p)].verdict != Verdict::ok);
  }

  void anEmptyReportIsNotOk() {
    QTemporaryDir dir;
    Report empty;
    empty.verb = "run";
    const QString path = dir.filePath(QStringLiteral("empty.json"));
    saveReport(empty, path.toStdString());
    MainWindow w;
    QVERIFY2(w.openFile(path), qPrintable(w.lastError()));
    QVERIFY2(w.verdictBanner()->text().startsWith(QStringLiteral("Nothing was run")),
             qPrintable(w.verdictBanner()->text()));
    QCOMPARE(w.verdictBanner()->kind(), Banner::Kind::warning);
    QVERIFY(exportDocument(empty).banner.headline.find("nothing was run") != std::string::npos);
  }
};

QTEST_MAIN(TstTraced)
#include "tst_traced.moc"
