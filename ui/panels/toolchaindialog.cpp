#include "toolchaindialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include "controllers/runcontroller.h"
#include "tilescope/base/toolchain.h"
#include "tilescope/export/document.h"

namespace tilescope::ui {

namespace {

QTableWidget* table(const QStringList& headers) {
  auto* t = new QTableWidget(0, static_cast<int>(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->horizontalHeader()->setStretchLastSection(true);
  return t;
}

void setRow(QTableWidget* t, int row, const QStringList& cells) {
  for (int c = 0; c < cells.size(); ++c) t->setItem(row, c, new QTableWidgetItem(cells[c]));
}

QString num(const QJsonValue& v) {
  return v.isUndefined() || v.isNull() ? QStringLiteral("—") : QString::number(v.toInteger());
}

/// A side's row: toolchain, result, compiler, arch, registers, shared bytes, error.
QStringList sideCells(const QJsonObject& s) {
  if (s.contains(QStringLiteral("unavailable")))
    return {s[QStringLiteral("toolchain")].toString(),  QObject::tr("unavailable"), {}, {}, {}, {},
            s[QStringLiteral("unavailable")].toString()};
  QString error = s[QStringLiteral("error")].toString();
  if (s.contains(QStringLiteral("error_location")))
    error = s[QStringLiteral("error_location")].toString() + QStringLiteral(": ") + error;
  return {s[QStringLiteral("toolchain")].toString(),
          s[QStringLiteral("compiled")].toBool() ? QObject::tr("compiles") : QObject::tr("does not compile"),
          s[QStringLiteral("compiler")].toString(),
          s[QStringLiteral("arch")].toString(),
          num(s[QStringLiteral("registers")]),
          num(s[QStringLiteral("shared_bytes")]),
          error};
}

/// A stage's row: stage, A's ops, B's ops, differs, the ops that changed most.
QStringList stageCells(const QJsonObject& st) {
  auto side = [&](const char* present, const char* ops) {
    return st[QLatin1String(present)].toBool() ? QString::number(st[QLatin1String(ops)].toInt())
                                               : QObject::tr("absent");
  };
  QStringList changed;
  for (const QJsonValue& c : st[QStringLiteral("changed")].toArray()) {
    if (changed.size() == 6) break;
    const QJsonObject o = c.toObject();
    changed << QStringLiteral("%1 %2 → %3")
                   .arg(o[QStringLiteral("op")].toString())
                   .arg(o[QStringLiteral("a")].toInt())
                   .arg(o[QStringLiteral("b")].toInt());
  }
  return {st[QStringLiteral("stage")].toString(), side("present_a", "ops_a"), side("present_b", "ops_b"),
          st[QStringLiteral("differs")].toBool() ? QObject::tr("differs") : QObject::tr("same"),
          changed.join(QStringLiteral(", "))};
}

}  // namespace

ToolchainDialog::ToolchainDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Compare toolchains"));
  resize(980, 640);
  auto* form = new QFormLayout;
  m_config = new QLineEdit;
  m_config->setPlaceholderText(tr("a kernel config (.tscfg.json)"));
  auto* browse = new QPushButton(tr("Browse…"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Config to compare"), m_config->text(),
                                                   tr("Kernel configs (*.tscfg.json *.json)"));
    if (!f.isEmpty()) m_config->setText(f);
  });
  auto* cfgRow = new QHBoxLayout;
  cfgRow->addWidget(m_config, 1);
  cfgRow->addWidget(browse);
  form->addRow(tr("Config"), cfgRow);
  m_a = new QComboBox;
  m_b = new QComboBox;
  for (QComboBox* c : {m_a, m_b}) {
    c->setEditable(true);
    c->setMinimumContentsLength(28);
    c->setToolTip(
        tr("triton==3.5.1, triton, python=PATH, nvrtc, \"nvcc -O0 -G\", \"nvrtc device=a100\" "
           "(docs/toolchains.md)"));
  }
  form->addRow(tr("Toolchain A"), m_a);
  form->addRow(tr("Toolchain B"), m_b);
  m_offline = new QCheckBox(tr("Install versions offline (pip --no-index)"));
  form->addRow(QString(), m_offline);

  m_start = new QPushButton(tr("Compare"));
  m_start->setDefault(true);
  m_export = new QPushButton(tr("Export…"));
  m_export->setEnabled(false);
  auto* close = new QPushButton(tr("Close"));
  connect(m_start, &QPushButton::clicked, this, [this] { isRunning() ? cancel() : (void)start(); });
  connect(m_export, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getSaveFileName(this, tr("Export the comparison"),
                                                   QDir::home().filePath(QStringLiteral("toolchains.html")),
                                                   tr("HTML (*.html);;Markdown (*.md)"));
    if (!f.isEmpty()) exportTo(f);
  });
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(m_start);
  buttons->addWidget(m_export);
  buttons->addWidget(close);

