#include "panels/sourcepanel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QVBoxLayout>
#include <algorithm>

#include "models/qtconv.h"
#include "panels/irpanes.h"
#include "tilescope/base/resources.h"
#include "tilescope/diagnose/headline.h"
#include "tilescope/diagnose/tree.h"

namespace tilescope::ui {

namespace {
bool sameFile(const std::string& a, const QString& b) {
  return !a.empty() && QFileInfo(qs(a)).fileName() == QFileInfo(b).fileName();
}

void note(QMap<int, SourceMark>& marks, int line, int severity, const QString& text) {
  if (line <= 0) return;
  SourceMark& m = marks[line];
  m.severity = std::max(m.severity, severity);
  m.notes << text;
  m.glyph = true;
}

/// PC sampling's samples per line (ncu's Source page): the share and the stall reasons.
void addSamples(QMap<int, SourceMark>& marks, const PcSamplingInfo& pc, const QString& file) {
  if (!pc.collected || pc.totalSamples <= 0) return;
  for (const HotLine& l : pc.lines) {
    if (l.line <= 0 || !sameFile(l.file, file)) continue;
    SourceMark& m = marks[l.line];
    m.samples += l.samples;
    m.sampleShare = double(m.samples) / double(pc.totalSamples);
    QStringList stalls;
    for (const StallCount& st : l.stalls)
      stalls << QStringLiteral("%1 %2%")
                    .arg(qs(st.reason))
                    .arg(QString::number(
                        100.0 * double(st.samples) / double(std::max<std::int64_t>(l.samples, 1)), 'f', 0));
    m.notes << QObject::tr("%1 PC samples, %2% of the kernel's%3")
                   .arg(l.samples)
                   .arg(QString::number(100.0 * double(l.samples) / double(pc.totalSamples), 'f', 1))
                   .arg(stalls.isEmpty()
                            ? QString()
                            : QObject::tr("; stalls: %1").arg(stalls.join(QStringLiteral(", "))));
  }
}

}  // namespace

QStringList SourcePanel::zooDirs() {
  QStringList out;
  for (const QString& root :
       {QDir(QString::fromStdString(resourceDir().string())).filePath(QStringLiteral("../kernels")),
        QStringLiteral(TILESCOPE_SOURCE_RESOURCE_DIR "/../kernels")}) {
    const QDir d(root);
    for (const QString& sub : d.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
      out << d.filePath(sub);
  }
  return out;
}

SourcePanel::SourcePanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
  m_label = new QLabel(this);
  m_label->setWordWrap(true);
  m_split = new QSplitter(Qt::Horizontal, this);
  m_view = new SourceView(m_split);
  m_ir = new IrPanes(m_split);
  m_split->addWidget(m_view);
  m_split->addWidget(m_ir);
  m_split->setStretchFactor(0, 1);
  m_split->setStretchFactor(1, 1);
  m_split->setChildrenCollapsible(false);
  clear();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_label);
  layout->addWidget(m_split, 1);
  // Both ways: the source cursor drives the panes; a person's line in a pane, the source.
  connect(m_view, &QPlainTextEdit::cursorPositionChanged, this, &SourcePanel::followCursor);
  connect(m_ir, &IrPanes::sourceLineActivated, this,
          [this](const QString& file, int line) { showSourceLine(file, line); });
  connect(m_split, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });
}

void SourcePanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitSplit();
}

void SourcePanel::fitSplit() {
  if (m_ir->isHidden() || m_userSplit) return;
  const int total = m_split->width() - m_split->handleWidth();
  // Every line of the kernel whole where it fits: the panes keep 44 columns, the source a third.
  const int need = m_widest + m_view->marginWidth() + 2 * m_view->frameWidth() +
                   2 * int(m_view->document()->documentMargin()) +
                   m_view->verticalScrollBar()->sizeHint().width() + 8;
  const int minIr = m_view->fontMetrics().horizontalAdvance(QLatin1Char('9')) * 44;
  const int src = std::max(std::min(need, total - minIr), total / 3);
  m_split->setSizes({src, total - src});
}

void SourcePanel::followCursor() {
  if (m_path.isEmpty() || !m_ir->hasStages()) {
    m_view->setRelatedLines({});
    return;
  }
  const int line = m_view->cursorLine();
  m_view->setRelatedLines({line});
  m_ir->followSource(m_path, line);
  fitSplit();
}

QString SourcePanel::statusText() const { return m_label->text(); }

