// The comparison view (comparedialog.h): core's compare document laid out as
// tabs of labels and tables; nothing here computes a figure.
#include "panels/comparedialog.h"

#include <algorithm>

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "export/documentwriters.h"
#include "models/qtconv.h"

namespace tilescope::ui {

namespace {

QTableWidget* tableWidget(const DocTable& t, QWidget* parent) {
  auto* w = new QTableWidget(static_cast<int>(t.rows.size()), static_cast<int>(t.headers.size()), parent);
  w->setObjectName(QStringLiteral("compareTable"));
  w->setAccessibleName(qs(t.caption));
  QStringList headers;
  for (const std::string& h : t.headers) headers << qs(h);
  w->setHorizontalHeaderLabels(headers);
  w->verticalHeader()->hide();
  w->setEditTriggers(QAbstractItemView::NoEditTriggers);
  w->setSelectionBehavior(QAbstractItemView::SelectRows);
  w->setWordWrap(false);
  const bool numeric = t.headers.size() == 4 && t.headers[3] == "B − A";
  for (int r = 0; r < w->rowCount(); ++r)
    for (int c = 0; c < w->columnCount() && c < static_cast<int>(t.rows[r].size()); ++c) {
      auto* item = new QTableWidgetItem(qs(t.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)]));
      item->setToolTip(item->text());
      // The numbers read right-aligned, as in a spreadsheet; names and locations left.
      if (numeric && c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      w->setItem(r, c, item);
    }
  w->resizeColumnsToContents();
  // A long location is cut (its tooltip holds it whole), so that B's column shows beside A's.
  for (int c = 0; c < w->columnCount(); ++c) w->setColumnWidth(c, std::min(w->columnWidth(c), 440));
  w->horizontalHeader()->setStretchLastSection(!numeric);
  return w;
}

}  // namespace

CompareDialog::CompareDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Compare"));
  setObjectName(QStringLiteral("compareDialog"));
  auto* layout = new QVBoxLayout(this);
  m_headline = new QLabel(this);
  m_headline->setWordWrap(true);
  m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_headline);
  m_tabs = new QTabWidget(this);
  layout->addWidget(m_tabs, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* exportButton = buttons->addButton(tr("&Export…"), QDialogButtonBox::ActionRole);
  exportButton->setObjectName(QStringLiteral("exportButton"));
  connect(exportButton, &QPushButton::clicked, this, &CompareDialog::exportAsked);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(1100, 720);
}

QWidget* CompareDialog::sectionPage(const DocSection& s) {
  auto* page = new QWidget(m_tabs);
  page->setObjectName(qs(s.id));
  auto* v = new QVBoxLayout(page);
  for (const DocBlock& b : s.blocks) {
    if (const auto* t = std::get_if<DocTable>(&b)) {
      if (!t->caption.empty())
        v->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(qs(t->caption).toHtmlEscaped()), page));
      v->addWidget(tableWidget(*t, page), 1);
    } else if (const auto* p = std::get_if<DocParagraph>(&b)) {
      auto* l = new QLabel(qs(p->text), page);
      l->setWordWrap(true);
      l->setTextFormat(Qt::PlainText);
      v->addWidget(l);
    } else if (const auto* h = std::get_if<DocSubheading>(&b)) {
      v->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(qs(h->text).toHtmlEscaped()), page));
    }
  }
  v->addStretch(0);
  return page;
}

void CompareDialog::setDiff(const ReportDiff& diff) {
  m_diff = diff;
  m_document = buildCompareDocument(diff);
  setWindowTitle(qs(m_document.title));
  QString head =
      QStringLiteral("<b>%1</b> — %2")
          .arg(qs(m_document.banner.label).toHtmlEscaped(), qs(m_document.banner.headline).toHtmlEscaped());
  for (const std::string& w : diff.warnings) head += QStringLiteral("<br>⚠ ") + qs(w).toHtmlEscaped();
  m_headline->setText(head);
  while (m_tabs->count() > 0) {
    QWidget* w = m_tabs->widget(0);
    m_tabs->removeTab(0);
    delete w;
  }
  for (const DocSection& s : m_document.sections) m_tabs->addTab(sectionPage(s), qs(s.heading));
}

QList<QTableWidget*> CompareDialog::tables(const QString& id) const {
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->widget(i)->objectName() == id)
      return m_tabs->widget(i)->findChildren<QTableWidget*>(QString(), Qt::FindDirectChildrenOnly);
  return {};
}

bool CompareDialog::exportTo(const QString& path, QString* error) const {
  const DocumentWriter writer = writerFor(path, error);
  return writer && writer(m_document, {}, path, error);
}

void CompareDialog::exportAsked() {
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export comparison"), QStringLiteral("compare.html"),
                                   tr("HTML (*.html);;PDF (*.pdf);;Markdown (*.md)"), &filter);
  if (path.isEmpty()) return;
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace tilescope::ui
