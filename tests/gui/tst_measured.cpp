// The workbench says exactly what it measured (docs/report.md): a check
// reads "checked, not run" and is never green; an "ok" names its warnings; an edit
// of the config marks the shown result stale; the red config row is the field to
// change; evidence carries units, grouped digits and no thresholds; a finding's
// file is shown where the reader has it; the echoed command pastes into a shell;
// the Dark palette's banners are dark.
#include <QPlainTextEdit>
#include <QProcess>
#include <QTableView>
#include <QTreeWidget>
#include <QtTest>
#include <fstream>

#include "charts/triagecharts.h"
#include "controllers/runcontroller.h"
#include "mainwindow.h"
#include "models/evidencetext.h"
#include "models/findingsmodel.h"
#include "models/pointsmodel.h"
#include "models/resultmatrixmodel.h"
#include "models/triagemodel.h"
#include "models/verdicttext.h"
#include "panels/configfault.h"
#include "panels/configpanel.h"
#include "panels/findingspanel.h"
#include "panels/runpanel.h"
#include "style/colors.h"
#include "style/palettes.h"
#include "tilescope/export/document.h"
#include "tilescope/triage/triage.h"
#include "tilescope/triage/triage_document.h"
#include "widgets/banner.h"
#include "widgets/pointstable.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {
const QString kConfig = QStringLiteral(TILESCOPE_TEST_DATA "/reports/gemm_small.tscfg.json");
const QString kSamples = QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample/");

bool isRed(const QTreeWidgetItem* item) { return item && item->background(1).style() != Qt::NoBrush; }

/// The triage fixture with its first "ok" entry judged by a check without a GPU.
TriagePtr triageWithCheck() {
  std::ifstream in(TILESCOPE_TEST_DATA "/triage/triage_fixture.json");
  nlohmann::json j = nlohmann::json::parse(in);
  for (auto& e : j["entries"])
    if (e.value("verdict", "") == "ok") {
      e["level"] = "check";
      break;
    }
  return std::make_shared<const TriageReport>(triageFromJson(j));
}
}  // namespace

