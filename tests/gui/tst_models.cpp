// Item models over a fixture report, each checked by QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QSignalSpy>
#include <QtTest>

#include "models/findingsmodel.h"
#include "models/pointsmodel.h"
#include "models/resultmatrixmodel.h"
#include "style/colors.h"
#include "tilescope/base/format.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

class TstModels : public QObject {
  Q_OBJECT
 private:
  Report m_report;

 private slots:
  void initTestCase() { m_report = loadReport(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json"); }

  void findingsModel() {
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const Point& p = m_report.points[1];
    model.setFindings(p.findings);
    QCOMPARE(model.rowCount(), static_cast<int>(p.findings.size()));
    QCOMPARE(model.columnCount(), static_cast<int>(FindingsModel::ColumnCount));
    for (int r = 0; r < model.rowCount(); ++r) {
      QCOMPARE(
          model.index(r, FindingsModel::CategoryColumn).data().toString().section(QLatin1Char(' '), 0, 0),
          QString::fromStdString(p.findings[static_cast<size_t>(r)].category));
      QVERIFY(
          !model.index(r, FindingsModel::SeverityColumn).data(Qt::DecorationRole).value<QIcon>().isNull());
    }
    // The mismatch finding carries a detail, shown next to its category, and a tile location.
    const QString cat = model.index(1, FindingsModel::CategoryColumn).data().toString();
    QCOMPARE(cat, QStringLiteral("mismatch (tail_tiles)"));
    QVERIFY(model.index(1, FindingsModel::LocationColumn)
                .data()
                .toString()
                .contains(QStringLiteral("tile [0,0]")));
    QVERIFY(
        model.index(0, FindingsModel::LocationColumn).data().toString().startsWith(QStringLiteral("C: ")));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void resultMatrixFromReport() {
    ResultMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(m_report);
    QCOMPARE(model.rowCount(), 4);     // 2×2 sweep points
    QCOMPARE(model.columnCount(), 1);  // one trial
    for (int i = 0; i < 4; ++i) {
      const QModelIndex idx = model.indexForPoint(i);
      QVERIFY(idx.isValid());
      QCOMPARE(idx.data(ResultMatrixModel::PointIndexRole).toInt(), i);
      QCOMPARE(idx.data(Qt::BackgroundRole).value<QColor>(),
               verdictColor(m_report.points[static_cast<size_t>(i)].verdict));
    }
    // Rows read as the swept values; the full assignment is the row's tooltip.
    QCOMPARE(model.headerData(3, Qt::Vertical).toString(), QStringLiteral("128, 64"));
    QCOMPARE(model.headerData(3, Qt::Vertical, Qt::ToolTipRole).toString(),
             QStringLiteral("BLOCK_M=128 BLOCK_N=64"));
    QVERIFY(model.index(3, 0).data().toString().startsWith(QStringLiteral("compile_error")));
  }

  void resultMatrixOfADiagnoseHasARowPerExperiment() {
    // The bundled sample session is a diagnose report recorded on a GPU.
    const Report diag = loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/session.json");
    QVERIFY(diag.points.size() > 2);
    ResultMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(diag);
    QCOMPARE(model.rowCount(), static_cast<int>(diag.points.size()));
    QCOMPARE(model.columnCount(), 1);
    for (int i = 0; i < model.rowCount(); ++i) {
      QCOMPARE(model.indexForPoint(i).row(), i);
      QVERIFY(model.headerData(i, Qt::Vertical)
                  .toString()
                  .startsWith(QString::fromStdString(diag.points[static_cast<size_t>(i)].experiment)));
    }
  }

  void resultMatrixStreams() {
    // Points arrive one by one, possibly beyond the announced size: the matrix grows.
    ResultMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.reset(2, 1);
    QCOMPARE(model.index(0, 0).data(ResultMatrixModel::PointIndexRole).toInt(), -1);
    Point p = m_report.points[2];
    p.trial = 2;
    model.setPoint(p, 0);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.index(2, 2).data(ResultMatrixModel::VerdictRole).toInt(),
             static_cast<int>(Verdict::incorrect));
    QVERIFY(!model.index(0, 0).data(ResultMatrixModel::VerdictRole).isValid());
  }

  void resultMatrixStarsTheFastestCorrectPoint() {
    // A 1-D sweep matrix named no best point.
    const auto timed = [](int index, Verdict v, double ns) {
      Point p;
      p.index = index;
      p.label = "BLOCK=" + std::to_string(16 << index);
      p.defines = {{"BLOCK", 16 << index}};
      p.verdict = v;
      p.timing.measured = true;
      p.timing.kernelNs.median = ns;
      return p;
    };
    Report r;
    r.points = {timed(0, Verdict::ok, 200e3), timed(1, Verdict::incorrect, 100e3),
                timed(2, Verdict::slow, 150e3)};
    ResultMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(r);
    // The wrong point is faster, but only a correct one can be the best.
    QCOMPARE(model.bestPointIndex(), 2);
    const auto starred = [&model](int row) {
      return model.headerData(row, Qt::Vertical, Qt::DecorationRole).isValid();
    };
    QVERIFY(starred(2) && !starred(0) && !starred(1));
    QVERIFY(model.headerData(2, Qt::Vertical, Qt::FontRole).value<QFont>().bold());
    QCOMPARE(model.headerData(2, Qt::Vertical).toString(), QStringLiteral("64"));  // the name is unchanged
    QVERIFY(
        model.headerData(2, Qt::Vertical, Qt::ToolTipRole).toString().contains(QStringLiteral("fastest")));
    // A faster correct point streams in: the star moves, both rows are announced.
    QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
    model.setPoint(timed(0, Verdict::ok, 90e3), 0);
    QCOMPARE(model.bestPointIndex(), 0);
    QVERIFY(starred(0) && !starred(2));
    bool row2 = false;
    for (const auto& args : headers) row2 = row2 || (args.at(1).toInt() <= 2 && args.at(2).toInt() >= 2);
    QVERIFY(row2);
    // The best cell turns wrong: the next fastest correct point takes the star.
    model.setPoint(timed(0, Verdict::incorrect, 90e3), 0);
    QCOMPARE(model.bestPointIndex(), 2);
  }

  void resultMatrixIsSizedByThePointsItHolds() {
    // A 13.7 KB report claiming point 5,000,000 (or trial 100,000,000) made a
    // matrix of that many rows (columns): minutes and gigabytes. One row, one column.
    Report r;
    Point p = m_report.points[0];
    p.index = 5000000;
    r.points.push_back(p);
    p.index = 2000000000;
    p.trial = 100000000;
    r.points.push_back(p);
    r.finalize();
    ResultMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QElapsedTimer t;
    t.start();
    model.setReport(r);
    QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), 2);
    QCOMPARE(model.indexForPoint(0), model.index(0, 0));
    QCOMPARE(model.indexForPoint(1), model.index(1, 1));
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("trial 100000000"));
    QVERIFY(!model.index(0, 1).data(ResultMatrixModel::VerdictRole).isValid());  // no such trial of 5e6
    // Streamed too: a far index gets a row of its own, not the rows up to it.
    model.reset(2, 1);
    Point far = m_report.points[1];
    far.index = 5000000;
    model.setPoint(far, 0);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.indexForPoint(0).row(), 2);
  }

  void resultMatrixOpensManyPointsInOneReset() {
    // Every point re-measured every row header (quadratic). One reset, no per-point signals.
    Report r;
    for (int i = 0; i < 20000; ++i) {
      Point p;
      p.index = i;
      p.label = "P=" + std::to_string(i);
      p.defines["P"] = i;
      r.points.push_back(std::move(p));
    }
    ResultMatrixModel model;
    QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.setReport(r);
    QCOMPARE(resets.size(), 1);
    QCOMPARE(headers.size(), 0);
    QCOMPARE(model.rowCount(), 20000);
    QCOMPARE(model.headerData(19999, Qt::Vertical).toString(), QStringLiteral("19999"));
    QCOMPARE(model.indexForPoint(12345).row(), 12345);
  }

  void pointsModel() {
    PointsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto report = std::make_shared<const Report>(m_report);
    model.setReport(report);
    QCOMPARE(model.rowCount(), static_cast<int>(m_report.points.size()));
    for (int r = 0; r < model.rowCount(); ++r) {
      const Point& p = m_report.points[static_cast<size_t>(r)];
      QCOMPARE(model.index(r, PointsModel::VerdictColumn).data().toString(),
               QString::fromLatin1(verdictName(p.verdict)));
      QCOMPARE(model.index(r, PointsModel::FindingsColumn).data().toInt(),
               static_cast<int>(p.findings.size()));
      QCOMPARE(model.index(r, PointsModel::SpeedupColumn).data(PointsModel::SortRole).toDouble(),
               p.speedup.value_or(0.0));
    }
    // Point 0 ran in 41 µs: the time column says so in microseconds, as core formats it everywhere.
    QCOMPARE(model.index(0, PointsModel::TimeColumn).data().toString(), QStringLiteral("41 \u00b5s"));
    QCOMPARE(model.index(0, PointsModel::TimeColumn).data().toString(),
             QString::fromStdString(tilescope::formatDuration(m_report.points[0].timing.kernelNs.median)));
    QCOMPARE(model.index(3, PointsModel::TimeColumn).data().toString(), QStringLiteral("-"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void pointsModelGroupsAndTintsByGpu() {
    // Four captures over two GPUs of one host, the first without a GPU record (no worker reached one).
    Report r = m_report;
    r.points.resize(4);
    for (int i = 1; i < 4; ++i) {
      GpuRecord& g = r.points[static_cast<size_t>(i)].gpu;
      g.ordinal = i % 2;
      g.name = "NVIDIA H200";
      g.uuid = i % 2 ? "GPU-bbbb" : "GPU-aaaa";
      g.host = "node1";
      g.smClockMHz = 1980;
      g.smMaxClockMHz = 1980;
    }
    PointsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(std::make_shared<const Report>(r));
    auto cell = [&](int row, int role) { return model.index(row, PointsModel::GpuColumn).data(role); };
    QCOMPARE(model.headerData(PointsModel::GpuColumn, Qt::Horizontal).toString(), QStringLiteral("GPU"));
    QCOMPARE(cell(0, Qt::DisplayRole).toString(), QStringLiteral("-"));
    QCOMPARE(cell(1, Qt::DisplayRole).toString(), QStringLiteral("GPU 1"));
    QCOMPARE(cell(2, Qt::DisplayRole).toString(), QStringLiteral("GPU 0"));
    // Sorting groups by GPU (ordinal order); each GPU has its own tint.
    QCOMPARE(cell(2, PointsModel::SortRole).toInt(), 0);
    QCOMPARE(cell(1, PointsModel::SortRole).toInt(), 1);
    QCOMPARE(cell(3, PointsModel::SortRole).toInt(), 1);
    QVERIFY(cell(1, Qt::BackgroundRole).value<QColor>() != cell(2, Qt::BackgroundRole).value<QColor>());
    QCOMPARE(cell(1, Qt::BackgroundRole).value<QColor>(), cell(3, Qt::BackgroundRole).value<QColor>());
    QVERIFY(!cell(0, Qt::BackgroundRole).isValid());
    QVERIFY(cell(1, Qt::ToolTipRole).toString().contains(QStringLiteral("GPU-bbbb")));
    // One GPU only: nothing to tell apart, no tint.
    for (auto& p : r.points) p.gpu = r.points[1].gpu;
    model.setReport(std::make_shared<const Report>(r));
    QVERIFY(!cell(1, Qt::BackgroundRole).isValid());
    // Several hosts: the host names the GPU.
    r.points[2].gpu.host = "node2";
    model.setReport(std::make_shared<const Report>(r));
    QCOMPARE(cell(2, Qt::DisplayRole).toString(), QStringLiteral("node2:1"));
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TstModels)
#include "tst_models.moc"
