// The PDF export of every bundled sample carries its figures and has no blank page
// (docs/report.md): poppler lists the PDF's images and rasterises its pages.
#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QPdfWriter>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QtTest>

#include "export/documentwriters.h"
#include "export/exportfigures.h"
#include "export/reportexporter.h"
#include "export/triageexporter.h"
#include "tilescope/model/report.h"
#include "tilescope/triage/triage.h"
#include "tilescope/triage/triage_document.h"

using namespace tilescope;
using namespace tilescope::ui;

namespace {

/// Whether a tool ran and exited 0; its standard output in *out.
bool runTool(const QString& program, const QStringList& args, QByteArray* out = nullptr) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return false;
  if (out) *out = p.readAllStandardOutput();
  return true;
}

/// The images `pdfimages -list` names (rows of type "image"; an alpha channel's "smask" is not one).
int pdfImageCount(const QString& pdf) {
  QByteArray list;
  if (!runTool(QStringLiteral("pdfimages"), {QStringLiteral("-list"), pdf}, &list)) return -1;
  int images = 0;
  for (const QByteArray& line : list.split('\n')) {
    const QList<QByteArray> cols = line.simplified().split(' ');
    images += cols.size() > 2 && cols[2] == "image";
  }
  return images;
}

int htmlFigureCount(const QString& html) {
  return int(html.count(QRegularExpression(QStringLiteral("<img src=\"data:image/png;base64,"))));
}

struct PageInk {
  int ink = 0;     ///< pixels that are not white
  int colour = 0;  ///< saturated pixels: charts and maps (text, rules and banner tints are not)
};

PageInk inkOf(const QImage& page) {
  PageInk out;
  const QImage rgb = page.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < rgb.height(); ++y) {
    const QRgb* row = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = 0; x < rgb.width(); ++x) {
      const QColor c(row[x]);
      out.ink += qMin(qMin(c.red(), c.green()), c.blue()) < 235;
      out.colour += c.hsvSaturation() > 100 && c.value() > 60;
    }
  }
  return out;
}

/// Every page of `pdf` at 50 dpi (pdftoppm -r 50 -png), in order.
QVector<QImage> rasterise(const QString& pdf, const QString& dir) {
  const QString prefix = QDir(dir).filePath(QStringLiteral("page"));
  if (!runTool(QStringLiteral("pdftoppm"),
               {QStringLiteral("-r"), QStringLiteral("50"), QStringLiteral("-png"), pdf, prefix}))
    return {};
  QVector<QImage> pages;
  // pdftoppm pads the page numbers to the widest ("page-01.png" of 12 pages): names sort in page order.
  for (const QString& name : QDir(dir).entryList({QStringLiteral("page-*.png")}, QDir::Files, QDir::Name))
    pages << QImage(QDir(dir).filePath(name));
  return pages;
}

}  // namespace

