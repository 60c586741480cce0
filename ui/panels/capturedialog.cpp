#include "panels/capturedialog.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "controllers/runcontroller.h"
#include "controllers/runstream.h"
#include "models/qtconv.h"
#include "tilescope/base/format.h"
#include "tilescope/base/regex.h"
#include "tilescope/run/remote.h"
#include "widgets/banner.h"

namespace tilescope::ui {

namespace {

/// --max-bytes as the CLI reads it (parseBytes in app/run/cmd_capture.cpp).
const QRegularExpression kSize(QStringLiteral("^[0-9]+(\\.[0-9]+)?(B|k|K|KiB|M|MiB|G|GiB)?$"));

QString plural(int n, const char* one, const char* many) {
  return QString::number(n) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
}

QString gridText(const std::array<std::uint32_t, 3>& g) {
  return QStringLiteral("%1 × %2 × %3").arg(g[0]).arg(g[1]).arg(g[2]);
}

/// A row pair: a label and the field with a Browse… button beside it.
QWidget* withBrowse(QLineEdit* edit, QPushButton* browse) {
  auto* w = new QWidget;
  auto* h = new QHBoxLayout(w);
  h->setContentsMargins(0, 0, 0, 0);
  h->addWidget(edit, 1);
  h->addWidget(browse);
  return w;
}

}  // namespace

CaptureDialog::CaptureDialog(QWidget* parent) : QDialog(parent), m_controller(new RunController(this)) {
  setWindowTitle(tr("Capture from a program"));
  auto* layout = new QVBoxLayout(this);
  m_form = buildForm();
  layout->addWidget(m_form);
  m_status = new Banner(this);
  layout->addWidget(m_status);
  layout->addWidget(buildResults(), 1);

  auto* buttons = new QHBoxLayout;
  m_captureButton = new QPushButton(tr("&Capture"), this);
  m_captureButton->setDefault(true);
  m_cancelButton = new QPushButton(tr("Ca&ncel Capture"), this);
  m_openButton = new QPushButton(tr("&Open Config"), this);
  m_openButton->setToolTip(
      tr("Open the selected launch's config in the workbench (or double-click its row)"));
  m_openFirstButton = new QPushButton(tr("Open &First Config"), this);
  m_openFirstButton->setToolTip(tr("Open the capture's first config in the workbench"));
  auto* close = new QPushButton(tr("Close"), this);
  close->setToolTip(tr("Hide this window; a capture goes on in the background"));
  buttons->addWidget(m_captureButton);
  buttons->addWidget(m_cancelButton);
  buttons->addStretch(1);
  buttons->addWidget(m_openButton);
  buttons->addWidget(m_openFirstButton);
  buttons->addWidget(close);
  layout->addLayout(buttons);

  connect(m_captureButton, &QPushButton::clicked, this, &CaptureDialog::startCapture);
  connect(m_cancelButton, &QPushButton::clicked, this, &CaptureDialog::cancelCapture);
  connect(m_openButton, &QPushButton::clicked, this, [this] { openRow(m_table->currentRow()); });
  connect(m_openFirstButton, &QPushButton::clicked, this, [this] {
    if (const QString path = firstConfig(); !path.isEmpty()) emit openConfigRequested(path);
  });
  connect(close, &QPushButton::clicked, this, &QDialog::hide);
  connectController();
  m_status->showMessage(Banner::Kind::info,
                        tr("Runs the program unmodified and records its kernel launches as configs "
                           "(needs a GPU here, or a remote host with one)."));
  updateButtons();
  resize(960, 720);
}

CaptureDialog::~CaptureDialog() = default;

QWidget* CaptureDialog::buildForm() {
  auto* form = new QWidget(this);
  auto* f = new QFormLayout(form);
  f->setContentsMargins(0, 0, 0, 0);
  m_command = new QLineEdit(form);
  m_command->setPlaceholderText(tr("python3 train.py --steps 10"));
  m_command->setToolTip(tr("The program and its arguments: spaces separate them, double quotes group words"));
  f->addRow(tr("Program and &arguments:"), m_command);

  m_workingDir = new QLineEdit(form);
  m_workingDir->setPlaceholderText(tr("where the workbench runs (on a remote host: its home)"));
  auto* browseCwd = new QPushButton(tr("Browse…"), form);
  connect(browseCwd, &QPushButton::clicked, this,
          [this] { browseFolder(m_workingDir, tr("Working directory")); });
  f->addRow(tr("&Working directory:"), withBrowse(m_workingDir, browseCwd));

  m_outputDir = new QLineEdit(form);
  m_autoOutput = defaultOutputDir();
  m_outputDir->setText(m_autoOutput);
  m_outputDir->setToolTip(tr("A new or empty folder: capture.json and one config per captured launch"));
  auto* browseOut = new QPushButton(tr("Browse…"), form);
  connect(browseOut, &QPushButton::clicked, this, [this] { browseFolder(m_outputDir, tr("Output folder")); });
  f->addRow(tr("&Output folder:"), withBrowse(m_outputDir, browseOut));

  m_kernel = new QLineEdit(form);
  m_kernel->setPlaceholderText(tr("every kernel"));
  m_kernel->setToolTip(
      tr("Only kernels whose name matches (RE2 syntax: no lookaround or backreferences; searched in the "
         "Python function, "
         "the mangled symbol or the demangled name)"));
  f->addRow(tr("&Kernel regex:"), m_kernel);

  m_skip = new QSpinBox(form);
  m_skip->setRange(0, 1'000'000'000);
  m_count = new QSpinBox(form);
  m_count->setRange(0, 1'000'000'000);
  m_count->setSpecialValueText(tr("all"));
  auto* launches = new QWidget(form);
  auto* lh = new QHBoxLayout(launches);
  lh->setContentsMargins(0, 0, 0, 0);
  lh->addWidget(new QLabel(tr("skip"), launches));
  lh->addWidget(m_skip);
  lh->addSpacing(12);
  lh->addWidget(new QLabel(tr("count"), launches));
  lh->addWidget(m_count);
  lh->addStretch(1);
  launches->setToolTip(
      tr("Over the matching launches, as ncu selects; with neither, the first launch of "
         "each distinct kernel, specialisation and shapes"));
  f->addRow(tr("&Launches:"), launches);

  m_maxBytes = new QLineEdit(QStringLiteral("4G"), form);
  m_maxBytes->setToolTip(tr("A larger buffer is not saved (its launch is recorded without a config)"));
  f->addRow(tr("&Max bytes per buffer:"), m_maxBytes);
  m_remote = new QLineEdit(form);
  m_remote->setPlaceholderText(tr("this machine (or [user@]host: ssh, with tilescope-run and a GPU there)"));
  f->addRow(tr("&Remote host:"), m_remote);
  m_keepAllocator = new QCheckBox(tr("Keep PyTorch's caching allocator (pointers then reach to the end of "
                                     "its blocks)"),
                                  form);
  f->addRow(QString(), m_keepAllocator);
  return form;
}

QWidget* CaptureDialog::buildResults() {
  auto* split = new QSplitter(Qt::Vertical, this);
  m_table = new QTableWidget(0, colCount, split);
  m_table->setHorizontalHeaderLabels({tr("#"), tr("Kernel"), tr("Language"), tr("Grid"), tr("Config")});
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->hide();
  m_table->setWordWrap(false);
  // The start tells: a C++ kernel's namespace and name, a reason's first words
  // (the whole text is the tooltip).
  m_table->setTextElideMode(Qt::ElideRight);
  QHeaderView* h = m_table->horizontalHeader();
  h->setSectionResizeMode(colKernel, QHeaderView::Stretch);
  h->setSectionResizeMode(colConfig, QHeaderView::Stretch);
  for (int c : {colIndex, colLanguage, colGrid}) h->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  m_log = new QPlainTextEdit(split);
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(5000);
  m_log->setPlaceholderText(tr("tilescope-run's progress and the program's output"));
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  return split;
}

void CaptureDialog::connectController() {
  connect(m_controller, &RunController::logAvailable, m_log, &QPlainTextEdit::appendPlainText);
  connect(m_controller, &RunController::runningChanged, this, [this] { updateButtons(); });
  connect(m_controller, &RunController::runFailed, this, &CaptureDialog::onRunFailed);
  connect(m_controller, &RunController::runFinished, this, &CaptureDialog::onRunFinished);
  connect(m_controller, &RunController::runCancelled, this, [this] {
    // capture_done (when it came) already says the capture was cancelled.
    if (!m_finished) m_status->showMessage(Banner::Kind::warning, tr("Cancelled."));
  });
  connect(m_controller->stream(), &RunStream::captureEventAvailable, this, &CaptureDialog::onCaptureEvent);
  connect(m_controller->stream(), &RunStream::captureFinished, this, &CaptureDialog::onCaptureFinished);
  connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openRow(row); });
  connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] { updateButtons(); });
}

