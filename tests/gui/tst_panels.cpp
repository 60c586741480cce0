// Run panel and stream parser against a replayed tilescope-run stream (the
// fixture sweep, emitted exactly as `tilescope-run sweep --stream` does), the
// compile-log parser, and finding → tile resolution.
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "controllers/runstream.h"
#include "models/resultmatrixmodel.h"
#include "panels/findingspanel.h"
#include "panels/logpanel.h"
#include "panels/runpanel.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");

/// The stream a sweep of `r` prints: progress and point events with the total, then the report.
QByteArray streamOf(const Report& r) {
  QByteArray out;
  const auto total = r.points.size();
  auto line = [&](nlohmann::json j) {
    j["schema"] = "tilescope.stream/1";
    j["total"] = total;
    out += QByteArray::fromStdString(j.dump()) + '\n';
  };
  for (const Point& p : r.points) {
    line({{"event", "progress"}, {"point_index", p.index}, {"trial", p.trial}, {"message", "compiling"}});
    line({{"event", "point"}, {"point", toJson(p)}});
  }
  line({{"event", "report"}, {"report", toJson(r)}});
  return out;
}

/// The stream `diagnose --stream` prints for `r` (points with `experiment` set):
/// a diagnose progress event per capture, the worker's point event tagged with
/// its experiment (the worker's point itself does not know it), the report.
QByteArray diagnoseStreamOf(const Report& r) {
  QByteArray out;
  auto line = [&](nlohmann::json j) {
    j["schema"] = "tilescope.stream/1";
    out += QByteArray::fromStdString(j.dump()) + '\n';
  };
  int capture = 0;
  for (const Point& p : r.points) {
    line({{"event", "progress"},
          {"stage", "diagnose"},
          {"experiment", p.experiment},
          {"capture", ++capture},
          {"max_captures", 16},
          {"message", "experiment " + p.experiment}});
    line({{"event", "progress"}, {"experiment", p.experiment}, {"message", "compiling"}, {"t", 0.1}});
    nlohmann::json point = toJson(p);
    point.erase("experiment");
    line({{"event", "point"}, {"experiment", p.experiment}, {"point", point}});
  }
  line({{"event", "report"}, {"report", toJson(r)}});
  return out;
}
}  // namespace

class TstPanels : public QObject {
  Q_OBJECT
 private:
  Report m_report;
  QTemporaryDir m_bin;
  QByteArray m_oldPath;

  void writeWorker(const QString& body) {
    QFile f(m_bin.filePath(QStringLiteral("tilescope-run")));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("#!/bin/sh\n" + body.toUtf8() + "\n");
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
  }

 private slots:
  void initTestCase() {
    m_report = loadReport(TILESCOPE_TEST_DATA "/reports/gemm_sweep.json");
    QVERIFY(m_bin.isValid());
    m_oldPath = qgetenv("PATH");
    qputenv("PATH", m_bin.path().toUtf8() + ':' + m_oldPath);
  }
  void cleanupTestCase() { qputenv("PATH", m_oldPath); }

  void streamInChunks() {
    RunStream s;
    QSignalSpy points(&s, &RunStream::pointAvailable);
    QSignalSpy progress(&s, &RunStream::progressAvailable);
    QSignalSpy reports(&s, &RunStream::reportAvailable);
    QSignalSpy text(&s, &RunStream::textAvailable);
    const QByteArray all = "plain text from a wrapper\n" + streamOf(m_report);
    // Chunks of 97 bytes split lines anywhere: nothing may be lost or parsed twice.
    for (int i = 0; i < all.size(); i += 97) s.feed(all.mid(i, 97));
    s.finish();
    QCOMPARE(points.count(), static_cast<int>(m_report.points.size()));
    QCOMPARE(reports.count(), 1);
    QCOMPARE(text.count(), 1);
    const auto r = reports.front().front().value<std::shared_ptr<const Report>>();
    QCOMPARE(r->verdict, m_report.verdict);
    QCOMPARE(r->points.size(), m_report.points.size());
    // The last progress is the 4th point of 4.
    QCOMPARE(progress.back().at(0).toInt(), 4);
    QCOMPARE(progress.back().at(1).toInt(), 4);
  }