class TestPdfExport : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir m_dir;

  /// Exports `report` (a tilescope.report/1 or .triage/1 file) to `base`.html and .pdf.
  static bool exportBoth(const QString& report, const QString& base, QString* error) {
    const bool triage = report.endsWith(QStringLiteral("triage_fixture.json"));
    for (const char* ext : {".html", ".pdf"}) {
      const QString out = base + QLatin1String(ext);
      const bool ok = triage ? exportTriage(loadTriage(report.toStdString()), out, error)
                             : exportReport(loadReport(report.toStdString()), out, error);
      if (!ok) return false;
    }
    return true;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // To look at the pages: TILESCOPE_KEEP_PDF_PAGES=1 keeps the PDFs and their PNGs.
    if (qEnvironmentVariableIsSet("TILESCOPE_KEEP_PDF_PAGES")) {
      m_dir.setAutoRemove(false);
      qInfo("PDFs and pages kept in %s", qPrintable(m_dir.path()));
    }
  }

  void pdfCarriesTheFiguresOnNoBlankPage_data() {
    QTest::addColumn<QString>("report");
    const QDir samples(QStringLiteral(TILESCOPE_SOURCE_DIR "/resources/sample"));
    const QStringList names = samples.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString& name : names) QTest::newRow(qPrintable(name)) << samples.filePath(name);
    // The traced sample (its coverage grid runs past C's end) lost a whole page.
    if (!names.contains(QStringLiteral("traced.json"))) qFatal("resources/sample/traced.json is missing");
    QTest::newRow("triage_fixture.json") << QStringLiteral(TILESCOPE_TEST_DATA "/triage/triage_fixture.json");
  }

  void pdfCarriesTheFiguresOnNoBlankPage() {
    if (QStandardPaths::findExecutable(QStringLiteral("pdftoppm")).isEmpty() ||
        QStandardPaths::findExecutable(QStringLiteral("pdfimages")).isEmpty())
      QSKIP(
          "pdftoppm/pdfimages not found: install poppler-utils (sudo apt-get install poppler-utils, "
          "scripts/install-deps.sh) to check the PDF export's pages");
    QFETCH(QString, report);
    const QString name = QFileInfo(report).completeBaseName();
    const QString base = m_dir.filePath(name);
    QString error;
    QVERIFY2(exportBoth(report, base, &error), qPrintable(error));
    QFile htmlFile(base + QStringLiteral(".html"));
    QVERIFY(htmlFile.open(QIODevice::ReadOnly));
    const int figures = htmlFigureCount(QString::fromUtf8(htmlFile.readAll()));
    QVERIFY(figures > 0);
    const QString pdf = base + QStringLiteral(".pdf");
    const int images = pdfImageCount(pdf);
    const QString pagesDir = m_dir.filePath(name + QStringLiteral("_pages"));
    QVERIFY(QDir().mkpath(pagesDir));
    const QVector<QImage> pages = rasterise(pdf, pagesDir);
    QVERIFY2(!pages.isEmpty(), "pdftoppm rasterised no page");

    // Every problem at once: missing figures and blank pages came together.
    QStringList problems;
    if (images < figures)
      problems << QStringLiteral("%1 images in the PDF, %2 figures in the HTML").arg(images).arg(figures);
    int colourPages = 0, leastInk = INT_MAX;
    for (int i = 0; i < pages.size(); ++i) {
      QVERIFY(!pages[i].isNull());
      const PageInk ink = inkOf(pages[i]);
      // A page with one line of text has a few hundred dark pixels at 50 dpi.
      if (ink.ink < 100)
        problems << QStringLiteral("page %1 of %2 is blank (%3 non-white pixels)")
                        .arg(i + 1)
                        .arg(pages.size())
                        .arg(ink.ink);
      colourPages += ink.colour >= 200;
      leastInk = qMin(leastInk, ink.ink);
    }
    // The figures are drawn, not only listed: charts and maps are the only saturated colour.
    if (colourPages == 0) problems << QStringLiteral("no page shows a figure's colours");
    qInfo("%s: %d images for %d figures, %d pages (%d with figure colour), the emptiest page %d pixels",
          qPrintable(name), images, figures, int(pages.size()), colourPages, leastInk);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("; "))));
  }

  void pagedLayoutPlacesEveryBlockAndFigure_data() { pdfCarriesTheFiguresOnNoBlankPage_data(); }

  /// Every block of the paged layout has its lines (the lost ones were printed as
  /// nothing), and each figure lies within the text width on one page, its caption with it.
  void pagedLayoutPlacesEveryBlockAndFigure() {
    QFETCH(QString, report);
    QPdfWriter writer(m_dir.filePath(QStringLiteral("layout.pdf")));
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(96);
    QVector<Figure> figures;
    std::unique_ptr<QTextDocument> doc;
    if (report.endsWith(QStringLiteral("triage_fixture.json"))) {
      const TriageReport t = loadTriage(report.toStdString());
      figures = renderTriageFigures(t);
      doc = pagedDocument(buildTriageDocument(t), figures, &writer);
    } else {
      const Report r = loadReport(report.toStdString());
      figures = renderFigures(r);
      doc = pagedDocument(exportDocument(r), figures, &writer);
    }
    QVERIFY(!figures.isEmpty());
    const QSizeF page = doc->pageSize();
    QVERIFY(doc->pageCount() >= 2);  // lays the whole document out
    const auto lineRect = [](const QTextLayout* layout, int line) {
      return layout->lineAt(line).rect().translated(layout->position());
    };
    int blocks = 0, pictures = 0;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next(), ++blocks) {
      QVERIFY2(
          b.layout() && b.layout()->lineCount() > 0,
          qPrintable(QStringLiteral("block %1 ('%2') was not laid out").arg(blocks).arg(b.text().left(40))));
      for (auto it = b.begin(); !it.atEnd(); ++it) {
        if (!it.fragment().charFormat().isImageFormat()) continue;
        const QTextLayout* layout = b.layout();
        const QRectF line = lineRect(layout, layout->lineCount() - 1) | lineRect(layout, 0);
        const int onPage = int(line.top() / page.height());
        const QTextBlock caption = b.next();
        const QString where = QStringLiteral("%1: %2 x %3 at (%4, %5) of page %6 x %7, caption '%8' at %9")
                                  .arg(it.fragment().charFormat().toImageFormat().name())
                                  .arg(line.width())
                                  .arg(line.height())
                                  .arg(line.x())
                                  .arg(line.y())
                                  .arg(page.width())
                                  .arg(page.height())
                                  .arg(caption.text())
                                  .arg(lineRect(caption.layout(), 0).y());
        QVERIFY2(line.height() > 40 && line.right() <= page.width() + 0.5, qPrintable(where));
        QVERIFY2(line.bottom() <= (onPage + 1) * page.height() + 0.5, qPrintable(where));
        QVERIFY2(lineRect(caption.layout(), 0).bottom() <= (onPage + 1) * page.height() + 0.5,
                 qPrintable(where));
        ++pictures;
      }
    }
    QCOMPARE(pictures, figures.size());
  }
};

QTEST_MAIN(TestPdfExport)
#include "tst_pdfexport.moc"
