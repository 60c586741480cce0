#include "panels/troubleshootpanel.h"

#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <QFile>
#include <QTextStream>

#include "models/qtconv.h"
#include "style/colors.h"
#include "tilescope/diagnose/headline.h"
#include "widgets/treeoutline.h"

namespace tilescope::ui {

namespace {

// Translucent so the marks read on the light and the dark palette alike.
QColor withAlpha(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

}  // namespace

TroubleshootPanel::TroubleshootPanel(Selection* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection) {
  buildUi();
  try {
    m_tree = std::make_unique<Tree>(loadDefaultTree());
    populateTreeOutline(m_treeView, *m_tree);
    m_treeView->expandToDepth(0);
    // Titles and answer labels are short phrases; the question column takes the rest.
    m_treeView->setColumnWidth(0, 300);
    m_treeView->setColumnWidth(1, 230);
  } catch (const std::exception& e) {
    // A broken or missing tree.json must not take the workbench down: say so in the panel.
    m_treeError = tr("Troubleshooting tree not loaded: %1").arg(QString::fromUtf8(e.what()));
  }
  showWalk();
}

TroubleshootPanel::~TroubleshootPanel() = default;

void TroubleshootPanel::buildUi() {
  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  QHBoxLayout* top = buildStatusRow();
  m_treeView = new QTreeWidget(this);
  m_treeView->setUniformRowHeights(true);
  m_treeView->setAlternatingRowColors(false);
  m_treeView->header()->setStretchLastSection(true);
  connect(m_treeView, &QTreeWidget::currentItemChanged, this,
          [this](QTreeWidgetItem* cur) { showItemDetails(cur); });

  m_questionBox = new QGroupBox(tr("Open question"), this);
  m_questionLabel = new QLabel(m_questionBox);
  m_questionLabel->setWordWrap(true);
  m_answersLayout = new QVBoxLayout;
  auto* qLayout = new QVBoxLayout(m_questionBox);
  qLayout->addWidget(m_questionLabel);
  qLayout->addLayout(m_answersLayout);

  QTabWidget* tabs = buildTabs(mono);
  QGroupBox* paste = buildPasteBox(mono);

  auto* right = new QWidget(this);
  auto* rLayout = new QVBoxLayout(right);
  rLayout->setContentsMargins(0, 0, 0, 0);
  rLayout->addWidget(m_questionBox);
  rLayout->addWidget(tabs, 1);
  rLayout->addWidget(paste);
  tabs->setMinimumHeight(120);
  // The question, the classification and the paste's findings grow with what they
  // show; in a scroll area they scroll instead of raising the dock's minimum height
  // (which pushed the window past the screen and over the status bar).
  auto* rightScroll = new QScrollArea(this);
  rightScroll->setObjectName(QStringLiteral("troubleshootDetails"));
  rightScroll->setWidgetResizable(true);
  rightScroll->setFrameShape(QFrame::NoFrame);
  rightScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  rightScroll->setWidget(right);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_treeView);
  split->addWidget(rightScroll);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
}

QHBoxLayout* TroubleshootPanel::buildStatusRow() {
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("troubleshootStatus"));
  m_status->setTextFormat(Qt::PlainText);  // point labels and verbs come from the report: data, never markup
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // At most three lines (the whole sentence in the tooltip): a long walk must not raise the dock's minimum.
  m_status->setMaximumHeight(m_status->fontMetrics().lineSpacing() * 3 + 4);
  m_resetButton = new QPushButton(tr("Reset answers"), this);
  m_resetButton->setToolTip(tr("Forget the answers you gave and walk again from the evidence"));
  m_backButton = new QPushButton(tr("Walk the report"), this);
  m_backButton->setToolTip(tr("Leave the pasted log and walk the open report again"));
  connect(m_resetButton, &QPushButton::clicked, this, &TroubleshootPanel::resetAnswers);
  connect(m_backButton, &QPushButton::clicked, this, &TroubleshootPanel::walkReport);
  auto* top = new QHBoxLayout;
  top->addWidget(m_status, 1);
  top->addWidget(m_resetButton);
  top->addWidget(m_backButton);

  return top;
}

