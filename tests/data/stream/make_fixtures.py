#!/usr/bin/env python3
"""Writes the stream fixtures (tilescope.stream/1, docs/protocol.md) from the
chart fixture sweep (../reports_charts/sweep_h100.json): what
`tilescope-run sweep --stream` prints for it (with a profiling-pass checkpoint
and diagnose's progress shapes), one file per kind of malformed line, and lines
that are not events at all. Run: python3 make_fixtures.py"""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
report = json.load(open(os.path.join(here, "..", "reports_charts", "sweep_h100.json")))
S = "tilescope.stream/1"
total = len(report["points"])


def line(event, **body):
    body.update({"schema": S, "event": event})
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


out = ["tilescope-run: a wrapper's own text line"]
for p in report["points"]:
    tags = {"point_index": p["index"], "trial": p["trial"], "total": total}
    out.append(line("device", device=report["device"], **tags))
    out.append(line("progress", message="compile gemm_tiled.cu for sm_90", t=0.012, **tags))
    out.append(line("phase", phase="launch", **tags))
    out.append(line("phase", phase="launched", **tags))
    out.append(line("partial", point=p, **tags))
    out.append(line("point", point=p, **tags))
# diagnose's own progress: a capture that starts, a group that settled.
out.append(line("progress", message="experiment trial 2/5: the baseline failed", stage="diagnose",
                group="trials", capture=2, max_captures=12, experiment="trial 2/5"))
out.append(line("progress", message="trials: 5 trials agree", stage="diagnose", group="trials",
                findings=["race"]))
out.append(line("phase", phase="trace", point_index=0, trial=0, experiment="trace"))
out.append(line("phase", phase="traced", point_index=0, trial=0, experiment="trace"))
out.append(line("report", report=report))
with open(os.path.join(here, "sweep_stream.jsonl"), "w") as f:
    f.write("\n".join(out) + "\n")

point = dict(report["points"][0])
finding = dict(report["findings"][0])
bad = {
    "wrong_type": line("point", point=dict(point, verdict=3)).encode(),
    "unknown_verdict": line("point", point=dict(point, verdict="great")).encode(),
    "unknown_category": line("point", point=dict(point, findings=[dict(finding, category="oob_wirte")])).encode(),
    "unknown_event": line("telemetry", value=1).encode(),
    "unknown_phase": line("phase", phase="lunch").encode(),
    "unknown_version": json.dumps({"schema": "tilescope.stream/2", "event": "point"}).encode(),
    "no_event": json.dumps({"schema": S, "message": "hello"}).encode(),
    "no_point": line("point").encode(),
    "partial_wrong_type": line("partial", point=dict(point, trial="first")).encode(),
    "progress_wrong_type": line("progress", message=42).encode(),
    "device_wrong_type": line("device", device=dict(report["device"], sm_count="many")).encode(),
    "report_wrong_schema": line("report", report=dict(report, schema="tilescope.config/1")).encode(),
    "report_unknown_category": line("report", report=dict(report, findings=[dict(finding, category="oops")])).encode(),
    "invalid_utf8": line("point", point=dict(point, label="LABEL")).encode().replace(b"LABEL", b"\xff\xfe"),
    "truncated": line("point", point=point).encode()[:80],
    "duplicate_key": b'{"schema":"%s","event":"progress","message":"a","message":"b"}' % S.encode(),
    "deep": ('{"schema":"%s","event":"progress","message":' % S + "[" * 1000 + "]" * 1000 + "}").encode(),
}
for name, data in bad.items():
    with open(os.path.join(here, "malformed_" + name + ".line"), "wb") as f:
        f.write(data)
# Not stream events: shown as text, never an error.
text = {
    "binary": bytes(b for b in range(256) if b != 10),
    "other_schema": json.dumps({"schema": "tilescope.report/1", "event": "point"}).encode(),
    "array": b"[1, 2, 3]",
}
for name, data in text.items():
    with open(os.path.join(here, "text_" + name + ".line"), "wb") as f:
        f.write(data)