void CaptureDialog::setSettings(const Settings& s) {
  m_command->setText(s.command);
  m_workingDir->setText(s.workingDir);
  m_outputDir->setText(s.outputDir);
  m_kernel->setText(s.kernelRegex);
  m_skip->setValue(s.launchSkip);
  m_count->setValue(s.launchCount);
  m_maxBytes->setText(s.maxBytes);
  m_remote->setText(s.remoteHost);
  m_keepAllocator->setChecked(s.keepCachingAllocator);
}

CaptureDialog::Settings CaptureDialog::settings() const {
  Settings s;
  s.command = m_command->text().trimmed();
  s.workingDir = m_workingDir->text().trimmed();
  s.outputDir = m_outputDir->text().trimmed();
  s.kernelRegex = m_kernel->text();
  s.launchSkip = m_skip->value();
  s.launchCount = m_count->value();
  s.maxBytes = m_maxBytes->text().trimmed();
  s.remoteHost = m_remote->text().trimmed();
  s.keepCachingAllocator = m_keepAllocator->isChecked();
  return s;
}

QString CaptureDialog::validate(const Settings& s) {
  if (const QStringList program = QProcess::splitCommand(s.command);
      program.isEmpty() || program.front().isEmpty())
    return tr("Enter the program to capture and its arguments (for example: python3 train.py).");
  // With --remote the working directory is the host's: nothing here to check.
  if (s.remoteHost.isEmpty() && !s.workingDir.isEmpty() && !QFileInfo(s.workingDir).isDir())
    return tr("Working directory %1 is not a folder.").arg(s.workingDir);
  if (s.outputDir.isEmpty()) return tr("Choose an output folder for the capture.");
  const QFileInfo out(s.outputDir);
  if (out.exists() && !out.isDir())
    return tr("Output folder %1 is a file: choose a new or empty folder.").arg(s.outputDir);
  if (out.isDir() && !QDir(s.outputDir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
    return tr("Output folder %1 is not empty: captures never overwrite; choose a new or empty folder.")
        .arg(s.outputDir);
  // The command line's own check (RE2, tilescope/base/regex.h), so the dialog refuses what
  // `capture --kernel` refuses (lookaround, backreferences) and says why in the same words.
  if (!s.kernelRegex.isEmpty()) {
    try {
      (void)Regex(s.kernelRegex.toStdString());
    } catch (const RegexError& e) {
      return tr("Kernel regex '%1' is not a regular expression: %2.").arg(s.kernelRegex, qs(e.reason()));
    }
  }
  if (!kSize.match(s.maxBytes).hasMatch())
    return tr("Max bytes '%1': expected a size such as 4G, 512M, 64k or 1000.").arg(s.maxBytes);
  if (!s.remoteHost.isEmpty())
    if (const std::string p = remoteHostProblem(s.remoteHost.toStdString()); !p.empty())
      return tr("Remote host '%1': %2.").arg(s.remoteHost, qs(p));
  return {};
}

QStringList CaptureDialog::arguments(const Settings& s) {
  QStringList a{QStringLiteral("--stream"), QStringLiteral("-o"), QFileInfo(s.outputDir).absoluteFilePath()};
  if (!s.kernelRegex.isEmpty()) a << QStringLiteral("--kernel") << s.kernelRegex;
  if (s.launchSkip > 0) a << QStringLiteral("--launch-skip") << QString::number(s.launchSkip);
  if (s.launchCount > 0) a << QStringLiteral("--launch-count") << QString::number(s.launchCount);
  if (!s.maxBytes.isEmpty()) a << QStringLiteral("--max-bytes") << s.maxBytes;
  if (!s.workingDir.isEmpty())
    a << QStringLiteral("--cwd")
      << (s.remoteHost.isEmpty() ? QFileInfo(s.workingDir).absoluteFilePath() : s.workingDir);
  if (!s.remoteHost.isEmpty()) a << QStringLiteral("--remote") << s.remoteHost;
  if (s.keepCachingAllocator) a << QStringLiteral("--keep-caching-allocator");
  return a << QStringLiteral("--") << QProcess::splitCommand(s.command);
}

QString CaptureDialog::defaultOutputDir() {
  QString base = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (base.isEmpty()) base = QDir::tempPath();
  const QString stem =
      QDir(base).filePath(QStringLiteral("tilescope-captures/capture-") +
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")));
  QString dir = stem;
  for (int i = 2; QFileInfo::exists(dir); ++i) dir = stem + QLatin1Char('-') + QString::number(i);
  return QDir::cleanPath(dir);
}

bool CaptureDialog::isRunning() const { return m_controller->isRunning(); }

QString CaptureDialog::statusText() const { return m_status->text(); }

QString CaptureDialog::logText() const { return m_log->toPlainText(); }

QString CaptureDialog::configOfRow(int row) const {
  const QTableWidgetItem* item = row >= 0 ? m_table->item(row, colConfig) : nullptr;
  return item ? item->data(Qt::UserRole).toString() : QString();
}

QString CaptureDialog::firstConfig() const {
  // Rows are in the order the capture lists its launches once it has ended.
  for (int r = 0; r < m_table->rowCount(); ++r)
    if (const QString path = configOfRow(r); !path.isEmpty()) return path;
  return {};
}

bool CaptureDialog::startCapture() {
  if (isRunning()) return false;
  const Settings s = settings();
  if (const QString problem = validate(s); !problem.isEmpty()) {
    m_status->showMessage(Banner::Kind::error, problem.toHtmlEscaped());
    return false;
  }
  m_table->setRowCount(0);
  m_rows.clear();
  m_log->clear();
  m_finished = m_failed = false;
  m_runOutput = QFileInfo(s.outputDir).absoluteFilePath();
  // The controller's host makes an exit 3 read "no GPU on the remote host, or it cannot be reached".
  m_controller->setRemoteHost(s.remoteHost);
  const QStringList program = QProcess::splitCommand(s.command);
  m_status->showMessage(
      Banner::Kind::info,
      tr("Capturing: running %1%2…")
          .arg(program.front(), s.remoteHost.isEmpty() ? QString() : tr(" on ") + s.remoteHost)
          .toHtmlEscaped());
  m_controller->startCapture(arguments(s));  // a start that fails says so through runFailed
  return true;
}

void CaptureDialog::cancelCapture() { m_controller->cancel(); }

void CaptureDialog::browseFolder(QLineEdit* edit, const QString& title) {
  const QString dir = QFileDialog::getExistingDirectory(this, title, edit->text());
  if (!dir.isEmpty()) edit->setText(QDir::toNativeSeparators(dir));
}

int CaptureDialog::rowFor(const QString& id) {
  if (const auto it = m_rows.constFind(id); it != m_rows.constEnd()) return *it;
  const int row = m_table->rowCount();
  m_table->insertRow(row);
  for (int c = 0; c < colCount; ++c) m_table->setItem(row, c, new QTableWidgetItem);
  m_rows.insert(id, row);
  return row;
}

void CaptureDialog::onCaptureEvent(const CaptureEvent& e) {
  // Notes reach the log from tilescope-run's stderr already.
  if (e.captureEvent != "launch") return;
  CapturedLaunch l;
  l.id = e.id;
  l.index = e.index.value_or(-1);
  l.recorder = e.recorder;
  l.language = e.recorder;  // each recorder records its own language; capture.json confirms it
  l.kernel = e.kernel;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, e.grid.size()); ++i)
    l.grid[i] = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(e.grid[i], 0, std::numeric_limits<std::uint32_t>::max()));
  l.fault = e.fault;
  setRow(rowFor(qs(e.id)), l, {});
  const int n = m_table->rowCount();
  m_status->showMessage(Banner::Kind::info,
                        tr("Capturing: %1 recorded so far…").arg(plural(n, "launch", "launches")));
}

