// The preprocessor's conditionals as the Source view greys them: which lines of a
// kernel source #if/#ifdef/#ifndef/#elif/#else/#endif leave out, given the
// config's defines (kernel.defines, a point's values). #define and #undef in the
// kept part count from there on. An #if expression takes integers, defined(X),
// the C operators and parentheses; an unknown name counts as 0, as the
// preprocessor has it. What does not evaluate (a macro whose body is no integer, a
// function-like macro, a syntax error) greys neither branch. Qt Core only.
#pragma once

#include <QMap>
#include <QSet>
#include <QString>
#include <optional>

namespace tilescope::ui {

/// Macro name → its body as written ("1", "64", "" for a bare define).
using MacroTable = QMap<QString, QString>;

/// The value of an #if expression, nullopt when it does not evaluate.
std::optional<qint64> evalCondition(const QString& expression, const MacroTable& macros);

/// The 1-based lines the preprocessor skips in `source` with `macros` defined.
QSet<int> inactiveLines(const QString& source, MacroTable macros);

}  // namespace tilescope::ui