  m_summary = new QLabel(tr("Pick two toolchains and press Compare: no GPU is needed."));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_sides = table({tr("Toolchain"), tr("Result"), tr("Compiler"), tr("Arch"), tr("Registers"), tr("Shared B"),
                   tr("Error")});
  m_stages =
      table({tr("Stage"), tr("A ops"), tr("B ops"), tr("A vs B"), tr("Ops that changed most (A → B)")});
  m_log = new QPlainTextEdit;
  m_log->setReadOnly(true);
  m_log->setPlaceholderText(tr("tilescope-run compare's progress (installs, compiles)"));
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_sides);
  split->addWidget(m_stages);
  split->addWidget(m_log);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);
}

ToolchainDialog::~ToolchainDialog() { cancel(); }

void ToolchainDialog::setConfig(const QString& path, const QString& language) {
  m_config->setText(path);
  QStringList offered;
  const bool versioned = language == QLatin1String("triton") || language == QLatin1String("tilelang");
  if (versioned) {
    // The interpreter's own, then the versions the comparison accepts
    // (base/toolchain.h: the same rule refuses the older ones), newest first.
    offered << language;
    for (const std::string& v : offeredVersions(language.toStdString()))
      offered << language + QStringLiteral("==") + QString::fromStdString(v);
  } else {
    offered = {QStringLiteral("nvrtc"), QStringLiteral("nvcc"), QStringLiteral("nvcc -G"),
               QStringLiteral("nvrtc -lineinfo"), QStringLiteral("nvrtc device=a100")};
  }
  for (QComboBox* c : {m_a, m_b}) {
    c->clear();
    c->addItems(offered);
  }
  // B: for a Python package the oldest version offered (the newest is likely
  // the interpreter's own), else the second compiler.
  m_b->setCurrentIndex(versioned ? static_cast<int>(offered.size()) - 1 : (offered.size() > 1 ? 1 : 0));
}

QStringList ToolchainDialog::offeredToolchains() const {
  QStringList out;
  for (int i = 0; i < m_a->count(); ++i) out << m_a->itemText(i);
  return out;
}

QString ToolchainDialog::configPath() const { return m_config->text().trimmed(); }

void ToolchainDialog::setToolchains(const QString& a, const QString& b) {
  m_a->setCurrentText(a);
  m_b->setCurrentText(b);
}

void ToolchainDialog::setOffline(bool offline) { m_offline->setChecked(offline); }

QStringList ToolchainDialog::arguments(const QString& output) const {
  QStringList a{QStringLiteral("compare"),     m_config->text().trimmed(),
                QStringLiteral("--toolchain"), m_a->currentText().trimmed(),
                QStringLiteral("--toolchain"), m_b->currentText().trimmed(),
                QStringLiteral("-o"),          output};
  if (m_offline->isChecked()) a << QStringLiteral("--offline");
  return a;
}

bool ToolchainDialog::isRunning() const { return m_proc && m_proc->state() != QProcess::NotRunning; }

QString ToolchainDialog::summaryText() const { return m_summary->text(); }
QString ToolchainDialog::logText() const { return m_log->toPlainText(); }

bool ToolchainDialog::start() {
  if (isRunning()) return false;
  m_error.clear();
  if (m_config->text().trimmed().isEmpty() || m_a->currentText().trimmed().isEmpty() ||
      m_b->currentText().trimmed().isEmpty()) {
    m_summary->setText(tr("Name a config and two toolchains."));
    return false;
  }
  static QTemporaryDir dir;  // one per workbench: the comparison's JSON lands here
  m_output = dir.filePath(QStringLiteral("toolchains.json"));
  QFile::remove(m_output);
  m_result = {};
  m_sides->setRowCount(0);
  m_stages->setRowCount(0);
  m_log->clear();
  m_export->setEnabled(false);
  m_proc = new QProcess(this);
  m_proc->setProcessChannelMode(QProcess::MergedChannels);
  m_pending.clear();
  connect(m_proc, &QProcess::readyRead, this, [this, p = m_proc] { appendLog(p->readAll(), false); });
  connect(m_proc, &QProcess::finished, this, [this](int code) { onFinished(code); });
  connect(m_proc, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) onFinished(-1);
  });
  m_start->setText(tr("Cancel"));
  m_summary->setText(tr("Compiling under %1 and %2…").arg(m_a->currentText(), m_b->currentText()));
  m_proc->start(m_exe.isEmpty() ? RunController::runExecutable() : m_exe, arguments(m_output));
  return true;
}

void ToolchainDialog::cancel() {
  if (!isRunning()) return;
  m_proc->kill();
  m_proc->waitForFinished(3000);
}