void CaptureDialog::setRow(int row, const CapturedLaunch& l, const QString& dir) {
  m_table->item(row, colIndex)->setText(l.index >= 0 ? QString::number(l.index) : qs(l.id));
  m_table->item(row, colIndex)->setToolTip(tr("launches/%1 (%2 recorder)").arg(qs(l.id), qs(l.recorder)));
  m_table->item(row, colKernel)->setText(qs(l.kernel));
  m_table->item(row, colKernel)->setToolTip(qs(l.kernel));
  m_table->item(row, colLanguage)->setText(qs(l.language));
  m_table->item(row, colGrid)->setText(gridText(l.grid));
  QTableWidgetItem* cfg = m_table->item(row, colConfig);
  const QString fault = l.fault.empty() ? QString() : tr(" (%1 in the program)").arg(qs(l.fault));
  if (dir.isEmpty()) {
    cfg->setText(tr("written when the program ends") + fault);
    cfg->setForeground(palette().color(QPalette::PlaceholderText));
    return;
  }
  cfg->setForeground(palette().color(QPalette::Text));
  if (l.config.empty()) {
    cfg->setText(tr("no config: %1").arg(qs(l.reason)) + fault);
    cfg->setToolTip(qs(l.reason));
    cfg->setData(Qt::UserRole, QString());
    return;
  }
  const QString path = QDir(dir).filePath(qs(l.config));
  cfg->setText(qs(l.config) + fault);
  cfg->setToolTip(path);
  cfg->setData(Qt::UserRole, path);
}

