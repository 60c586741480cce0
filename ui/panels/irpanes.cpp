#include "panels/irpanes.h"

#include <QFileInfo>
#include <QLabel>
#include <QSet>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "models/qtconv.h"
#include "tilescope/analysis/stage_map.h"
#include "tilescope/export/document.h"
#include "widgets/irview.h"

namespace tilescope::ui {

namespace {

/// The panes in the order a kernel developer reads them; the last two only where present.
constexpr const char* kPaneOrder[] = {"sass", "ptx", "ttgir", "ttir", "llir"};
constexpr int kAlwaysListed = 3;

QString title(const std::string& name) { return qs(name).toUpper(); }

/// The stage's text as its pane shows it: SASS without nvdisasm's column padding,
/// line for line (the spans' line numbers hold).
QString displayText(const CompilerStage& st) {
  if (st.name != "sass") return qs(st.text);
  std::string out;
  out.reserve(st.text.size());
  const std::string_view text = st.text;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    out += compactSassLine(text.substr(at, nl - at));
    if (nl < text.size()) out += '\n';
    at = nl + 1;
  }
  return qs(out);
}

bool anyPresent(const StagesInfo& s) {
  for (const CompilerStage& st : s.stages)
    if (st.present) return true;
  return false;
}

}  // namespace

IrPanes::IrPanes(QWidget* parent) : QWidget(parent) {
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setObjectName(QStringLiteral("irSummary"));
  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_summary);
  layout->addWidget(m_tabs, 1);
  clear();
}

void IrPanes::clear() {
  m_report.reset();
  m_stagesPoint = -1;
  m_context.clear();
  m_sassMarks.clear();
  m_panes.clear();
  while (m_tabs->count() > 0) {
    QWidget* w = m_tabs->widget(0);
    m_tabs->removeTab(0);
    delete w;
  }
  m_summary->clear();
  setVisible(false);
}

const Point* IrPanes::shownPoint() const {
  if (!m_report || m_stagesPoint < 0 || m_stagesPoint >= int(m_report->points.size())) return nullptr;
  return &m_report->points[std::size_t(m_stagesPoint)];
}

bool IrPanes::setPoint(const ReportPtr& report, int point) {
  int chosen = -1;
  if (report && point >= 0 && point < int(report->points.size()) &&
      anyPresent(report->points[std::size_t(point)].stages))
    chosen = point;
  for (int i = 0; report && chosen < 0 && i < int(report->points.size()); ++i)
    if (anyPresent(report->points[std::size_t(i)].stages)) chosen = i;
  if (report == m_report && chosen == m_stagesPoint) return hasStages();
  clear();
  if (chosen < 0) return false;
  m_report = report;
  m_stagesPoint = chosen;
  const Point& p = *shownPoint();
  m_context = tr("Compiler stages of point %1%2: %3 for %4")
                  .arg(qs(pointLabel(p)), chosen == point ? QString() : tr(" (the shown point has none)"),
                       qs(p.stages.compiler), qs(p.stages.arch));
  if (!p.stages.note.empty()) m_context += QStringLiteral("; ") + qs(p.stages.note);
  for (int i = 0; i < int(std::size(kPaneOrder)); ++i) {
    const CompilerStage* st = p.stages.stage(kPaneOrder[i]);
    if (st && (st->present || i < kAlwaysListed)) addPane(*st);
  }
  m_sassMarks = sassMarks(p);
  if (IrView* sass = pane(QStringLiteral("sass"))) sass->setMarks(marksOf(m_sassMarks));
  m_summary->setText(m_context);
  setVisible(true);
  return true;
}

void IrPanes::addPane(const CompilerStage& st) {
  const QString name = qs(st.name);
  if (!st.present) {
    // Absent, not empty: the tab is there, disabled, and says why.
    auto* why = new QLabel(tr("%1: absent. %2").arg(title(st.name), qs(st.absent)), this);
    why->setWordWrap(true);
    why->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    const int at = m_tabs->addTab(why, tr("%1 (absent)").arg(title(st.name)));
    m_tabs->setTabEnabled(at, false);
    m_tabs->setTabToolTip(at, qs(st.absent));
    return;
  }
  auto* view = new IrView(this);
  view->setObjectName(name + QStringLiteral("Pane"));
  view->setStageText(displayText(st));
  connect(view, &IrView::lineActivated, this, [this, name](int line) { onPaneLine(name, line); });
  m_panes.insert(name, view);
  const int at = m_tabs->addTab(view, title(st.name));
  m_tabs->setTabToolTip(at, st.clipped ? tr("%1 lines, %2 bytes; the first %3 bytes shown")
                                             .arg(st.lines)
                                             .arg(st.bytes)
                                             .arg(qulonglong(st.text.size()))
                                       : tr("%1 lines").arg(st.lines));
}

