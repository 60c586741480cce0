// The Triage view over a fixture triage (tests/data/triage/triage_fixture.json):
// the model (QAbstractItemModelTester), the filter and sort, the taxonomy chart's
// bars and their counts, a row opening its entry's report, and the export.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "charts/chartplot.h"
#include "charts/triagecharts.h"
#include "export/triageexporter.h"
#include "mainwindow.h"
#include "models/findingsmodel.h"
#include "models/triagefilter.h"
#include "models/triagemodel.h"
#include "panels/findingspanel.h"
#include "panels/triagepanel.h"
#include "tilescope/diagnose/tree.h"
#include "tilescope/triage/triage.h"
#include "tilescope/triage/triage_run.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kFixture = QStringLiteral(TILESCOPE_TEST_DATA "/triage/triage_fixture.json");
}

class TstTriage : public QObject {
  Q_OBJECT
 private:
  TriagePtr m_triage;

 private slots:
  void initTestCase() {
    m_triage = std::make_shared<const TriageReport>(loadTriage(kFixture.toStdString()));
    QCOMPARE(m_triage->entries.size(), std::size_t(8));
  }

  void modelRowsAndRoles() {
    TriageModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTriage(m_triage, kFixture);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.columnCount(), int(TriageModel::ColumnCount));
    QCOMPARE(model.index(0, TriageModel::EntryColumn).data().toString(), QStringLiteral("1_relu"));
    QCOMPARE(model.index(3, TriageModel::CategoryColumn).data().toString(), QStringLiteral("compile_error"));
    QCOMPARE(model.index(3, TriageModel::DetailColumn).data().toString(),
             QStringLiteral("triton_arange_constexpr"));
    QCOMPARE(model.index(3, TriageModel::LineColumn).data().toString(), QStringLiteral("4_rowsum_new.py:12"));
    QCOMPARE(model.index(0, TriageModel::SpeedupColumn).data(TriageModel::SortRole).toDouble(), 1.8);
    QCOMPARE(model.index(7, TriageModel::VerdictColumn).data().toString(), QStringLiteral("not_run"));
    QVERIFY(model.index(3, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Fix:")));
    const QString report = model.index(5, 0).data(TriageModel::ReportPathRole).toString();
    QVERIFY2(report.endsWith(QStringLiteral("reports/gemm_sweep.json")), qPrintable(report));
    QVERIFY(model.index(0, 0).data(TriageModel::ReportPathRole).toString().isEmpty());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void filterAndSort() {
    TriageModel model;
    model.setTriage(m_triage, kFixture);
    TriageFilter filter;
    QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    filter.setSourceModel(&model);
    QCOMPARE(filter.rowCount(), 8);
    filter.setText(QStringLiteral("ARANGE"));  // any column, any case
    QCOMPARE(filter.rowCount(), 2);
    filter.setText({});
    filter.setCategory(QStringLiteral("ok"));
    QCOMPARE(filter.rowCount(), 3);
    filter.setText(QStringLiteral("gelu"));
    QCOMPARE(filter.rowCount(), 1);
    filter.setText({});
    filter.setCategory({});
    // Speedups sort as numbers: 0.7 < 1.8 < 2.6, entries without one first.
    filter.sort(TriageModel::SpeedupColumn, Qt::DescendingOrder);
    QCOMPARE(filter.index(0, TriageModel::EntryColumn).data().toString(), QStringLiteral("3_softmax"));
    QCOMPARE(filter.index(2, TriageModel::EntryColumn).data().toString(), QStringLiteral("2_gelu"));
  }

  void chartCountsAreTheTaxonomys() {
    ChartPlot plot;
    const QVector<TaxonomyBar> bars = plotTaxonomy(&plot, *m_triage);
    QCOMPARE(bars.size(), 5);  // ok, compile_error, mismatch, not_run, oob_write
    QCOMPARE(plot.plottableCount(), 5);
    QMap<QString, int> counts;
    for (int i = 0; i < plot.plottableCount(); ++i) {
      auto* b = qobject_cast<QCPBars*>(plot.plottable(i));
      QVERIFY(b);
      QCOMPARE(b->data()->size(), 1);
      counts[b->name()] = int(b->data()->begin()->value);
    }
    QCOMPARE(counts.value(QStringLiteral("ok")), 3);
    QCOMPARE(counts.value(QStringLiteral("compile_error")), 2);
    QCOMPARE(counts.value(QStringLiteral("oob_write")), 1);
    QCOMPARE(counts.value(QStringLiteral("not_run")), 1);
    ChartPlot speed;
    QVERIFY(plotSpeedups(&speed, *m_triage));
    ChartPlot empty;
    QVERIFY(!plotSpeedups(&empty, TriageReport{}));
  }

  void openedInTheWorkbench() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY2(w.openFile(kFixture), qPrintable(w.lastError()));
    TriagePanel* panel = w.triagePanel();
    QVERIFY(panel->triage());
    QCOMPARE(panel->table()->model()->rowCount(), 8);
    QVERIFY(!w.findChild<QDockWidget*>(QStringLiteral("triageDock"))->isHidden());
    QCOMPARE(panel->bars().size(), 5);
    QCOMPARE(panel->taxonomyPlot()->plottableCount(), 5);
    QVERIFY(panel->summaryText().contains(QStringLiteral("3 correct")));
    // The category box lists every bar; choosing one (as a bar click does) filters the table.
    QCOMPARE(panel->categoryBox()->count(), 6);
    panel->setCategory(QStringLiteral("compile_error"));
    QCOMPARE(panel->table()->model()->rowCount(), 2);
    panel->filterEdit()->setText(QStringLiteral("layernorm"));
    QCOMPARE(panel->table()->model()->rowCount(), 1);
    panel->filterEdit()->clear();
    panel->setCategory({});
    // A row with a report opens it in the other views; the triage stays.
    QSignalSpy requested(panel, &TriagePanel::reportRequested);
    panel->setCategory(QStringLiteral("oob_write"));
    QCOMPARE(panel->table()->model()->rowCount(), 1);
    panel->openRow(0);
    QCOMPARE(requested.count(), 1);
    QVERIFY(w.report());
    QVERIFY(panel->triage());
    // A row without a report does nothing.
    panel->setCategory(QStringLiteral("ok"));
    panel->openRow(0);
    QCOMPARE(requested.count(), 1);
    QVERIFY(w.findChild<QAction*>(QStringLiteral("exportTriageAction"))->isEnabled());
  }

  void aProblemsReportOpensInTheOtherViews() {
    // What a problem entry's row opens: the report made from the runner's answer.
    const nlohmann::json runner = {
        {"schema", kRunnerSchema},
        {"cases", nlohmann::json::array({{{"label", "base seed 0"}, {"status", "ok"}}})},
        {"exception",
         {{"type", "CompilationError"},
          {"text",
           "triton.compiler.errors.CompilationError: at 3:8:\narange's arguments must be of type "
           "tl.constexpr\n"},
          {"file", "p/13_new.py"},
          {"line", 10}}}};
    TriageEntry e;
    e.name = "13_relu_arange_n";
    e.inputs = {"p/13.py", "p/13_new.py"};
    e.findings = runnerFindings(runner);
    const Tree tree = loadDefaultTree();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.json"));
    saveReport(problemReport(e, runner, &tree), path.toStdString());
    MainWindow w;
    QVERIFY2(w.openReport(path), qPrintable(w.lastError()));
    QCOMPARE(QString::fromStdString(w.report()->verb), QStringLiteral("triage"));
    QVERIFY(w.findingsPanel()->model()->rowCount() >= 1);
    QVERIFY(!w.report()->treePath.empty());
  }

  void aBrokenTriageSaysWhere() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "tilescope.triage/1", "entries": [{"id": "a", "verdict": "great"}]})");
    f.close();
    MainWindow w;
    QVERIFY(!w.openFile(path));
    QVERIFY2(w.lastError().contains(QStringLiteral("entries[0].verdict")), qPrintable(w.lastError()));
  }

  void exportsWithCharts() {
    QTemporaryDir dir;
    QString error;
    const QString html = dir.filePath(QStringLiteral("t.html"));
    QVERIFY2(exportTriage(*m_triage, html, &error), qPrintable(error));
    QFile f(html);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY(text.contains(QStringLiteral("Taxonomy")));
    QVERIFY(text.contains(QStringLiteral("data:image/png;base64,")));
    QVERIFY2(exportTriage(*m_triage, dir.filePath(QStringLiteral("t.pdf")), &error), qPrintable(error));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("t.pdf"))).size() > 1000);
    QVERIFY(!exportTriage(*m_triage, dir.filePath(QStringLiteral("t.doc")), &error));
    QCOMPARE(renderTriageFigures(*m_triage).size(), 2);
  }
};

QTEST_MAIN(TstTriage)
#include "tst_triage.moc"
