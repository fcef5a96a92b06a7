"""Keeps evals/bench/bench_core.py from rotting: it runs on a tiny store and reports what it should.

No timing target is asserted here: timings are noise on shared machines. The real figures come
from running the benchmark itself (see evals/bench/README.md). The runs here pass --python with the
test interpreter, so they need no network and no cached venv; making a clean venv is checked
separately, without pip (skipped when this Python cannot make one).
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from _support import PYTHON, REPO, clean_env

BENCH = REPO / "evals" / "bench" / "bench_core.py"
TINY = ["--facts", "300", "--topics", "3", "--days", "5", "--big-facts", "300", "--runs", "1",
        "--python", PYTHON]
TARGETS = {"load": 2.0, "hook_session_start": 2.2, "hook_post_tool_use": 1.3, "hook_pre_compact": 2.2,
           "query": 2.5, "hook_user_prompt_submit": 2.5, "load_peak_rss": 40.0, "hook_session_start_pull": 4.0,
           "hook_session_start_cold": 4.0}

sys.path.insert(0, str(REPO / "evals" / "bench"))
import clean_python  # noqa: E402


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class BenchSmokeTest(unittest.TestCase):

    def run_bench(self, *args):
        proc = subprocess.run([PYTHON, str(BENCH)] + TINY + list(args), cwd=str(REPO), env=clean_env(),
                              capture_output=True, timeout=120)
        self.assertEqual(proc.returncode, 0, "bench failed: %s" % proc.stderr.decode("utf-8", "replace")[-3000:])
        return proc.stdout.decode("utf-8")

    def test_json_has_every_benchmark_with_numeric_ratios(self):
        data = json.loads(self.run_bench("--json"))
        names = [r["name"] for r in data["results"]]
        self.assertEqual(names, ["load", "record", "record_typical", "hook_session_start", "hook_post_tool_use",
                                 "hook_pre_compact", "query", "hook_user_prompt_submit", "load_peak_rss",
                                 "hook_session_start_pull", "hook_session_start_cold", "load_cold", "load_cold_peak_rss"])
        for result in data["results"]:
            self.assertIsInstance(result["ok"], bool)
            self.assertIn(result["kind"], ("time", "rss"))
            if result["name"] in TARGETS:
                self.assertEqual(result["target"], TARGETS[result["name"]], result)
            else:  # reported for information, never a miss (record included, for now)
                self.assertIsNone(result["target"])
            if result.get("skipped"):  # peak RSS needs Unix
                self.assertEqual(result["kind"], "rss")
                continue
            self.assertTrue(_number(result["ratio"]) and result["ratio"] > 0, result)
            if result["kind"] == "time":
                self.assertTrue(_number(result["median_ms"]) and _number(result["baseline_median_ms"]), result)
                self.assertEqual(len(result["samples_ms"]), 1)
            else:
                self.assertTrue(_number(result["peak_rss_mb"]) and _number(result["baseline_peak_rss_mb"]), result)
        self.assertEqual(data["store"]["facts"], 300)
        self.assertEqual(data["store"]["topics"], 3)
        self.assertEqual(data["store"]["big_topic_facts"], 300)
        self.assertEqual(data["store"]["daily_files"], 5)
        self.assertIn("rapidfuzz", data)
        self.assertTrue(data["python"])
        self.assertEqual(data["executable"], os.path.abspath(PYTHON))  # as given, never resolved
        interpreter = data["interpreter"]
        self.assertEqual(interpreter["source"], "--python")
        self.assertIsInstance(interpreter["clean"], bool)
        self.assertIn(data["mode"], ("normal", "degraded"))

    def test_first_start_runs_on_a_small_topic(self):
        proc = subprocess.run([PYTHON, str(REPO / "evals" / "bench" / "first_start.py"), "--facts", "200", "--runs", "1",
                               "--python", PYTHON], cwd=str(REPO), env=clean_env(), capture_output=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode("utf-8", "replace")[-3000:])
        self.assertRegex(proc.stdout.decode("utf-8"), r"first SessionStart, 200 facts in one topic .* median \d")

    def test_table_names_the_interpreter(self):
        out = self.run_bench("--only", "hook_post_tool_use")
        self.assertIn("interpreter: %s" % os.path.abspath(PYTHON), out)
        self.assertRegex(out, r"(?m)^clean: (yes|NO)")
        self.assertRegex(out, r"(?m)^mode: (normal|DEGRADED)")

    def test_fresh_venv_is_clean(self):
        folder = tempfile.mkdtemp(prefix="m3l-bench-venv-test-")
        try:
            venv = os.path.join(folder, "venv")
            error = clean_python.make_venv(venv, with_pip=False)  # no pip: no network, a second at most
            if error:
                self.skipTest("this Python cannot make a venv: %s" % error)
            info = clean_python.probe(clean_python.venv_python(venv))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        self.assertTrue(info["venv"], info)
        self.assertTrue(info["clean"], info["not_clean_because"])
        self.assertEqual(info["foreign_pth"], [])
        self.assertEqual(info["foreign_hook_modules"], [])

    def test_help(self):
        proc = subprocess.run([PYTHON, str(BENCH), "--help"], env=clean_env(), capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b"--runs", proc.stdout)
        self.assertIn(b"--check", proc.stdout)


if __name__ == "__main__":
    unittest.main()
