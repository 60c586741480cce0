// File ▸ Compare toolchains…: the config panel's config, with the toolchains
// its language offers, in a ToolchainDialog of its own (made on first use).
#include "mainwindow.h"
#include "models/qtconv.h"
#include "panels/configpanel.h"
#include "panels/toolchaindialog.h"
#include "tilescope/config/config.h"

namespace tilescope::ui {

void MainWindow::compareToolchains() {
  const bool fresh = !m_toolchainDialog;
  if (fresh) m_toolchainDialog = new ToolchainDialog(this);
  // The form follows the open config; another one's toolchains are offered anew.
  if (const QString path = m_configPanel->configPath();
      fresh ||
      (!path.isEmpty() && !m_toolchainDialog->isRunning() && path != m_toolchainDialog->configPath())) {
    QString language = QStringLiteral("cuda");
    if (!path.isEmpty()) {
      try {
        language = qs(loadConfig(path.toStdString()).kernel.language);
      } catch (const std::exception&) {
        // A config that does not load: the comparison's own check says why.
      }
    }
    m_toolchainDialog->setConfig(path, language);
  }
  m_toolchainDialog->show();
  m_toolchainDialog->raise();
  m_toolchainDialog->activateWindow();
}

}  // namespace tilescope::ui
