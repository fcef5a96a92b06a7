"""hooks/install_hooks.py: merge, never overwrite; refuse what it cannot merge; uninstall exactly."""
import json
import os
import shutil
import subprocess

import _support
from _support import run_json, run_script, snapshot

FOREIGN_CLAUDE = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"], "deny": []},
    "hooks": {
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "npx prettier --write"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
    "env": {"FOO": "1"},
}


class InstallCase(_support.TempProject):
    def setUp(self):
        super().setUp()
        subprocess.run(["git", "init", "-q", str(self.project)], check=False)
        self.codex_home = self.project.parent / "codex-home"
        self.codex_home.mkdir()

    def install(self, *args):
        env = _support.clean_env(CODEX_HOME=str(self.codex_home))
        return run_json("install_hooks.py", "--project-dir", self.project, *args, env=env)

    def settings(self):
        return json.loads((self.project / ".claude/settings.json").read_text())

    def ours(self, config):
        return [h["command"] for groups in config.get("hooks", {}).values() for g in groups
                for h in g.get("hooks", []) if "memory-3layer/hooks/run_hook.py" in h.get("command", "")]


class MergeTest(InstallCase):
    def setUp(self):
        super().setUp()
        (self.project / ".claude").mkdir()
        (self.project / ".claude/settings.json").write_text(json.dumps(FOREIGN_CLAUDE, indent=4))

    def test_foreign_content_kept_in_order_and_ours_added(self):
        code, out = self.install("--platform", "claude")
        self.assertEqual(code, 0, out)
        new = self.settings()
        self.assertEqual(len(self.ours(new)), 3)
        self.assertEqual(list(new)[:4], ["model", "permissions", "hooks", "env"])
        self.assertEqual(new["hooks"]["PostToolUse"][0], FOREIGN_CLAUDE["hooks"]["PostToolUse"][0])
        self.assertEqual(new["hooks"]["Stop"], FOREIGN_CLAUDE["hooks"]["Stop"])
        self.assertEqual(list(new["hooks"])[:2], ["PostToolUse", "Stop"])
        groups = new["hooks"]
        self.assertEqual(groups["SessionStart"][-1]["matcher"], "startup|resume|clear|compact")
        self.assertEqual(groups["PreCompact"][-1]["matcher"], "manual|auto")
        self.assertTrue((self.project / ".claude/skills/memory-3layer/SKILL.md").is_file())
        self.assertTrue((self.project / ".claude/skills/memory-3layer/.installed-by-memory-3layer").is_file())
        self.assertFalse((self.project / ".claude/skills/memory-3layer/evals").exists())
        backups = list((self.store / "state" / "backups").iterdir())
        self.assertEqual(len(backups), 1)
        self.assertEqual(json.loads(backups[0].read_text()), FOREIGN_CLAUDE)

    def test_rerun_is_a_no_op(self):
        self.install("--platform", "claude")
        before = snapshot(self.project)
        code, out = self.install("--platform", "claude")
        self.assertEqual((code, out["changed"]), (0, False))
        self.assertEqual(before, snapshot(self.project))

    def test_uninstall_removes_exactly_ours(self):
        self.install("--platform", "both")
        code, out = self.install("--platform", "both", "--uninstall")
        self.assertEqual(code, 0, out)
        self.assertEqual(json.dumps(self.settings()), json.dumps(FOREIGN_CLAUDE))  # values and key order
        self.assertFalse((self.project / ".claude/skills").exists())
        self.assertFalse((self.project / ".agents").exists())
        self.assertFalse((self.project / ".codex").exists())
        self.assertTrue(self.store.is_dir())  # the memory itself stays

    def test_dry_run_writes_nothing(self):
        before = snapshot(self.project)
        proc = run_script("install_hooks.py", "--project-dir", self.project, "--platform", "both", "--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        text = proc.stdout.decode()
        self.assertIn("+++ b/.claude/settings.json", text)
        self.assertIn("would copy the skill", text)
        self.assertEqual(before, snapshot(self.project))

    def test_gitignore_line_added_once(self):
        (self.project / ".gitignore").write_text("node_modules/")
        self.install("--platform", "claude")
        self.install("--platform", "codex")
        text = (self.project / ".gitignore").read_text()
        self.assertEqual(text, "node_modules/\n.memory-3layer/state/\n")


class PromptRecallInstallTest(InstallCase):
    def test_the_prompt_hook_only_with_the_flag_kept_by_a_rerun_removed_by_uninstall(self):
        self.install("--platform", "both")
        self.assertNotIn("UserPromptSubmit", self.settings()["hooks"])
        code, out = self.install("--platform", "both", "--with-prompt-recall")
        self.assertEqual(code, 0, out)
        claude = self.settings()["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
        codex = json.loads((self.project / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
        self.assertIn("run_hook.py\" UserPromptSubmit --prompt-recall --host claude", claude)
        self.assertIn("run_hook.py\" UserPromptSubmit --prompt-recall --host codex", codex[0]["hooks"][0]["command"])
        before = snapshot(self.project)
        code, out = self.install("--platform", "both")  # a later install keeps the opt-in
        self.assertEqual((code, out["changed"]), (0, False))
        self.assertEqual(before, snapshot(self.project))
        self.install("--platform", "both", "--uninstall")
        self.assertFalse((self.project / ".claude/settings.json").exists())
        self.assertFalse((self.project / ".codex").exists())


class RefusalTest(InstallCase):
    def assert_refused_untouched(self, *args):
        before = snapshot(self.project)
        code, out = self.install(*args)
        self.assertEqual(code, 1, out)
        self.assertTrue(out["error"] and out["fix"])
        self.assertEqual(before, snapshot(self.project))
        return out

    def test_invalid_json_and_non_object_refused(self):
        (self.project / ".claude").mkdir()
        for content in ('{"hooks": ', "[1, 2]", '{"hooks": []}', '{"hooks": {"SessionStart": {}}}', "\xff"):
            (self.project / ".claude/settings.json").write_text(content, "latin-1")
            out = self.assert_refused_untouched("--platform", "claude")
            self.assertIn("settings.json", out["error"])

    def test_foreign_skill_folder_refused(self):
        folder = self.project / ".claude/skills/memory-3layer"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text("someone else's")
        out = self.assert_refused_untouched("--platform", "claude")
        self.assertIn("cowardly refusing", out["error"])
        out = self.assert_refused_untouched("--platform", "claude", "--uninstall")


class CommandTest(InstallCase):
    def run_config_command(self, config, event, cwd, env_extra=None, payload=None):
        groups = json.loads((self.project / config).read_text())["hooks"][event]
        command = [h["command"] for g in groups for h in g["hooks"] if "memory-3layer" in h["command"]][0]
        env = _support.clean_env(**(env_extra or {}))
        env["PATH"] = os.path.dirname(_support.PYTHON) + os.pathsep + env.get("PATH", "")
        import uuid
        data = json.dumps(payload or {"session_id": uuid.uuid4().hex, "cwd": str(cwd), "source": "startup"}).encode()
        proc = subprocess.run(command, shell=True, cwd=str(cwd), input=data, capture_output=True, env=env,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout.decode())

    def test_commands_hold_no_machine_path_and_work_from_subfolders_and_clones(self):
        self.record("Payments go through the ledger service", "--topic", "arch")
        code, out = self.install("--platform", "both")
        self.assertEqual(code, 0, out)
        for config in (".claude/settings.json", ".codex/hooks.json"):
            text = (self.project / config).read_text()
            for machine_path in (str(self.project), str(_support.REPO), os.path.expanduser("~"), "/tmp/"):
                self.assertNotIn(machine_path, text, config)
        sub = self.project / "src" / "deep"
        sub.mkdir(parents=True)
        out = self.run_config_command(".claude/settings.json", "SessionStart", sub,
                                      {"CLAUDE_PROJECT_DIR": str(self.project)})
        self.assertIn("ledger service", out["hookSpecificOutput"]["additionalContext"])
        out = self.run_config_command(".codex/hooks.json", "SessionStart", sub)
        self.assertIn("ledger service", out["hookSpecificOutput"]["additionalContext"])
        clone = self.project.parent / "teammate-clone"
        shutil.copytree(str(self.project), str(clone), ignore=shutil.ignore_patterns("state"))
        out = self.run_config_command(".codex/hooks.json", "SessionStart", clone / "src")
        self.assertIn("ledger service", out["hookSpecificOutput"]["additionalContext"])
        runs = (clone / ".memory-3layer/state/hook-runs.jsonl").read_text()
        self.assertIn('"host": "codex"', runs)
        self.assertFalse((self.project / "src" / "deep" / ".memory-3layer").exists())

    def test_codex_command_outside_any_install_answers_empty_json(self):
        self.install("--platform", "codex")
        elsewhere = self.project.parent / "elsewhere"
        elsewhere.mkdir()
        shutil.copytree(str(self.project / ".codex"), str(elsewhere / ".codex"))
        groups = json.loads((elsewhere / ".codex/hooks.json").read_text())["hooks"]["SessionStart"]
        proc = subprocess.run(groups[0]["hooks"][0]["command"], shell=True, cwd=str(elsewhere), input=b"{}",
                              capture_output=True, timeout=30)
        self.assertEqual((proc.returncode, proc.stdout.strip()), (0, b"{}"))


class PlatformTest(InstallCase):
    def test_codex_prints_trust_steps_and_never_touches_codex_home(self):
        code, out = self.install("--platform", "codex")
        self.assertEqual(code, 0, out)
        text = " ".join(out["next"])
        self.assertIn("/hooks", text)
        self.assertIn("trust", text)
        self.assertEqual(list(self.codex_home.iterdir()), [])
        self.assertIn("not verified", out["runtime_status"])

    def test_manual_writes_no_host_config(self):
        code, out = self.install("--platform", "manual")
        self.assertEqual(code, 0, out)
        self.assertFalse((self.project / ".claude").exists())
        self.assertFalse((self.project / ".codex").exists())
        self.assertTrue((self.project / ".agents/skills/memory-3layer/scripts/load_memory.py").is_file())
        self.assertIn("load_memory.py", " ".join(out["next"]))
        self.assertIn("nothing runs automatically", " ".join(out["next"]))

    def test_older_copy_of_ours_is_replaced(self):
        self.install("--platform", "claude")
        installed = self.project / ".claude/skills/memory-3layer/SKILL.md"
        installed.write_text("stale copy")
        code, out = self.install("--platform", "claude")
        self.assertEqual(code, 0, out)
        self.assertEqual(installed.read_text(), (_support.REPO / "SKILL.md").read_text())
