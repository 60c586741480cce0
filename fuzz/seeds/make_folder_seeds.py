#!/usr/bin/env python3
"""Seeds of the folder harnesses (fuzz/fuzz_folder.h's line format), from the
test data and the security reproducers (../shared/repro/t4/, copied under
tests/security/t4/; docs/fuzzing.md): rerun after changing either.

    fuzz/seeds/make_folder_seeds.py
"""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
REPRO = os.path.join(os.path.dirname(REPO), "shared", "repro", "t4")


def esc(data):
    """A file's bytes as one line: \\n \\t \\\\ and \\xHH for the rest."""
    out = []
    for b in data:
        c = chr(b)
        if c == "\\":
            out.append("\\\\")
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


def f(path, data):
    return "f %s %s" % (path, esc(data if isinstance(data, bytes) else data.encode()))


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def write(name, kind, lines):
    folder = os.path.join(HERE, kind)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name + ".txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


REF = "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n" \
      "def get_inputs():\n    return []\ndef get_init_inputs():\n    return []\n"
CAND = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
CFG = read(os.path.join(REPO, "tests", "data", "reports", "gemm_small.tscfg.json"))
CAPTURE = read(os.path.join(REPRO, "capture_config_outside_folder", "cap", "capture.json"))
NPY = os.path.join(REPO, "tests", "data", "npy")


def triage_seeds():
    write("pairs", "triage_folder", [f("17_relu.py", REF), f("17_relu_new.py", CAND), f("lonely_new.py", CAND),
                                      f("both.py", REF + CAND), f("notes.txt", "x")])
    write("ref_cand_folders", "triage_folder", [f("p/reference/1_add.py", REF), f("p/candidate/1_add.py", CAND),
                                                f("p/references/2_mul.py", REF),
                                                f("p/candidates/2_mul_new.py", CAND)])
    # triage_folder_symlink_fanout: four links to "." made one config 87,381 entries.
    write("symlink_fanout", "triage_folder", [f("k.tscfg.json", CFG)] + ["l %s ." % n for n in "abcd"])
    write("links_out", "triage_folder", [f("k.tscfg.json", CFG), "l up ..", "l root /", "l etc /etc",
                                         "l inside sub", f("sub/x.py", REF), "l loop loop"])
    write("json_schemas", "triage_folder", [
        f("a.json", '{"schema": "tilescope.config/1"}'), f("b.json", '{"schema" :\n "tilescope.report/1"}'),
        f("c.json", '{"name": "x"}'), f("capture/capture.json", CAPTURE), "a a.json", "a capture", "a ."])
    # triage_pyrole_regex_crash: "class" and 200,000 newlines (here a large sparse file, and a long one).
    write("sizes", "triage_folder", ["z big.py 5000000", "z zeros.py 4000", f("class.py", "class" + "\n" * 2000),
                                     f("ok.py", REF)])


def capture_seeds():
    # capture_config_outside_folder: configs "../elsewhere/x.tscfg.json" and "/etc/hostname".
    write("config_outside", "capture_folder", [f("capture.json", CAPTURE)])
    for rec in sorted(glob.glob(os.path.join(REPO, "tests", "data", "capture", "*.launch.json"))):
        name = os.path.basename(rec)[: -len(".launch.json")]
        record = json.loads(read(rec))
        lines = [f("launches/0001/launch.json", json.dumps(record, separators=(",", ":")))]
        npys = sorted(glob.glob(os.path.join(NPY, "*.npy")))
        for i, a in enumerate(record.get("args", [])):
            for key in ("before", "after"):
                if a.get(key):
                    lines.append(f("launches/0001/" + a[key], read(npys[i % len(npys)])))
        if record.get("image"):
            lines.append("z %s 64" % record["image"])
        if (record.get("source") or {}).get("copy"):
            lines.append(f(record["source"]["copy"], "__global__ void k() {}\n"))
        write(name, "capture_folder", lines)
    write("links", "capture_folder", [f("capture.json", CAPTURE), "l launches /", "d modules",
                                      "l env-x.json /etc/hostname"])
    write("tmp_and_env", "capture_folder", [f("launches/.tmp-1/launch.json", "{}"), f("env-1.json", '{"gpu": "x"}'),
                                            f("launches/0002/launch.json", "{")])


if __name__ == "__main__":
    triage_seeds()
    capture_seeds()
