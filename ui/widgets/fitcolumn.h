// A column of widgets whose minimum height counts the wrapped lines of its
// fixed-height rows (a banner, a summary) at its width. QMainWindow keeps its
// central widget at least at that minimum: a column squeezed below it would have
// its layout stack the rows over one another (the coverage legend over the map's
// out-of-bounds band at a first start of 1251 × 726), so the docks give way instead.
#pragma once

#include <QWidget>

class QVBoxLayout;

namespace tilescope::ui {

class FitColumn : public QWidget {
  Q_OBJECT
 public:
  explicit FitColumn(QWidget* parent = nullptr);
  QVBoxLayout* column() const { return m_layout; }
  /// Rows of stretch 0 at their height for the width, stretching rows at their minimum.
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QVBoxLayout* m_layout;
};

}  // namespace tilescope::ui
