// A triage as an export document (export/document.h): the same model the report
// exports render, so `tilescope-run export triage.json` (Markdown, HTML) and the
// GUI's exporter (HTML with figures, PDF) show one content.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tilescope/export/document.h"
#include "tilescope/triage/triage.h"

namespace tilescope {

struct TriageDocumentOptions {
  std::size_t maxRows = 2000;  ///< entry rows listed (a note says how many more)
  std::string note;            ///< a remark under the summary
};

/// Sections: summary, taxonomy (table + figure `triage_taxonomy`), speedups
/// (table + figure `triage_speedups`), entries (one row each), fixes (each
/// distinct lead finding's fix once), not_run (why entries could not be judged).
Document buildTriageDocument(const TriageReport& r, const TriageDocumentOptions& options = {});

/// The figures buildTriageDocument refers to (the GUI draws exactly these).
std::vector<DocFigure> triageFigures(const TriageReport& r);

/// The verdict of an entry as a person reads it: its status until judged ("not_run",
/// "pending"), "checked, not run" for a check without a GPU, else the verdict's name.
std::string entryVerdictLabel(const TriageEntry& e);

/// "ok", "mismatch/tail_tiles": the taxonomy label of an entry.
std::string entryCategoryLabel(const TriageEntry& e);

/// "k.py:17", or "k.py:17 (store)" where the line is the traced kernel's store
/// that wrote a symptom's values (locateSymptom), not a located bad access; ""
/// without a line.
std::string entryLineLabel(const TriageEntry& e);

}  // namespace tilescope
