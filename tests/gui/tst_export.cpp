// exportReport: HTML, PDF and Markdown of a hand-made H100 sweep report.
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>

#include "export/documentwriters.h"
#include "export/reportexporter.h"
#include "tilescope/report.h"

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
    const int images = int(html.count(QRegularExpression(QStringLiteral("<img src=\"data:image/png;base64,[A-Za-z0-9+/=]{100,}\""))));
    QCOMPARE(images, 6);  // sweep, distribution, resources, curves, devices, coverage C
    QVERIFY(!html.contains(QStringLiteral("src=\"http")));
    QVERIFY(!html.contains(QStringLiteral("src=\"figure:")));
  }

  void pdfHasSeveralA4Pages() {
    const QByteArray pdf = read(exportTo(QStringLiteral("r.pdf")));
    QVERIFY(pdf.startsWith("%PDF-"));
    const int pages = int(QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))));
    // Summary, points, occupancy and coverage each start a page.
    QVERIFY2(pages >= 4, qPrintable(QString::number(pages)));
    const QRegularExpressionMatch count = QRegularExpression(QStringLiteral("/Count\\s+(\\d+)")).match(QString::fromLatin1(pdf));
    QVERIFY(count.hasMatch());
    QCOMPARE(count.captured(1).toInt(), pages);
    // A4 is 595 x 842 points.
    QVERIFY(pdf.contains("/MediaBox [0 0 595") || pdf.contains("/MediaBox [ 0 0 595"));
  }

  void markdownHasTablesFindingsAndRelativePictures() {
    const QString out = exportTo(QStringLiteral("r.md"));
    const QString md = QString::fromUtf8(read(out));
    QVERIFY(md.startsWith(QStringLiteral("# TileScope report: gemm &lt;script&gt;")));
    QVERIFY(!md.contains(QStringLiteral("<script>")));
    QVERIFY(md.contains(QStringLiteral("| error | coverage\\_gap |")));
    QVERIFY(md.contains(QStringLiteral("| 2 | BLOCK\\_M=128,BLOCK\\_N=128 | incorrect |")));
    const QRegularExpression image(QStringLiteral("!\\[[^\\]]*\\]\\((r_files/[a-z_A-Z]+\\.png)\\)"));
    int found = 0;
    for (auto it = image.globalMatch(md); it.hasNext(); ++found) {
      const QString rel = it.next().captured(1);
      QVERIFY2(QImage(m_dir.filePath(rel)).width() > 100, qPrintable(rel));
    }
    QCOMPARE(found, 6);
  }

  void unknownExtensionIsAnError() {
    QString error;
    QVERIFY(!exportReport(fixture(), m_dir.filePath(QStringLiteral("r.docx")), &error));
    QVERIFY(error.contains(QStringLiteral(".docx")));
    QVERIFY(!exportReport(fixture(), QStringLiteral("/nonexistent-dir/r.html"), &error));
    QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/r.html")));
  }

  void markdownEscaping() {
    QCOMPARE(markdownEscape(QStringLiteral("a|b <i>*x*</i>")), QStringLiteral("a\\|b &lt;i&gt;\\*x\\*&lt;/i&gt;"));
  }
};

// The test class needs moc: tests/CMakeLists.txt must build GUI tests with AUTOMOC.
// Without it, the binary fails loudly instead of breaking the whole build.
#if __has_include("tst_export.moc")
QTEST_MAIN(TestExport)
#include "tst_export.moc"
#else
int main() {
  std::fputs("tst_export: built without AUTOMOC; set AUTOMOC ON for the GUI tests in tests/CMakeLists.txt\n", stderr);
  return 1;
}
#endif
