// The troubleshooting panel on the recorded sample session (a diagnose report with a
// tree path), on a hand-built point that leaves a question open, on a pasted CUDA error
// and pasted compute-sanitizer reports (findings, decisive lines, the source line); and
// its dock in the main window.
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "mainwindow.h"
#include "panels/troubleshootpanel.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/logs/classify.h"
#include "widgets/treeoutline.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kSession = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/session.json");
const QString kCorpus = QStringLiteral(TILESCOPE_SOURCE_DIR "/tests/data/classify/");

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList ids(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

/// Items of the outline marked as on the path whose text is bold, in breadth-first order.
int boldPathItems(QTreeWidget* view) {
  int n = 0;
  QList<QTreeWidgetItem*> queue;
  for (int i = 0; i < view->topLevelItemCount(); ++i) queue << view->topLevelItem(i);
  while (!queue.isEmpty()) {
    QTreeWidgetItem* it = queue.takeFirst();
    if (it->data(0, kOnPathRole).toBool() && it->font(0).bold()) ++n;
    for (int i = 0; i < it->childCount(); ++i) queue << it->child(i);
  }
  return n;
}
}  // namespace

class TstTroubleshoot : public QObject {
  Q_OBJECT
 private:
  Tree m_tree;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_troubleshoot"));
    QSettings().clear();
    m_tree = loadDefaultTree();
  }

  void outlineHoldsEveryNode() {
    Selection sel;
    TroubleshootPanel p(&sel);
    QVERIFY2(p.treeLoaded(), qPrintable(p.treeError()));
    QCOMPARE(p.treeView()->topLevelItem(0)->data(0, kNodeIdRole).toString(),
             QString::fromStdString(m_tree.root));
    // Every node is reachable from the root (treeFromJson checks it), so each has an item.
    for (const TreeNode& n : m_tree.nodes)
      QVERIFY2(findOutlineItem(p.treeView(), QString::fromStdString(n.id)), n.id.c_str());
    QVERIFY(p.highlightedPath().isEmpty());
    QCOMPARE(p.subject(), TroubleshootPanel::Subject::none);
  }

  void sessionPathIsHighlightedWithItsFix() {
    const auto report = std::make_shared<const Report>(loadReport(kSession.toStdString()));
    QVERIFY(!report->treePath.empty());
    Selection sel;
    TroubleshootPanel p(&sel);
    p.onReportLoaded(report);
    QCOMPARE(p.subject(), TroubleshootPanel::Subject::report);
    const TreeWalk expect = walkTree(m_tree, toJson(*report));
    QCOMPARE(p.highlightedPath(), ids(expect.path));
    // The panel's walk over the recorded evidence reaches the path diagnose recorded.
    QCOMPARE(p.highlightedPath(), ids(report->treePath));
    QCOMPARE(boldPathItems(p.treeView()), p.highlightedPath().size());
    QVERIFY(expect.complete);
    const TreeNode* leaf = m_tree.find(report->treePath.back());
    QVERIFY(leaf && leaf->isLeaf());
    QVERIFY2(p.fixText().contains(QString::fromStdString(leaf->fix).left(60)), qPrintable(p.fixText()));
    QVERIFY(p.fixText().contains(QString::fromStdString(leaf->title)));
    QVERIFY(p.answerButtons().isEmpty());
    // The first step's item shows the finding that decided it.
    QTreeWidgetItem* first = findOutlineItem(p.treeView(), p.highlightedPath().front());
    p.showItemDetails(first);
    QVERIFY2(
        p.detailsText().contains(QString::fromStdString(expect.steps.front().evidence.dump(2)).left(200)),
        qPrintable(p.detailsText()));
  }

  void pointLabelsAreShownAsTextNotMarkup() {
    // A report's point label is data (docs/security.md, "What is not trusted": "<b style=...>" rendered 40 px
    // tall).
    auto r = std::make_shared<Report>();
    r->verb = "run";
    Point pt;
    pt.label = "<b style='font-size:40px;color:green'>LABEL OK</b>";
    pt.verdict = Verdict::incorrect;
    r->points.push_back(pt);
    r->finalize();
    Selection sel;
    TroubleshootPanel p(&sel);
    p.onReportLoaded(r);
    auto* status = p.findChild<QLabel*>(QStringLiteral("troubleshootStatus"));
    QVERIFY(status);
    QCOMPARE(status->textFormat(), Qt::PlainText);
    QVERIFY2(status->text().contains(QString::fromStdString(pt.label)), qPrintable(status->text()));
  }

  void answeringTheOpenQuestionAdvances() {
    // A wrong result with no finding to explain it: the evidence decides the stage,
    // then a person has to say more.
    auto r = std::make_shared<Report>();
    r->verb = "run";
    Point pt;
    pt.label = "hand-built";
    pt.verdict = Verdict::incorrect;
    r->points.push_back(pt);
    r->finalize();
    Selection sel;
    TroubleshootPanel p(&sel);
    p.onReportLoaded(r);
    QCOMPARE(p.subject(), TroubleshootPanel::Subject::point);
    const TreeWalk before = p.walk();
    QVERIFY2(!before.complete && !before.openAnswers.empty(),
             "the hand-built point should leave a question open");
    QCOMPARE(p.highlightedPath(), ids(before.path));
    QCOMPARE(p.highlightedPath().back(), QString::fromStdString(before.stoppedAt));
    QVERIFY(p.fixText().isEmpty());
    const QList<QPushButton*> buttons = p.answerButtons();
    QCOMPARE(buttons.size(), static_cast<int>(before.openAnswers.size()));
    QCOMPARE(buttons.front()->text(), QString::fromStdString(before.openAnswers.front().label));
    QTest::mouseClick(buttons.front(), Qt::LeftButton);
    const TreeWalk& after = p.walk();
    QVERIFY(after.path.size() > before.path.size());
    QCOMPARE(QString::fromStdString(after.path[before.path.size()]),
             QString::fromStdString(before.openAnswers.front().next));
    const TreeStep& answered = after.steps[before.path.size() - 1];
    QCOMPARE(answered.node, before.stoppedAt);
    QVERIFY(!answered.automatic);
    QCOMPARE(p.highlightedPath(), ids(after.path));
    QVERIFY(!p.answerOpenQuestion(QStringLiteral("no-such-answer")));
    p.resetAnswers();
    QCOMPARE(p.highlightedPath(), ids(before.path));
  }

  void pastedMisalignedAddressStartsAtItsNode() {
    Selection sel;
    TroubleshootPanel p(&sel);
    const QString log = QStringLiteral("RuntimeError: CUDA error: misaligned address");
    p.logEdit()->setPlainText(log);
    QTest::mouseClick(p.classifyButton(), Qt::LeftButton);
    QVERIFY(p.classification().has_value());
    const Classification& c = *p.classification();
    QCOMPARE(QString::fromStdString(c.category), QStringLiteral("misaligned_access"));
    QCOMPARE(p.subject(), TroubleshootPanel::Subject::log);
    const TreeNode* start = m_tree.findNearest(c.treeNode);
    QVERIFY(start);
    QCOMPARE(p.highlightedPath().front(), QString::fromStdString(start->id));
    QVERIFY2(start->id.rfind("fault", 0) == 0, start->id.c_str());  // a fault, not the root
    const TreeWalk expect = walkTree(m_tree, nlohmann::json{{"log", log.toStdString()}}, {}, start->id);
    QCOMPARE(p.highlightedPath(), ids(expect.path));
    QVERIFY(p.classificationText().contains(QStringLiteral("misaligned_access")));
    QVERIFY(p.classificationText().contains(QString::fromStdString(c.matched)));
  }

  void pastedRacecheckReportWalksFromItsFindings() {
    Selection sel;
    TroubleshootPanel p(&sel);
    const QString log = readText(kCorpus + QStringLiteral("rec_racecheck_softmax_no_sync.txt"));
    QVERIFY(!log.isEmpty());
    const Classification c = p.classifyAndWalk(log);
    QCOMPARE(QString::fromStdString(c.category), QStringLiteral("race"));
    QCOMPARE(c.sanitizer.findings.size(), std::size_t(12));
    // The findings are listed, one row each, under their tool; then the decisive lines.
    QTreeWidget* list = p.pasteFindings();
    QVERIFY(!list->isHidden());
    QCOMPARE(list->topLevelItemCount(), 2);
    QVERIFY(list->topLevelItem(0)->text(0).contains(QStringLiteral("racecheck")));
    QCOMPARE(list->topLevelItem(0)->childCount(), 12);
    QVERIFY(list->topLevelItem(0)->child(0)->text(1).startsWith(QStringLiteral("softmax_row+0x9c0")));
    QVERIFY(list->topLevelItem(1)->text(0).startsWith(QStringLiteral("Decisive lines")));
    // The shared-memory hazard finding answers fault.race's question: a missing barrier.
    const QStringList path = p.highlightedPath();
    QVERIFY2(path.contains(QStringLiteral("fault.race.missing_barrier")),
             qPrintable(path.join(QLatin1Char(' '))));
    QVERIFY(p.walk().complete);
  }

  void pastedMemcheckReportOpensTheSourceLine() {
    QTemporaryDir dir;
    const QString src = dir.filePath(QStringLiteral("scale.cu"));
    QFile f(src);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "__global__ void scale(float* x, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  x[i] *= 2.0f;   // no bound check\n}\n");
    f.close();
    // A memcheck report as compute-sanitizer prints it for a kernel built with -lineinfo.
    const QString log =
        QStringLiteral(
            "========= Invalid __global__ write of size 4 bytes\n"
            "=========     at scale(float *, int)+0x70 in %1:3\n"
            "=========     by thread (32,0,0) in block (3,0,0)\n"
            "=========     Address 0x7f0000000200 is out of bounds\n"
            "=========     and is 0 bytes after the nearest allocation at 0x7f0000000000 of size 512 bytes\n")
            .arg(src);
    Selection sel;
    TroubleshootPanel p(&sel);
    const Classification c = p.classifyAndWalk(log);
    QCOMPARE(QString::fromStdString(c.category), QStringLiteral("oob_write"));
    QVERIFY(p.highlightedPath().contains(QStringLiteral("fault.oob_write")));
    QTreeWidgetItem* finding = p.pasteFindings()->topLevelItem(0)->child(0);
    QVERIFY(finding->text(1).contains(QStringLiteral("scale.cu:3")));
    p.pasteFindings()->setCurrentItem(finding);
    QVERIFY2(p.sourceText().contains(QStringLiteral(">     3 |   x[i] *= 2.0f;")),
             qPrintable(p.sourceText()));
    // A decisive-line row names no file: no source is shown.
    p.pasteFindings()->setCurrentItem(p.pasteFindings()->topLevelItem(1)->child(0));
    QVERIFY(p.sourceText().isEmpty());
  }

  void pastedLogBelowTheThresholdShowsTheNearestCandidates() {
    Selection sel;
    TroubleshootPanel p(&sel);
    const Classification c =
        p.classifyAndWalk(QStringLiteral("Traceback (most recent call last):\nValueError: bad BLOCK\n"));
    QVERIFY(!c.known());
    QVERIFY(p.classificationText().contains(QStringLiteral("Nearest: compile_error (compile.python.other")));
    QCOMPARE(p.pasteFindings()->topLevelItem(0)->child(0)->text(0), QStringLiteral("line 2"));
  }

  void dockedInTheMainWindow() {
    MainWindow w;
    QVERIFY(w.troubleshootPanel());
    QStringList names;
    for (const QString& f : MainWindow::samplePaths()) {
      QVERIFY2(QFileInfo::exists(f), qPrintable(f));
      names << QFileInfo(f).fileName();
    }
    QVERIFY2(names.contains(QStringLiteral("session.json")), qPrintable(names.join(QLatin1Char(' '))));
    QVERIFY(names.contains(QStringLiteral("gemm_sweep.json")));
    QVERIFY2(w.openFile(kSession), qPrintable(w.lastError()));
    const Report r = loadReport(kSession.toStdString());
    QCOMPARE(w.troubleshootPanel()->highlightedPath(), ids(r.treePath));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("troubleshootDock"));
    QVERIFY(dock);
    QCOMPARE(dock->widget(), static_cast<QWidget*>(w.troubleshootPanel()));
    bool samples = false;
    for (QAction* a : w.menuBar()->actions())
      if (a->menu())
        for (QAction* b : a->menu()->actions())
          samples = samples || (b->menu() && b->text().contains(QStringLiteral("Samples")));
    QVERIFY(samples);
  }
};

QTEST_MAIN(TstTroubleshoot)
#include "tst_troubleshoot.moc"
