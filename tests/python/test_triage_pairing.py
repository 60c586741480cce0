"""The Python folder search (tilescope/triage/pairing.py) keeps the C++ rule
(core/src/triage/triage_inputs.cpp, tests/unit/test_triage_inputs.cpp): roles
read line by line, links out of the folder not followed, a folder reached twice
taken once (docs/triage.md, "Inputs")."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "resources", "python"))

from tilescope.triage import pairing  # noqa: E402

REFERENCE = "import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\n"
CANDIDATE = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n"


def write(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
    return p


class Roles(unittest.TestCase):
    def test_lines(self):
        self.assertEqual(pairing.role("class\tModelNew :\n"), "candidate")
        self.assertIsNone(pairing.role("class ModelNew\r\n"))
        self.assertIsNone(pairing.role("class ModelNewer(x):\n"))
        self.assertEqual(pairing.role("class Model:\ndef get_inputs ():"), "reference")
        self.assertIsNone(pairing.role("class" + "\n" * 200000 + "ModelNew(object):\n"))
        self.assertIsNone(pairing.role("class" + " " * (4 << 20) + "ModelNew(x):\n"))
        self.assertEqual(pairing.role("class" + " " * (pairing.MAX_ROLE_LINE - 20) + "ModelNew(x):\n"),
                         "candidate")


class Search(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_links_to_dot_count_once(self):
        r = write(self.root, "inputs/1_a.py", REFERENCE)
        c = write(self.root, "inputs/1_a_new.py", CANDIDATE)
        for name in "abcd":
            os.symlink(".", os.path.join(self.root, "inputs", name))
        pairs, unpaired = pairing.scan(os.path.join(self.root, "inputs"))
        self.assertEqual(pairs, [(r, c)])
        self.assertEqual(unpaired, [])

    def test_links_out_are_not_followed(self):
        write(self.root, "outside/2_b.py", REFERENCE)
        write(self.root, "outside/2_b_new.py", CANDIDATE)
        inputs = os.path.join(self.root, "inputs")
        os.makedirs(os.path.join(inputs, "sub"))
        os.symlink("/", os.path.join(inputs, "root"))
        os.symlink("../outside", os.path.join(inputs, "home"))
        os.symlink("../outside/2_b_new.py", os.path.join(inputs, "2_b_new.py"))
        os.symlink("../..", os.path.join(inputs, "sub", "up"))
        problems = []
        self.assertEqual(pairing.scan(inputs, problems), ([], []))
        self.assertEqual(len(problems), 1)
        self.assertIn("4 symbolic link(s) lead out of the folder", problems[0])

    def test_a_link_inside_is_followed(self):
        r = write(self.root, "inputs/real/3_c.py", REFERENCE)
        write(self.root, "inputs/real/3_c_new.py", CANDIDATE)
        os.symlink("real", os.path.join(self.root, "inputs", "0alias"))  # sorts first: the real path wins
        pairs, _ = pairing.scan(os.path.join(self.root, "inputs"))
        self.assertEqual([p[0] for p in pairs], [r])


class Layouts(unittest.TestCase):
    """The layouts of docs/triage.md, "Inputs" (tests/unit/test_triage_layouts.cpp on the C++ side)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_ref_and_new_suffixes(self):
        r = write(self.root, "p/3_op_ref.py", REFERENCE)
        c = write(self.root, "p/3_op_new.py", CANDIDATE)
        r2 = write(self.root, "p/gelu_ref.py", REFERENCE)
        c2 = write(self.root, "p/gelu.py", CANDIDATE)
        lonely = write(self.root, "p/tanh_ref.py", REFERENCE)
        pairs, unpaired = pairing.scan(os.path.join(self.root, "p"))
        self.assertEqual(pairs, [(r, c), (r2, c2)])
        self.assertEqual(unpaired, [(lonely, "reference")])
        self.assertEqual(pairing.stem(lonely), "tanh")

    def test_nested_reference_and_candidate_folders(self):
        r = write(self.root, "kb/references/level1/19_relu.py", REFERENCE)
        c = write(self.root, "kb/candidates/level1/19_relu.py", CANDIDATE)
        c2 = write(self.root, "kb/candidates/level1/19_relu_new.py", CANDIDATE)  # the same reference again
        pairs, unpaired = pairing.scan(self.root)
        self.assertEqual(pairs, [(r, c), (r, c2)])
        self.assertEqual(unpaired, [])

    def test_kernelbench_samples(self):
        relu = write(self.root, "KernelBench/level1/19_ReLU.py", REFERENCE)
        other = write(self.root, "KernelBench/level2/19_Conv2d_ReLU.py", REFERENCE)
        s0 = write(self.root, "runs/r/level_1_problem_19_sample_0_kernel.py", CANDIDATE)
        s1 = write(self.root, "runs/r/level_1_problem_19_sample_1_kernel.py", CANDIDATE)
        s2 = write(self.root, "runs/r/level_2_problem_19_sample_0_kernel.py", REFERENCE + CANDIDATE)
        orphan = write(self.root, "runs/r/level_3_problem_5_sample_0_kernel.py", CANDIDATE)
        empty = write(self.root, "runs/r/level_1_problem_1_sample_0_kernel.py", "# nothing\n")
        self.assertEqual(pairing.kernelbench_sample(s1), (1, 19, 1))
        self.assertEqual(pairing.kernelbench_problem(other), (2, 19))
        self.assertIsNone(pairing.kernelbench_sample("level_1_problem_1234567_sample_0_kernel.py"))
        pairs, unpaired = pairing.scan(self.root)
        self.assertEqual(pairs, [(relu, s0), (relu, s1), (other, s2)])
        self.assertEqual(unpaired, [(empty, "none"), (orphan, "candidate")])


if __name__ == "__main__":
    unittest.main()
