"""Progress on long work (progress.py): shown on stderr only when it is a terminal, never with --json
or when piped; review, migration and import use it."""
import io
import json
import os
import shutil
import subprocess
import threading
import unittest

import _support
from _support import PYTHON, SCRIPTS, clean_env


def run_with_terminal_stderr(name, *args):
    """(exit code, stdout, what the child wrote to its stderr, a pty's slave end)."""
    master, slave = os.openpty()
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the slave end closed
                return
            if not data:
                return
            chunks.append(data)
    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc = subprocess.run([PYTHON, str(SCRIPTS / name)] + [str(a) for a in args], stdout=subprocess.PIPE,
                              stderr=slave, stdin=subprocess.DEVNULL, env=clean_env(), timeout=120)
    finally:
        os.close(slave)
        reader.join(10)
        os.close(master)
    return proc.returncode, proc.stdout.decode("utf-8"), b"".join(chunks).decode("utf-8", "replace")


class ProgressUnitTest(unittest.TestCase):
    def test_draws_counts_on_one_line_and_ends_it(self):
        from memory_core.progress import Progress
        out = io.StringIO()
        bar = Progress(3, "work", True, stream=out)
        for _ in range(3):
            bar.step()
        bar.done()
        text = out.getvalue()
        self.assertTrue(text.startswith("\rwork 1/3"), text)  # the first step shows at once
        self.assertTrue(text.endswith("\rwork 3/3\n"), text)
        self.assertNotIn("work 2/3", text)  # at most a few redraws a second
        bar.done()
        self.assertEqual(out.getvalue(), text)  # the newline once

    def test_disabled_writes_nothing(self):
        from memory_core.progress import Progress
        out = io.StringIO()
        with Progress(5, "work", False, stream=out) as bar:
            bar.step(5)
        self.assertEqual(out.getvalue(), "")


class ProgressInScriptsTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        for fact, topic in (("Builds use make", "build"), ("Deploys go through the staging branch", "deploy")):
            code, out = self.record(fact, "--topic", topic)
            self.assertEqual(code, 0, out)

    def assert_quiet_and_shown(self, name, *args, label, json_ok=True):
        proc = _support.run_script(name, *args)  # stderr is a pipe
        self.assertNotIn(label, proc.stderr.decode())
        self.assertNotIn("\r", proc.stderr.decode())
        code, out, err = run_with_terminal_stderr(name, *args)
        self.assertIn("\r" + label, err)
        self.assertNotIn(label, out)  # never on standard output
        if json_ok:
            code, out, err = run_with_terminal_stderr(name, *(args + ("--json",)))
            json.loads(out)
            self.assertNotIn(label, err)

    def test_review(self):
        self.assert_quiet_and_shown("review_memory.py", "--project-dir", self.project,
                                    label="review: scanning for secrets")

    def test_import(self):
        path = os.path.join(self._tmp, "in.jsonl")
        with open(path, "w") as fh:
            fh.write(json.dumps({"fact": "Lint runs with ruff", "topic": "build"}) + "\n")
        self.assert_quiet_and_shown("record_memory.py", "--project-dir", self.project, "--import", path,
                                    "--dry-run", label="import: lines")

    def test_migration(self):
        shutil.copytree(str(_support.REPO / "evals" / "fixtures" / "legacy"), str(self.project / ".claude" / "memory"))
        self.assert_quiet_and_shown("migrate_legacy_memory.py", "--project-dir", self.project, "--dry-run",
                                    label="migrate: legacy files")


if __name__ == "__main__":
    unittest.main()