QTabWidget* TroubleshootPanel::buildTabs(const QFont& mono) {
  m_fixView = new QTextBrowser(this);
  m_fixView->setOpenExternalLinks(true);
  m_details = new QPlainTextEdit(this);
  m_details->setReadOnly(true);
  m_details->setFont(mono);
  auto* tabs = new QTabWidget(this);
  tabs->addTab(m_fixView, tr("Fix"));
  tabs->addTab(m_details, tr("Step evidence"));
  connect(m_treeView, &QTreeWidget::itemActivated, this, [tabs, this] { tabs->setCurrentWidget(m_details); });

  return tabs;
}

QGroupBox* TroubleshootPanel::buildPasteBox(const QFont& mono) {
  auto* paste = new QGroupBox(tr("Paste an error"), this);
  m_logEdit = new QPlainTextEdit(paste);
  m_logEdit->setFont(mono);
  m_logEdit->setPlaceholderText(tr("Paste a CUDA, nvcc/NVRTC, Triton, TileLang or Python error here"));
  m_logEdit->setMaximumHeight(110);
  m_classifyButton = new QPushButton(tr("Classify and walk"), paste);
  m_classLabel = new QLabel(paste);
  m_classLabel->setWordWrap(true);
  m_classLabel->setTextFormat(Qt::PlainText);  // pasted text is data, never markup
  m_classLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  connect(m_classifyButton, &QPushButton::clicked, this,
          [this] { classifyAndWalk(m_logEdit->toPlainText()); });
  // What the paste holds: sanitizer findings, then the lines that decided.
  m_pasteFindings = new QTreeWidget(paste);
  m_pasteFindings->setObjectName(QStringLiteral("pasteFindings"));
  m_pasteFindings->setColumnCount(3);
  m_pasteFindings->setHeaderLabels({tr("Finding / line"), tr("Where"), tr("Details")});
  m_pasteFindings->setRootIsDecorated(true);
  m_pasteFindings->setUniformRowHeights(true);
  m_pasteFindings->setMaximumHeight(140);
  m_pasteFindings->setVisible(false);
  connect(m_pasteFindings, &QTreeWidget::currentItemChanged, this,
          [this](QTreeWidgetItem* cur) { showSourceOf(cur); });
  m_sourceView = new QPlainTextEdit(paste);
  m_sourceView->setObjectName(QStringLiteral("pasteSource"));
  m_sourceView->setReadOnly(true);
  m_sourceView->setFont(mono);
  m_sourceView->setMaximumHeight(70);
  m_sourceView->setVisible(false);
  auto* pLayout = new QVBoxLayout(paste);
  pLayout->addWidget(m_logEdit);
  auto* pRow = new QHBoxLayout;
  pRow->addWidget(m_classLabel, 1);
  pRow->addWidget(m_classifyButton, 0, Qt::AlignTop);
  pLayout->addLayout(pRow);
  pLayout->addWidget(m_pasteFindings);
  pLayout->addWidget(m_sourceView);

  return paste;
}

void TroubleshootPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_point = m_selection ? m_selection->state().point : 0;
  m_userAnswers.clear();
  m_subject = report ? (report->treePath.empty() ? Subject::point : Subject::report) : Subject::none;
  rewalk();
}

void TroubleshootPanel::onReportClosed() {
  m_report.reset();
  if (m_subject != Subject::log) m_subject = Subject::none;
  m_userAnswers.clear();
  rewalk();
}

void TroubleshootPanel::onSelectionChanged(const SelectionState& state) {
  if (state.point == m_point) return;
  m_point = state.point;
  // A diagnose report is walked as a whole; only a per-point walk follows the selection.
  if (m_subject == Subject::point) rewalk();
}

void TroubleshootPanel::walkReport() {
  m_subject = m_report ? (m_report->treePath.empty() ? Subject::point : Subject::report) : Subject::none;
  m_userAnswers.clear();
  rewalk();
}

bool TroubleshootPanel::answerOpenQuestion(const QString& answerId) {
  if (m_walk.complete || m_walk.stoppedAt.empty()) return false;
  const std::string id = answerId.toStdString();
  bool known = false;
  for (const TreeAnswer& a : m_walk.openAnswers) known = known || a.id == id;
  if (!known) return false;
  m_userAnswers[m_walk.stoppedAt] = id;
  rewalk();
  return true;
}

void TroubleshootPanel::resetAnswers() {
  m_userAnswers.clear();
  rewalk();
}

