// The Source view's IR panes (panels/irpanes.h): the SASS, PTX and TTGIR of the
// source cursor's line, following it both ways. A report built from the
// checked-in nvdisasm listing of kernels/gemm/gemm_tiled.cu (tests/data/stages)
// with a finding at one instruction; and the traced sample, whose stages were
// compiled for the H100 it ran on.
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTextBlock>
#include <QtTest>
#include <fstream>
#include <sstream>

#include "controllers/checkcontroller.h"
#include "mainwindow.h"
#include "models/qtconv.h"
#include "panels/configpanel.h"
#include "panels/irpanes.h"
#include "panels/sourcepanel.h"
#include "tilescope/analysis/compiler_stages.h"
#include "tilescope/analysis/stage_map.h"
#include "widgets/irview.h"
#include "widgets/sourceview.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TILESCOPE_TEST_DATA) + "/stages/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// gemm_tiled.cu's SASS (lines 72, 110, 126, 183), a PTX stage of another file, no
/// Triton IR; an oob_write found at the STG of line 183 (text line 29, offset 0xb0).
ReportPtr fixtureReport() {
  auto r = std::make_shared<Report>();
  r->verb = "run";
  Point p;
  p.stages.collected = true;
  p.stages.compiler = "nvrtc";
  p.stages.arch = "sm_90";
  const std::string sass = fixture("nvdisasm_sm90.txt"), ptx = fixture("kernel.ptx");
  p.stages.stages = {absentStage("ttir", "CUDA C++ is compiled to PTX directly: there is no Triton IR"),
                     absentStage("ttgir", "CUDA C++ is compiled to PTX directly: there is no Triton IR"),
                     absentStage("llir", "CUDA C++ is compiled to PTX directly: there is no Triton IR"),
                     makeStage("ptx", ptx, ptxSpans(ptx)),
                     makeStage("sass", sass, sassSpans(parseNvdisasm(sass)))};
  p.stages.lines = summarizeLines(parseNvdisasm(sass), ptx, ptxSpans(ptx));
  Finding f;
  f.category = "oob_write";
  f.severity = Severity::error;
  f.message = "C: 8-byte write past its end";
  f.location.file = "gemm_tiled.cu";
  f.location.line = 183;
  f.location.function = "gemm_tiled";
  f.location.sassOffset = 0xb0;
  p.findings = {f};
  r->points = {p};
  r->findings = {f};
  return r;
}

/// Where to click line `line` (1-based) of `v`, in its viewport.
QPoint lineCentre(IrView* v, int line) {
  return v->cursorRect(QTextCursor(v->document()->findBlockByNumber(line - 1))).center() + QPoint(40, 0);
}

}  // namespace

