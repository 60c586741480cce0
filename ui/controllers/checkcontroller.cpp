#include "controllers/checkcontroller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryFile>
#include <QThread>

#include "controllers/configcheck.h"
#include "controllers/runcontroller.h"
#include "models/qtconv.h"

namespace tilescope::ui {

namespace {
/// What the analysis thread hands back.
struct Outcome {
  ConfigCheck check;
  QString error, errorPath;  ///< set when it threw
};
/// A report on stdout stays far below this; more is not a report.
constexpr qsizetype kMaxReportBytes = qsizetype(256) << 20;
}  // namespace

CheckController::CheckController(QObject* parent) : QObject(parent) {}

CheckController::~CheckController() { stopProcess(); }

QString CheckController::runExecutable() { return RunController::runExecutable(); }

QStringList CheckController::commandLine(const QString& configFile, const QString& deviceKey) {
  // --stages: the Source view's IR panes (SASS, PTX, Triton's IR) for a config opened
  // without a GPU; one more compile with line information per point (the first 4).
  return {runExecutable(), QStringLiteral("check"),    configFile,           QStringLiteral("--device"),
          deviceKey,       QStringLiteral("--stages"), QStringLiteral("-o"), QStringLiteral("-")};
}

bool CheckController::isCompiling() const { return m_process && m_process->state() != QProcess::NotRunning; }

void CheckController::start(const Config& cfg, const QString& deviceKey, const QString& compileFile,
                            const QString& compileText) {
  ++m_generation;
  stopProcess();
  m_pending = Request{cfg, deviceKey, compileFile, compileText};
  if (!m_analysing) analyse();
  emit runningChanged(true);
}

void CheckController::cancel() {
  ++m_generation;
  m_pending.reset();
  stopProcess();
  emit runningChanged(isRunning());
}

void CheckController::analyse() {
  m_current = std::move(*m_pending);
  m_pending.reset();
  m_analysing = true;
  const int generation = m_generation;
  auto outcome = std::make_shared<Outcome>();
  // The analysis walks every CTA of every sweep point (67 M tiles take seconds):
  // never on the GUI thread. The thread owns copies; a newer request waits
  // for it and drops its result.
  QThread* thread = QThread::create([outcome, cfg = m_current.config, device = m_current.device] {
    try {
      outcome->check = checkConfig(cfg, device);
    } catch (const ConfigError& e) {
      outcome->errorPath = qs(e.path);
      outcome->error = QStringLiteral("%1: %2").arg(outcome->errorPath, qs(e.problem));
    } catch (const std::exception& e) {
      outcome->error = QString::fromUtf8(e.what());
    }
  });
  connect(thread, &QThread::finished, thread, &QObject::deleteLater);
  connect(thread, &QThread::finished, this, [this, outcome, generation] {
    m_analysing = false;
    if (m_pending) {  // edited again meanwhile: check the newest text
      analyse();
      return;
    }
    if (generation != m_generation) return;
    if (!outcome->error.isEmpty() || !outcome->check.report) {
      emit staticCheckFailed(outcome->error, outcome->errorPath);
      emit runningChanged(false);
      return;
    }
    emit staticCheckAvailable(outcome->check.report, outcome->check.error, outcome->check.errorPath);
    // A launch the device refuses is a configuration error the CLI stops at too.
    if (!m_current.file.isEmpty() && outcome->check.error.isEmpty()) {
      m_total = static_cast<int>(expandSweep(m_current.config).size());
      startCompile();
    } else {
      emit runningChanged(false);
    }
  });
  thread->start(QThread::LowPriority);
}

void CheckController::startCompile() {
  QString file = m_current.file;
  // Unsaved edits: check them, in a hidden copy beside the file so that the
  // config's relative paths (its source, includes, .npy inputs) still resolve.
  if (!m_current.text.isEmpty()) {
    QFile f(file);
    const bool same = f.open(QIODevice::ReadOnly) && QString::fromUtf8(f.readAll()) == m_current.text;
    if (!same) {
      m_copy = new QTemporaryFile(
          QDir(QFileInfo(file).absolutePath()).filePath(QStringLiteral(".tilescope-check-XXXXXX.tscfg.json")),
          this);
      if (!m_copy->open() || m_copy->write(m_current.text.toUtf8()) < 0 || !m_copy->flush()) {
        emit compileFailed(tr("cannot write the edited config beside %1 to compile it: %2 (the declared-only "
                              "check is shown; save the config to compile it)")
                               .arg(file, m_copy->errorString()));
        delete m_copy;
        m_copy = nullptr;
        emit runningChanged(false);
        return;
      }
      file = m_copy->fileName();
    }
  }
  QStringList cmd = commandLine(file, m_current.device);
  if (!m_exe.isEmpty()) cmd.front() = m_exe;
  m_stdout.clear();
  m_stderrTail.clear();
  m_compiled = 0;
  m_process = new QProcess(this);
  connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
    m_stdout += m_process->readAllStandardOutput();
    if (m_stdout.size() > kMaxReportBytes) stopProcess();
  });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] {
    const QStringList lines =
        QString::fromUtf8(m_process->readAllStandardError()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString& line : lines) {
      // cmd_check says "check NAME [label] on DEVICE (arch)" as it starts a point.
      if (line.startsWith(QLatin1String("check "))) {
        ++m_compiled;
        emit compileProgress(m_compiled, std::max(m_total, m_compiled), line);
      }
      m_stderrTail = line;  // the last line: the reason of an exit 2
    }
  });
  connect(m_process, &QProcess::errorOccurred, this, [this, exe = cmd.front()](QProcess::ProcessError e) {
    if (e != QProcess::FailedToStart) return;
    emit compileFailed(tr("could not start %1 (%2): the declared-only check is shown; registers, spills and "
                          "compile errors need tilescope-run")
                           .arg(exe, m_process->errorString()));
    m_process->deleteLater();
    m_process = nullptr;
    emit runningChanged(isRunning());
  });
  connect(m_process, &QProcess::finished, this, &CheckController::compileFinished);
  emit compileProgress(0, m_total, tr("compiling %1 point(s) for %2").arg(m_total).arg(m_current.device));
  m_process->start(cmd.front(), cmd.mid(1));
}