void CaptureDialog::onCaptureFinished(const QString& dir, const CaptureInfo& info) {
  m_finished = true;
  // A remote capture names the host's folder; the configs are in the local copy.
  const QString local = m_runOutput.isEmpty() ? dir : m_runOutput;
  int configs = 0;
  for (const CapturedLaunch& l : info.launches) {
    setRow(rowFor(qs(l.id)), l, local);
    configs += !l.config.empty();
  }
  // Rows in capture.json's order (by launch index): "first config" is the first launch's.
  QList<QList<QTableWidgetItem*>> rows;
  for (const CapturedLaunch& l : info.launches) {
    QList<QTableWidgetItem*> items;
    const int row = m_rows.value(qs(l.id));
    for (int c = 0; c < colCount; ++c) items << m_table->takeItem(row, c);
    rows << items;
  }
  m_table->setRowCount(static_cast<int>(info.launches.size()));
  m_rows.clear();
  for (int r = 0; r < rows.size(); ++r) {
    for (int c = 0; c < colCount; ++c) m_table->setItem(r, c, rows[r][c]);
    m_rows.insert(qs(info.launches[static_cast<std::size_t>(r)].id), r);
  }
  const bool clean = info.exit.status == "exited" && info.exit.code == 0;
  const QString text = tr("The program %1 after %2: %3 recorded, %4 in %5.")
                           .arg(qs(info.exit.message), qs(formatDuration(info.exit.seconds * 1e9)),
                                plural(static_cast<int>(info.launches.size()), "launch", "launches"),
                                plural(configs, "config", "configs"), local);
  m_status->showMessage(clean ? Banner::Kind::ok : Banner::Kind::warning, text.toHtmlEscaped());
  updateButtons();
}