class TstIrPanes : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_irpanes"));
    QSettings().clear();
  }

  void panesFollowTheSourceCursorBothWays() {
    Selection selection;
    SourcePanel panel(&selection);
    panel.resize(1400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.onReportLoaded(fixtureReport());
    // The finding's line opened; the panes beside it: SASS, PTX, TTGIR absent (disabled, says why).
    SourceView* src = panel.view();
    QCOMPARE(src->cursorLine(), 183);
    IrPanes* ir = panel.irPanes();
    QVERIFY(ir->isVisible());
    QCOMPARE(ir->tabs()->count(), 3);
    QCOMPARE(ir->tabs()->tabText(0), QStringLiteral("SASS"));
    QCOMPARE(ir->tabs()->tabText(1), QStringLiteral("PTX"));
    QVERIFY(!ir->tabs()->isTabEnabled(2));
    QVERIFY(ir->tabs()->tabToolTip(2).contains(QStringLiteral("no Triton IR")));
    QVERIFY(!ir->pane(QStringLiteral("ttgir")));
    IrView* sass = ir->pane(QStringLiteral("sass"));
    QVERIFY(sass);
    // Source -> SASS: line 183's five instructions tinted, the cursor on the marked one.
    QCOMPARE(sass->relatedLines(), (QList<int>{26, 27, 28, 29, 30}));
    QCOMPARE(sass->cursorLine(), 29);
    // Shown without nvdisasm's padding, line for line.
    QCOMPARE(sass->document()->findBlockByNumber(28).text(),
             QStringLiteral("/*00b0*/ STG.E.64 desc[UR10][R2.64], R10 ;"));
    QCOMPARE(sass->document()->findBlockByNumber(19).text(),
             QStringLiteral("//## File \"gemm_tiled.cu\", line 110 inlined at \"gemm_tiled.cu\", line 145"));
    QCOMPARE(src->relatedLines(), QList<int>{183});
    QVERIFY(ir->pane(QStringLiteral("ptx"))->relatedLines().isEmpty());  // its k.cu is another file
    QVERIFY2(ir->summaryText().startsWith(QStringLiteral("gemm_tiled.cu:183: 5 SASS instructions")),
             qPrintable(ir->summaryText()));
    QVERIFY(ir->summaryText().contains(QStringLiteral("global stores 1×8 B (vectorised)")));
    QVERIFY(ir->summaryText().contains(
        QStringLiteral("spills: 1 STL, 1 LDL; marked in the SASS: 1× oob_write (finding)\n")));
    // The finding's instruction is marked, in words as well as by the glyph.
    QCOMPARE(sass->marks().keys(), QList<int>{29});
    QCOMPARE(sass->marks()[29].severity, 2);
    QCOMPARE(sass->marks()[29].tag, QStringLiteral("\u25c0 oob_write (finding)"));
    QVERIFY(sass->marks()[29].notes.join(QLatin1Char(' ')).contains(QStringLiteral("gemm_tiled+0xb0")));

    // SASS -> source: a click on an instruction of line 72 moves the source cursor there.
    QTest::mouseClick(sass->viewport(), Qt::LeftButton, {}, lineCentre(sass, 16));
    QCOMPARE(sass->cursorLine(), 16);
    QCOMPARE(src->cursorLine(), 72);
    QCOMPARE(src->shownLine(), 72);
    QCOMPARE(sass->relatedLines(), (QList<int>{16, 17, 18, 19}));
    QCOMPARE(sass->cursorLine(), 16);  // the clicked pane did not jump to the span's start
    QVERIFY2(ir->summaryText().startsWith(QStringLiteral("gemm_tiled.cu:72: 3 SASS instructions")),
             qPrintable(ir->summaryText()));
    QVERIFY(ir->summaryText().contains(QStringLiteral("(1 of 3 vectorised)\n")));  // nothing marked
    // The inlined HMMA: line 110 and its tensor-core instructions.
    QTest::mouseClick(sass->viewport(), Qt::LeftButton, {}, lineCentre(sass, 23));
    QCOMPARE(src->cursorLine(), 110);
    QVERIFY(
        ir->summaryText().contains(QStringLiteral("2 tensor-core (HMMA.16816.F32, HGMMA.64x128x16.F32)")));
    // A line of no source line (nvdisasm's File comment) leaves the source where it was.
    QTest::mouseClick(sass->viewport(), Qt::LeftButton, {}, lineCentre(sass, 15));
    QCOMPARE(src->cursorLine(), 110);
    QVERIFY(ir->summaryText().startsWith(QStringLiteral("SASS line 15: no source line")));

    // Source -> SASS by the keys: one line down has no instructions.
    src->setFocus();
    QTest::keyClick(src, Qt::Key_Down);
    QCOMPARE(src->cursorLine(), 111);
    QVERIFY(sass->relatedLines().isEmpty());
    QVERIFY(ir->summaryText().startsWith(QStringLiteral("gemm_tiled.cu:111: no instructions")));
    QTest::keyClick(src, Qt::Key_Up);
    QCOMPARE(sass->relatedLines(), (QList<int>{21, 22, 23, 24}));
  }

  /// PC sampling's hot instructions: marked in the SASS one by one, summed in the
  /// line's summary into one part with their stall reasons, most first.
  void hotInstructionsAreSummedInTheSummary() {
    Selection selection;
    SourcePanel panel(&selection);
    panel.resize(1400, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto r = std::make_shared<Report>(*fixtureReport());
    PcSamplingInfo& pc = r->points[0].counters.pcSampling;
    pc.collected = true;
    pc.totalSamples = 1000;
    pc.pcs = {{"gemm_tiled", 0xb0, 120, {{"long_scoreboard", 100}, {"wait", 20}}},
              {"gemm_tiled", 0x90, 30, {{"short_scoreboard", 30}}},
              {"gemm_tiled", 0xa0, 25, {{"long_scoreboard", 25}}},
              {"gemm_tiled", 0x80, 5, {{"wait", 5}}}};  // 0.5 %: under the 1 % mark
    panel.onReportLoaded(r);
    IrPanes* ir = panel.irPanes();
    QCOMPARE(panel.view()->cursorLine(), 183);
    IrView* sass = ir->pane(QStringLiteral("sass"));
    QVERIFY(sass);
    QVERIFY2(sass->marks().contains(27) && sass->marks()[27].tag.contains(QStringLiteral("hot 3.0 %")),
             qPrintable(sass->marks().value(27).tag));
    // The finding's instruction is hot too: its tag says both, the summary counts it once each way.
    QVERIFY2(sass->marks()[29].tag.contains(QStringLiteral("hot 12.0 %")), qPrintable(sass->marks()[29].tag));
    QVERIFY(!sass->marks().contains(26));
    QVERIFY2(ir->summaryText().contains(
                 QStringLiteral("marked in the SASS: 1× oob_write (finding), 3× hot, 17.5 % "
                                "of the kernel's samples (long_scoreboard 2, short_scoreboard 1)")),
             qPrintable(ir->summaryText()));
  }

  /// The traced sample: its 19 traced bad accesses marked at their instructions
  /// (gemm_tiled+0x1dd0 the first store past C's end), its stages compiled for sm_90.
  void tracedSampleMarksTheTracedInstructions() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/traced.json")),
             qPrintable(w.lastError()));
    const Point& p = w.report()->points[0];
    const CompilerStage* st = p.stages.stage("sass");
    QVERIFY(st && st->present);
    SourcePanel* panel = w.sourcePanel();
    QCOMPARE(panel->view()->cursorLine(), 183);  // the banner's line: the unmasked store
    IrView* sass = panel->irPanes()->pane(QStringLiteral("sass"));
    QVERIFY(sass);
    // Every tinted SASS line came from line 183, and every instruction of 183 is tinted;
    // the pane opens on the first traced store.
    const QList<int> related = sass->relatedLines();
    QCOMPARE(sass->cursorLine(), sassLineOf(*st, "gemm_tiled", 0x1d90));
    QVERIFY(related.size() >= 32);
    for (int l : related) QCOMPARE(stageSpanAt(*st, l)->line, 183);
    // The trace's bad accesses, each at its own instruction: 5 loads of line 72, 14 stores of 183.
    const auto marks = sass->marks();
    QCOMPARE(marks.size(), 19);
    int stores = 0, loads = 0;
    for (auto it = marks.begin(); it != marks.end(); ++it) {
      const QString text = sass->document()->findBlockByNumber(it.key() - 1).text();
      const int line = stageSpanAt(*st, it.key())->line;
      QVERIFY2((line == 183 && text.contains(QStringLiteral("STG.E.U16"))) ||
                   (line == 72 && text.contains(QStringLiteral("LDG.E.U16"))),
               qPrintable(text));
      stores += line == 183;
      loads += line == 72;
    }
    QCOMPARE(stores, 14);
    QCOMPARE(loads, 5);
    const int first = sassLineOf(*st, "gemm_tiled", 0x1dd0);
    QVERIFY(first > 0 && related.contains(first));
    QVERIFY(sass->document()->findBlockByNumber(first - 1).text().contains(QStringLiteral("/*1dd0*/")));
    // The finding and the trace both name it: the tag says both, the tooltip the finding's words.
    QVERIFY2(marks[first].tag.endsWith(QStringLiteral("oob_write (finding, trace)")),
             qPrintable(marks[first].tag));
    QVERIFY(marks[first].notes.join(QLatin1Char(' ')).contains(QStringLiteral("gemm_tiled+0x1dd0")));
    // The summary: 32 two-byte stores, none vectorised.
    QVERIFY2(
        panel->irPanes()->summaryText().contains(QStringLiteral("global stores 32×2 B (none vectorised)")),
        qPrintable(panel->irPanes()->summaryText()));
    // A marked load moves the source to its line, 72.
    const int load = sassLineOf(*st, "gemm_tiled", 0x1470);
    sass->setTextCursor(QTextCursor(sass->document()->findBlockByNumber(load - 1)));
    QCOMPARE(panel->view()->cursorLine(), 72);
    QVERIFY(
        panel->irPanes()->summaryText().contains(QStringLiteral("global loads 14×2 B (none vectorised)")));
  }

  /// A config opened without a GPU: its background check compiles the stages too,
  /// and the Source view opens on the line with the most SASS.
  void aConfigsCheckBringsItsStages() {
    MainWindow w;
    w.resize(1400, 900);
    w.configPanel()->checker()->setRunExecutable(QStringLiteral(TILESCOPE_RUN_EXE));
    QVERIFY2(w.openFile(QStringLiteral(TILESCOPE_SOURCE_DIR "/kernels/gemm/gemm_bug_no_mask.tscfg.json")),
             qPrintable(w.lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(w.report() && w.report()->verb == "check", 60000);
    QTRY_VERIFY_WITH_TIMEOUT(w.configPanel()->isCompiled(), 240000);
    if (!w.report()->points[0].compile.attempted)
      QSKIP("this tilescope-run was built without CUDA: check does not compile");
    const StagesInfo& stages = w.report()->points[0].stages;
    QVERIFY(stages.collected);  // asked for: the check ran with --stages
    const CompilerStage* sass = stages.stage("sass");
    QVERIFY(sass);
    if (!sass->present) QSKIP(qPrintable(QStringLiteral("no SASS here: ") + qs(sass->absent)));
    SourcePanel* panel = w.sourcePanel();
    QVERIFY(panel->irPanes()->hasStages());
    QVERIFY2(panel->shownPath().endsWith(QStringLiteral("gemm_tiled.cu")), qPrintable(panel->statusText()));
    int most = 0, line = 0;
    for (const StageLineSummary& l : stages.lines)
      if (l.sass > most) {
        most = l.sass;
        line = l.line;
      }
    QCOMPARE(panel->view()->cursorLine(), line);
    const QList<int> related = panel->irPanes()->pane(QStringLiteral("sass"))->relatedLines();
    QVERIFY(!related.isEmpty());
    for (int l : related) QCOMPARE(stageSpanAt(*sass, l)->line, line);
    QVERIFY(panel->irPanes()->pane(QStringLiteral("ptx")));
    QVERIFY(!panel->irPanes()->pane(QStringLiteral("ptx"))->relatedLines().isEmpty());
  }

  void noStagesNoPanes() {
    Selection selection;
    SourcePanel panel(&selection);
    panel.resize(1000, 600);
    panel.show();
    auto r = std::const_pointer_cast<Report>(fixtureReport());
    r->points[0].stages = {};
    panel.onReportLoaded(r);
    QCOMPARE(panel.view()->cursorLine(), 183);  // the source still opens
    QVERIFY(!panel.irPanes()->isVisible());
    QVERIFY(!panel.irPanes()->hasStages());
    QVERIFY(panel.view()->relatedLines().isEmpty());
    // Another report with stages: the panes come back; closed: gone.
    panel.onReportLoaded(fixtureReport());
    QVERIFY(panel.irPanes()->isVisible());
    panel.onReportClosed();
    QVERIFY(!panel.irPanes()->isVisible());
    QVERIFY(!panel.irPanes()->pane(QStringLiteral("sass")));
  }

  void irHighlighting() {
    IrView v;
    v.setStageText(
        QStringLiteral("        /*00b0*/                   STG.E.64 desc[UR10][R2.64], R10 ;\n"
                       "\t//## File \"/src/gemm_tiled.cu\", line 183\n"));
    const auto formats = [&](int block) {
      return v.document()->findBlockByNumber(block).layout()->formats();
    };
    QTRY_VERIFY(!formats(0).isEmpty());
    const QString line = v.document()->findBlockByNumber(0).text();
    bool opcode = false;
    for (const QTextLayout::FormatRange& r : formats(0))
      opcode = opcode || (line.mid(r.start, r.length) == QStringLiteral("STG.E.64") &&
                          r.format.fontWeight() == QFont::Bold);
    QVERIFY(opcode);
    for (const QTextLayout::FormatRange& r : formats(1)) QVERIFY(r.format.fontItalic());  // a comment
  }
};

QTEST_MAIN(TstIrPanes)
#include "tst_irpanes.moc"
