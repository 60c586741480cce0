// The troubleshooting panel on the recorded sample session (a diagnose report with a
// tree path), on a hand-built point that leaves a question open, and on a pasted
// CUDA error; and its dock in the main window.
#include <QDockWidget>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QTreeWidget>
#include <QtTest>

#include "mainwindow.h"
#include "panels/troubleshootpanel.h"
#include "tilescope/classify.h"
#include "tilescope/tree.h"
#include "widgets/treeoutline.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kSession = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/session.json");

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
    QCOMPARE(p.treeView()->topLevelItem(0)->data(0, kNodeIdRole).toString(), QString::fromStdString(m_tree.root));
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
    QVERIFY2(p.detailsText().contains(QString::fromStdString(expect.steps.front().evidence.dump(2)).left(200)), qPrintable(p.detailsText()));
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
    QVERIFY2(!before.complete && !before.openAnswers.empty(), "the hand-built point should leave a question open");
    QCOMPARE(p.highlightedPath(), ids(before.path));
    QCOMPARE(p.highlightedPath().back(), QString::fromStdString(before.stoppedAt));
    QVERIFY(p.fixText().isEmpty());
    const QList<QPushButton*> buttons = p.answerButtons();
    QCOMPARE(buttons.size(), static_cast<int>(before.openAnswers.size()));
    QCOMPARE(buttons.front()->text(), QString::fromStdString(before.openAnswers.front().label));
    QTest::mouseClick(buttons.front(), Qt::LeftButton);
    const TreeWalk& after = p.walk();
    QVERIFY(after.path.size() > before.path.size());
    QCOMPARE(QString::fromStdString(after.path[before.path.size()]), QString::fromStdString(before.openAnswers.front().next));
    const WalkStep& answered = after.steps[before.path.size() - 1];
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
        for (QAction* b : a->menu()->actions()) samples = samples || (b->menu() && b->text().contains(QStringLiteral("Samples")));
    QVERIFY(samples);
  }
};

QTEST_MAIN(TstTroubleshoot)
#include "tst_troubleshoot.moc"
