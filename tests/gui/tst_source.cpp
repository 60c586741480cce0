// The Source view (docs/report.md, "trace"): a traced report's findings
// open their file:line centred in a highlighted, numbered source, with the trace's
// per-line facts marked in the margin.
#include <QDockWidget>
#include <QFile>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include "mainwindow.h"
#include "models/findingsmodel.h"
#include "panels/findingspanel.h"
#include "panels/sourcepanel.h"
#include "panels/speedoflightpanel.h"
#include "widgets/sourceview.h"

using namespace tilescope;
using namespace tilescope::ui;

class TstSource : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_source"));
    QSettings().clear();
  }

  /// The 1-based line of gemm_tiled.cu holding `text` (0: none).
  static int lineOf(const char* text) {
    QFile f(QStringLiteral(TILESCOPE_SOURCE_DIR "/kernels/gemm/gemm_tiled.cu"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i)
      if (lines[i].contains(QLatin1String(text))) return i + 1;
    return 0;
  }

  void traceFindingOpensItsLine() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY2(w.openFile(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/traced.json")),
             qPrintable(w.lastError()));
    // The traced oob_write: the store past C's last row in gemm_tiled.cu.
    const int store = lineOf("C[offset] = __float2half(v);"), load = lineOf("return p[offset];");
    QVERIFY(store > 0 && load > 0);
    FindingsModel* m = w.findingsPanel()->model();
    int row = -1;
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->finding(r)->category == "oob_write") row = r;
    QVERIFY(row >= 0);
    QCOMPARE(*m->finding(row)->location.line, store);
    w.findingsPanel()->view()->selectRow(row);
    SourcePanel* src = w.sourcePanel();
    QVERIFY2(src->shownPath().endsWith(QStringLiteral("kernels/gemm/gemm_tiled.cu")),
             qPrintable(src->statusText()));
    SourceView* view = src->view();
    QCOMPARE(view->shownLine(), store);
    QVERIFY(view->textCursor().block().text().contains(QStringLiteral("C[")));
    // Centred, not scrolled to the top: lines above it are in view.
    QVERIFY2(view->firstVisibleLine() < store - 3 && view->firstVisibleLine() > 1,
             qPrintable(QString::number(view->firstVisibleLine())));
    // The margin: the faulting store and the out-of-bounds loads are errors.
    QVERIFY(view->marks().contains(store));
    QCOMPARE(view->marks()[store].severity, 2);
    QVERIFY(view->marks().contains(load));
    QVERIFY(view->marks()[load].notes.join(QLatin1Char(' ')).contains(QStringLiteral("bad access")));
    QVERIFY(view->marginWidth() > view->fontMetrics().horizontalAdvance(QStringLiteral("999")));
  }

  void opensTheTracedSampleByDefault() {
    // No argument, no GPU: the traced run, whose fault has a source line to open.
    const QString path = MainWindow::sampleSessionPath();
    QVERIFY2(path.endsWith(QStringLiteral("sample/traced.json")), qPrintable(path));
    MainWindow w;
    QVERIFY(w.openFile(path));
    QVERIFY(w.report()->points[0].trace.traced());
    // The first located finding is open in the Source view already.
    QVERIFY2(w.sourcePanel()->shownPath().endsWith(QStringLiteral("gemm_tiled.cu")),
             qPrintable(w.sourcePanel()->statusText()));
  }

  /// ncu's Source page: every hot line of Speed of Light opens its line in the Source
  /// view, whose margin gives each sampled line's share of the samples and its stalls.
  void everyHotLineOpensItsLineWithItsSamples() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/gemm_sweep.json")),
             qPrintable(w.lastError()));
    w.selection()->setPoint(0);
    const PcSamplingInfo& pc = w.report()->points[0].counters.pcSampling;
    QVERIFY(pc.lines.size() >= 10);
    QVERIFY(pc.lines.front().file.front() == '/');  // recorded as an absolute path elsewhere
    auto* solDock = w.findChild<QDockWidget*>(QStringLiteral("speedOfLightDock"));
    auto* srcDock = w.findChild<QDockWidget*>(QStringLiteral("sourceDock"));
    QVERIFY(solDock && srcDock);
    QTableWidget* table = w.speedOfLightPanel()->hotLinesTable();
    SourceView* view = w.sourcePanel()->view();
    for (int row = 0; row < table->rowCount(); ++row) {
      solDock->raise();
      QTRY_VERIFY(table->isVisible());
      table->scrollToItem(table->item(row, 0));
      const QRect cell = table->visualItemRect(table->item(row, 0));
      QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
      const HotLine& l = pc.lines[static_cast<size_t>(row)];
      QVERIFY2(w.sourcePanel()->shownPath().endsWith(QStringLiteral("kernels/gemm/gemm_tiled.cu")),
               qPrintable(w.sourcePanel()->statusText()));
      QCOMPARE(view->shownLine(), l.line);
      QVERIFY(srcDock->widget()->isVisible());  // the Source dock came to the front
      // The margin: the line's samples, its share and its stall reasons.
      QVERIFY(view->marks().contains(l.line));
      QCOMPARE(view->marks()[l.line].samples, l.samples);
      QVERIFY(!view->samplesText(l.line).isEmpty());
      QVERIFY2(view->marks()[l.line]
                   .notes.join(QLatin1Char(' '))
                   .contains(QString::fromStdString(l.stalls[0].reason)),
               qPrintable(view->marks()[l.line].notes.join(QLatin1Char('|'))));
    }
    QVERIFY(view->samplesWidth() > 0);
    QVERIFY(view->marginWidth() > view->samplesWidth());
    QCOMPARE(view->samplesText(157), QStringLiteral("23%"));  // 10955 of 46984 samples
    QVERIFY(view->samplesText(1).isEmpty());
    // Another report: the label never names a line the (cleared) view does not show.
    for (const char* next : {"session.json", "gemm_sweep.json", "traced.json"}) {
      QVERIFY(w.openFile(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/") + QLatin1String(next)));
      for (int point = -1; point < static_cast<int>(w.report()->points.size()); ++point) {
        if (point >= 0) w.selection()->setPoint(point);  // -1: as it opened
        const bool empty = view->document()->toPlainText().isEmpty();
        QVERIFY2(empty != w.sourcePanel()->statusText().contains(QStringLiteral(", line ")),
                 qPrintable(QLatin1String(next) + QStringLiteral(": ") + w.sourcePanel()->statusText()));
      }
    }
  }

  void marksFromTheTrace() {
    Point p;
    TraceLine l;
    l.file = "k.cu";
    l.line = 12;
    l.maxWays = 4;
    l.wavefronts = 400;
    l.ideal = 100;
    l.accesses = 1024;
    l.spaces = {"shared"};
    p.trace.lines.push_back(l);
    TraceLine other = l;
    other.file = "other.cu";
    other.line = 13;
    p.trace.lines.push_back(other);
    Finding f;
    f.category = "race";
    f.severity = Severity::error;
    f.message = "RAW hazard";
    f.location.file = "/abs/path/k.cu";
    f.location.line = 20;
    p.findings.push_back(f);
    const auto marks = SourcePanel::marksFor(p, QStringLiteral("k.cu"));
    QCOMPARE(marks.size(), 2);
    QCOMPARE(marks[12].severity, 1);
    QVERIFY(marks[12].notes.join(QLatin1Char(' ')).contains(QStringLiteral("4-way")));
    QCOMPARE(marks[20].severity, 2);
    QVERIFY(marks[20].notes.front().startsWith(QStringLiteral("race")));
  }

  void highlightsCuda() {
    SourceView v;
    v.setPlainText(QStringLiteral(
        "// a comment with __global__\n__global__ void k(float* x) {\n  x[threadIdx.x] = 1.0f;\n}\n"));
    auto formatsOf = [&](int blockNo) {
      return v.document()->findBlockByNumber(blockNo).layout()->formats();
    };
    QTRY_VERIFY(!formatsOf(1).isEmpty());
    bool keyword = false;
    for (const QTextLayout::FormatRange& r : formatsOf(1))
      keyword = keyword || (r.start == 0 && r.length == 10 && r.format.fontWeight() == QFont::Bold);
    QVERIFY(keyword);
    // Inside a comment the keyword is comment-coloured (italic), not bold.
    for (const QTextLayout::FormatRange& r : formatsOf(0)) QVERIFY(r.format.fontItalic());
    QVERIFY(v.showLine(3));
    QVERIFY(!v.showLine(99));
  }
};

QTEST_MAIN(TstSource)
#include "tst_source.moc"
