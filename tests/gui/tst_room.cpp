// Room for the evidence: the Source view opens at the line the verdict banner
// names, shows a whole line and greys the #if branches the config's defines leave
// out; the coverage legend stays clear of the map's out-of-bounds band at a first
// start; the Triage view has a main view's room; a dock's edge resizes it.
#include <QDockWidget>
#include <QFile>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QtTest>

#include "charts/chartplot.h"
#include "charts/qcp.h"
#include "charts/triagecharts.h"
#include "mainwindow.h"
#include "models/ifdefs.h"
#include "panels/coveragepanel.h"
#include "panels/sourcepanel.h"
#include "panels/triagepanel.h"
#include "widgets/banner.h"
#include "widgets/coveragewidget.h"
#include "widgets/legendwidget.h"
#include "widgets/sourceview.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kTraced = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/traced.json");
const QString kTriage = QStringLiteral(TILESCOPE_TEST_DATA "/triage/triage_fixture.json");
/// A left-button drag from `from` to `to` in `target`'s coordinates, in steps, as a hand does it.
void drag(QWidget* target, QPoint from, QPoint to) {
  const auto send = [&](QEvent::Type type, QPoint pos, Qt::MouseButtons buttons) {
    QMouseEvent e(type, QPointF(pos), QPointF(target->mapToGlobal(pos)), Qt::LeftButton, buttons, {});
    QApplication::sendEvent(target, &e);
  };
  send(QEvent::MouseButtonPress, from, Qt::LeftButton);
  for (int i = 1; i <= 10; ++i) {
    send(QEvent::MouseMove, from + (to - from) * i / 10, Qt::LeftButton);
    QTest::qWait(5);
  }
  send(QEvent::MouseButtonRelease, to, Qt::NoButton);
  QTest::qWait(50);
}
/// No two adjacent tick labels of `axis` (a bottom axis, its labels slanted or level)
/// cover each other: each label's box, turned as QCustomPlot turns it about its
/// tick (the text ending there when slanted), is tested against the next one's.
bool labelsApart(QCPAxis* axis) {
  const QMap<double, QString> ticks = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker())->ticks();
  const QFontMetricsF fm(axis->tickLabelFont());
  const double angle = axis->tickLabelRotation();
  QPolygonF previous;
  for (auto it = ticks.cbegin(); it != ticks.cend(); ++it) {
    const double w = fm.horizontalAdvance(it.value()), h = fm.height();
    const QRectF box = angle < 0 ? QRectF(-w, 0, w, h) : QRectF(-w / 2, 0, w, h);
    const QPolygonF label = QTransform().translate(axis->coordToPixel(it.key()), 0).rotate(angle).map(box);
    if (!previous.isEmpty() && previous.intersects(label)) return false;
    previous = label;
  }
  return ticks.size() > 1;
}
}  // namespace

