"""Shared helpers for the test suite: repo paths, temp projects, running the scripts."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
HOOKS = REPO / "hooks"
SHARED_DATA = REPO.parent / "shared" / "data"
PYTHON = sys.executable

if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

# Figures a test measured (recall, F1, ...). conftest.py prints them in pytest's summary;
# under plain unittest they are printed as they come.
METRICS = {}


def report_metric(name, value):
    METRICS[name] = value
    if "pytest" not in sys.modules:
        print("%s: %s" % (name, value))


def shared_data(name):
    """Path of an external evaluation file, or skip the test when shared/ is absent."""
    path = SHARED_DATA / name
    if not path.is_file():
        raise unittest.SkipTest("%s not present (external data lives in ../shared/data)" % path)
    return path


def clean_env(**extra):
    """Environment for a script run: no MEMORY_* settings leaking from the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")
           and k not in ("CLAUDE_PROJECT_DIR", "CODEX_HOME")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_script(name, *args, cwd=None, env=None, input=None, timeout=60):
    """Run scripts/<name> (or hooks/<name>) with the test interpreter; returns CompletedProcess."""
    path = SCRIPTS / name if (SCRIPTS / name).exists() else HOOKS / name
    return subprocess.run([PYTHON, str(path)] + [str(a) for a in args], cwd=cwd,
                          env=env or clean_env(), input=input, capture_output=True,
                          timeout=timeout)


def run_json(name, *args, **kw):
    proc = run_script(name, *args, "--json", **kw)
    try:
        data = json.loads(proc.stdout.decode("utf-8"))
    except ValueError:
        raise AssertionError("not JSON (exit %s): %r / %r" % (proc.returncode, proc.stdout[-2000:],
                                                             proc.stderr[-2000:]))
    return proc.returncode, data


class TempProject(unittest.TestCase):
    """A TestCase with a fresh project folder (a git-less temp dir) in self.project."""

    def setUp(self):
        super().setUp()
        self._tmp = tempfile.mkdtemp(prefix="m3l-test-")
        self.project = Path(self._tmp) / "project"
        self.project.mkdir()
        self.store = self.project / ".memory-3layer"

    def tearDown(self):
        for root, dirs, _files in os.walk(self._tmp):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(self._tmp, ignore_errors=True)
        super().tearDown()

    def record(self, fact, *args, **kw):
        return run_json("record_memory.py", "--project-dir", self.project, "--fact", fact, *args, **kw)

    def load(self, *args, **kw):
        return run_json("load_memory.py", "--project-dir", self.project, *args, **kw)


def snapshot(path):
    """Bytes of every file under path, for byte-identical checks."""
    out = {}
    for root, _dirs, files in os.walk(str(path)):
        for f in files:
            p = os.path.join(root, f)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            else:
                with open(p, "rb") as fh:
                    out[p] = fh.read()
    return out
