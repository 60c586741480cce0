#include "panels/runpanel.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QVBoxLayout>

#include "models/qtconv.h"
#include "models/resultmatrixmodel.h"
#include "panels/runstream.h"
#include "style/colors.h"
#include "tilescope/remote.h"

namespace tilescope::ui {

RunPanel::RunPanel(Selection* selection, QWidget* parent)
    : QWidget(parent), m_selection(selection), m_stream(new RunStream(this)), m_matrix(new ResultMatrixModel(this)) {
  m_run = new QPushButton(tr("Run"), this);
  m_sweep = new QPushButton(tr("Sweep"), this);
  m_diagnose = new QPushButton(tr("Diagnose"), this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_run->setToolTip(tr("tilescope-run run CONFIG --stream (F5)"));
  m_sweep->setToolTip(tr("tilescope-run sweep CONFIG --stream (Shift+F5)"));
  m_diagnose->setToolTip(tr("tilescope-run diagnose CONFIG --stream (F6): run, then the experiments "
                            "that locate the bug, each in its own worker"));
  m_remote = new QLineEdit(this);
  m_remote->setPlaceholderText(tr("local GPU (or a host: ssh HOST tilescope-run ...)"));
  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 1);
  m_progress->setValue(0);
  m_status = new QLabel(tr("Open a config to run it."), this);
  m_status->setWordWrap(true);
  m_pointStatus = new QListWidget(this);
  m_matrixView = new QTableView(this);
  m_matrixView->setModel(m_matrix);
  m_matrixView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_matrixView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_matrixView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_log = new QPlainTextEdit(this);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("tilescope-run's stderr"));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_sweep);
  buttons->addWidget(m_diagnose);
  buttons->addWidget(m_cancel);
  buttons->addWidget(m_progress, 1);
  auto* form = new QFormLayout;
  form->addRow(tr("Remote host"), m_remote);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_matrixView);
  split->addWidget(m_pointStatus);
  split->addWidget(m_log);
  split->setStretchFactor(0, 3);
  split->setSizes({300, 80, 120});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addLayout(form);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
  setRunning(false);

  connect(m_run, &QPushButton::clicked, this, &RunPanel::startRun);
  connect(m_sweep, &QPushButton::clicked, this, &RunPanel::startSweep);
  connect(m_diagnose, &QPushButton::clicked, this, &RunPanel::startDiagnose);
  connect(m_cancel, &QPushButton::clicked, this, &RunPanel::cancel);
  connect(m_remote, &QLineEdit::editingFinished, this, [this] { emit remoteHostChanged(remoteHost()); });
  connect(m_matrixView->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& idx) {
    const int point = idx.data(ResultMatrixModel::PointIndexRole).toInt();
    if (idx.isValid() && point >= 0 && m_selection) m_selection->setPoint(point);
  });
  connect(m_stream, &RunStream::progressAvailable, this, [this](int point, int total, const QString& msg) {
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(point);
    m_status->setText(tr("Point %1 of %2: %3").arg(point).arg(total).arg(msg));
  });
  connect(m_stream, &RunStream::pointAvailable, this, [this](const Point& p) {
    QListWidgetItem* item = nullptr;
    if (!p.experiment.empty()) {
      // diagnose: every capture is of point 0; one row per experiment, as in its report.
      Point row = p;
      row.index = m_streamedPoints;
      row.trial = 0;
      row.label = p.experiment + (p.label.empty() ? "" : " [" + p.label + "]");
      m_matrix->setPoint(row, m_streamedPoints++);
      item = new QListWidgetItem(tr("%1: %2, %3 finding(s)")
                                     .arg(qs(p.experiment), QString::fromLatin1(verdictName(p.verdict)))
                                     .arg(p.findings.size()), m_pointStatus);
    } else {
      m_matrix->setPoint(p, m_streamedPoints++);
      item = new QListWidgetItem(tr("%1 (trial %2): %3, %4 finding(s)")
                                     .arg(qs(p.label)).arg(p.trial).arg(QString::fromLatin1(verdictName(p.verdict)))
                                     .arg(p.findings.size()), m_pointStatus);
    }
    item->setBackground(verdictColor(p.verdict));
    item->setForeground(textColorOn(verdictColor(p.verdict)));
  });
  connect(m_stream, &RunStream::reportAvailable, this, [this](const std::shared_ptr<const Report>& r) {
    m_gotReport = true;
    m_status->setText(tr("Done: verdict %1 over %2 point(s)").arg(QString::fromLatin1(verdictName(r->verdict))).arg(r->points.size()));
    emit reportAvailable(r);
  });
  connect(m_stream, &RunStream::textAvailable, this, &RunPanel::appendLog);
  connect(m_stream, &RunStream::streamFailed, this, [this](const QString& m) { appendLog(m); fail(m); });
}