void ToolchainDialog::appendLog(const QByteArray& bytes, bool last) {
  // Progress (stderr) and the side-by-side table (stdout), as a terminal shows
  // them, whole lines only: a chunk may end inside one.
  m_pending += bytes;
  const qsizetype end = last ? m_pending.size() : m_pending.lastIndexOf('\n') + 1;
  for (const QByteArray& line : m_pending.left(end).split('\n'))
    if (!line.isEmpty()) m_log->appendPlainText(QString::fromUtf8(line));
  m_pending.remove(0, end);
}

void ToolchainDialog::onFinished(int exitCode) {
  m_start->setText(tr("Compare"));
  appendLog(m_proc->readAll(), true);  // what came after the last readyRead
  QFile f(m_output);
  if (f.open(QIODevice::ReadOnly)) m_result = QJsonDocument::fromJson(f.readAll()).object();
  if (m_result.isEmpty()) {
    // Refused before comparing: tilescope-run said why on its last line.
    const QStringList lines = m_log->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    m_error = exitCode < 0 ? tr("tilescope-run did not start (%1)").arg(m_proc->errorString())
              : lines.isEmpty()
                  ? tr("tilescope-run compare ended (exit %1) without a comparison").arg(exitCode)
                  : lines.last();
    m_summary->setText(m_error);
  } else {
    showResult();
  }
  m_proc->deleteLater();
  m_proc = nullptr;
  emit finished();
}

void ToolchainDialog::showResult() {
  const QJsonArray sides = m_result[QStringLiteral("sides")].toArray();
  m_sides->setRowCount(static_cast<int>(sides.size()));
  for (int i = 0; i < sides.size(); ++i) setRow(m_sides, i, sideCells(sides[i].toObject()));
  const QJsonObject diff = m_result[QStringLiteral("diff")].toObject();
  const QJsonArray stages = diff[QStringLiteral("stages")].toObject()[QStringLiteral("stages")].toArray();
  m_stages->setRowCount(static_cast<int>(stages.size()));
  for (int i = 0; i < stages.size(); ++i) {
    const QJsonObject st = stages[i].toObject();
    setRow(m_stages, i, stageCells(st));
    if (st[QStringLiteral("differs")].toBool())
      for (int c = 0; c < m_stages->columnCount(); ++c)
        if (auto* it = m_stages->item(i, c)) it->setBackground(QColor(255, 236, 179));
  }
  m_sides->resizeColumnsToContents();
  m_stages->resizeColumnsToContents();
  const QString first = m_result[QStringLiteral("first_differing_stage")].toString();
  QString text = diff[QStringLiteral("compile")].toString();
  text += first.isEmpty() ? tr("; every stage's ops agree") : tr("; first stage that differs: %1").arg(first);
  m_summary->setText(text.isEmpty() ? tr("no comparison (a side was unavailable)") : text);
  m_export->setEnabled(true);
}

QString ToolchainDialog::document(const QString& format) const {
  // The exports' own document model and renderers (export/document.h), with the
  // dialog's two tables as its sections.
  Document doc;
  doc.title =
      (tr("%1 under two toolchains").arg(QFileInfo(m_result[QStringLiteral("config")].toString()).fileName()))
          .toStdString();
  auto section = [&](const char* id, const QString& heading, const QTableWidget* t) {
    DocTable table;
    for (int c = 0; c < t->columnCount(); ++c)
      table.headers.push_back(t->horizontalHeaderItem(c)->text().toStdString());
    for (int r = 0; r < t->rowCount(); ++r) {
      std::vector<std::string> row;
      for (int c = 0; c < t->columnCount(); ++c)
        row.push_back(t->item(r, c) ? t->item(r, c)->text().toStdString() : "");
      table.rows.push_back(std::move(row));
    }
    DocSection s;
    s.id = id;
    s.heading = heading.toStdString();
    s.blocks.push_back(std::move(table));
    return s;
  };
  DocSection summary;
  summary.id = "summary";
  summary.heading = tr("Summary").toStdString();
  summary.blocks.push_back(DocParagraph{summaryText().toStdString()});
  doc.sections = {summary, section("sides", tr("Sides"), m_sides), section("stages", tr("Stages"), m_stages)};
  return QString::fromStdString(format == QLatin1String("html") ? renderHtml(doc) : renderMarkdown(doc));
}

bool ToolchainDialog::exportTo(const QString& path) {
  if (m_result.isEmpty()) return false;
  const QString ext = QFileInfo(path).suffix().toLower();
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  f.write(document(ext == QLatin1String("md") ? QStringLiteral("md") : QStringLiteral("html")).toUtf8());
  return true;
}

}  // namespace tilescope::ui