class TstRoom : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_room"));
    QSettings().clear();
  }

  /// The Source view opens where the banner points: the headline cause's line, current and visible.
  void sourceOpensAtTheBannersLine() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(kTraced), qPrintable(w.lastError()));
    const auto [file, line] = SourcePanel::headlineLine(*w.report());
    QVERIFY(line > 0);
    // The banner names that line ("gemm_tiled.cu:183").
    QVERIFY2(MainWindow::verdictText(*w.report())
                 .contains(QStringLiteral("%1:%2").arg(QFileInfo(file).fileName()).arg(line)),
             qPrintable(MainWindow::verdictText(*w.report())));
    // It is not the first located finding of the point: opening that one is the old bug.
    const Point& p = w.report()->points[static_cast<size_t>(w.selection()->state().point)];
    int firstLocated = 0;
    for (const Finding& f : p.findings)
      if (f.location.line && !firstLocated) firstLocated = *f.location.line;
    QVERIFY(firstLocated > 0 && firstLocated != line);
    SourceView* view = w.sourcePanel()->view();
    QVERIFY(w.sourcePanel()->shownPath().endsWith(QFileInfo(file).fileName()));
    QCOMPARE(view->shownLine(), line);
    QCOMPARE(view->textCursor().blockNumber() + 1, line);
    // Raised, the line is on screen.
    w.findChild<QDockWidget*>(QStringLiteral("sourceDock"))->raise();
    QTRY_VERIFY(view->isVisible());
    const QRect r = view->cursorRect();
    QVERIFY2(view->viewport()->rect().contains(r), qPrintable(QStringLiteral("%1,%2 in %3x%4")
                                                                  .arg(r.x())
                                                                  .arg(r.y())
                                                                  .arg(view->viewport()->width())
                                                                  .arg(view->viewport()->height())));
  }

  /// At the default size the Source dock is the window's width: every line of the kernel whole.
  void sourceShowsWholeLines() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(kTraced), qPrintable(w.lastError()));
    w.findChild<QDockWidget*>(QStringLiteral("sourceDock"))->raise();
    SourceView* view = w.sourcePanel()->view();
    QTRY_VERIFY(view->isVisible());
    int widest = 0;
    for (QTextBlock b = view->document()->begin(); b.isValid(); b = b.next())
      widest = std::max(widest, view->fontMetrics().horizontalAdvance(b.text()));
    QVERIFY(widest > 0);
    QVERIFY2(widest <= view->viewport()->width(),
             qPrintable(QStringLiteral("%1 px of text in %2 px").arg(widest).arg(view->viewport()->width())));
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
  }

  void conditionsEvaluate() {
    const MacroTable m{{QStringLiteral("A"), QStringLiteral("1")},
                       {QStringLiteral("B"), QStringLiteral("64")},
                       {QStringLiteral("ALIAS"), QStringLiteral("B")},
                       {QStringLiteral("EMPTY"), QString()},
                       {QStringLiteral("HEX"), QStringLiteral("0x10u")}};
    QCOMPARE(evalCondition(QStringLiteral("defined(A)"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("defined A && !defined(C)"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("B >= 64 && B < 128"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("B * 2 + 1 == 129"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("(B >> 3) % 5"), m), 3);
    QCOMPARE(evalCondition(QStringLiteral("UNKNOWN"), m), 0);  // an unknown name is 0
    QCOMPARE(evalCondition(QStringLiteral("UNKNOWN == 0"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("ALIAS == HEX * 4"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("A ? B : 3"), m), 64);
    QCOMPARE(evalCondition(QStringLiteral("-1 < 0 && ~0 == -1"), m), 1);
    QCOMPARE(evalCondition(QStringLiteral("!defined(A) && 1 / 0"), m), 0);  // the side && skips
    // What the preprocessor would not take as a number: neither branch greys.
    QVERIFY(!evalCondition(QStringLiteral("EMPTY"), m));
    QVERIFY(!evalCondition(QStringLiteral("1 / 0"), m));
    QVERIFY(!evalCondition(QStringLiteral("(A"), m));
    QVERIFY(!evalCondition(QString(), m));
  }

  void inactiveBranchesAreFound() {
    const QString src = QStringLiteral(
        "#ifdef A\n"              // 1
        "a_on\n"                  // 2
        "#else\n"                 // 3
        "a_off\n"                 // 4
        "#endif\n"                // 5
        "#if B > 32\n"            // 6
        "big\n"                   // 7
        "#elif B > 8\n"           // 8
        "medium\n"                // 9
        "#else\n"                 // 10
        "small\n"                 // 11
        "#endif\n"                // 12
        "#ifndef C\n"             // 13
        "#define C 3\n"           // 14
        "#endif\n"                // 15
        "#if C == 3 && !NOPE\n"   // 16
        "#if 0\n"                 // 17
        "nested_off\n"            // 18
        "#else\n"                 // 19
        "nested_on\n"             // 20
        "#endif\n"                // 21
        "#else\n"                 // 22
        "#if 1\n"                 // 23
        "outer_off\n"             // 24
        "#endif\n"                // 25
        "#endif\n"                // 26
        "#if FN(1)\n"             // 27
        "unknown_a\n"             // 28
        "#else\n"                 // 29
        "unknown_b\n"             // 30
        "#endif\n"                // 31
        "#if 0 /* #else */ \\\n"  // 32
        "  || 0\n"                // 33
        "gone\n"                  // 34
        "#endif\n");              // 35
    const QSet<int> off = inactiveLines(
        src, {{QStringLiteral("A"), QStringLiteral("1")}, {QStringLiteral("B"), QStringLiteral("16")}});
    QCOMPARE(off, (QSet<int>{4, 7, 11, 18, 23, 24, 25, 34}));
    // Another value of the same defines greys the other branches.
    const QSet<int> other = inactiveLines(src, {{QStringLiteral("B"), QStringLiteral("64")}});
    QVERIFY(other.contains(2) && !other.contains(4));
    QVERIFY(!other.contains(7) && other.contains(9) && other.contains(11));
  }

  /// traced.json's kernel is compiled with BUG_NO_MASK=1: the masked IN_BOUNDS is greyed, the bug's kept.
  void sourceGreysTheBranchesTheDefinesLeaveOut() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(kTraced), qPrintable(w.lastError()));
    const Point& p = w.report()->points[static_cast<size_t>(w.selection()->state().point)];
    QVERIFY(p.defines.contains("BUG_NO_MASK"));
    QVERIFY(!p.defines.contains("BUG_INT32_INDEX"));
    SourceView* view = w.sourcePanel()->view();
    const auto lineOf = [&](const QString& text) {
      for (QTextBlock b = view->document()->begin(); b.isValid(); b = b.next())
        if (b.text().contains(text)) return b.blockNumber() + 1;
      return 0;
    };
    const int bug = lineOf(QStringLiteral("#define IN_BOUNDS(r, c, rows, cols) true"));
    const int masked = lineOf(QStringLiteral("#define IN_BOUNDS(r, c, rows, cols) ((r)"));
    const int int32 = lineOf(QStringLiteral("typedef int index_t"));
    const int store = SourcePanel::headlineLine(*w.report()).second;
    QVERIFY(bug > 0 && masked > 0 && int32 > 0);
    const QSet<int>& off = view->inactiveLines();
    QVERIFY(!off.contains(bug));
    QVERIFY(off.contains(masked));
    QVERIFY(off.contains(int32));
    QVERIFY(!off.contains(store));  // the line the banner names was compiled
    // Greyed on screen: the line's text is drawn in the inactive colour.
    bool grey = false;
    for (const QTextEdit::ExtraSelection& s : view->extraSelections())
      if (s.cursor.blockNumber() + 1 == masked && s.format.foreground().color() == view->inactiveColor())
        grey = true;
    QVERIFY(grey);
    QVERIFY(view->inactiveColor() != view->palette().color(QPalette::Text));
  }

  /// A first start (no saved layout: the window's own 1251 x 726) draws the legend
  /// below the map, clear of its out-of-bounds band.
  void legendClearOfTheOutOfBoundsBand() {
    MainWindow w;
    w.resize(1251, 726);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFile(kTraced), qPrintable(w.lastError()));
    QTest::qWait(100);
    QCOMPARE(w.size(), QSize(1251, 726));  // the window's minimum lets a first start keep its size
    CoverageWidget* cw = w.coveragePanel()->coverageWidget();
    auto* legend = w.coveragePanel()->findChild<LegendWidget*>();
    QVERIFY(legend && legend->isVisible());
    const CoverageGrid* g = cw->grid();
    QVERIFY(g && g->extentRows() > g->rows());  // the tiles reach past C's last row
    const QRectF band(cw->elementToWidget(QPointF(0, static_cast<double>(g->rows()))),
                      cw->elementToWidget(QPointF(static_cast<double>(g->extentCols()),
                                                  static_cast<double>(g->extentRows()))));
    const QRect bandInWindow(cw->mapTo(&w, band.topLeft().toPoint()),
                             cw->mapTo(&w, band.bottomRight().toPoint()));
    const QRect legendInWindow(legend->mapTo(&w, QPoint(0, 0)), legend->size());
    const QRect mapInWindow(cw->mapTo(&w, QPoint(0, 0)), cw->size());
    QVERIFY2(!legendInWindow.intersects(bandInWindow),
             qPrintable(QStringLiteral("legend y %1..%2, band y %3..%4")
                            .arg(legendInWindow.top())
                            .arg(legendInWindow.bottom())
                            .arg(bandInWindow.top())
                            .arg(bandInWindow.bottom())));
    QVERIFY(!legendInWindow.intersects(mapInWindow));
    QVERIFY(mapInWindow.contains(bandInWindow.center()));  // the band is on screen
    // Nothing else of the panel lies over the map either.
    for (QWidget* child : w.coveragePanel()->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
      if (child != cw && child->isVisible())
        QVERIFY2(!child->geometry().intersects(cw->geometry()), child->metaObject()->className());
  }

  /// A triage is a main view: in front, it has the window (the central column and the
  /// side docks give way) at a laptop's 1280 x 800 and a desktop's 1920 x 1080: a
  /// screenful of entries, its Time and Fix columns on screen, its chart labels apart,
  /// a click showing the entry whole.
  void triageHasAMainViewsRoom_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("rows");          // entries the table's viewport holds, at least
    QTest::addColumn<bool>("beforeShown");  // opened as `tilescope triage.json` does, before show()
    QTest::newRow("1280x800") << QSize(1280, 800) << 15 << false;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << 24 << true;
  }
  void triageHasAMainViewsRoom() {
    QFETCH(QSize, size);
    QFETCH(int, rows);
    QFETCH(bool, beforeShown);
    MainWindow w;
    w.resize(size);
    if (beforeShown) QVERIFY2(w.openFile(kTriage), qPrintable(w.lastError()));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    if (!beforeShown) QVERIFY2(w.openFile(kTriage), qPrintable(w.lastError()));
    TriagePanel* panel = w.triagePanel();
    QTRY_VERIFY(w.triageHasTheRoom());
    QTest::qWait(100);
    QCOMPARE(w.size(), size);
    QVERIFY(w.centralWidget()->isHidden());
    for (const char* name : {"runDock", "configDock", "pointsDock", "maskDock"})
      QVERIFY2(!w.findChild<QDockWidget*>(QString::fromLatin1(name))->isVisible(), name);
    // The window's width and all its height but the menus', tool bar's, tabs' and status bar's.
    QVERIFY2(panel->width() >= w.width() - 16 && panel->height() >= w.height() - 160,
             qPrintable(QStringLiteral("%1 x %2 in %3 x %4")
                            .arg(panel->width())
                            .arg(panel->height())
                            .arg(w.width())
                            .arg(w.height())));
    QTableView* table = panel->table();
    const int rowHeight = table->verticalHeader()->defaultSectionSize();
    QVERIFY2(table->viewport()->height() >= rows * rowHeight,
             qPrintable(
                 QStringLiteral("%1 px for rows of %2 px").arg(table->viewport()->height()).arg(rowHeight)));
    // Every entry of the fixture (8) whole on screen, no scrolling.
    const int n = table->model()->rowCount();
    QCOMPARE(n, 8);
    for (int r = 0; r < n; ++r)
      QVERIFY2(table->viewport()->rect().contains(table->visualRect(table->model()->index(r, 0))),
               qPrintable(QStringLiteral("row %1").arg(r)));
    QCOMPARE(table->verticalScrollBar()->maximum(), 0);
    // Time whole, Fix starting on screen with room for its text, no horizontal scrolling.
    const QHeaderView* header = table->horizontalHeader();
    const int time = header->sectionViewportPosition(TriageModel::TimeColumn);
    QVERIFY2(time >= 0 && time + header->sectionSize(TriageModel::TimeColumn) <= table->viewport()->width(),
             qPrintable(QStringLiteral("Time at %1 in %2 px").arg(time).arg(table->viewport()->width())));
    const int fix = header->sectionViewportPosition(TriageModel::FixColumn);
    const int fixRoom = table->viewport()->width() - fix;
    QVERIFY2(fix >= 0 && fixRoom >= table->fontMetrics().horizontalAdvance(QStringLiteral("x")) * 24,
             qPrintable(QStringLiteral("Fix at %1 in %2 px").arg(fix).arg(table->viewport()->width())));
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    // The taxonomy's category labels: a line of text each, at least, apart.
    ChartPlot* tax = panel->taxonomyPlot();
    const int bars = static_cast<int>(panel->bars().size());
    QVERIFY(bars > 1);
    QVERIFY2(tax->axisRect()->height() / bars >= QFontMetrics(tax->yAxis->tickLabelFont()).height(),
             qPrintable(QStringLiteral("%1 px for %2 labels").arg(tax->axisRect()->height()).arg(bars)));
    // The speedup ranges' slanted labels clear of each other.
    QVERIFY2(labelsApart(panel->speedupPlot()->xAxis), "speedup range labels overlap");
    // A single click selects the entry and shows it whole; it opens nothing.
    QVERIFY(panel->detailsText().isEmpty());
    QSignalSpy opened(panel, &TriagePanel::reportRequested);
    const QRect cell = table->visualRect(table->model()->index(1, 0));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(table->selectionModel()->currentIndex().row(), 1);
    const QString name = table->model()->index(1, TriageModel::EntryColumn).data().toString();
    const QString fixText = table->model()->index(1, TriageModel::FixColumn).data().toString();
    QVERIFY(!name.isEmpty());
    QVERIFY2(panel->detailsView()->toPlainText().contains(name),
             qPrintable(panel->detailsView()->toPlainText()));
    if (!fixText.isEmpty()) QVERIFY(panel->detailsView()->toPlainText().contains(fixText));
    QCOMPARE(opened.count(), 0);
    QVERIFY(panel->detailsView()->isVisible() && panel->detailsView()->height() >= 100);
  }

  /// The room is the Triage's while it is in front: another tab, an entry's report
  /// (Enter on a row), an error, or closing the dock brings the report views back.
  void triageGivesTheRoomBack() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* triage = w.findChild<QDockWidget*>(QStringLiteral("triageDock"));
    auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
    auto* run = w.findChild<QDockWidget*>(QStringLiteral("runDock"));
    auto* mask = w.findChild<QDockWidget*>(QStringLiteral("maskDock"));
    const auto reportViews = [&] {
      return !w.triageHasTheRoom() && w.centralWidget()->isVisible() && run->isVisible() &&
             mask->isVisible() && w.coveragePanel()->height() >= 200;
    };
    QVERIFY(reportViews());
    const int bottom = findings->height();
    QVERIFY2(w.openFile(kTriage), qPrintable(w.lastError()));
    QTRY_VERIFY(w.triageHasTheRoom());
    // Another tab in front: the report views are back, at their size.
    findings->raise();
    QTRY_VERIFY(reportViews());
    QTRY_VERIFY2(std::abs(findings->height() - bottom) <= 8,
                 qPrintable(QStringLiteral("%1 -> %2 px").arg(bottom).arg(findings->height())));
    QVERIFY(!triage->isHidden());
    // The Triage tab again: the room again.
    triage->raise();
    QTRY_VERIFY(w.triageHasTheRoom());
    // Enter on the out-of-bounds entry opens its report in the report views.
    TriagePanel* panel = w.triagePanel();
    panel->setCategory(QStringLiteral("oob_write"));
    QCOMPARE(panel->table()->model()->rowCount(), 1);
    panel->table()->setFocus();
    panel->table()->setCurrentIndex(panel->table()->model()->index(0, 0));
    QTest::keyClick(panel->table(), Qt::Key_Return);
    QTRY_VERIFY(reportViews());
    QVERIFY(w.report());
    QVERIFY(findings->isVisible());
    QVERIFY(panel->triage() && !triage->isHidden());  // the next entry is a tab away
    // A file that does not open says so in the message banner, which the room would hide.
    triage->raise();
    QTRY_VERIFY(w.triageHasTheRoom());
    QVERIFY(!w.openFile(QStringLiteral(TILESCOPE_TEST_DATA "/no/such/triage.json")));
    QTRY_VERIFY(reportViews());
    QVERIFY(w.messageBanner()->isVisible());
    // Closed, the dock gives the room back too.
    triage->raise();
    QTRY_VERIFY(w.triageHasTheRoom());
    triage->close();
    QTRY_VERIFY(reportViews());
    // Closing the window in the room saves the report views' layout, at their size.
    triage->show();
    triage->raise();
    QTRY_VERIFY(w.triageHasTheRoom());
    w.close();
    MainWindow again;
    again.resize(1280, 800);
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    auto* againFindings = again.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
    QTRY_VERIFY(againFindings->isVisible() &&
                again.findChild<QDockWidget*>(QStringLiteral("runDock"))->isVisible());
    QVERIFY(again.centralWidget()->isVisible());
    QVERIFY2(std::abs(againFindings->height() - bottom) <= 8,
             qPrintable(QStringLiteral("%1 -> %2 px").arg(bottom).arg(againFindings->height())));
    QSettings().clear();
  }

  /// Docks move by their title bar only and never float off; the edge between the
  /// main area and the bottom docks resizes them.
  void aDockEdgeResizes() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!(w.dockOptions() & QMainWindow::GroupedDragging));
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
      QVERIFY2(d->features() & QDockWidget::DockWidgetMovable, qPrintable(d->objectName()));
      QVERIFY2(!(d->features() & QDockWidget::DockWidgetFloatable), qPrintable(d->objectName()));
    }
    auto* findings = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
    QTRY_VERIFY(findings->isVisible());
    const int before = findings->height();
    const int x = w.centralWidget()->geometry().center().x();
    const int y = (w.centralWidget()->geometry().bottom() + findings->geometry().top()) / 2;
    drag(&w, QPoint(x, y), QPoint(x, y - 60));
    QVERIFY2(findings->height() > before + 30,
             qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(findings->height())));
    QVERIFY(!findings->isFloating());
    // A drag that starts on the title bar just below the edge moves the dock at most: it never floats.
    drag(findings, QPoint(findings->width() / 2, 2), QPoint(findings->width() / 2, -80));
    QTest::qWait(500);  // a dock dragged off comes back after its animation, or floats
    QVERIFY(!findings->isFloating());
  }
};

QTEST_MAIN(TstRoom)
#include "tst_room.moc"