Classification TroubleshootPanel::classifyAndWalk(const QString& log) {
  if (m_logEdit->toPlainText() != log) m_logEdit->setPlainText(log);
  m_log = log;
  try {
    m_classification = classifyLog(log.toStdString());
  } catch (const std::exception& e) {
    // classifier.json missing or malformed: walk from the root with no classification.
    m_classification = Classification{};
    m_classification->matched = e.what();
  }
  m_subject = Subject::log;
  m_userAnswers.clear();
  showPasteFindings();
  rewalk();
  return *m_classification;
}

void TroubleshootPanel::showPasteFindings() {
  m_pasteFindings->clear();
  m_sourceView->clear();
  m_sourceView->setVisible(false);
  if (!m_classification) {
    m_pasteFindings->setVisible(false);
    return;
  }
  const Classification& c = *m_classification;
  const SanitizerReport& san = c.sanitizer;
  if (!san.findings.empty()) {
    auto* group = new QTreeWidgetItem(m_pasteFindings);
    group->setText(0, tr("%1: %n finding(s)", nullptr, static_cast<int>(san.findings.size()))
                          .arg(san.legacy ? QStringLiteral("cuda-memcheck")
                                          : QStringLiteral("compute-sanitizer ") + qs(san.tool)));
    for (const SanitizerFinding& f : san.findings) {
      const FindingClass fc = classifyFinding(f);
      auto* it = new QTreeWidgetItem(group);
      it->setText(0, qs(fc.category.empty() ? f.kind : fc.category) +
                         (f.count > 1 ? tr(" (%1 reports)").arg(f.count) : QString()));
      QString where = qs(f.kernelDemangled.empty() ? f.kernel : f.kernelDemangled);
      if (f.pc) where += QStringLiteral("+0x") + QString::number(*f.pc, 16);
      if (!f.file.empty())
        where += QStringLiteral("  ") + qs(f.file) + QLatin1Char(':') + QString::number(f.line);
      it->setText(1, where);
      it->setText(2, qs(describe(f)));
      it->setToolTip(2, qs(describe(f)));
      it->setData(0, Qt::UserRole, qs(f.file));
      it->setData(0, Qt::UserRole + 1, f.line);
    }
    group->setExpanded(true);
  }
  if (!c.evidence.empty()) {
    auto* group = new QTreeWidgetItem(m_pasteFindings);
    group->setText(0, tr("Decisive lines of %1").arg(c.lines));
    for (const EvidenceLine& e : c.evidence) {
      auto* it = new QTreeWidgetItem(group);
      it->setText(0, tr("line %1").arg(e.number) + (e.count > 1 ? tr(" (×%1)").arg(e.count) : QString()));
      it->setText(1, qs(e.rule));
      it->setText(2, qs(e.text.substr(0, 400)));
      it->setToolTip(2, qs(e.text.substr(0, 2000)));
    }
    group->setExpanded(true);
  }
  m_pasteFindings->resizeColumnToContents(0);
  m_pasteFindings->setVisible(m_pasteFindings->topLevelItemCount() > 0);
}

void TroubleshootPanel::showSourceOf(QTreeWidgetItem* item) {
  m_sourceView->clear();
  m_sourceView->setVisible(false);
  if (!item) return;
  const QString file = item->data(0, Qt::UserRole).toString();
  const int line = item->data(0, Qt::UserRole + 1).toInt();
  if (file.isEmpty() || line <= 0) return;
  // The source is "at hand" when the path the sanitizer printed can be read here.
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return;
  QTextStream in(&f);
  QStringList around;
  for (int n = 1; !in.atEnd() && n <= line + 2; ++n) {
    const QString text = in.readLine();
    if (n >= line - 2)
      around << QStringLiteral("%1%2 | %3")
                    .arg(n == line ? QStringLiteral("> ") : QStringLiteral("  "))
                    .arg(n, 5)
                    .arg(text);
  }
  if (around.isEmpty()) return;
  m_sourceView->setPlainText(file + QLatin1Char('\n') + around.join(QLatin1Char('\n')));
  m_sourceView->setVisible(true);
}

QString TroubleshootPanel::sourceText() const {
  return m_sourceView->isHidden() ? QString() : m_sourceView->toPlainText();
}