void CaptureDialog::onRunFailed(const QString& message) {
  m_failed = true;
  m_status->showMessage(Banner::Kind::error, message.toHtmlEscaped());
}

void CaptureDialog::onRunFinished(int code) {
  if (!m_finished && !m_failed && code >= 0)
    m_status->showMessage(Banner::Kind::warning, tr("tilescope-run capture ended (exit %1).").arg(code));
  // The next capture goes to a fresh folder unless the user chose one.
  if (m_outputDir->text().trimmed() == m_autoOutput) {
    m_autoOutput = defaultOutputDir();
    m_outputDir->setText(m_autoOutput);
  }
  updateButtons();
}

void CaptureDialog::updateButtons() {
  const bool running = isRunning();
  m_captureButton->setEnabled(!running);
  m_cancelButton->setEnabled(running);
  m_form->setEnabled(!running);
  m_openButton->setEnabled(!configOfRow(m_table->currentRow()).isEmpty());
  m_openFirstButton->setEnabled(!firstConfig().isEmpty());
}

void CaptureDialog::openRow(int row) {
  if (row < 0 || row >= m_table->rowCount()) return;
  if (const QString path = configOfRow(row); !path.isEmpty()) {
    emit openConfigRequested(path);
    return;
  }
  const QString why = m_table->item(row, colConfig)->text();
  m_status->showMessage(Banner::Kind::warning, tr("Launch %1 has no config to open: %2")
                                                   .arg(m_table->item(row, colIndex)->text(), why)
                                                   .toHtmlEscaped());
}

}  // namespace tilescope::ui
