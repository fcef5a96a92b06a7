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

# The scripts the suite runs cache their byte-code, as a user's Python does (compiling the core again
# in every run made the suite a fifth slower), but in one folder outside the tree: never in scripts/
# or a test project, which tests compare byte for byte. Set here too for runs that pass no env.
PYCACHE = tempfile.mkdtemp(prefix="m3l-pycache-")
__import__("atexit").register(shutil.rmtree, PYCACHE, True)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
os.environ["PYTHONPYCACHEPREFIX"] = PYCACHE

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


def python38():
    """A working Python 3.8 interpreter, or None: M3L_PYTHON38, pyenv's 3.8, or python3.8 on PATH (pyenv
    shims exist even when 3.8 is not selected, so each candidate is run)."""
    import glob
    import shutil
    candidates = [os.environ.get("M3L_PYTHON38")]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python3.8")))
    candidates += [shutil.which("python3.8")]
    for path in candidates:
        if not path:
            continue
        try:
            out = subprocess.run([path, "-c", "import sys; print(sys.version_info[:2] == (3, 8))"],
                                 capture_output=True, universal_newlines=True, timeout=20)
        except OSError:
            continue
        if out.stdout.strip() == "True":
            return path
    return None


def clean_env(**extra):
    """Environment for a script run: no MEMORY_* settings leaking from the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")
           and k not in ("CLAUDE_PROJECT_DIR", "CODEX_HOME")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
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


def detector_loaded_for(statements):
    """(whether the secret detector, memory_core.redaction, was imported, and the value of `text`) after
    running the statements, which set `text`, in a fresh interpreter with scripts/ on its path."""
    code = "import sys; sys.path.insert(0, %r)\n%s\nprint('memory_core.redaction' in sys.modules)\nprint(text)\n" \
        % (str(SCRIPTS), statements)
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, universal_newlines=True, env=clean_env())
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    loaded, text = out.stdout.split("\n", 1)
    return loaded == "True", text


def wait_for_rebuild(store, timeout=60):
    """Wait until the detached rebuild a SessionStart may start (hooks._warm_later) is done: the
    store's recall index matches every topic. Tests that compare snapshots after a SessionStart call
    this first, or the rebuild's writes would land between their two snapshots."""
    import time
    from memory_core import recall_index
    from memory_core import store as st
    from memory_core.cache_files import signature
    from memory_core.paths import topic_items_path
    from memory_core.loading import load_context
    store = str(store)
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            sigs = dict((t, signature(topic_items_path(store, t))) for t in st.list_topics(store))
        except OSError:
            return
        stale = load_context(os.path.dirname(store), store, dict(max_chars=9000, max_items=60, daily_days=3,
                                                                topics=None))[1]["stale"]
        if not stale and (not sigs or recall_index.is_current(store, sigs)):
            with st.StoreLock(store, timeout=timeout):  # and it has let go of the lock
                return
        time.sleep(0.05)
    raise AssertionError("the detached rebuild of %s did not finish in %d s" % (store, timeout))


def snapshot(path):
    """Bytes of every file under path, for byte-identical checks. state/lock holds only the last
    lock holder's pid (diagnostics), so it is left out."""
    out = {}
    for root, _dirs, files in os.walk(str(path)):
        for f in files:
            p = os.path.join(root, f)
            if f == "lock" and os.path.basename(root) == "state":
                continue
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            else:
                with open(p, "rb") as fh:
                    out[p] = fh.read()
    return out


def run_unprivileged(name, *args):
    """Run a script's main() as user nobody when we are root, so file permissions really apply
    (root ignores them). Returns (exit code, stdout, stderr). Not root: a normal subprocess."""
    if os.geteuid() != 0:
        proc = run_script(name, *args)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    import contextlib
    import importlib.util
    import io
    path = SCRIPTS / name
    spec = importlib.util.spec_from_file_location("m3l_script_" + path.stem, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Everything the script may import lazily, imported before privileges are dropped.
    import memory_core.cli, memory_core.config, memory_core.loading, memory_core.recording  # noqa: F401,E401
    import memory_core.redaction, memory_core.similarity, memory_core.store  # noqa: F401,E401
    import argparse, importlib.util  # noqa: F401,E401
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        code, out, err = 99, io.StringIO(), io.StringIO()
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            sys.argv = [str(path)] + [str(a) for a in args]
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = memory_core.cli.run(module.main)
        except BaseException as exc:  # report, never let the child run the parent's tests
            err.write("child failed: %r\n" % (exc,))
        finally:
            os.write(write_fd, json.dumps([code, out.getvalue(), err.getvalue()]).encode())
            os._exit(0)
    os.close(write_fd)
    chunks = []
    while True:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    code, out, err = json.loads(b"".join(chunks).decode())
    return code, out, err