  void badEventIsNamed() {
    RunStream s;
    QSignalSpy failed(&s, &RunStream::streamFailed);
    s.feed("{\"schema\":\"tilescope.stream/1\",\"event\":\"point\",\"point\":{\"verdict\":\"sideways\"}}\n");
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("'point'")));
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("sideways")));
  }

  void runPanelReplaysASweep() {
    QTemporaryDir dir;
    QFile stream(dir.filePath(QStringLiteral("stream.jsonl")));
    QVERIFY(stream.open(QIODevice::WriteOnly));
    stream.write(streamOf(m_report));
    stream.close();
    writeWorker(QStringLiteral("echo \"$@\" > '%1'\ncat '%2'\necho 'stderr line' >&2\nexit 1")
                    .arg(dir.filePath(QStringLiteral("args")), stream.fileName()));
    Selection sel;
    RunPanel panel(&sel);
    panel.setConfigPath(kConfig);
    QSignalSpy reports(&panel, &RunPanel::reportAvailable);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    panel.startSweep();
    QVERIFY(panel.isRunning());
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.front().front().toInt(), 1);
    QCOMPARE(reports.count(), 1);
    // The matrix filled from the streamed points, coloured cell by cell.
    QCOMPARE(panel.matrixModel()->rowCount(), 4);
    QCOMPARE(panel.matrixModel()->indexForPoint(3).data(ResultMatrixModel::VerdictRole).toInt(),
             static_cast<int>(Verdict::compile_error));
    QFile args(dir.filePath(QStringLiteral("args")));
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll()).trimmed(), QStringLiteral("sweep %1 --stream").arg(kConfig));
    // Selecting a cell selects the point.
    panel.matrixView()->setCurrentIndex(panel.matrixModel()->indexForPoint(2));
    QCOMPARE(sel.state().point, 2);
  }

  void runPanelShowsADiagnoseByExperiment() {
    // Four captures of point 0, as diagnose makes them.
    Report d = m_report;
    d.verb = "diagnose";
    const std::vector<std::string> names{"baseline", "trial 2/2", "poison variant 1", "shape M=65 N=65 K=33"};
    for (size_t i = 0; i < d.points.size() && i < names.size(); ++i) {
      d.points[i].experiment = names[i];
      d.points[i].index = 0;
      d.points[i].trial = 0;
    }
    QTemporaryDir dir;
    QFile stream(dir.filePath(QStringLiteral("stream.jsonl")));
    QVERIFY(stream.open(QIODevice::WriteOnly));
    stream.write(diagnoseStreamOf(d));
    stream.close();
    writeWorker(QStringLiteral("echo \"$@\" > '%1'\ncat '%2'\nexit 1")
                    .arg(dir.filePath(QStringLiteral("args")), stream.fileName()));
    Selection sel;
    RunPanel panel(&sel);
    panel.setConfigPath(kConfig);
    QSignalSpy progress(panel.stream(), &RunStream::progressAvailable);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    panel.startDiagnose();
    QVERIFY(finished.wait(10000));
    QFile args(dir.filePath(QStringLiteral("args")));
    QVERIFY(args.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(args.readAll()).trimmed(),
             QStringLiteral("diagnose %1 --stream").arg(kConfig));
    // One row per experiment, named after it; no capture overwrote another.
    QCOMPARE(panel.matrixModel()->rowCount(), static_cast<int>(d.points.size()));
    for (size_t i = 0; i < d.points.size(); ++i) {
      const QModelIndex idx = panel.matrixModel()->indexForPoint(static_cast<int>(i));
      QVERIFY(idx.isValid());
      QCOMPARE(idx.data(ResultMatrixModel::VerdictRole).toInt(), static_cast<int>(d.points[i].verdict));
      QVERIFY(panel.matrixModel()
                  ->headerData(idx.row(), Qt::Vertical)
                  .toString()
                  .startsWith(QString::fromStdString(names[i])));
    }
    // Progress counts captures against diagnose's limit, the workers' own messages too.
    QCOMPARE(progress.size(), 2 * static_cast<int>(d.points.size()));
    for (const auto& p : progress) QCOMPARE(p.at(1).toInt(), 16);
    // Captures done when the last one started.
    QCOMPARE(progress.back().at(0).toInt(), static_cast<int>(d.points.size()) - 1);
  }

  void cancelKillsTheWorker() {
    writeWorker(QStringLiteral("exec sleep 30"));
    Selection sel;
    RunPanel panel(&sel);
    panel.setConfigPath(kConfig);
    QSignalSpy finished(&panel, &RunPanel::runFinished);
    panel.startRun();
    QTRY_VERIFY(panel.isRunning());
    QTest::qWait(100);
    panel.cancel();
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.front().front().toInt(), -1);
    QVERIFY(!panel.isRunning());
  }

  void missingWorkerIsAnError() {
    QFile::remove(m_bin.filePath(QStringLiteral("tilescope-run")));
    qputenv("PATH", m_bin.path().toUtf8());
    Selection sel;
    RunPanel panel(&sel);
    panel.setConfigPath(kConfig);
    QSignalSpy failed(&panel, &RunPanel::runFailed);
    panel.startRun();
    QTRY_COMPARE(failed.count(), 1);
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("could not start tilescope-run")));
    qputenv("PATH", m_bin.path().toUtf8() + ':' + m_oldPath);
  }

  void compileLogParser() {
    const QList<LogDiagnostic> d = parseCompileLog(
        QStringLiteral("gemm.cu(42): error: identifier \"x\" is undefined\n"
                       "kernel.cu:17:5: warning: unused variable 'lane'\n"
                       "2 errors detected\n"
                       "gemm.cu(9): warning #177-D: variable \"y\" was declared but never referenced\n"));
    QCOMPARE(d.size(), 3);
    QCOMPARE(d[0].file, QStringLiteral("gemm.cu"));
    QCOMPARE(d[0].line, 42);
    QCOMPARE(d[0].severity, QStringLiteral("error"));
    QCOMPARE(d[1].file, QStringLiteral("kernel.cu"));
    QCOMPARE(d[1].line, 17);
    QCOMPARE(d[1].severity, QStringLiteral("warning"));
    QCOMPARE(d[2].line, 9);
    QVERIFY(d[2].message.contains(QStringLiteral("never referenced")));
  }

  void findingTileFromElements() {
    const Point& p = m_report.points[2];  // tiles 128×32
    Finding f;
    f.tensor = "C";
    f.location.elements = ElementRange{{130, 250}, {140, 255}, {}, {}, {}};
    int r = -1, c = -1;
    QVERIFY(findingTile(p, f, &r, &c));
    QCOMPARE(r, 1);
    QCOMPARE(c, 7);
    f.location = Location{};
    QVERIFY(!findingTile(p, f, &r, &c));
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TstPanels)
#include "tst_panels.moc"