RunPanel::~RunPanel() {
  if (m_process) {
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(2000);
  }
}

void RunPanel::setConfigPath(const QString& path) {
  m_configPath = path;
  if (!isRunning()) setRunning(false);
  m_status->setText(path.isEmpty() ? tr("Open a config to run it.") : tr("Config: %1").arg(path));
}

void RunPanel::setRemoteHost(const QString& host) {
  m_remote->setText(host);
  emit remoteHostChanged(remoteHost());
}

QString RunPanel::remoteHost() const { return m_remote->text().trimmed(); }

QString RunPanel::runExecutable() {
  const QString local = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tilescope-run"));
  if (QFileInfo(local).isExecutable()) return local;
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("tilescope-run"));
  return onPath.isEmpty() ? QStringLiteral("tilescope-run") : onPath;
}

QStringList RunPanel::commandLine(const QString& verb) const {
  const QStringList args{verb, m_configPath, QStringLiteral("--stream")};
  if (remoteHost().isEmpty()) return QStringList{runExecutable()} + args;
  // Remote: the config path must exist at the same path there (shared file
  // system). The core builds the ssh command the CLI uses: the host checked,
  // `--` before it, the arguments quoted for the remote shell.
  if (!remoteHostProblem(remoteHost().toStdString()).empty()) return {};
  std::vector<std::string> remoteArgs;
  for (const QString& a : args) remoteArgs.push_back(a.toStdString());
  QStringList cmd;
  for (const std::string& a : sshCommand(remoteHost().toStdString(), remoteArgs)) cmd << QString::fromStdString(a);
  return cmd;
}

bool RunPanel::isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

void RunPanel::setRunning(bool running) {
  m_run->setEnabled(!running && !m_configPath.isEmpty());
  m_sweep->setEnabled(!running && !m_configPath.isEmpty());
  m_diagnose->setEnabled(!running && !m_configPath.isEmpty());
  m_cancel->setEnabled(running);
  m_remote->setEnabled(!running);
}

void RunPanel::appendLog(const QString& text) { m_log->appendPlainText(text); }

void RunPanel::start(const QString& verb) {
  if (isRunning() || m_configPath.isEmpty()) return;
  const QStringList cmd = commandLine(verb);
  if (cmd.isEmpty()) {  // a remote host ssh would misread (an option, a shell word)
    const QString msg = tr("remote host '%1': %2")
                            .arg(remoteHost(), QString::fromStdString(remoteHostProblem(remoteHost().toStdString())));
    m_status->setText(msg);
    emit runFailed(msg);
    return;
  }
  m_stream->reset();
  m_matrix->clear();
  m_pointStatus->clear();
  m_log->clear();
  m_streamedPoints = 0;
  m_progress->setRange(0, 0);  // busy until the first progress event names the total
  delete m_process;
  m_process = new QProcess(this);
  connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { m_stream->feed(m_process->readAllStandardOutput()); });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] {
    const QString text = QString::fromUtf8(m_process->readAllStandardError()).trimmed();
    appendLog(text);
    m_stderrTail << text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    while (m_stderrTail.size() > 4) m_stderrTail.removeFirst();
  });
  connect(m_process, &QProcess::errorOccurred, this, [this, cmd](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    setRunning(false);
    fail(tr("could not start %1: %2").arg(cmd.front(), m_process->errorString()));
  });
  connect(m_process, &QProcess::finished, this, &RunPanel::finished);
  m_verb = verb;
  m_stderrTail.clear();
  m_gotReport = m_cancelled = m_failed = false;
  emit runStarted(verb);
  appendLog(QStringLiteral("$ ") + cmd.join(QLatin1Char(' ')));
  m_status->setText(tr("Starting %1 …").arg(verb));
  setRunning(true);
  m_process->start(cmd.front(), cmd.mid(1));
}

