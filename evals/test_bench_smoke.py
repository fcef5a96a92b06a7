"""Keeps evals/bench/bench_core.py from rotting: it runs on a tiny store and reports what it should.

No timing target is asserted here: timings are noise on shared machines. The real figures come
from running the benchmark itself (see evals/bench/README.md).
"""
import json
import math
import subprocess
import unittest

from _support import PYTHON, REPO, clean_env

BENCH = REPO / "evals" / "bench" / "bench_core.py"
TINY = ["--facts", "300", "--topics", "3", "--days", "5", "--big-facts", "300", "--runs", "1"]


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
                                 "hook_pre_compact", "load_peak_rss", "load_cold", "load_cold_peak_rss"])
        for result in data["results"]:
            self.assertIsInstance(result["ok"], bool)
            self.assertIn(result["kind"], ("time", "rss"))
            if result["name"] in ("load", "record", "load_peak_rss", "hook_session_start", "hook_post_tool_use",
                                  "hook_pre_compact"):
                self.assertTrue(_number(result["target"]), result)
            else:  # reported for information, never a miss
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

    def test_help(self):
        proc = subprocess.run([PYTHON, str(BENCH), "--help"], env=clean_env(), capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b"--runs", proc.stdout)
        self.assertIn(b"--check", proc.stdout)


if __name__ == "__main__":
    unittest.main()
