// Light and dark palettes for the View menu (Fusion style, so both look the same everywhere).
#pragma once

#include <QPalette>
#include <QString>

namespace tilescope::ui {

enum class Theme { light, dark };

QPalette lightPalette();
QPalette darkPalette();
/// Applies the theme to the running QApplication (style Fusion + palette).
void applyTheme(Theme theme);
Theme themeFromName(const QString& name);
QString themeName(Theme theme);

}  // namespace tilescope::ui
