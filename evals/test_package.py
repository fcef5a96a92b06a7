"""The skill package itself: SKILL.md validity, layout, --help, Python 3.8, unittest discovery."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import _support
from _support import REPO

ALLOWED_FRONT_MATTER = {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}


def front_matter(text):
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not match:
        return None
    try:
        import yaml
        return yaml.safe_load(match.group(1))
    except ImportError:
        return dict(l.split(":", 1) for l in match.group(1).splitlines() if ":" in l and not l.startswith(" "))


class SkillPackageTest(unittest.TestCase):
    def test_agentskills_validator_accepts_the_skill(self):
        # next to this interpreter first: a virtual environment's tools when it is not activated
        tool = shutil.which("agentskills", path=os.path.dirname(_support.PYTHON)) or shutil.which("agentskills")
        if tool is None:
            self.skipTest("agentskills (pip install skills-ref) not installed")
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "memory-3layer")
            shutil.copytree(str(REPO), target, ignore=shutil.ignore_patterns(".git", "evals", "node_modules",
                                                                              "__pycache__", ".venv"))
            proc = subprocess.run([tool, "validate", target], capture_output=True, universal_newlines=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("Valid skill", proc.stdout + proc.stderr)

    def test_front_matter_rules_of_skill_creator(self):
        text = (REPO / "SKILL.md").read_text("utf-8")
        meta = front_matter(text)
        self.assertIsNotNone(meta)
        self.assertEqual(meta["name"].strip(), "memory-3layer")
        self.assertLessEqual(set(meta), ALLOWED_FRONT_MATTER)
        description = str(meta["description"]).strip()
        self.assertTrue(1 <= len(description) <= 1024)
        self.assertNotRegex(description, "[<>]")
        self.assertLess(len(text.splitlines()), 500)

    def test_layout(self):
        for rel in ("SKILL.md", "README.md", "LICENSE", "requirements.txt", "scripts/memory_core/__init__.py",
                    "scripts/record_memory.py", "scripts/load_memory.py", "references/data-format.md",
                    ".memory-3layer-template/MEMORY.md", ".ci/run"):
            self.assertTrue((REPO / rel).is_file(), rel)
        for rel in ("hooks", "evals/bench", ".memory-3layer-template/memory",
                    ".memory-3layer-template/areas/topics"):
            self.assertTrue((REPO / rel).is_dir(), rel)
        self.assertIn("MIT License", (REPO / "LICENSE").read_text())
        reqs = (REPO / "requirements.txt").read_text().lower()
        for name in ("pyyaml", "rapidfuzz", "pytest"):
            self.assertIn(name, reqs)
        template = (REPO / ".memory-3layer-template/MEMORY.md").read_text("utf-8")
        self.assertGreaterEqual(template.count("\n## "), 3)
        self.assertIn("secret", template.lower())

    def test_every_script_has_help(self):
        paths = sorted(glob.glob(str(REPO / "scripts" / "*.py")) + glob.glob(str(REPO / "hooks" / "*.py")))
        self.assertGreaterEqual(len(paths), 11)
        for path in paths:
            proc = subprocess.run([_support.PYTHON, path, "--help"], capture_output=True, universal_newlines=True,
                                  env=_support.clean_env())
            self.assertEqual(proc.returncode, 0, path + proc.stderr)
            self.assertIn("--project-dir", proc.stdout, path)

    def test_a_reader_that_stops_reading_is_not_an_error(self):
        """`install_hooks.py --dry-run | head`: the pipe closes before the output is flushed."""
        import tempfile
        project = tempfile.mkdtemp(prefix="m3l-pipe-")
        self.addCleanup(__import__("shutil").rmtree, project, True)
        proc = subprocess.Popen([_support.PYTHON, str(REPO / "hooks" / "install_hooks.py"), "--project-dir", project,
                                 "--platform", "both", "--dry-run"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=_support.clean_env())
        proc.stdout.close()  # the reader is gone before a byte is written
        err = proc.stderr.read()
        proc.stderr.close()
        self.assertEqual(proc.wait(timeout=60), 0, err)
        self.assertEqual(err, b"")

    def test_help_follows_the_terminal_width_and_parsers_do_not_import_shutil(self):
        def help_lines(columns):
            env = dict(_support.clean_env(), COLUMNS=str(columns))
            proc = subprocess.run([_support.PYTHON, str(REPO / "scripts" / "record_memory.py"), "--help"],
                                  capture_output=True, universal_newlines=True, env=env)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return proc.stdout.splitlines()
        narrow, wide = help_lines(60), help_lines(200)
        self.assertGreater(len(narrow), len(wide))  # the options' help wraps at the width
        self.assertFalse([line for line in narrow if line.startswith("  --") and len(line) > 60], narrow)
        code = ("import sys; sys.path.insert(0, %r); import record_memory; record_memory.build_parser()"
                ".parse_args(['--fact', 'x']); print('shutil' in sys.modules)" % str(REPO / "scripts"))
        proc = subprocess.run([_support.PYTHON, "-S", "-c", code], capture_output=True, universal_newlines=True,
                              env=_support.clean_env())  # -S: no site hooks (some import shutil themselves)
        self.assertEqual(proc.stdout.strip(), "False", proc.stderr)  # 3 ms at every start (cli.help_formatter)

    def test_vermin_python38(self):
        tool = shutil.which("vermin", path=os.path.dirname(_support.PYTHON)) or shutil.which("vermin")
        if tool is None:
            self.skipTest("vermin not installed")
        proc = subprocess.run([tool, "--target=3.8", "--no-tips", "--violations", "scripts", "hooks"],
                              cwd=str(REPO), capture_output=True, universal_newlines=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_unittest_discovery_runs_the_core_tests(self):
        proc = subprocess.run([_support.PYTHON, "-m", "unittest", "discover", "-s", "evals", "-p",
                               "test_store_resolution.py"], cwd=str(REPO), capture_output=True,
                              universal_newlines=True, env=_support.clean_env())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ran = re.search(r"Ran (\d+) test", proc.stderr)
        self.assertTrue(ran and int(ran.group(1)) > 0, proc.stderr)


class RealPython38Test(_support.TempProject):
    def test_record_and_load_under_python38(self):
        py38 = _support.python38()
        if py38 is None:
            self.skipTest("no Python 3.8 interpreter on this machine")
        env = _support.clean_env(PYTHONNOUSERSITE="1")
        rec = subprocess.run([py38, str(_support.SCRIPTS / "record_memory.py"), "--project-dir", str(self.project),
                              "--fact", "The core scripts support Python 3.8", "--topic", "compat"],
                             capture_output=True, universal_newlines=True, env=env)
        self.assertEqual(rec.returncode, 0, rec.stdout + rec.stderr)
        load = subprocess.run([py38, str(_support.SCRIPTS / "load_memory.py"), "--project-dir", str(self.project)],
                              capture_output=True, universal_newlines=True, env=env)
        self.assertEqual(load.returncode, 0, load.stderr)
        self.assertIn("The core scripts support Python 3.8", load.stdout)


if __name__ == "__main__":
    unittest.main()