class TstMeasured : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aCheckReadsCheckedNotRun() {
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    QTRY_VERIFY_WITH_TIMEOUT(w.report() && w.report()->verb == "check", 60000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.configPanel()->isChecking(), 120000);
    QCOMPARE(w.report()->verdict, Verdict::ok);
    const QString text = w.verdictBanner()->text();
    QVERIFY2(text.contains(QStringLiteral("Verdict: checked, not run")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("Verdict: ok")), qPrintable(text));
    QVERIFY(w.verdictBanner()->kind() != Banner::Kind::ok);  // never the green of a run
    QVERIFY2(w.statusDeviceText().contains(QStringLiteral("verdict checked, not run")),
             qPrintable(w.statusDeviceText()));
    // The run matrix and the Points table: the same words, and not the green of a correct run.
    ResultMatrixModel* matrix = w.runPanel()->matrixModel();
    QVERIFY(matrix->rowCount() > 0);
    const QModelIndex cell = matrix->index(0, 0);
    QVERIFY2(cell.data().toString().startsWith(QStringLiteral("checked, not run")),
             qPrintable(cell.data().toString()));
    QVERIFY(qvariant_cast<QColor>(cell.data(Qt::BackgroundRole)) != verdictColor(Verdict::ok));
    // The exports: the banner's words, and the neutral tint instead of the ok green.
    const Document doc = buildDocument(*w.report());
    const std::string html = renderHtml(doc), md = renderMarkdown(doc);
    QVERIFY(html.find("Verdict: checked, not run") != std::string::npos);
    QVERIFY(html.find("#d4eee6") == std::string::npos);
    QVERIFY(md.find("**Verdict: checked, not run**") != std::string::npos);
    PointsModel* points = w.pointsTable()->pointsModel();
    QCOMPARE(points->index(0, PointsModel::VerdictColumn).data().toString(),
             QStringLiteral("checked, not run"));
    QVERIFY(qvariant_cast<QColor>(points->index(0, PointsModel::VerdictColumn).data(Qt::BackgroundRole)) !=
            verdictColor(Verdict::ok));
  }

  void aTriageCheckReadsCheckedNotRun() {
    const TriagePtr t = triageWithCheck();
    TriageModel m;
    m.setTriage(t);
    int row = -1;
    for (int r = 0; r < m.rowCount(); ++r)
      if (taxonomyKey(*m.entry(r)) == "checked") row = r;
    QVERIFY(row >= 0);
    QCOMPARE(m.index(row, TriageModel::VerdictColumn).data().toString(), QStringLiteral("checked, not run"));
    QCOMPARE(m.index(row, TriageModel::CategoryColumn).data().toString(), QStringLiteral("checked, not run"));
    // Not the "good" icon of a correct entry.
    const QIcon good = severityIcon(Severity::info);
    const QIcon shown =
        qvariant_cast<QIcon>(m.index(row, TriageModel::VerdictColumn).data(Qt::DecorationRole));
    QVERIFY(shown.cacheKey() != good.cacheKey());
    QCOMPARE(taxonomyLabel(QStringLiteral("checked")), QStringLiteral("checked, not run"));
    // The export's entry table and taxonomy say it too.
    const Document d = buildTriageDocument(*t);
    bool entry = false, taxonomyRow = false;
    for (const DocSection& s : d.sections)
      for (const DocBlock& b : s.blocks)
        if (const auto* table = std::get_if<DocTable>(&b))
          for (const auto& cells : table->rows) {
            if (s.id == "entries" && cells.size() > 2 && cells[2] == "checked, not run") entry = true;
            if (s.id == "taxonomy" && !cells.empty() && cells[0] == "checked, not run") taxonomyRow = true;
            if (s.id == "entries" && cells.size() > 2 && cells[0] == t->entries[row].name)
              QCOMPARE(QString::fromStdString(cells[2]), QStringLiteral("checked, not run"));
          }
    QVERIFY(entry);
    QVERIFY(taxonomyRow);
    // A triage of checks only says so in its banner.
    TriageReport onlyChecks = *t;
    std::erase_if(onlyChecks.entries, [](const TriageEntry& e) { return taxonomyKey(e) != "checked"; });
    QCOMPARE(buildTriageDocument(onlyChecks).banner.label, std::string("checked, not run"));
    QVERIFY(buildTriageDocument(*t).banner.label.empty());
  }

  void anOkBannerListsItsWarnings() {
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_transpose_bank_conflicts.json")));
    QCOMPARE(w.report()->verdict, Verdict::ok);
    QCOMPARE(w.verdictBanner()->kind(), Banner::Kind::ok);
    const QString text = w.verdictBanner()->text();
    QVERIFY2(text.contains(QStringLiteral("Verdict: ok — 1 warning: shared-memory loads are 32.4-way "
                                          "bank-conflicted on average at transpose_tiled.cu:22")),
             qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("/work/")), qPrintable(text));  // the recording machine's path
    QVERIFY2(!text.contains(QStringLiteral("no error findings")), qPrintable(text));
  }

  void anEditMakesTheResultStale() {
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_transpose_bank_conflicts.json")));
    QCOMPARE(w.verdictBanner()->kind(), Banner::Kind::ok);
    QVERIFY(!w.verdictBanner()->text().contains(QStringLiteral("Stale")));
    auto* text = w.configPanel()->findChild<QPlainTextEdit*>();
    QVERIFY(text);
    QVERIFY(!text->toPlainText().isEmpty());                        // the report's config
    text->setPlainText(text->toPlainText() + QStringLiteral(" "));  // as if typed
    QVERIFY2(w.verdictBanner()->text().startsWith(QStringLiteral("Stale")),
             qPrintable(w.verdictBanner()->text()));
    QVERIFY(w.verdictBanner()->kind() != Banner::Kind::ok);
    // Opening a result again shows it fresh.
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_transpose_bank_conflicts.json")));
    QVERIFY(!w.verdictBanner()->text().contains(QStringLiteral("Stale")));
  }

  void theRedRowIsTheFieldToChange_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("surfaced");  // where the error is reported
    // 2048 threads per block: invalid_launch at the launch, caused by the define.
    QTest::newRow("NUM_WARPS") << QStringLiteral("kernel.defines.NUM_WARPS") << QStringLiteral("64")
                               << QStringLiteral("launch");
    // (64 × 2048 + 2048 × 64) × 2 bytes: the shared memory, reported at launch.shared_bytes; the
    // define is at fault. (BLOCK_M and BLOCK_N are swept: the sweep would override an edit.)
    QTest::newRow("BLOCK_K") << QStringLiteral("kernel.defines.BLOCK_K") << QStringLiteral("2048")
                             << QStringLiteral("launch.shared_bytes");
  }

  void theRedRowIsTheFieldToChange() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, surfaced);
    MainWindow w;
    QVERIFY(w.openFile(kConfig));
    ConfigPanel* cfg = w.configPanel();
    // A launch that asks for shared memory by the tile parameters (the zoo's GEMMs do).
    QString json = cfg->jsonText();
    QVERIFY(json.contains(QStringLiteral("\"block\"")));
    json.replace(
        QStringLiteral("\"block\""),
        QStringLiteral("\"shared_bytes\": \"(BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2\", \"block\""));
    cfg->setJsonText(json);
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(cfg->validationError().isEmpty(), qPrintable(cfg->validationError()));
    QVERIFY(cfg->formItem(QStringLiteral("launch.shared_bytes")));
    QVERIFY(cfg->setFormValue(field, value));
    QTRY_VERIFY_WITH_TIMEOUT(!cfg->isChecking(), 120000);
    QVERIFY2(!cfg->validationError().isEmpty(), qPrintable(field));
    QVERIFY2(cfg->errorPath().startsWith(surfaced), qPrintable(cfg->errorPath()));
    QCOMPARE(cfg->faultPaths(), QStringList{field});
    QVERIFY(isRed(cfg->formItem(field)));
    for (const char* other : {"launch.grid", "launch.block", "launch.shared_bytes", "params.M"})
      QVERIFY2(!isRed(cfg->formItem(QString::fromLatin1(other))), other);
    QVERIFY(cfg->formItem(field)->toolTip(1).contains(cfg->validationError()));
  }

  void aKeyEditedItselfIsAtFault() {
    // A grid typed wrong: the grid row, not the defines it names.
    nlohmann::ordered_json good = {{"kernel", {{"defines", {{"BLOCK_M", 64}}}}},
                                   {"params", {{"M", 100}}},
                                   {"launch", {{"grid", {"ceil_div(M, BLOCK_M)", 1, 1}}}}};
    nlohmann::ordered_json bad = good;
    bad["launch"]["grid"][0] = "ceil_div(M, BLOCK_M) / 0";
    QCOMPARE(configFaultPaths(QStringLiteral("launch.grid[0]"), bad, good),
             QStringList{QStringLiteral("launch.grid")});
    // No good check to compare with: the tile parameters the expression names.
    QCOMPARE(configFaultPaths(QStringLiteral("launch.grid[0]"), bad, {}),
             QStringList{QStringLiteral("kernel.defines.BLOCK_M")});
    QVERIFY(configFaultPaths({}, bad, good).isEmpty());
  }

  void evidenceHasUnitsAndNoThresholds() {
    QCOMPARE(evidenceValueText("tensor_bytes", 2097152), QStringLiteral("2 MiB (2,097,152 bytes)"));
    QCOMPARE(evidenceValueText("guard_bytes", 48), QStringLiteral("48 bytes"));
    QCOMPARE(evidenceValueText("achieved", 0.12133766638903283), QStringLiteral("12.1 %"));
    QCOMPARE(evidenceValueText("sm_pct", 65.69695827838834), QStringLiteral("65.7 %"));
    QCOMPARE(evidenceValueText("conflicts_ld", 16479530.0), QStringLiteral("16,479,530"));
    QCOMPARE(evidenceValueText("ctas", 256), QStringLiteral("256"));
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_gemm_tiled_f16.json")));
    FindingsModel* m = w.findingsPanel()->model();
    int row = -1;
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->finding(r)->category == "low_occupancy") row = r;
    QVERIFY(row >= 0);
    const QString evidence = m->index(row, FindingsModel::EvidenceColumn).data().toString();
    QVERIFY2(evidence.contains(QStringLiteral("achieved: 12.1 %")), qPrintable(evidence));
    QVERIFY2(evidence.contains(QStringLiteral("theoretical: 50 %")) ||
                 evidence.contains(QStringLiteral("theoretical: 50.0 %")),
             qPrintable(evidence));
    QVERIFY2(!evidence.contains(QStringLiteral("threshold")), qPrintable(evidence));
  }

  void locationsAreRelativeToTheReport() {
    QCOMPARE(shownPath(QStringLiteral("/work/main/.stage/lead/kernels/t/transpose.cu"),
                       QStringLiteral("/home/me")),
             QStringLiteral("transpose.cu"));
    QCOMPARE(shownPath(QStringLiteral("/home/me/reports/kernels/t.cu"), QStringLiteral("/home/me/reports")),
             QStringLiteral("kernels/t.cu"));
    QCOMPARE(shownPath(QStringLiteral("kernels/t.cu"), QStringLiteral("/home/me")),
             QStringLiteral("kernels/t.cu"));
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_transpose_bank_conflicts.json")));
    FindingsModel* m = w.findingsPanel()->model();
    QVERIFY(m->rowCount() > 0);
    const QModelIndex loc = m->index(0, FindingsModel::LocationColumn);
    QVERIFY2(loc.data().toString().contains(QStringLiteral("transpose_tiled.cu:22")),
             qPrintable(loc.data().toString()));
    QVERIFY2(!loc.data().toString().contains(QStringLiteral("/work/")), qPrintable(loc.data().toString()));
    QVERIFY(loc.data(Qt::ToolTipRole).toString().contains(QStringLiteral("recorded as /work/")));
  }

  void theEchoedCommandPastesIntoAShell() {
    const QStringList cmd{QStringLiteral("tilescope-run"),
                          QStringLiteral("capture"),
                          QStringLiteral("-o"),
                          QStringLiteral("/tmp/my caps"),
                          QStringLiteral("--"),
                          QStringLiteral("python3"),
                          QStringLiteral("-c"),
                          QStringLiteral("print('a b'); x=\"$HOME\"")};
    const QString line = RunController::shellCommandLine(cmd);
    QVERIFY2(line.startsWith(QStringLiteral("tilescope-run capture -o '/tmp/my caps' -- python3 -c ")),
             qPrintable(line));
    // A shell splits it back into exactly these words.
    QProcess sh;
    sh.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), QStringLiteral("printf '%s\\n' ") + line});
    QVERIFY(sh.waitForFinished(10000));
    const QStringList words =
        QString::fromUtf8(sh.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(words, cmd);
  }

  void darkBannersAreDark() {
    for (int k = 0; k < 4; ++k) {
      const BannerColors dark = bannerColors(k, true);
      QVERIFY2(dark.background.lightness() < 100, qPrintable(QString::number(k)));
      QVERIFY2(contrastRatio(dark.background, dark.text) >= 4.5, qPrintable(QString::number(k)));
    }
    MainWindow w;
    QVERIFY(w.openFile(kSamples + QStringLiteral("counters_transpose_bank_conflicts.json")));
    Banner* b = w.verdictBanner();
    w.setTheme(Theme::dark);
    QVERIFY(Banner::isDark());
    QVERIFY2(b->palette().color(QPalette::Window).lightness() < 100,
             qPrintable(b->palette().color(QPalette::Window).name()));
    w.setTheme(Theme::light);
    QVERIFY(b->palette().color(QPalette::Window).lightness() > 180);
  }
};

QTEST_MAIN(TstMeasured)
#include "tst_measured.moc"
