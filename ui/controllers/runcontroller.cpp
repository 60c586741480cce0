#include "controllers/runcontroller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

#include "controllers/runstream.h"
#include "models/qtconv.h"
#include "tilescope/base/format.h"
#include "tilescope/run/remote.h"

namespace tilescope::ui {

RunController::RunController(QObject* parent) : QObject(parent), m_stream(new RunStream(this)) {
  connect(m_stream, &RunStream::reportAvailable, this, [this](const std::shared_ptr<const Report>& r) {
    m_gotReport = true;
    emit reportAvailable(r);
  });
  // A capture's result is its capture_done event: what a report is to a run.
  connect(m_stream, &RunStream::captureFinished, this, [this] { m_gotReport = true; });
  connect(m_stream, &RunStream::textAvailable, this, &RunController::logAvailable);
  connect(m_stream, &RunStream::streamFailed, this, [this](const QString& m) {
    emit logAvailable(m);
    emit runFailed(m);
  });
}

RunController::~RunController() {
  if (!m_process) return;
  m_process->disconnect(this);
  // A capture's program runs in a process group of its own: SIGTERM lets
  // tilescope-run stop it and write capture.json; SIGKILL would leave it running.
  if (m_verb == QLatin1String("capture") && m_process->state() != QProcess::NotRunning) {
    m_process->terminate();
    if (m_process->waitForFinished(3000)) return;
  }
  m_process->kill();
  m_process->waitForFinished(2000);
}

void RunController::setRemoteHost(const QString& host) {
  const QString h = host.trimmed();
  if (h == m_remoteHost) return;
  m_remoteHost = h;
  emit remoteHostChanged(m_remoteHost);
}

void RunController::setSlurm(bool on) {
  if (on == m_slurm) return;
  m_slurm = on;
  emit slurmChanged(on);
}

void RunController::setSbatchOptions(const QString& options) { m_sbatchOptions = options.trimmed(); }

QString RunController::runExecutable() {
  const QString local =
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("tilescope-run"));
  if (QFileInfo(local).isExecutable()) return local;
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("tilescope-run"));
  return onPath.isEmpty() ? QStringLiteral("tilescope-run") : onPath;
}

QStringList RunController::commandLine(const QString& verb) const {
  QStringList cmd{m_exe.isEmpty() ? runExecutable() : m_exe, verb, m_configPath, QStringLiteral("--stream")};
  if (m_slurm) {
    // A job array of this sweep's shards; tilescope-run follows it and merges
    // the parts (tests/cli/slurm.sh runs it against a real slurmctld).
    if (verb != QLatin1String("sweep")) return {};
    cmd << QStringLiteral("--slurm");
    if (!m_sbatchOptions.isEmpty()) cmd << QStringLiteral("--sbatch=") + m_sbatchOptions;
    return cmd;
  }
  if (m_remoteHost.isEmpty()) return cmd;
  // Remote: this machine's tilescope-run copies the config's files to the host
  // and starts the workers there through ssh (`--remote`, docs/protocol.md).
  // The host is checked here too: a hostile one gives no command at all.
  if (!remoteHostProblem(m_remoteHost.toStdString()).empty()) return {};
  return cmd << QStringLiteral("--remote") << m_remoteHost;
}

bool RunController::isRunning() const { return m_running; }

void RunController::setRunning(bool running) {
  m_running = running;
  emit runningChanged(running);
}

void RunController::start(const QString& verb) {
  if (isRunning() || m_configPath.isEmpty()) return;
  const QStringList cmd = commandLine(verb);
  if (cmd.isEmpty() && m_slurm) {
    emit runFailed(tr("%1 does not go to Slurm: only sweeps do (untick Slurm to %1 here)").arg(verb));
    return;
  }
  if (cmd.isEmpty()) {  // a remote host ssh would misread (an option, a shell word)
    emit runFailed(
        tr("remote host '%1': %2").arg(m_remoteHost, qs(remoteHostProblem(m_remoteHost.toStdString()))));
    return;
  }
  launch(verb, cmd);
}

void RunController::startCapture(const QStringList& arguments) {
  if (isRunning()) return;
  launch(QStringLiteral("capture"),
         QStringList{m_exe.isEmpty() ? runExecutable() : m_exe, QStringLiteral("capture")} + arguments);
}

QString RunController::shellCommandLine(const QStringList& cmd) {
  // The echoed line is copied into a terminal: "python3 -c 'print(1)'" must stay one argument.
  static const QRegularExpression bare(QStringLiteral("^[A-Za-z0-9_./=:,@%+^-]+$"));
  QStringList words;
  for (const QString& w : cmd) words << (bare.match(w).hasMatch() ? w : qs(shellQuote(w.toStdString())));
  return words.join(QLatin1Char(' '));
}

