// What the workbench says a report measured, in words shared by the verdict banner,
// the status bar and the findings table: a check that ran nothing reads "checked,
// not run", never "ok"; an "ok" names its warnings; a finding's file is shown where
// the reader has it, not where it was recorded.
#pragma once

#include <QString>
#include <QStringList>

#include "tilescope/model/report.h"

namespace tilescope::ui {

/// "checked, not run" for a check (verb "check") that found no error: a check
/// compiles and reasons about the declaration, it measures nothing. Otherwise
/// the verdict's name ("ok", "fault", …).
QString verdictLabel(const Report& r);

/// True when `r` is a check whose verdict would read "ok": never shown green.
bool isCheckedNotRun(const Report& r);

/// The warning-severity findings of `r`, each once (report-level and point-level
/// copies merged), as "what at where" lines: "shared-memory loads are 32.4-way
/// bank-conflicted on average at transpose_tiled.cu:22". At most `max` lines.
QStringList warningLines(const Report& r, const QString& reportDir, int max = 3);
/// How many distinct warnings warningLines() would list without a cap.
int warningCount(const Report& r);

/// `file` as the reader of a report in `reportDir` finds it: relative to the
/// report's folder when it lies inside it, else its file name (a recording
/// machine's absolute path, "/work/.stage/lead/kernels/t.cu", means nothing here).
/// A relative path is returned as it is.
QString shownPath(const QString& file, const QString& reportDir);

/// locationText() of `l` with its file shown by shownPath().
QString shownLocationText(const Location& l, const QString& reportDir);

}  // namespace tilescope::ui
