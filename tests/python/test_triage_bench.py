"""The GPU triage bench's checker (bench/triage/summarize.py) on a hand-made
triage: which entries name the manifest's category and line, the times, the
scaling; and the problem set itself: every problem is a pair the pairing rule
finds, with its manifest entry.  No GPU."""
import io
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "triage"))
sys.path.insert(0, os.path.join(ROOT, "resources", "python"))

import summarize  # noqa: E402
from tilescope.triage import pairing  # noqa: E402

MANIFEST = {"problems": [
    {"name": "01_relu", "candidate": "problems/01_relu_new.py", "category": ["ok"], "line": None},
    {"name": "13_arange", "candidate": "problems/13_arange_new.py", "category": ["compile_error"], "line": 9},
    {"name": "21_store", "candidate": "problems/21_store_new.py", "category": ["oob_write"], "line": 13},
    {"name": "27_wild", "candidate": "problems/27_wild_new.py", "category": ["oob_write", "illegal_address"],
     "line": 13},
    {"name": "30_race", "candidate": "problems/30_race_new.py", "category": ["race"], "line": None},
]}


def entry(name, status="done", category=None, line=None, seconds=2.0):
    e = {"name": name, "inputs": ["/x/problems/%s.py" % name, "/x/problems/%s_new.py" % name], "status": status,
         "verdict": "ok" if not category else "fault", "seconds": seconds}
    if category:
        e["category"] = category
    if line is not None:
        e["line"] = line
    return e


TRIAGE = {"schema": "tilescope.triage/1", "options": {"jobs": 4}, "seconds": 10.0,
          "taxonomy": [{"category": "ok", "count": 1, "percent": 25.0}],
          "entries": [entry("01_relu"), entry("13_arange", category="compile_error", line=9),
                      entry("21_store", category="oob_write", line=None),   # the category, not the line
                      entry("27_wild", category="illegal_address", line=13),
                      entry("30_race", status="pending")]}


class Checker(unittest.TestCase):
    def test_category_and_line(self):
        rows = {r["name"]: r for r in summarize.check(MANIFEST, TRIAGE)}
        self.assertTrue(rows["01_relu"]["category_ok"])
        self.assertIsNone(rows["01_relu"]["line_ok"])
        self.assertTrue(rows["13_arange"]["line_ok"])
        self.assertTrue(rows["21_store"]["category_ok"])
        self.assertFalse(rows["21_store"]["line_ok"])
        self.assertTrue(rows["27_wild"]["line_ok"])  # any category of the list
        self.assertEqual(rows["30_race"]["got"], "pending")
        a = summarize.accuracy(list(rows.values()))
        self.assertEqual(a, {"problems": 5, "judged": 4, "right_category": 4, "located_problems": 3,
                             "right_category_and_line": 2, "right_both_overall": 3})

    def test_times_and_scaling(self):
        one = dict(TRIAGE, seconds=20.0, options={"jobs": 1}, entries=TRIAGE["entries"][:2])
        s = summarize.run_stats(TRIAGE)
        self.assertEqual(s["entries"], 4)
        self.assertAlmostEqual(s["wall_per_entry_s"], 2.5)
        self.assertAlmostEqual(summarize.scaling(TRIAGE, one), (4 / 10.0) / (2 / 20.0))
        self.assertIsNone(summarize.scaling(TRIAGE, dict(one, seconds=0)))
        out = io.StringIO()
        summarize.print_tables(MANIFEST, TRIAGE, one, out)
        text = out.getvalue()
        self.assertIn("right category: 4/5", text)
        self.assertTrue(text.rstrip().endswith("4.00x"))  # the short table and the scaling come last


class Integrity(unittest.TestCase):
    """The integrity problems count as caught with their category and sub-category."""

    def test_category_and_detail_per_pattern(self):
        manifest = {"problems": [
            {"name": "48_alias", "candidate": "p/48_alias_new.py", "category": ["output_is_input"],
             "detail": "alias", "line": None, "pattern": 1},
            {"name": "36_input", "candidate": "p/36_input_new.py", "category": ["output_is_input"],
             "detail": None, "line": None, "pattern": 1},
            {"name": "59_timed", "candidate": "p/59_timed_new.py", "category": ["integrity"],
             "detail": ["below_roofline", "timed_result_wrong"], "line": None, "pattern": 12},
            {"name": "63_sentinel", "candidate": "p/63_sentinel_new.py", "category": ["integrity"],
             "detail": "sentinel_aware", "line": None, "pattern": 17},
            {"name": "01_relu", "candidate": "p/01_relu_new.py", "category": ["ok"], "line": None}]}

        def e(name, category, detail=""):
            return dict(entry(name, category=category), detail=detail)
        triage = {"entries": [e("48_alias", "output_is_input", "alias"), e("36_input", "output_is_input"),
                              e("59_timed", "integrity", "timed_result_wrong"),
                              e("63_sentinel", "integrity", "fallback"),  # the category, not the pattern
                              entry("01_relu")]}
        rows = {r["name"]: r for r in summarize.check(manifest, triage)}
        self.assertTrue(rows["48_alias"]["detail_ok"])
        self.assertIsNone(rows["36_input"]["detail_ok"])
        self.assertTrue(rows["59_timed"]["detail_ok"])  # any of the list
        self.assertFalse(rows["63_sentinel"]["detail_ok"])
        self.assertIsNone(rows["01_relu"]["detail_ok"])
        g = summarize.integrity(list(rows.values()))
        self.assertEqual(g, {"problems": 4, "caught": 3, "patterns": 3, "patterns_caught": 2,
                             "patterns_missed": [17]})
        out = io.StringIO()
        summarize.print_tables(manifest, dict(triage, options={"jobs": 1}, seconds=5.0), None, out)
        self.assertIn("integrity traps caught (category and sub-category): 3/4 problems, 2/3 patterns; missed: 17",
                      out.getvalue())
        self.assertIn("| 63_sentinel | integrity/sentinel_aware | integrity/fallback | None/None | category |",
                      out.getvalue())


class ProblemSet(unittest.TestCase):
    def test_every_problem_pairs_and_is_in_the_manifest(self):
        folder = os.path.join(ROOT, "bench", "triage", "problems")
        with open(os.path.join(ROOT, "bench", "triage", "manifest.json")) as f:
            manifest = json.load(f)
        pairs, unpaired = pairing.scan(folder)
        self.assertEqual(unpaired, [])
        self.assertGreaterEqual(len(pairs), 40)
        names = {os.path.basename(c)[:-len("_new.py")] for _, c in pairs}
        self.assertEqual(names, {p["name"] for p in manifest["problems"]})
        # One problem at least for each of the 18 ways to fool an evaluator (make_problems.PATTERNS).
        self.assertEqual(sorted({p["pattern"] for p in manifest["problems"] if p.get("pattern")}),
                         list(range(1, 19)))
        for p in manifest["problems"]:
            if p["line"] is not None:
                with open(os.path.join(ROOT, "bench", "triage", p["candidate"])) as f:
                    self.assertIn("# <- expect", f.read().splitlines()[p["line"] - 1], p["name"])


if __name__ == "__main__":
    unittest.main()
