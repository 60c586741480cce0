#!/usr/bin/env bash
# `tilescope-run export`: Markdown and HTML of the same report carry the same
# sections and the same numbers (one document model); --format pdf without -o
# is a clear usage error; a missing report names the path.
set -uo pipefail
exe=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
for report in "$src/resources/sample/session.json" "$src/resources/sample/gemm_sweep.json"; do
  name=$(basename "$report" .json)
  "$exe" export "$report" --format md -o "$tmp/$name.md" 2>/dev/null || { echo "FAIL $name: md export"; fail=1; continue; }
  "$exe" export "$report" --format html -o "$tmp/$name.html" 2>/dev/null || { echo "FAIL $name: html export"; fail=1; continue; }
  python3 - "$tmp/$name.md" "$tmp/$name.html" "$name" <<'PY' || fail=1
import html, re, sys
md, page, name = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
unmd = lambda s: re.sub(r"\\(.)", r"\1", s).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
md_sections = [unmd(h) for h in re.findall(r"^## (.*)$", md, re.M)]
html_sections = [html.unescape(h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", page)]
errors = []
if md_sections != html_sections:
    errors.append(f"sections differ: {md_sections} vs {html_sections}")
for needed in ("Summary", "Configuration", "Findings", "Points"):
    if needed not in md_sections:
        errors.append(f"no {needed} section")
units = r"\d+(?:\.\d+)? (?:ns|µs|ms|s|B|KiB|MiB|GiB|%)|\d+(?:\.\d+)?×"
md_numbers = sorted(re.findall(units, unmd(md)))
html_numbers = sorted(re.findall(units, html.unescape(page)))
if not md_numbers:
    errors.append("no numbers with units in the Markdown")
if md_numbers != html_numbers:
    errors.append(f"numbers differ: {len(md_numbers)} in md, {len(html_numbers)} in html")
if name == "session":
    if "Troubleshooting path" not in md_sections: errors.append("no troubleshooting section")
    if "**Fix:**" not in md: errors.append("no fix in the banner")
    if "| 0 | baseline |" not in md: errors.append("diagnose points not named by their experiment")
for e in errors:
    print(f"FAIL {name}: {e}")
sys.exit(1 if errors else 0)
PY
done
"$exe" export "$src/resources/sample/session.json" --format pdf 2>"$tmp/pdf.err"; rc=$?
[ "$rc" = 2 ] && grep -q -- "-o OUT.pdf" "$tmp/pdf.err" || { echo "FAIL pdf without -o: exit $rc"; cat "$tmp/pdf.err"; fail=1; }
"$exe" export "$tmp/none.json" --format md 2>"$tmp/none.err"; rc=$?
[ "$rc" = 2 ] && grep -q "none.json" "$tmp/none.err" || { echo "FAIL missing report: exit $rc"; fail=1; }
# With the GUI built beside tilescope-run, --format pdf hands off to it.
if [ -x "$(dirname "$exe")/tilescope" ]; then
  QT_QPA_PLATFORM=offscreen "$exe" export "$src/resources/sample/session.json" --format pdf -o "$tmp/s.pdf" 2>"$tmp/pdf2.err"; rc=$?
  { [ "$rc" = 0 ] && head -c 5 "$tmp/s.pdf" | grep -q "%PDF-"; } || { echo "FAIL pdf through the GUI: exit $rc"; cat "$tmp/pdf2.err"; fail=1; }
fi
[ "$fail" = 0 ] && echo "export formats agree"
exit $fail
