// exportReport: HTML, PDF and Markdown of a hand-made H100 sweep report.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include <QAbstractTextDocumentLayout>
#include <QPdfWriter>
#include <QTextFrame>
#include <QTextTable>

#include "export/coverageimage.h"
#include "export/documentwriters.h"
#include "export/exportfigures.h"
#include "export/reportexporter.h"
#include "tilescope/base/format.h"
#include "tilescope/model/report.h"

using namespace tilescope;
using namespace tilescope::ui;

class TestExport : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;
  static const char* evilName() { return "gemm <script>alert(1)</script> & co"; }

  Report fixture() {
    Report r = loadReport(TILESCOPE_TEST_DATA "/reports_charts/sweep_h100.json");
    r.config["name"] = evilName();
    return r;
  }
  QString exportTo(const QString& name) {
    const QString out = m_dir.filePath(name);
    QString error;
    if (!exportReport(fixture(), out, &error)) qWarning("export failed: %s", qPrintable(error));
    return out;
  }
  static QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void htmlIsEscapedAndSelfContained() {
    const QString html = QString::fromUtf8(read(exportTo(QStringLiteral("r.html"))));
    QVERIFY(!html.isEmpty());
    QVERIFY(!html.contains(QStringLiteral("<script>")));
    QVERIFY(html.contains(QStringLiteral("gemm &lt;script&gt;alert(1)&lt;/script&gt; &amp; co")));
    // A finding message with "<no CTA>" is escaped too.
    QVERIFY(html.contains(QStringLiteral("&lt;no CTA&gt;")));
    QVERIFY(html.contains(QStringLiteral("coverage_gap")));
    QVERIFY(html.contains(QStringLiteral("slow_vs_baseline")));
    QVERIFY(html.contains(QStringLiteral("output.coverage")));  // tree path
    const int images = int(html.count(
        QRegularExpression(QStringLiteral("<img src=\"data:image/png;base64,[A-Za-z0-9+/=]{100,}\""))));
    QCOMPARE(images, 6);  // sweep, distribution, resources, curves, devices, coverage C
    QVERIFY(!html.contains(QStringLiteral("src=\"http")));
    QVERIFY(!html.contains(QStringLiteral("src=\"figure:")));
  }

  void pdfHasSeveralA4Pages() {
    const QByteArray pdf = read(exportTo(QStringLiteral("r.pdf")));
    QVERIFY(pdf.startsWith("%PDF-"));
    const int pages =
        int(QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))));
    // Summary, points, occupancy and coverage each start a page.
    QVERIFY2(pages >= 4, qPrintable(QString::number(pages)));
    const QRegularExpressionMatch count =
        QRegularExpression(QStringLiteral("/Count\\s+(\\d+)")).match(QString::fromLatin1(pdf));
    QVERIFY(count.hasMatch());
    QCOMPARE(count.captured(1).toInt(), pages);
    // A4 is 595 x 842 points.
    QVERIFY(pdf.contains("/MediaBox [0 0 595") || pdf.contains("/MediaBox [ 0 0 595"));
  }

  void markdownHasTablesFindingsAndRelativePictures() {
    const QString out = exportTo(QStringLiteral("r.md"));
    const QString md = QString::fromUtf8(read(out));
    QVERIFY(md.startsWith(QStringLiteral("# TileScope report: gemm &lt;script&gt;")));
    // Only the config's JSON, inside its code fence (literal text), holds the name unescaped.
    QString outsideCode = md;
    outsideCode.remove(QRegularExpression(QStringLiteral("```json\\n.*?\\n```\\n"),
                                          QRegularExpression::DotMatchesEverythingOption));
    QVERIFY(outsideCode.size() < md.size());
    QVERIFY(!outsideCode.contains(QStringLiteral("<script>")));
    QVERIFY(md.contains(QStringLiteral("| error | coverage\\_gap |")));
    // Points named by their swept values, the keys in the table's caption (point_labels.h).
    QVERIFY(md.contains(QStringLiteral("*Points by BLOCK\\_M, BLOCK\\_N, NUM\\_WARPS*")));
    QVERIFY(md.contains(QStringLiteral("| 2 | 128, 128, 8 | incorrect |")));
    const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\((r_files/[a-z_A-Z]+\\.png)\\)"));
    int found = 0;
    for (auto it = image.globalMatch(md); it.hasNext(); ++found) {
      const QString rel = it.next().captured(1);
      QVERIFY2(QImage(m_dir.filePath(rel)).width() > 100, qPrintable(rel));
    }
    QCOMPARE(found, 6);
  }

  /// A traced report's export carries what the trace measured: the source lines of
  /// the bad accesses, every tensor's footprint, the bad accesses, the hazards.
  void aTracedReportExportsItsTrace() {
    const Report r = loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/traced.json");
    const Document doc = exportDocument(r);
    const DocSection* trace = doc.section("trace");
    QVERIFY(trace);
    QString code, paragraphs;
    const DocTable* footprints = nullptr;
    for (const DocBlock& b : trace->blocks) {
      if (const auto* c = std::get_if<DocCode>(&b)) code += QString::fromStdString(c->text);
      if (const auto* p = std::get_if<DocParagraph>(&b))
        paragraphs += QString::fromStdString(p->text) + QLatin1Char('\n');
      if (const auto* t = std::get_if<DocTable>(&b); t && t->caption.rfind("Footprints", 0) == 0)
        footprints = t;
    }
    // The excerpt: the faulting store (line 183) marked, and the out-of-bounds loads (line 72).
    QVERIFY2(code.contains(QStringLiteral(">  183 | ")) &&
                 code.contains(QStringLiteral("C[offset] = __float2half(v);")),
             qPrintable(code));
    QVERIFY2(code.contains(QStringLiteral(">   72 | ")), qPrintable(code));
    QVERIFY2(paragraphs.contains(QStringLiteral("oob_write of C")), qPrintable(paragraphs));
    QVERIFY2(paragraphs.contains(QStringLiteral("Hazards: none")), qPrintable(paragraphs));
    // Every footprint, the inputs' bad reads with them (A: 393 216, B: 384).
    QVERIFY(footprints);
    QCOMPARE(footprints->rows.size(), r.points[0].trace.footprints.size());
    QStringList tensors;
    for (const auto& row : footprints->rows) tensors << QString::fromStdString(row[0]);
    QCOMPARE(tensors, (QStringList{QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("C")}));
    QCOMPARE(footprints->rows[0][5], std::string("393216"));
    QCOMPARE(footprints->rows[1][5], std::string("384"));
    QCOMPARE(footprints->rows[2][6], std::string("24600"));
    QVERIFY(
        renderMarkdown(doc).find("| oob\\_write | C | gemm\\_tiled.cu:183 | 7632 | 2048 | \\[1000, 0\\] |") !=
        std::string::npos);
    // In every format.
    QVERIFY(renderMarkdown(doc).find("Footprints") != std::string::npos);
    QVERIFY(renderHtml(doc).find("C[offset] = __float2half(v);") != std::string::npos);
    // An untraced report has no trace section.
    QVERIFY(!exportDocument(loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/gemm_bug_no_mask.json"))
                 .section("trace"));
  }

  /// The coverage figure draws the elements written past C's end, as the coverage view does.
  void coverageFiguresDrawTheOutOfBoundsRegion() {
    for (const char* name : {"traced.json", "gemm_bug_no_mask.json"}) {
      const Report r = loadReport(std::string(TILESCOPE_SOURCE_DIR "/resources/sample/") + name);
      const Point& p = r.points[size_t(focusPoint(r))];
      const CoverageInfo* c = nullptr;
      for (const CoverageInfo& ci : p.coverage)
        if (ci.tensor == "C") c = &ci;
      QVERIFY(c && c->map);
      QRect oob;
      const QImage image = coverageImage(p, *c, 480, &oob);
      QVERIFY2(!oob.isEmpty(), name);
      QVERIFY(QRect(QPoint(0, 0), image.size()).contains(oob));
      // Below the tensor's last row (C is 1000 × 1000: rows 1000..1024 past its end), hatched in colour.
      // Past the map's last full cell row (the map's cells may reach a little past the edge).
      const int cellPx = qMax(2, 480 / int(qMax(c->map->rows, c->map->cols)));
      const int lastRow = 24 + (int(c->map->rows) - 1) * cellPx;
      QVERIFY2(oob.top() >= lastRow, qPrintable(QStringLiteral("%1 vs %2").arg(oob.top()).arg(lastRow)));
      int coloured = 0;
      for (int y = oob.top(); y <= oob.bottom(); ++y)
        for (int x = oob.left(); x <= oob.right(); ++x) {
          const QColor px = image.pixelColor(x, y);
          coloured += px.saturation() > 80;
        }
      QVERIFY2(coloured > oob.width() * oob.height() / 3, name);
    }
    // A report without out-of-bounds evidence draws none.
    const Report ok = loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/gemm_sweep.json");
    for (const CoverageInfo& ci : ok.points[0].coverage) {
      QRect oob(0, 0, 1, 1);
      coverageImage(ok.points[0], ci, 480, &oob);
      QVERIFY(oob.isEmpty());
    }
  }

  void unknownExtensionIsAnError() {
    QString error;
    QVERIFY(!exportReport(fixture(), m_dir.filePath(QStringLiteral("r.docx")), &error));
    QVERIFY(error.contains(QStringLiteral(".docx")));
    QVERIFY(!exportReport(fixture(), QStringLiteral("/nonexistent-dir/r.html"), &error));
    QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/r.html")));
  }

  void markdownEscaping() {
    QCOMPARE(markdownEscape("a|b <i>*x*</i>"), std::string("a\\|b &lt;i&gt;\\*x\\*&lt;/i&gt;"));
  }

  // The GUI's HTML is core's document: the troubleshooting path with its fix, the
  // numbers formatted as the CLI's export formats them, evidence as tables.
  void htmlCarriesTheTroubleshootingPathAndCoresNumbers() {
    Report r = loadReport(TILESCOPE_SOURCE_DIR "/resources/sample/session.json");
    const QString out = m_dir.filePath(QStringLiteral("session.html"));
    QString error;
    QVERIFY2(exportReport(r, out, &error), qPrintable(error));
    const QString html = QString::fromUtf8(read(out));
    QVERIFY(html.contains(QStringLiteral(">Troubleshooting path</h2>")));
    QVERIFY(html.contains(QStringLiteral("<h3>Fix: ")));
    QVERIFY(html.contains(QStringLiteral("<b>Fix:</b> ")));  // the banner
    const std::string cli = renderHtml(exportDocument(r));
    for (const DocSection& s : exportDocument(r).sections)
      QVERIFY2(html.contains(QString::fromStdString(">" + htmlEscape(s.heading) + "</h2>")),
               s.heading.c_str());
    int medians = 0;
    for (const Point& p : r.points) {
      if (!p.timing.measured) continue;
      const QString median =
          QStringLiteral("<td>%1</td>").arg(QString::fromStdString(formatDuration(p.timing.kernelNs.median)));
      QVERIFY2(html.contains(median), qPrintable(median));
      QVERIFY(QString::fromStdString(cli).contains(median));
      ++medians;
    }
    QVERIFY(medians > 0);
    // Diagnose points by their experiment, not "#0"; evidence as key/value rows.
    QVERIFY(html.contains(QStringLiteral("<td>shape M=65 N=65 K=33</td>")));
    QVERIFY(!html.contains(QStringLiteral("<td>#0</td>")));
    QVERIFY(html.contains(QStringLiteral("<td>slow_factor</td><td>1.5</td>")));
    QVERIFY(!html.contains(QStringLiteral("{&quot;")));  // no JSON object text outside the config block
  }

  // Tables span the PDF's text width instead of shrinking to half the page.
  void pdfTablesSpanTheTextWidth() {
    QPdfWriter writer(m_dir.filePath(QStringLiteral("layout.pdf")));
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(96);
    Report r = fixture();
    const auto doc = pagedDocument(exportDocument(r), renderFigures(r), &writer);
    const double textWidth = doc->pageSize().width();
    QVERIFY(textWidth > 600);  // A4 less 30 mm at 96 dpi: ~680 px
    int tables = 0;
    for (QTextFrame* f : doc->rootFrame()->childFrames())
      if (auto* t = qobject_cast<QTextTable*>(f)) {
        const QRectF box = doc->documentLayout()->frameBoundingRect(t);
        QVERIFY2(box.width() > 0.9 * textWidth,
                 qPrintable(QStringLiteral("%1 of %2").arg(box.width()).arg(textWidth)));
        ++tables;
      }
    QVERIFY(tables >= 8);
  }

  void pdfTableHeadersBreakBetweenWords() {
    // Equal column widths broke headers mid-word ("Referenc|e",
    // "Mismatch|es", "Na|N"). Every header line now starts after a space.
    QPdfWriter writer(m_dir.filePath(QStringLiteral("words.pdf")));
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(96);
    Report r = fixture();
    const auto doc = pagedDocument(exportDocument(r), renderFigures(r), &writer);
    (void)doc->documentLayout()->documentSize();  // lays every block out
    QList<QTextFrame*> frames = doc->rootFrame()->childFrames();
    int headers = 0;
    while (!frames.isEmpty()) {
      QTextFrame* frame = frames.takeFirst();
      frames << frame->childFrames();
      auto* table = qobject_cast<QTextTable*>(frame);
      if (!table) continue;
      for (int c = 0; c < table->columns(); ++c, ++headers) {
        const QTextBlock block = doc->findBlock(table->cellAt(0, c).firstCursorPosition().position());
        const QString text = block.text();
        QTextLayout* layout = block.layout();
        for (int l = 1; layout && l < layout->lineCount(); ++l) {
          const int start = layout->lineAt(l).textStart();
          QVERIFY2(start > 0 && text.at(start - 1).isSpace(),
                   qPrintable(QStringLiteral("'%1' broken at %2 (column %3 of %4, %5 %)")
                                  .arg(text)
                                  .arg(start)
                                  .arg(c)
                                  .arg(table->columns())
                                  .arg(table->format().columnWidthConstraints().value(c).rawValue())));
        }
      }
    }
    QVERIFY(headers >= 30);
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
QTEST_MAIN(TestExport)
#include "tst_export.moc"