nlohmann::json TroubleshootPanel::subjectJson(std::string* start) const {
  start->clear();
  switch (m_subject) {
    case Subject::report:
      return toJson(*m_report);
    case Subject::point:
      if (m_report && m_point >= 0 && m_point < static_cast<int>(m_report->points.size()))
        return walkSubject(*m_report, m_point);  // with the findings' estimated gains, as the banner walks
      return nullptr;
    case Subject::log:
      if (m_classification && m_tree) {
        // The classifier may name a finer node than the tree has: start at its nearest ancestor.
        if (const TreeNode* n = m_tree->findNearest(m_classification->treeNode)) *start = n->id;
      }
      {
        // Sanitizer findings answer the questions a log alone cannot (race: shared hazard?).
        nlohmann::json findings = nlohmann::json::array();
        if (m_classification)
          for (const Finding& f : reportFindings(m_classification->sanitizer)) findings.push_back(toJson(f));
        return nlohmann::json{{"log", m_log.toStdString()}, {"findings", findings}};
      }
    case Subject::none:
      break;
  }
  return nullptr;
}

void TroubleshootPanel::rewalk() {
  m_walk = TreeWalk{};
  if (m_tree) {
    std::string start;
    const nlohmann::json subject = subjectJson(&start);
    if (!subject.is_null()) {
      try {
        m_walk = walkTree(*m_tree, subject, m_userAnswers, start);
      } catch (const std::exception& e) {
        m_walk.error = e.what();
      }
    }
  }
  showWalk();
}

void TroubleshootPanel::showWalk() {
  const QColor pathColor = withAlpha(stateColor(kStateOverlapped), 90);
  const QColor endColor =
      withAlpha(m_walk.complete ? verdictColor(Verdict::ok) : verdictColor(Verdict::slow), 130);
  m_highlighted = m_tree ? highlightWalk(m_treeView, *m_tree, m_walk, pathColor, endColor) : QStringList();
  // The report's device and kernel language; a pasted log has neither: every example.
  TreeTextContext text;
  if (m_report && m_subject != Subject::log)
    text = treeTextContext(*m_report);
  else
    text.language.clear();
  m_fixView->setHtml(m_walk.complete && m_walk.leaf ? leafHtml(renderLeaf(*m_walk.leaf, text)) : QString());
  if (!m_walk.complete && !m_walk.stoppedAt.empty())
    m_fixView->setHtml(
        tr("<p><i>No fix yet: the walk stopped at an open question. Answer it above.</i></p>"));
  rebuildAnswerButtons();
  m_status->setText(statusText());
  m_status->setToolTip(m_status->text());
  m_classLabel->setText(classificationText());
  m_resetButton->setEnabled(!m_userAnswers.empty());
  m_backButton->setVisible(m_subject == Subject::log && m_report);
  if (!m_highlighted.isEmpty()) {
    QTreeWidgetItem* end = findOutlineItem(m_treeView, m_highlighted.front());
    // Select the last marked item so the details pane shows where the walk ended.
    for (int i = 1; end && i < m_highlighted.size(); ++i) {
      QTreeWidgetItem* next = nullptr;
      for (int c = 0; c < end->childCount() && !next; ++c)
        if (end->child(c)->data(0, kOnPathRole).toBool() &&
            end->child(c)->data(0, kNodeIdRole).toString() == m_highlighted[i])
          next = end->child(c);
      end = next;
    }
    if (end) m_treeView->setCurrentItem(end);
  } else {
    m_details->clear();
  }
}

void TroubleshootPanel::rebuildAnswerButtons() {
  while (QLayoutItem* it = m_answersLayout->takeAt(0)) {
    delete it->widget();
    delete it;
  }
  const bool open = !m_walk.complete && !m_walk.stoppedAt.empty() && !m_walk.openAnswers.empty();
  m_questionBox->setVisible(open);
  if (!open) return;
  const TreeNode* node = m_tree ? m_tree->find(m_walk.stoppedAt) : nullptr;
  m_questionLabel->setText(
      QStringLiteral("<b>%1</b><br>%2")
          .arg(node ? qs(node->title).toHtmlEscaped() : QString(), qs(m_walk.openQuestion).toHtmlEscaped()));
  for (const TreeAnswer& a : m_walk.openAnswers) {
    auto* b = new QPushButton(qs(a.label), m_questionBox);
    b->setObjectName(QStringLiteral("answer:") + qs(a.id));
    const QString id = qs(a.id);
    connect(b, &QPushButton::clicked, this, [this, id] { answerOpenQuestion(id); });
    m_answersLayout->addWidget(b);
  }
}