void RunPanel::finished(int code, QProcess::ExitStatus status) {
  m_stream->feed(m_process->readAllStandardOutput());
  m_stream->finish();
  setRunning(false);
  m_progress->setRange(0, 1);
  if (m_cancelled) {
    m_progress->setValue(0);
    m_status->setText(tr("%1 cancelled").arg(m_verb));
  } else if (status == QProcess::CrashExit) {
    fail(tr("tilescope-run %1 crashed%2").arg(m_verb, m_stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + m_stderrTail.last()));
  } else if (const QString msg = failureMessage(m_verb, code, m_gotReport, m_stderrTail.join(QLatin1Char(' ')), !remoteHost().isEmpty());
             !msg.isEmpty()) {
    fail(msg);
  } else {
    m_progress->setValue(1);
  }
  emit runFinished(status == QProcess::CrashExit ? -1 : code);
}

QString RunPanel::failureMessage(const QString& verb, int code, bool gotReport, const QString& stderrTail, bool remote) {
  const QString tail = stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + stderrTail;
  // 0 and 1 complete with a report (1: findings, shown as the verdict); anything else is a failure.
  if ((code == kExitOk || code == kExitFindings) && gotReport) return {};
  if (code == kExitOk || code == kExitFindings) return tr("%1 ended (exit %2) without a report%3").arg(verb).arg(code).arg(tail);
  if (code == kExitUsage) return tr("%1: usage or configuration error (exit 2)%2").arg(verb, tail);
  if (code == kExitNoGpu) return tr("%1: no GPU or CUDA on the machine it ran on (exit 3)%2").arg(verb, tail);
  if (remote && code == 255) return tr("%1: ssh failed (exit 255)%2").arg(verb, tail);
  if (code == 127) return tr("%1: tilescope-run not found%2 (exit 127)").arg(verb, remote ? tr(" on the remote host") : QString()) + tail;
  return tr("%1 failed: %2%3").arg(verb, qs(exitStatusText(code)), tail);
}

void RunPanel::fail(const QString& message) {
  m_failed = true;
  m_progress->setRange(0, 1);
  m_progress->setValue(0);  // a failed run is not 100 % done
  m_status->setText(tr("\u2716 %1").arg(message));
  emit runFailed(message);
}

QString RunPanel::statusText() const { return m_status->text(); }
int RunPanel::progressValue() const { return m_progress->value(); }
int RunPanel::progressMaximum() const { return m_progress->maximum(); }

void RunPanel::cancel() {
  if (!isRunning()) return;
  m_cancelled = true;
  appendLog(tr("cancelled"));
  m_process->kill();
}

void RunPanel::onReportLoaded(const ReportPtr& report) {
  if (report) m_matrix->setReport(*report);
  // Another report replaces a failed run's status: it no longer describes what is shown.
  if (m_failed && !isRunning()) {
    m_failed = false;
    m_progress->setValue(0);
    m_status->setText(m_configPath.isEmpty() ? tr("Open a config to run it.") : tr("Config: %1").arg(m_configPath));
  }
}

void RunPanel::onReportClosed() { m_matrix->clear(); }

void RunPanel::onSelectionChanged(const SelectionState& state) {
  const QModelIndex idx = m_matrix->indexForPoint(state.point);
  if (idx.isValid() && idx != m_matrixView->currentIndex()) {
    const QSignalBlocker block(m_matrixView->selectionModel());
    m_matrixView->setCurrentIndex(idx);
  }
}

}  // namespace tilescope::ui