QString SourcePanel::resolve(const QString& file) const {
  if (QFileInfo(file).isAbsolute() && QFileInfo(file).isFile()) return file;
  // An absolute path of the recording machine (a hot line's): looked for by its name.
  const QString name = QFileInfo(file).isAbsolute() ? QFileInfo(file).fileName() : file;
  QStringList dirs = m_sourceDirs;
  dirs << zooDirs();
  for (const QString& d : std::as_const(dirs)) {
    const QString p = QDir(d).filePath(name);
    if (QFileInfo(p).isFile()) return QDir::cleanPath(p);
  }
  return {};
}

bool SourcePanel::showSourceLine(const QString& file, int line) {
  const QString path = resolve(file);
  if (path.isEmpty()) {
    m_label->setText(tr("%1: not found beside the report or config, nor in the kernels folder").arg(file));
    return false;
  }
  if (path != m_path) {
    QFile f(path);
    // A kernel source is small; refuse what is plainly not one.
    if (f.size() > (qint64(8) << 20) || !f.open(QIODevice::ReadOnly | QIODevice::Text)) {
      m_label->setText(
          tr("%1: cannot read: %2")
              .arg(path, f.size() > (qint64(8) << 20) ? tr("larger than 8 MiB") : f.errorString()));
      return false;
    }
    m_view->setPlainText(QString::fromUtf8(f.readAll()));
    m_widest = 0;
    for (QTextBlock b = m_view->document()->begin(); b.isValid(); b = b.next())
      m_widest = std::max(m_widest, m_view->fontMetrics().horizontalAdvance(b.text()));
    m_path = path;
    m_file = file;
    refreshMarks();
  }
  const bool ok = m_view->showLine(line);
  m_label->setText(ok ? tr("%1, line %2").arg(path).arg(line) : tr("%1 has no line %2").arg(path).arg(line));
  return ok;
}

QMap<int, SourceMark> SourcePanel::marksFor(const Point& p, const QString& file) {
  QMap<int, SourceMark> marks;
  for (const Finding& f : p.findings)
    if (f.location.line && sameFile(f.location.file, file))
      note(marks, *f.location.line,
           f.severity == Severity::error     ? 2
           : f.severity == Severity::warning ? 1
                                             : 0,
           QStringLiteral("%1: %2").arg(qs(f.category), qs(f.message).left(200)));
  for (const TraceLine& l : p.trace.lines) {
    if (!sameFile(l.file, file)) continue;
    if (l.faults) note(marks, l.line, 2, tr("%1 bad access(es) (trace)").arg(l.faults));
    if (l.hazards) note(marks, l.line, 2, tr("%1 shared-memory hazard(s) (trace)").arg(l.hazards));
    if (l.uninit) note(marks, l.line, 2, tr("%1 read(s) of never-written memory (trace)").arg(l.uninit));
    if (l.maxWays > 1)
      note(marks, l.line, 1,
           tr("bank conflicts: up to %1-way, %2 wavefronts for %3 ideal (trace)")
               .arg(l.maxWays)
               .arg(l.wavefronts)
               .arg(l.ideal));
    if (l.accesses > 0)
      note(marks, l.line, 0,
           tr("%1 %2 access(es), %3 bytes, executed %4× by warps (trace)")
               .arg(l.accesses)
               .arg(qs([&] {
                 std::string s;
                 for (const auto& sp : l.spaces) s += (s.empty() ? "" : "/") + sp;
                 return s;
               }()))
               .arg(l.bytes)
               .arg(l.executions));
  }
  addSamples(marks, p.counters.pcSampling, file);
  return marks;
}

MacroTable SourcePanel::macrosFor(const Report& report, const Point& p) {
  MacroTable macros;
  const auto text = [](const nlohmann::json& v) {
    if (v.is_boolean()) return QString::number(v.get<bool>() ? 1 : 0);
    if (v.is_string()) return qs(v.get<std::string>());
    return qs(v.dump());
  };
  const nlohmann::json* kernel =
      report.config.is_object() && report.config.contains("kernel") ? &report.config["kernel"] : nullptr;
  const nlohmann::json& defines =
      !p.defines.empty() || !kernel || !kernel->contains("defines") ? p.defines : (*kernel)["defines"];
  if (defines.is_object())
    for (const auto& [name, value] : defines.items()) macros.insert(qs(name), text(value));
  macros.insert(QStringLiteral("__CUDACC__"), QStringLiteral("1"));
  if (kernel && kernel->value("compiler", std::string()) == "nvrtc")
    macros.insert(QStringLiteral("__CUDACC_RTC__"), QStringLiteral("1"));
  // "9.0" -> 900: the device pass, the one that ran.
  if (const QStringList cc = qs(report.device.cc).split(QLatin1Char('.')); cc.size() == 2) {
    bool okMajor = false, okMinor = false;
    const int major = cc[0].toInt(&okMajor), minor = cc[1].toInt(&okMinor);
    if (okMajor && okMinor)
      macros.insert(QStringLiteral("__CUDA_ARCH__"), QString::number(major * 100 + minor * 10));
  }
  return macros;
}