QMap<int, SourceMark> IrPanes::marksOf(const std::vector<StageMark>& all) {
  QMap<int, SourceMark> marks;
  for (const StageMark& m : all) {
    SourceMark& s = marks[m.textLine];
    s.severity = std::max(s.severity, m.severity);
    s.glyph = true;
    s.notes << qs(m.note);
  }
  // The tag repeats the glyph's meaning in words: colour never carries it alone.
  for (const auto& [line, tag] : stageMarkTags(all)) marks[line].tag = QStringLiteral("\u25c0 ") + qs(tag);
  return marks;
}

void IrPanes::followSource(const QString& file, int line) {
  const Point* p = shownPoint();
  if (!p) return;
  const std::string f = QFileInfo(file).fileName().toStdString();
  for (auto it = m_panes.begin(); it != m_panes.end(); ++it) {
    const CompilerStage* st = p->stages.stage(it.key().toStdString());
    const std::vector<int> lines = st ? stageLinesOf(*st, f, line) : std::vector<int>{};
    // The SASS pane opens on the line's first marked instruction: a finding's store, say.
    int anchor = 0;
    for (int l : lines)
      if (!anchor && it.value()->marks().contains(l)) anchor = l;
    it.value()->follow(QList<int>(lines.begin(), lines.end()), anchor);
  }
  const StageLineSummary* l = p->stages.find(f, line);
  const QString where = QStringLiteral("%1:%2").arg(qs(f)).arg(line);
  m_summary->setText(
      (l ? tr("%1: %2").arg(where, qs(stageLineSummaryText(*l)))
         : tr("%1: no instructions (a declaration, a comment, or code the compiler moved or removed)")
               .arg(where)) +
      markedText() + QLatin1Char('\n') + m_context);
}

void IrPanes::onPaneLine(const QString& stage, int line) {
  const Point* p = shownPoint();
  const CompilerStage* st = p ? p->stages.stage(stage.toStdString()) : nullptr;
  if (!st) return;
  if (const StageSpan* span = stageSpanAt(*st, line)) {
    emit sourceLineActivated(qs(span->file), span->line);
    return;
  }
  m_summary->setText(
      tr("%1 line %2: no source line (a directive, a label, or code the compiler gave no line)")
          .arg(title(st->name))
          .arg(line) +
      QLatin1Char('\n') + m_context);
}

QString IrPanes::markedText() const {
  // What the SASS pane marks among the line's instructions, said where a narrow pane
  // cannot show the tags: "; marked: 13× oob_write (trace), 1× oob_write (finding, trace)".
  // PC sampling's hot instructions are summed into one part: "12× hot, 24.3 % of the
  // kernel's samples (short_scoreboard 8, wait 4)", their top stall reasons, most first.
  const IrView* sass = pane(QStringLiteral("sass"));
  if (!sass) return {};
  const QList<int> related = sass->relatedLines();
  std::vector<StageMark> plain;
  QSet<int> hotLines;
  double hotShare = 0;
  QStringList reasons;
  QMap<QString, int> reasonCount;
  for (const StageMark& m : m_sassMarks) {
    if (!related.contains(m.textLine)) continue;
    if (!m.sampled) {
      plain.push_back(m);
      continue;
    }
    hotLines.insert(m.textLine);
    const QString label = qs(m.label);  // "hot 3.4 % short_scoreboard"
    hotShare += label.section(QLatin1Char(' '), 1, 1).toDouble();
    const QString reason = label.section(QLatin1Char(' '), 3, 3);
    if (reason.isEmpty()) continue;
    if (!reasonCount.contains(reason)) reasons << reason;
    ++reasonCount[reason];
  }
  QStringList tags;
  QMap<QString, int> count;
  for (const auto& [line, tag] : stageMarkTags(plain)) {
    const QString t = qs(tag);
    if (!count.contains(t)) tags << t;
    ++count[t];
  }
  QStringList parts;
  for (const QString& t : std::as_const(tags)) parts << QStringLiteral("%1× %2").arg(count.value(t)).arg(t);
  if (!hotLines.isEmpty()) {
    std::stable_sort(reasons.begin(), reasons.end(),
                     [&](const QString& a, const QString& b) { return reasonCount[a] > reasonCount[b]; });
    QStringList why;
    for (const QString& r : std::as_const(reasons)) why << QStringLiteral("%1 %2").arg(r).arg(reasonCount[r]);
    parts << tr("%1× hot, %2 % of the kernel's samples%3")
                 .arg(hotLines.size())
                 .arg(QString::number(hotShare, 'f', 1))
                 .arg(why.isEmpty() ? QString()
                                    : QStringLiteral(" (%1)").arg(why.join(QStringLiteral(", "))));
  }
  return parts.isEmpty() ? QString() : tr("; marked in the SASS: %1").arg(parts.join(QStringLiteral(", ")));
}

QString IrPanes::summaryText() const { return m_summary->text(); }

}  // namespace tilescope::ui
