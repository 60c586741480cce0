// File ▸ Compare toolchains… (docs/toolchains.md): the dialog runs the real
// `tilescope-run compare CONFIG --toolchain A --toolchain B` in the background
// (no GPU needed) on a bundled CUDA C++ kernel under NVRTC and nvcc -G: both
// sides listed, -G's registers differ, the stage table marks what differs and
// the summary names the first stage; the export carries both tables. A spec
// tilescope-run refuses ends with its message, and an incomplete form starts nothing.
// A Triton config is offered only the Triton versions the comparison accepts.
#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "panels/toolchaindialog.h"
#include "tilescope/base/toolchain.h"

using namespace tilescope::ui;

namespace {
const QString kRun = QStringLiteral(TILESCOPE_RUN_EXE);
const QString kConfig = QStringLiteral(TILESCOPE_SOURCE_DIR "/kernels/gemm/gemm_tiled_tail.tscfg.json");
const QString kTritonConfig =
    QStringLiteral(TILESCOPE_SOURCE_DIR "/kernels/triton/add_bias_col_mask.tscfg.json");
}  // namespace

class TestToolchains : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    qputenv("TILESCOPE_TOOLCHAINS", m_cache.path().toUtf8());
    if (qstrcmp(QTest::currentTestFunction(), "offersOnlyTheVersionsTheCompareAccepts") != 0 &&
        QStandardPaths::findExecutable(QStringLiteral("nvcc")).isEmpty())
      QSKIP("no nvcc: the CUDA toolkit's compiler");
  }

  // Triton 3.4.0 and older fail in TileScope's helper, so compare refuses them
  // (base/toolchain.h, kOldestTriton): the form offers none of them, and still
  // the two versions that add_bias_col_mask tells apart (docs/toolchains.md).
  void offersOnlyTheVersionsTheCompareAccepts() {
    ToolchainDialog d;
    d.setConfig(kTritonConfig, QStringLiteral("triton"));
    const QStringList offered = d.offeredToolchains();
    QVERIFY2(offered.size() >= 3, qPrintable(offered.join(QStringLiteral(", "))));
    QCOMPARE(offered.first(), QStringLiteral("triton"));
    QVERIFY(offered.contains(QStringLiteral("triton==3.6.0")));
    QVERIFY(offered.contains(QStringLiteral("triton==3.5.1")));
    QVERIFY(!offered.contains(QStringLiteral("triton==3.4.0")));
    for (const QString& t : offered.mid(1)) {
      QVERIFY2(t.startsWith(QStringLiteral("triton==")), qPrintable(t));
      const std::string why = tilescope::unsupportedVersion("triton", t.mid(8).toStdString());
      QVERIFY2(why.empty(), qPrintable(t + QStringLiteral(": ") + QString::fromStdString(why)));
    }
    // A against B: the interpreter's Triton against the oldest version offered.
    const QStringList args = d.arguments(QStringLiteral("out.json"));
    QCOMPARE(args.value(3), QStringLiteral("triton"));
    QCOMPARE(args.value(5), offered.last());
    d.setConfig(kConfig, QStringLiteral("tilelang"));
    QCOMPARE(d.offeredToolchains(),
             (QStringList{QStringLiteral("tilelang"), QStringLiteral("tilelang==0.1.15")}));
    d.setConfig(kConfig, QStringLiteral("cuda"));
    QCOMPARE(d.offeredToolchains().value(0), QStringLiteral("nvrtc"));
    QCOMPARE(d.arguments(QStringLiteral("out.json")).value(5), QStringLiteral("nvcc"));
  }

  void comparesNvrtcWithNvccDashG() {
    ToolchainDialog d;
    d.setExecutable(kRun);
    d.setConfig(kConfig, QStringLiteral("cuda"));
    d.setToolchains(QStringLiteral("nvrtc"), QStringLiteral("nvcc -G"));
    QSignalSpy done(&d, &ToolchainDialog::finished);
    QVERIFY(d.start());
    QVERIFY(d.isRunning());
    QVERIFY(done.wait(120000));
    QVERIFY2(!d.result().isEmpty(), qPrintable(d.summaryText() + QLatin1Char(10) + d.logText()));
    QTableWidget* sides = d.sidesTable();
    QCOMPARE(sides->rowCount(), 2);
    QCOMPARE(sides->item(0, 0)->text(), QStringLiteral("nvrtc"));
    QCOMPARE(sides->item(1, 0)->text(), QStringLiteral("nvcc -G"));
    QCOMPARE(sides->item(0, 1)->text(), QStringLiteral("compiles"));
    QCOMPARE(sides->item(1, 2)->text(), QStringLiteral("nvcc"));
    QVERIFY(sides->item(0, 4)->text().toInt() > 0);
    QVERIFY(sides->item(0, 4)->text() != sides->item(1, 4)->text());  // -G keeps every variable
    // The stage rows: PTX and SASS (no Triton IR for CUDA C++), the first differing named.
    QTableWidget* stages = d.stagesTable();
    QStringList names, verdicts;
    for (int r = 0; r < stages->rowCount(); ++r) {
      names << stages->item(r, 0)->text();
      verdicts << stages->item(r, 3)->text();
    }
    QCOMPARE(names, (QStringList{QStringLiteral("ptx"), QStringLiteral("sass")}));
    QVERIFY(verdicts.contains(QStringLiteral("differs")));
    const QString first = d.result()[QStringLiteral("first_differing_stage")].toString();
    QVERIFY(names.contains(first));
    QVERIFY2(d.summaryText().contains(QStringLiteral("first stage that differs: ") + first),
             qPrintable(d.summaryText()));
    QVERIFY(d.logText().contains(QStringLiteral("toolchain nvcc -G: compile")));
    // TILESCOPE_SHOT_DIR: the dialog as a person sees it (for docs/screenshots).
    if (const QByteArray dir = qgetenv("TILESCOPE_SHOT_DIR"); !dir.isEmpty()) {
      d.show();
      QVERIFY(d.grab().save(QDir(QString::fromUtf8(dir)).filePath(QStringLiteral("compare-toolchains.png"))));
    }
    // Exports: both tables, escaped for HTML.
    QTemporaryDir out;
    QVERIFY(d.exportTo(out.filePath(QStringLiteral("t.html"))));
    QVERIFY(d.exportTo(out.filePath(QStringLiteral("t.md"))));
    QFile html(out.filePath(QStringLiteral("t.html"))), md(out.filePath(QStringLiteral("t.md")));
    QVERIFY(html.open(QIODevice::ReadOnly) && md.open(QIODevice::ReadOnly));
    const QString h = QString::fromUtf8(html.readAll()), m = QString::fromUtf8(md.readAll());
    QVERIFY(h.contains(QStringLiteral("<td>nvcc -G</td>")));
    QVERIFY(h.contains(QStringLiteral("<td>sass</td>")));
    QVERIFY(m.contains(QStringLiteral("| nvcc -G |")));
    QVERIFY(m.contains(QStringLiteral("## Stages")));
  }

  void aRefusedSpecEndsWithItsMessage() {
    ToolchainDialog d;
    d.setExecutable(kRun);
    d.setConfig(kConfig, QStringLiteral("cuda"));
    d.setToolchains(QStringLiteral("gcc"), QStringLiteral("nvrtc"));
    QSignalSpy done(&d, &ToolchainDialog::finished);
    QVERIFY(d.start());
    QVERIFY(done.wait(60000));
    QVERIFY(d.result().isEmpty());
    QVERIFY2(d.summaryText().contains(QStringLiteral("toolchain 'gcc': unknown")),
             qPrintable(d.summaryText()));
    QVERIFY(!d.exportTo(QDir::temp().filePath(QStringLiteral("never.html"))));
    // An incomplete form starts nothing and says what to fill in.
    d.setToolchains(QString(), QStringLiteral("nvrtc"));
    QVERIFY(!d.start());
    QVERIFY(!d.isRunning());
    QVERIFY(d.summaryText().contains(QStringLiteral("two toolchains")));
  }

 private:
  QTemporaryDir m_cache;
};

QTEST_MAIN(TestToolchains)
#include "tst_toolchains.moc"
