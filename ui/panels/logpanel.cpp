#include "panels/logpanel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QUrlQuery>
#include <QVBoxLayout>

#include "models/qtconv.h"
#include "widgets/sourceview.h"

namespace tilescope::ui {

QList<LogDiagnostic> parseCompileLog(const QString& log) {
  // NVRTC/nvcc (EDG front end): "file(42): error: msg"; gcc/clang/ptxas-style: "file:42:7: error: msg".
  static const QRegularExpression edg(
      QStringLiteral(R"(^(.+?)\((\d+)\):\s*(error|warning|remark)[^:]*:\s*(.*)$)"));
  static const QRegularExpression gnu(
      QStringLiteral(R"(^(.+?):(\d+):(?:\d+:)?\s*(error|warning|note):\s*(.*)$)"));
  QList<LogDiagnostic> out;
  const QStringList lines = log.split(QLatin1Char('\n'));
  for (const QString& l : lines) {
    QRegularExpressionMatch m = edg.match(l);
    if (!m.hasMatch()) m = gnu.match(l);
    if (!m.hasMatch()) continue;
    out.append({m.captured(1).trimmed(), m.captured(2).toInt(), m.captured(3), m.captured(4)});
  }
  return out;
}

LogPanel::LogPanel(Selection* selection, QWidget* parent) : QWidget(parent), m_selection(selection) {
  auto* split = new QSplitter(Qt::Vertical, this);
  m_log = new QTextBrowser(split);
  m_log->setOpenLinks(false);
  m_log->setLineWrapMode(QTextEdit::NoWrap);
  auto* sourceBox = new QWidget(split);
  auto* sl = new QVBoxLayout(sourceBox);
  sl->setContentsMargins(0, 0, 0, 0);
  m_sourceLabel = new QLabel(tr("Click an error in the log to open the kernel source."), sourceBox);
  m_source = new SourceView(sourceBox);  // line numbers, highlighting, the line centred
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  m_log->setFont(mono);
  m_source->setFont(mono);
  sl->addWidget(m_sourceLabel);
  sl->addWidget(m_source);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  connect(m_log, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    const QUrlQuery q(url);
    showSourceLine(q.queryItemValue(QStringLiteral("file")),
                   q.queryItemValue(QStringLiteral("line")).toInt());
  });
}

QString LogPanel::resolve(const QString& file) const {
  if (QFileInfo(file).isAbsolute()) return QFileInfo::exists(file) ? file : QString();
  for (const QString& d : m_sourceDirs) {
    const QString p = QDir(d).filePath(file);
    if (QFileInfo::exists(p)) return p;
  }
  return {};
}

bool LogPanel::showSourceLine(const QString& file, int line) {
  const QString path = resolve(file);
  if (path.isEmpty()) {
    m_sourceLabel->setText(tr("%1: not found in %2").arg(file, m_sourceDirs.join(QStringLiteral(", "))));
    return false;
  }
  if (path != m_sourcePath) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) {
      m_sourceLabel->setText(tr("%1: cannot read: %2").arg(path, f.errorString()));
      return false;
    }
    m_source->setPlainText(QString::fromUtf8(f.readAll()));
    m_sourcePath = path;
  }
  if (!m_source->showLine(line)) return false;
  m_highlighted = line;
  m_sourceLabel->setText(tr("%1, line %2").arg(path).arg(line));
  return true;
}

QString LogPanel::logHtml() const { return m_log->toHtml(); }

void LogPanel::showPoint(int point) {
  m_point = point;
  m_diagnostics.clear();
  if (!m_report || point < 0 || point >= static_cast<int>(m_report->points.size())) {
    m_log->clear();
    return;
  }
  const QString log = qs(m_report->points[static_cast<size_t>(point)].compile.log);
  m_diagnostics = parseCompileLog(log);
  QString html = QStringLiteral("<pre>");
  for (const QString& l : log.split(QLatin1Char('\n'))) {
    const QList<LogDiagnostic> d = parseCompileLog(l);
    if (d.isEmpty()) {
      html += l.toHtmlEscaped() + QLatin1Char('\n');
      continue;
    }
    QUrl url(QStringLiteral("source:"));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("file"), d.front().file);
    q.addQueryItem(QStringLiteral("line"), QString::number(d.front().line));
    url.setQuery(q);
    const QString colour =
        d.front().severity == QLatin1String("error") ? QStringLiteral("#e53935") : QStringLiteral("#fb8c00");
    html += QStringLiteral("<a href=\"%1\" style=\"color:%2\">%3</a>\n")
                .arg(url.toString(QUrl::FullyEncoded), colour, l.toHtmlEscaped());
  }
  html += QStringLiteral("</pre>");
  if (log.isEmpty()) html = tr("<i>(empty compile log)</i>");
  m_log->setHtml(html);
}

void LogPanel::onReportLoaded(const ReportPtr& report) {
  m_report = report;
  m_sourcePath.clear();
  m_source->clear();
  m_highlighted = -1;
  showPoint(m_selection ? m_selection->state().point : 0);
}

void LogPanel::onReportClosed() {
  m_report.reset();
  m_log->clear();
  m_source->clear();
  m_sourcePath.clear();
  m_diagnostics.clear();
}

void LogPanel::onSelectionChanged(const SelectionState& state) {
  if (state.point != m_point) showPoint(state.point);
}

}  // namespace tilescope::ui
