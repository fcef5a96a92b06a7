"""The README's first command must keep working: evals/demo.py runs the main job end to end."""
import subprocess
import unittest

import _support


class DemoTest(unittest.TestCase):
    def test_demo_runs_every_step_as_expected(self):
        proc = subprocess.run([_support.PYTHON, str(_support.REPO / "evals" / "demo.py")], capture_output=True,
                              universal_newlines=True, env=_support.clean_env(), timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-2000:])
        self.assertIn("demo OK", proc.stdout)
        self.assertIn("hookSpecificOutput", proc.stdout)