QList<QPushButton*> TroubleshootPanel::answerButtons() const {
  QList<QPushButton*> out;
  for (int i = 0; i < m_answersLayout->count(); ++i)
    if (auto* b = qobject_cast<QPushButton*>(m_answersLayout->itemAt(i)->widget())) out << b;
  return out;
}

void TroubleshootPanel::showItemDetails(QTreeWidgetItem* item) {
  if (!item || !m_tree) {
    m_details->clear();
    return;
  }
  const std::string id = item->data(0, kNodeIdRole).toString().toStdString();
  const int step = item->data(0, kStepRole).toInt();
  QString text;
  if (const TreeNode* n = m_tree->find(id)) {
    text = tr("%1  [%2]\n").arg(qs(n->title), qs(n->id));
    if (!n->question.empty()) text += tr("Question: %1\n").arg(qs(n->question));
    if (n->isLeaf()) text += tr("Fix: %1\n").arg(qs(n->fix));
  }
  if (step >= 0 && step < static_cast<int>(m_walk.steps.size())) {
    const TreeStep& s = m_walk.steps[step];
    const TreeNode* node = m_tree->find(s.node);
    const TreeAnswer* answer = node ? node->answer(s.answer) : nullptr;
    text += tr("\nAnswer: %1 → %2 (%3)\n\nEvidence:\n")
                .arg(qs(answer ? answer->label : s.answer), qs(answer ? answer->next : std::string()),
                     s.automatic ? tr("from the evidence") : tr("your answer"));
    text += evidenceText(s);
  } else if (item->data(0, kOnPathRole).toBool() && !m_walk.complete) {
    text += tr("\nThe walk stopped here: the evidence does not answer this question.");
  }
  m_details->setPlainText(text);
}

QString TroubleshootPanel::detailsText() const { return m_details->toPlainText(); }

QString TroubleshootPanel::fixText() const {
  return m_walk.complete && m_walk.leaf ? m_fixView->toPlainText() : QString();
}

QString TroubleshootPanel::statusText() const {
  if (!m_tree) return m_treeError;
  QString what;
  switch (m_subject) {
    case Subject::none:
      return tr("Open a report, or paste an error below.");
    case Subject::report:
      what = tr("the report (%1, with its recorded tree path)").arg(qs(m_report->verb));
      break;
    case Subject::point:
      what = m_report && m_point < static_cast<int>(m_report->points.size())
                 ? tr("point %1 (%2)").arg(m_point).arg(qs(m_report->points[m_point].label))
                 : tr("no point");
      break;
    case Subject::log:
      what = tr("the pasted log");
      break;
  }
  QString text = tr("Walking %1: ").arg(what);
  if (!m_walk.error.empty()) text += tr("error: %1. ").arg(qs(m_walk.error));
  if (m_walk.complete && m_walk.leaf)
    text += tr("%1 steps to the fix “%2”.").arg(m_walk.steps.size()).arg(qs(m_walk.leaf->title));
  else if (!m_walk.stoppedAt.empty())
    text += tr("%1 steps, then an open question the evidence cannot answer.").arg(m_walk.steps.size());
  else
    text += tr("nothing to walk.");
  if (!m_walk.experiments.empty()) {
    QStringList ex;
    for (const auto& e : m_walk.experiments) ex << qs(e);
    text += tr(" Experiments that would answer it: %1.").arg(ex.join(QStringLiteral(", ")));
  }
  return text;
}

QString TroubleshootPanel::classificationText() const {
  if (!m_classification) return tr("Paste an error to classify it and walk the tree from where it points.");
  const Classification& c = *m_classification;
  if (!c.known()) {
    if (c.candidates.empty()) return tr("No rule matched: walking from the root. %1").arg(qs(c.matched));
    QStringList near;
    for (const Candidate& k : c.candidates)
      near << tr("%1 (%2, %3)").arg(qs(k.category), qs(k.treeNode)).arg(k.confidence, 0, 'f', 2);
    return tr("Unknown: no rule is confident enough; walking from the root.\nNearest: %1")
        .arg(near.join(QStringLiteral("; ")));
  }
  return tr("Category: %1 · detail: %2 · source: %3 · confidence %4\nStarts at: %5\nMatched: %6")
      .arg(qs(c.category), qs(c.detail), qs(c.source))
      .arg(c.confidence, 0, 'f', 2)
      .arg(qs(c.treeNode), qs(c.matched.substr(0, 300)));
}

}  // namespace tilescope::ui
