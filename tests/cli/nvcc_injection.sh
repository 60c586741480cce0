#!/usr/bin/env bash
# docs/security.md, "nvcc and /bin/sh": nvcc runs its steps through /bin/sh with the arguments in double
# quotes, so $(...) or backticks anywhere on its command line run. Each case is
# a reproducer variant of /work/shared/repro/t3/N1_nvcc_shell_injection: `check`
# of a "compiler": "nvcc" config must run nothing (no pwned_* file appears) and
# still compile the kernel where the text is legitimate C++.
#   define value ($(...) and backticks), define name, a -D option, the source's
#   file name, the source's folder name, an -I folder and an -include file.
set -uo pipefail
exe=$(realpath "$1"); src=$2
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TILESCOPE_CACHE_DIR="$tmp/cache"
fail=0
say() { echo "FAIL: $*"; fail=1; }

base="$src/kernels/gate/highway_gate.tscfg.json"
# variant DIR NAME 'python statement on d' [SOURCE-NAME]: the zoo's config, nvcc, one edit.
variant() {
  mkdir -p "$1"
  cp "$src/kernels/gate/highway_gate.cu" "$1/${4:-highway_gate.cu}"
  python3 - "$base" "$1/$2.tscfg.json" "$3" "${4:-highway_gate.cu}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['kernel']['compiler'] = 'nvcc'
d['kernel']['source'] = sys.argv[4]
d.pop('reference', None)
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
# expect DIR NAME EXIT: check from DIR, exit status EXIT, nothing ran there.
expect() {
  (cd "$1" && "$exe" check "$2.tscfg.json" --device h100 -o "$tmp/$2.json" >"$tmp/$2.out" 2>&1); rc=$?
  [ "$rc" = "$3" ] || { say "$2: exit $rc, want $3"; cat "$tmp/$2.out"; }
  ls "$1"/pwned_* "$tmp"/pwned_* >/dev/null 2>&1 && say "$2: a command ran: $(ls "$1"/pwned_* "$tmp"/pwned_* 2>/dev/null)"
  if [ "$3" = 0 ]; then
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["points"][0]["compile"]; sys.exit(0 if c["ok"] and c.get("regs",0)>0 else 1)' \
      "$tmp/$2.json" || say "$2: the kernel did not compile"
  fi
}

d="$tmp/cfg"
variant "$d" define_value "d['kernel']['defines']['PWN'] = '1\$(touch pwned_define_value)'"
expect "$d" define_value 0
variant "$d" define_value_backtick "d['kernel']['defines']['Y'] = '1\`touch pwned_define_backtick\`'"
expect "$d" define_value_backtick 0
variant "$d" define_name "d['kernel']['defines']['X\$(touch pwned_define_name)'] = 1"
expect "$d" define_name 2
grep -q "is not a name" "$tmp/define_name.out" || { say "define name: no reason"; cat "$tmp/define_name.out"; }
variant "$d" option_D "d['kernel']['options'].append('-DPWN2=\`touch pwned_option_D\`')"
expect "$d" option_D 0
variant "$d" source_name "pass" 'k$(touch pwned_source_name).cu'
expect "$d" source_name 0
# The folder's name: the source's folder is an include folder too.
f="$tmp/dir\$(touch pwned_folder)"
variant "$f" folder_name "pass"
expect "$f" folder_name 0
# An include folder and a forced include under such a folder (inside the config's folder).
mkdir -p "$f/inc\$(touch pwned_inc)"
echo '#define EXTRA 1' > "$f/inc\$(touch pwned_inc)/extra.h"
variant "$f" include_dir "d['kernel']['options'] += ['-I', 'inc\$(touch pwned_inc)', '-include', 'inc\$(touch pwned_inc)/extra.h']"
expect "$f" include_dir 0
# An option that is not a path, a define or an undefine must be plain text.
variant "$d" option_other "d['kernel']['options'].append('-maxrregcount=32\$(touch pwned_other)')"
expect "$d" option_other 1
grep -q '/bin/sh' "$tmp/option_other.out" || { say "plain option: no reason"; cat "$tmp/option_other.out"; }

# A compile error still names the source as the config does, with its line.
variant "$d" broken "pass"
echo 'this is not C++;' >> "$d/highway_gate.cu"
expect "$d" broken 1
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["findings"][0]["message"]; sys.exit(0 if m.startswith("highway_gate.cu:") and "kernel.cu" not in m else 1)' \
  "$tmp/broken.json" || say "compile error: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["message"])' "$tmp/broken.json")"

[ "$fail" = 0 ] && echo "nvcc injection cases ok"
exit $fail
