// Writing a file so that a failed write cannot lose what was there: the new
// text goes to a temporary file beside it, which is then renamed over it.
#pragma once

#include <filesystem>
#include <string>

namespace tilescope {

/// Writes `text` to a temporary file beside `file` and renames it over: `file` is
/// either the old content or the whole new text, never truncated. A `file` that
/// is not a regular file (/dev/stdout, a pipe) is written through; a link is
/// followed (the file it names gets the text, the link stays). Throws
/// std::runtime_error "FILE: cannot write (...)" or "FILE: write failed (...)".
void writeFileAtomically(const std::filesystem::path& file, const std::string& text);

}  // namespace tilescope
