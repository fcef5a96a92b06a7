"""SKILL.md as an agent reads it: every command in its code blocks runs as pasted from the project root
of a project where the skill was installed (and, with the folder put in its place, for Codex and for
the plugin); the description carries the triggers and the near-misses."""
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import _support
from _support import REPO

CLAUDE_COPY = ".claude/skills/memory-3layer"
TEXT = (REPO / "SKILL.md").read_text("utf-8")


def commands():
    """Each command line of SKILL.md's bash blocks, in order."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        out.extend(l.strip() for l in block.splitlines() if l.strip() and not l.strip().startswith("#"))
    return out


def description():
    head = TEXT.split("\n---\n", 1)[0]
    line = [l for l in head.splitlines() if l.startswith("description:")][0]
    return line.split(":", 1)[1].strip().strip("'")


class SkillTextTest(unittest.TestCase):
    def test_every_command_is_python3_on_the_copy_with_project_dir(self):
        cmds = commands()
        self.assertGreaterEqual(len(cmds), 9)
        for cmd in cmds:
            argv = shlex.split(cmd)
            self.assertEqual(argv[0], "python3", cmd)
            self.assertTrue(argv[1].startswith(CLAUDE_COPY + "/"), cmd)
            self.assertIn("--project-dir", argv, cmd)
            self.assertEqual(argv[argv.index("--project-dir") + 1], ".", cmd)
            self.assertNotRegex(cmd, "[<>]", "a placeholder does not run as pasted")

    def test_no_bare_python_and_no_test_folder(self):
        self.assertNotRegex(TEXT, r"(?m)(^|[\s`])python (scripts|hooks|-m)")
        self.assertNotIn("evals", TEXT)  # not installed: the README names the test command

    def test_the_description_carries_triggers_and_near_misses(self):
        d = description()
        self.assertLessEqual(len(d), 1024)
        for phrase in ("remember this", "from now on", "next time", "记住", "以后都", "下次", "别忘了"):
            self.assertIn(phrase, d)
        for miss in ("remember to run the tests", "memory usage is high", "save this file"):
            self.assertIn(miss, d.split("Not for:")[1])


class SkillCommandsRunTest(unittest.TestCase):
    """Each command, pasted as it is (or with the folder put in its place), from the project root."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="m3l-skillmd-"))
        self.addCleanup(shutil.rmtree, str(self.tmp), True)

    def project(self, platform):
        project = self.tmp / platform
        project.mkdir()
        if platform != "plugin":
            proc = _support.run_script("install_hooks.py", "--project-dir", project, "--platform", platform,
                                       "--no-git-merge")
            self.assertEqual(proc.returncode, 0, proc.stderr)
        return project

    def run_all(self, project, folder):
        for cmd in commands():
            cmd = cmd.replace(CLAUDE_COPY, folder)
            proc = subprocess.run(cmd, shell=True, cwd=str(project), env=_support.clean_env(),
                                  capture_output=True, universal_newlines=True, timeout=120)
            self.assertIn(proc.returncode, (0, 1), "%s\n%s%s" % (cmd, proc.stdout[-1500:], proc.stderr[-1500:]))
            self.assertNotIn("can't open file", proc.stderr)
        load = subprocess.run(["python3", folder + "/scripts/load_memory.py", "--project-dir", "."],
                              cwd=str(project), env=_support.clean_env(), capture_output=True,
                              universal_newlines=True, timeout=120)
        self.assertIn("This project uses pnpm, never npm", load.stdout)  # the Record example landed here
        self.assertFalse((Path(folder) / ".memory-3layer").exists() if Path(folder).is_absolute() else False)

    def test_as_pasted_in_a_claude_code_project(self):
        self.run_all(self.project("claude"), CLAUDE_COPY)

    def test_in_a_codex_project_with_its_folder(self):
        self.run_all(self.project("codex"), ".agents/skills/memory-3layer")

    def test_from_the_plugin_with_its_base_directory(self):
        self.run_all(self.project("plugin"), str(REPO))


if __name__ == "__main__":
    unittest.main()
