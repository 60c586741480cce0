// The comparison view (File ▸ Compare with…) offscreen on two bundled samples:
// the tabs and rows come from core's comparison, the figures in the cells are
// the ones core formats, and the export writes the same document.
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "mainwindow.h"
#include "panels/comparedialog.h"
#include "selection.h"
#include "tilescope/base/resources.h"
#include "tilescope/export/report_diff.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {

QString sample(const char* name) {
  return QString::fromStdString((resourceDir() / "sample" / name).string());
}

/// The row of `table` whose first cell is `label`, or -1.
int rowOf(const QTableWidget* table, const QString& label) {
  for (int r = 0; r < table->rowCount(); ++r)
    if (table->item(r, 0) && table->item(r, 0)->text() == label) return r;
  return -1;
}

}  // namespace

class TstCompare : public QObject {
  Q_OBJECT
 private slots:
  void comparesTheOpenReportWithAnother() {
    MainWindow w;
    QVERIFY2(w.openFile(sample("gemm_bug_no_mask.json")), qPrintable(w.lastError()));
    QVERIFY2(w.compareWith(sample("traced.json")), qPrintable(w.lastError()));
    CompareDialog* d = w.compareDialog();
    QVERIFY(d && d->isVisible());
    QCOMPARE(d->tabs()->count(), static_cast<int>(d->document().sections.size()));

    // Timing: the median row shows A's and B's values and the delta as core formats them.
    const QList<QTableWidget*> timing = d->tables(QStringLiteral("timing"));
    QVERIFY(!timing.isEmpty());
    const int r = rowOf(timing[0], QStringLiteral("kernel median"));
    QVERIFY(r >= 0);
    const DiffValue* median = nullptr;
    for (const DiffValue& v : d->diff().timing.values)
      if (v.key == "kernel_ns.median") median = &v;
    QVERIFY(median && median->both());
    QCOMPARE(timing[0]->item(r, 1)->text(), QString::fromStdString(formatDiffValue(*median, median->a)));
    QCOMPARE(timing[0]->item(r, 3)->text(), QString::fromStdString(formatDiffDelta(*median)));

    // Findings: one row per matched pair, the tracer's reads among those that appeared.
    const QList<QTableWidget*> findings = d->tables(QStringLiteral("findings"));
    QVERIFY(!findings.isEmpty());
    QCOMPARE(findings[0]->rowCount(), static_cast<int>(d->diff().findings.size()));
    bool appearedRead = false;
    for (int i = 0; i < findings[0]->rowCount(); ++i)
      appearedRead |= findings[0]->item(i, 0)->text() == QStringLiteral("appeared") &&
                      findings[0]->item(i, 1)->text() == QStringLiteral("oob_read");
    QVERIFY(appearedRead);

    // Correctness: a table per output, its mismatch row.
    const QList<QTableWidget*> correctness = d->tables(QStringLiteral("correctness"));
    QCOMPARE(correctness.size(), static_cast<int>(d->diff().correctness.size()));
    QVERIFY(rowOf(correctness[0], QStringLiteral("mismatched elements")) >= 0);

    // Export: the same document, to each format.
    QTemporaryDir dir;
    for (const char* name : {"c.html", "c.md", "c.pdf"}) {
      QString error;
      const QString path = dir.filePath(QString::fromLatin1(name));
      QVERIFY2(d->exportTo(path, &error), qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 0);
    }
    QFile html(dir.filePath(QStringLiteral("c.html")));
    QVERIFY(html.open(QIODevice::ReadOnly));
    QVERIFY(html.readAll().contains("kernel median"));
  }

  void twoPointsOfOneSweep() {
    MainWindow w;
    QVERIFY2(w.openFile(sample("gemm_sweep.json")), qPrintable(w.lastError()));
    w.selection()->setPoint(0);
    QVERIFY2(w.compareWith(sample("gemm_sweep.json"), 3), qPrintable(w.lastError()));
    const ReportDiff& diff = w.compareDialog()->diff();
    QCOMPARE(diff.a.point, 0);
    QCOMPARE(diff.b.point, 3);
    const QList<QTableWidget*> summary = w.compareDialog()->tables(QStringLiteral("summary"));
    QVERIFY(!summary.isEmpty());
    const int r = rowOf(summary[0], QStringLiteral("point"));
    QVERIFY(r >= 0);
    QVERIFY(summary[0]->item(r, 2)->text().contains(QString::fromStdString(diff.b.label)));
  }

  void aBadFileIsNamed() {
    MainWindow w;
    QVERIFY(!w.compareWith(sample("traced.json")));  // no report open
    QVERIFY(w.openFile(sample("traced.json")));
    QVERIFY(!w.compareWith(QStringLiteral("/nonexistent/b.json")));
    QVERIFY(w.lastError().contains(QStringLiteral("b.json")));
    QVERIFY(!w.compareWith(sample("gemm_sweep.json"), 99));
    QVERIFY(w.lastError().contains(QStringLiteral("out of range")));
  }
};

QTEST_MAIN(TstCompare)
#include "tst_compare.moc"