void RunController::launch(const QString& verb, const QStringList& cmd) {
  m_stream->reset();
  delete m_process;
  m_process = new QProcess(this);
  connect(m_process, &QProcess::readyReadStandardOutput, this,
          [this] { m_stream->feed(m_process->readAllStandardOutput()); });
  connect(m_process, &QProcess::readyReadStandardError, this,
          [this] { takeStderr(m_process->readAllStandardError(), false); });
  connect(m_process, &QProcess::errorOccurred, this, [this, cmd](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    setRunning(false);
    emit runFailed(tr("could not start %1: %2").arg(cmd.front(), m_process->errorString()));
  });
  connect(m_process, &QProcess::finished, this, &RunController::finished);
  m_verb = verb;
  m_stderrTail.clear();
  m_stderrPending.clear();
  m_gotReport = m_cancelled = false;
  emit runStarted(verb);
  emit logAvailable(QStringLiteral("$ ") + shellCommandLine(cmd));
  setRunning(true);
  m_process->start(cmd.front(), cmd.mid(1));
}

void RunController::takeStderr(const QByteArray& bytes, bool last) {
  // Whole lines only: a chunk of the pipe may end inside a line (or a UTF-8
  // character), and each logAvailable is a paragraph of the log.
  m_stderrPending += bytes;
  const qsizetype end = last ? m_stderrPending.size() : m_stderrPending.lastIndexOf('\n') + 1;
  if (end <= 0) return;
  const QString text = QString::fromUtf8(m_stderrPending.left(end)).trimmed();
  m_stderrPending.remove(0, end);
  if (text.isEmpty()) return;
  emit logAvailable(text);
  m_stderrTail << text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  while (m_stderrTail.size() > 4) m_stderrTail.removeFirst();
}

void RunController::finished(int code, QProcess::ExitStatus status) {
  takeStderr(m_process->readAllStandardError(), true);
  m_stream->feed(m_process->readAllStandardOutput());
  m_stream->finish();
  setRunning(false);
  if (m_cancelled) {
    emit runCancelled();
  } else if (status == QProcess::CrashExit) {
    emit runFailed(
        tr("tilescope-run %1 crashed%2")
            .arg(m_verb, m_stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + m_stderrTail.last()));
  } else if (m_slurm && code == kExitNoGpu) {
    // The merged report (when there is one) has arrived: it says which points were not captured and why.
    const QString tail = m_stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + m_stderrTail.last();
    emit runFailed(
        m_gotReport
            ? tr("sweep on Slurm: not every point was captured (exit 3)%1").arg(tail)
            : tr("sweep on Slurm: Slurm's tools not found here, or the job failed (exit 3)%1").arg(tail));
  } else if (const QString msg = failureMessage(m_verb, code, m_gotReport,
                                                m_stderrTail.join(QLatin1Char(' ')), !m_remoteHost.isEmpty());
             !msg.isEmpty()) {
    emit runFailed(msg);
  }
  emit runFinished(status == QProcess::CrashExit ? -1 : code);
}

QString RunController::failureMessage(const QString& verb, int code, bool gotReport,
                                      const QString& stderrTail, bool remote) {
  const QString tail = stderrTail.isEmpty() ? QString() : QStringLiteral(": ") + stderrTail;
  // 0 and 1 complete with a report (1: findings, shown as the verdict); anything else is a failure.
  if ((code == kExitOk || code == kExitFindings) && gotReport) return {};
  if (code == kExitOk || code == kExitFindings)
    return tr("%1 ended (exit %2) without a report%3").arg(verb).arg(code).arg(tail);
  if (code == kExitUsage) return tr("%1: usage or configuration error (exit 2)%2").arg(verb, tail);
  if (code == kExitNoGpu && remote)
    return tr("%1: no GPU on the remote host, or it cannot be reached (exit 3)%2").arg(verb, tail);
  if (code == kExitNoGpu) return tr("%1: no GPU or CUDA on the machine it ran on (exit 3)%2").arg(verb, tail);
  if (remote && code == 255) return tr("%1: ssh failed (exit 255)%2").arg(verb, tail);
  if (code == 127)
    return tr("%1: tilescope-run not found%2 (exit 127)")
               .arg(verb, remote ? tr(" on the remote host") : QString()) +
           tail;
  return tr("%1 failed: %2%3").arg(verb, qs(exitStatusText(code)), tail);
}

void RunController::cancel() {
  if (!isRunning()) return;
  m_cancelled = true;
  emit logAvailable(tr("cancelled"));
  if (!m_slurm && m_verb != QLatin1String("capture")) {
    m_process->kill();
    return;
  }
  // SIGTERM: tilescope-run cancels the jobs it submitted (scancel), or stops
  // the captured program and writes capture.json, before it exits; killed
  // only if it has not after 15 s.
  m_process->terminate();
  QTimer::singleShot(15000, m_process, [p = m_process] {
    if (p->state() != QProcess::NotRunning) p->kill();
  });
}

}  // namespace tilescope::ui
