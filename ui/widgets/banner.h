// A non-modal message strip above the central view (the verdict of the open
// report with the walk's fix; a run or open failure): a glyph, the text, and a
// close button. Colour is never the only channel: the glyph and the first word
// ("Verdict", "Error") say the same, and text on the tint meets 4.5:1.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace tilescope::ui {

class Banner : public QFrame {
  Q_OBJECT
 public:
  enum class Kind { ok, info, warning, error };
  explicit Banner(QWidget* parent = nullptr);

  /// Shows `text` (rich text allowed) and makes the banner visible.
  void showMessage(Kind kind, const QString& text);
  /// Hides the banner and forgets its text.
  void clearMessage();
  Kind kind() const { return m_kind; }
  /// The shown text as plain text ("" when hidden).
  QString text() const;
  /// True when the application's palette is dark (View ▸ Dark): the banners are deep tints then.
  static bool isDark();
  /// Re-tints the banner for the application's palette (MainWindow::setTheme calls it:
  /// the palette change event reaches widgets only once the event loop runs).
  void refreshColors() { applyColors(); }

 signals:
  void linkActivated(const QString& link);

 protected:
  bool event(QEvent* event) override;

 private:
  void applyColors();

  Kind m_kind = Kind::info;
  QLabel* m_glyph;
  QLabel* m_text;
  QToolButton* m_close;
};

}  // namespace tilescope::ui