void CheckController::compileFinished(int code, QProcess::ExitStatus status) {
  QProcess* p = m_process;
  m_process = nullptr;
  p->deleteLater();
  delete m_copy;
  m_copy = nullptr;
  const QString tail = m_stderrTail.trimmed();
  if (status == QProcess::CrashExit) {
    emit compileFailed(
        tr("tilescope-run check crashed%1").arg(tail.isEmpty() ? QString() : QStringLiteral(": ") + tail));
  } else if (code == kExitOk || code == kExitFindings) {
    try {
      auto report = std::make_shared<const Report>(reportFromJson(parseJson(m_stdout.toStdString())));
      emit compiledCheckAvailable(report);
    } catch (const std::exception& e) {
      emit compileFailed(
          tr("tilescope-run check wrote no readable report: %1").arg(QString::fromUtf8(e.what())));
    }
  } else {
    // 2: what the CLI refuses (a path outside the config's folder, an expression), in its own words.
    emit compileFailed(tail.isEmpty() ? tr("tilescope-run check ended with %1").arg(qs(exitStatusText(code)))
                                      : tail.section(QStringLiteral("error: "), -1));
  }
  m_stdout.clear();
  emit runningChanged(isRunning());
}

void CheckController::stopProcess() {
  if (m_process) {
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(2000);
    m_process->deleteLater();
    m_process = nullptr;
  }
  delete m_copy;
  m_copy = nullptr;
  m_stdout.clear();
  m_compiled = 0;
}

}  // namespace tilescope::ui