void SourcePanel::refreshMarks() {
  if (!m_report || m_point < 0 || m_point >= static_cast<int>(m_report->points.size()) || m_file.isEmpty()) {
    m_view->setMarks({});
    m_view->setInactiveLines({});
    return;
  }
  const Point& p = m_report->points[static_cast<size_t>(m_point)];
  m_view->setMarks(marksFor(p, m_file));
  // A Python kernel (Triton) has no preprocessor: its "# if" is a comment.
  const bool preprocessed = !m_path.endsWith(QLatin1String(".py"), Qt::CaseInsensitive);
  m_view->setInactiveLines(preprocessed ? inactiveLines(m_view->toPlainText(), macrosFor(*m_report, p))
                                        : QSet<int>{});
}

QPair<QString, int> SourcePanel::headlineLine(const Report& report) {
  // The tree the verdict banner walks (MainWindow::verdictText): the same cause.
  static const std::shared_ptr<const Tree> tree = [] {
    try {
      return std::make_shared<const Tree>(loadDefaultTree());
    } catch (const std::exception&) {
      return std::shared_ptr<const Tree>();
    }
  }();
  const Headline h = reportHeadline(report, tree.get());
  if (!h.cause || !h.cause->location.line || h.cause->location.file.empty()) return {QString(), 0};
  return {qs(h.cause->location.file), *h.cause->location.line};
}

void SourcePanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_point = -1;
  m_ir->clear();
  // Another report: its own source opens at the line the verdict banner names, else
  // on the shown point's first located finding (onSelectionChanged).
  clear();
  if (m_report)
    if (const auto [file, line] = headlineLine(*m_report); line > 0) showSourceLine(file, line);
  onSelectionChanged(m_selection ? m_selection->state() : SelectionState{});
}

void SourcePanel::onReportClosed() {
  m_report.reset();
  m_point = -1;
  m_ir->clear();
  clear();
}

void SourcePanel::clear() {
  // The label names what the view shows: nothing, and how to open something.
  m_path.clear();
  m_file.clear();
  m_view->clear();
  m_view->setMarks({});
  m_view->setInactiveLines({});
  m_view->setRelatedLines({});
  m_label->setText(
      tr("Select a finding with a source line, a compile error or a hot line (Speed of Light) to open the "
         "kernel source."));
}

void SourcePanel::onSelectionChanged(const SelectionState& state) {
  if (state.point == m_point) return;
  m_point = state.point;
  if (!m_report || m_point < 0 || m_point >= static_cast<int>(m_report->points.size())) return;
  m_ir->setPoint(m_report, m_point);
  const Point& p = m_report->points[static_cast<size_t>(m_point)];
  // Nothing open yet: the point's first finding with a line (a traced fault, a compile error).
  if (m_path.isEmpty())
    for (const Finding& f : p.findings)
      if (f.location.line && !f.location.file.empty()) {
        showSourceLine(qs(f.location.file), *f.location.line);
        break;
      }
  // Else, as ncu's Source page: the hottest line of PC sampling.
  if (m_path.isEmpty() && p.counters.pcSampling.collected && !p.counters.pcSampling.lines.empty())
    showSourceLine(qs(p.counters.pcSampling.lines.front().file), p.counters.pcSampling.lines.front().line);
  // Else, with compiler stages (a check of a config): the line with the most SASS.
  if (m_path.isEmpty() && m_ir->hasStages()) {
    const auto& lines = m_report->points[static_cast<size_t>(m_ir->stagesPoint())].stages.lines;
    const auto busiest = std::max_element(lines.begin(), lines.end(),
                                          [](const auto& a, const auto& b) { return a.sass < b.sass; });
    if (busiest != lines.end() && busiest->sass > 0) showSourceLine(qs(busiest->file), busiest->line);
  }
  refreshMarks();
  followCursor();
}

}  // namespace tilescope::ui
