#!/bin/bash
# Runs one reproducer of docs/security.md (tests/security/t4/NAME, copied from
# ../shared/repro/t4) from a copy in a temporary folder: run.sh writes inside its
# own folder, and the source tree stays as checked in.
# Usage: run_repro.sh REPRO_FOLDER PATH/TO/tilescope-run
# Exit: run.sh's (0 once the defect is gone).
set -u
src=${1:?usage: run_repro.sh REPRO_FOLDER PATH/TO/tilescope-run}
run=${2:?usage: run_repro.sh REPRO_FOLDER PATH/TO/tilescope-run}
# Not "tilescope-...": capture_remote_cleanup_refused's stand-in ssh maps /tmp/tilescope-* to its host.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ts-repro-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R "$src" "$tmp/"
chmod -R u+w "$tmp"
bash "$tmp/$(basename "$src")/run.sh" "$run"
