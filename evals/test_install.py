"""hooks/install_hooks.py: merge, never overwrite; refuse what it cannot merge; uninstall exactly."""
import hashlib
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


# --- the user's bytes ----------------------------------------------------------------------------

STYLED = {
    "compact": '{"model":"opus","env":{"A":"1"}}',
    "compact-spaced": '{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say"}]}]}}\n',
    "escaped": '{\n    "name": "caf\\u00e9 \\u2603",\n    "model": "opus"\n}\n',
    "raw-utf8": '{\n  "name": "café ☃",\n  "model": "opus"\n}\n',
    "tabs": '{\n\t"model": "opus",\n\t"permissions": {\n\t\t"allow": ["Bash(ls)"]\n\t}\n}\n',
    "crlf": '{\r\n  "model": "opus",\r\n  "env": {\r\n    "A": "1"\r\n  }\r\n}\r\n',
    "no-final-newline": '{\n  "model": "opus"\n}',
    "foreign-hooks": json.dumps(FOREIGN_CLAUDE, indent=3),
    "odd-layout": '  {"model" :"opus" ,\n      "hooks":{ "Stop" : [ ] } }\n\n',
}


class BytePreservationTest(InstallCase):
    def write_settings(self, text):
        (self.project / ".claude").mkdir(exist_ok=True)
        (self.project / ".claude/settings.json").write_bytes(text.encode("utf-8"))

    def settings_bytes(self):
        return (self.project / ".claude/settings.json").read_bytes()

    def test_install_keeps_style_and_uninstall_gives_the_same_bytes(self):
        for name, text in STYLED.items():
            with self.subTest(name):
                self.write_settings(text)
                code, out = self.install("--platform", "claude", "--no-git-merge")
                self.assertEqual(code, 0, out)
                written = self.settings_bytes().decode("utf-8")
                self.assertEqual(len(self.ours(json.loads(written))), 3)
                original = json.loads(text)
                for key, value in original.items():  # every foreign value is still there
                    if key != "hooks":
                        self.assertEqual(json.loads(written)[key], value)
                if name.startswith("compact"):
                    self.assertNotIn("\n", written.rstrip("\n"))
                    self.assertIn('"model":"opus"' if name == "compact" else '"model": "opus"', written)
                if name == "escaped":
                    self.assertTrue(all(ord(c) < 128 for c in written))
                    self.assertIn("caf\\u00e9 \\u2603", written)
                if name == "raw-utf8":
                    self.assertIn("café ☃", written)
                if name == "tabs":
                    self.assertIn('\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{', written)
                    self.assertNotIn("\n ", written)
                if name == "crlf":
                    self.assertEqual(written.count("\n"), written.count("\r\n"))
                    self.assertTrue(written.endswith("}\r\n"))
                if name == "no-final-newline":
                    self.assertTrue(written.endswith("}"))
                if name == "foreign-hooks":  # the foreign part of the file is untouched, ours follows
                    self.assertTrue(written.startswith(text[:text.index('"hooks"')]))
                    self.assertTrue(written.endswith(text[text.index('"env"') - 10:]))
                    stop = text[text.index('"Stop"'):text.index('"env"')]
                    self.assertIn(stop[:stop.rindex("]") + 1], written)
                code, out = self.install("--platform", "claude", "--uninstall", "--no-git-merge")
                self.assertEqual(code, 0, out)
                self.assertEqual(self.settings_bytes(), text.encode("utf-8"))
                self.assertIn("restored .claude/settings.json to its exact bytes from before the install", out["changes"])

    def test_a_user_edit_after_install_is_kept_and_ours_stripped_in_place(self):
        for name in ("tabs", "crlf", "escaped", "compact"):
            with self.subTest(name):
                text = STYLED[name]
                self.write_settings(text)
                self.install("--platform", "claude", "--no-git-merge")
                edited = self.settings_bytes().replace(b'"opus"', b'"sonnet"')
                (self.project / ".claude/settings.json").write_bytes(edited)
                code, out = self.install("--platform", "claude", "--uninstall", "--no-git-merge")
                self.assertEqual(code, 0, out)
                self.assertEqual(self.settings_bytes(), text.replace('"opus"', '"sonnet"').encode("utf-8"))
                self.assertIn("wrote .claude/settings.json", out["changes"])

    def test_without_the_manifest_uninstall_strips_to_the_same_bytes(self):
        text = STYLED["foreign-hooks"]
        self.write_settings(text)
        self.install("--platform", "claude", "--no-git-merge")
        (self.store / "state" / "installs.json").unlink()
        self.install("--platform", "claude", "--uninstall", "--no-git-merge")
        self.assertEqual(self.settings_bytes(), text.encode("utf-8"))

    def test_a_changed_backup_is_not_restored(self):
        text = STYLED["tabs"]
        self.write_settings(text)
        self.install("--platform", "claude", "--no-git-merge")
        manifest = json.loads((self.store / "state" / "installs.json").read_text())
        entry = manifest["configs"][".claude/settings.json"]
        self.assertEqual(entry["original_sha256"], hashlib.sha256(text.encode()).hexdigest())
        self.assertEqual(entry["written_sha256"], hashlib.sha256(self.settings_bytes()).hexdigest())
        (self.store / "state" / entry["backup"]).write_text('{"model": "evil"}')
        code, out = self.install("--platform", "claude", "--uninstall", "--no-git-merge")
        self.assertEqual(code, 0, out)
        self.assertEqual(self.settings_bytes(), text.encode("utf-8"))  # stripped in place instead
        self.assertNotIn("evil", self.settings_bytes().decode())

    def test_a_second_install_keeps_the_first_original(self):
        text = STYLED["crlf"]
        self.write_settings(text)
        self.install("--platform", "claude", "--no-git-merge")
        self.install("--platform", "claude", "--with-prompt-recall", "--no-git-merge")
        self.assertIn("UserPromptSubmit", json.loads(self.settings_bytes())["hooks"])
        self.install("--platform", "claude", "--uninstall", "--no-git-merge")
        self.assertEqual(self.settings_bytes(), text.encode("utf-8"))

    def test_a_file_that_did_not_exist_is_removed_again(self):
        self.install("--platform", "codex", "--no-git-merge")
        code, out = self.install("--platform", "codex", "--uninstall", "--no-git-merge")
        self.assertFalse((self.project / ".codex").exists())
        self.assertIn("removed .codex/hooks.json (it did not exist before the install)", out["changes"])


# --- exact ownership ---------------------------------------------------------------------------

PINNED_COMMANDS = {
    ("claude", "SessionStart"):
        'python3 "$CLAUDE_PROJECT_DIR/.claude/skills/memory-3layer/hooks/run_hook.py" SessionStart --host claude',
    ("claude", "UserPromptSubmit --prompt-recall"):
        'python3 "$CLAUDE_PROJECT_DIR/.claude/skills/memory-3layer/hooks/run_hook.py" UserPromptSubmit '
        '--prompt-recall --host claude',
    ("codex", "PreCompact"):
        "sh -c 'd=$PWD; while [ ! -f \"$d/.agents/skills/memory-3layer/hooks/run_hook.py\" ] && [ -n \"$d\" ]; "
        "do d=${d%/*}; done; if [ -f \"$d/.agents/skills/memory-3layer/hooks/run_hook.py\" ]; then exec python3 "
        "\"$d/.agents/skills/memory-3layer/hooks/run_hook.py\" PreCompact --host codex; else echo {}; fi'",
}
LOOK_ALIKES = [
    'python3 /home/x/other/skills/memory-3layer/hooks/run_hook.py SessionStart --host claude',
    'python3 "$CLAUDE_PROJECT_DIR/.claude/foo-skills/memory-3layer/hooks/run_hook.py" SessionStart --host claude',
    'python3 "$CLAUDE_PROJECT_DIR/.claude/skills/memory-3layer/hooks/run_hook.py" SessionStart --host claude --x',
]


class OwnershipTest(InstallCase):
    def test_generated_commands_are_pinned(self):
        """Codex trusts a hook by the sha256 of its command: a changed string silently disables every
        user's hooks. Change one only with the old template added to install.PAST_COMMANDS."""
        from memory_core import install
        for (host, event), command in PINNED_COMMANDS.items():
            self.assertEqual(install.HOSTS[host].command(event), command)
        for host in ("claude", "codex"):
            for event in ("SessionStart", "PostToolUse", "PreCompact"):
                self.assertEqual(install.HOSTS[host].command(event),
                                 install.HOSTS[host].command("SessionStart").replace("SessionStart", event))

    def test_only_exact_commands_are_ours(self):
        from memory_core import install
        for command in install.OUR_COMMANDS:
            self.assertTrue(install.is_ours({"type": "command", "command": command}))
        for command in LOOK_ALIKES:
            self.assertFalse(install.is_ours({"type": "command", "command": command}), command)
            self.assertTrue(install.runs_our_hook({"type": "command", "command": command}), command)

    def test_look_alike_foreign_commands_are_kept(self):
        groups = [{"hooks": [{"type": "command", "command": c}]} for c in LOOK_ALIKES]
        (self.project / ".claude").mkdir()
        original = json.dumps({"hooks": {"SessionStart": groups}}, indent=2) + "\n"
        (self.project / ".claude/settings.json").write_text(original)
        code, out = self.install("--platform", "claude", "--no-git-merge")
        self.assertEqual(code, 0, out)
        session = self.settings()["hooks"]["SessionStart"]
        self.assertEqual(session[:3], groups)
        self.assertEqual(len(session), 4)
        self.assertEqual(sum("is not a command this installer writes" in line for line in out["changes"]), 3)
        before = snapshot(self.project)
        code, out = self.install("--platform", "claude", "--no-git-merge")  # said again, nothing changed
        self.assertEqual((code, out["changed"]), (0, False))
        self.assertEqual(sum("is not a command this installer writes" in line for line in out["changes"]), 3)
        self.assertEqual(before, snapshot(self.project))
        (self.store / "state" / "installs.json").unlink()  # no exact restore: strip only ours
        self.install("--platform", "claude", "--uninstall", "--no-git-merge")
        self.assertEqual((self.project / ".claude/settings.json").read_text(), original)

    def test_an_earlier_release_command_is_replaced_and_codex_retrust_said(self):
        from unittest import mock
        from memory_core import install
        old = "python3 .agents/skills/memory-3layer/hooks/run_hook.py %s --host codex"
        (self.project / ".codex").mkdir()
        foreign = {"type": "command", "command": "echo hi"}
        config = {"hooks": {"SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
            foreign, {"type": "command", "command": old % "SessionStart", "timeout": 30}]}]}}
        (self.project / ".codex/hooks.json").write_text(json.dumps(config, indent=2))
        with mock.patch.object(install, "PAST_COMMANDS", (("codex", old),)):
            steps = install.plan(str(self.project), "codex", False, git_merge=False, store=str(self.store))
            done = install.apply(str(self.project), str(self.store), steps)
        new = json.loads((self.project / ".codex/hooks.json").read_text())
        session = new["hooks"]["SessionStart"]
        self.assertEqual(session[0]["hooks"], [foreign])
        self.assertEqual(session[1]["hooks"][0]["command"], install.HOSTS["codex"].command("SessionStart"))
        self.assertTrue(any("/hooks" in line and "trusted again" in line for line in done), done)
        steps = install.plan(str(self.project), "codex", False, git_merge=False, store=str(self.store))
        self.assertEqual(steps, [])  # the next run: nothing to change, nothing to re-trust


# --- adopting a hand-made copy -----------------------------------------------------------------

class AdoptionTest(InstallCase):
    def hand_copy(self, with_evals=True):
        folder = self.project / ".claude/skills/memory-3layer"
        folder.mkdir(parents=True)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hosts")  # .hosts: local npm
        for name in ("SKILL.md", "LICENSE", "scripts", "hooks", "references", ".memory-3layer-template") \
                + (("evals",) if with_evals else ()):
            src = _support.REPO / name
            if src.is_dir():
                shutil.copytree(str(src), str(folder / name), ignore=ignore)
            else:
                shutil.copy2(str(src), str(folder / name))
        (folder / "scripts" / "__pycache__").mkdir(exist_ok=True)
        (folder / "scripts" / "__pycache__" / "x.cpython-38.pyc").write_bytes(b"\0junk")
        return folder

    def test_a_copy_identical_to_this_release_is_adopted(self):
        for with_evals in (False, True):
            with self.subTest(with_evals=with_evals):
                folder = self.hand_copy(with_evals)
                code, out = self.install("--platform", "claude", "--no-git-merge")
                self.assertEqual(code, 0, out)
                self.assertTrue(any(line.startswith("adopted .claude/skills/memory-3layer/") for line in out["changes"]))
                self.assertTrue((folder / ".installed-by-memory-3layer").is_file())
                self.assertFalse((folder / "evals").exists())  # now exactly our installed copy
                code, out = self.install("--platform", "claude", "--uninstall", "--no-git-merge")
                self.assertEqual(code, 0, out)
                self.assertFalse(folder.exists())

    def test_a_changed_or_linked_copy_is_refused(self):
        folder = self.hand_copy(with_evals=False)
        (folder / "references" / "hooks.md").write_text("my notes")
        before = snapshot(self.project)
        code, out = self.install("--platform", "claude", "--no-git-merge")
        self.assertEqual(code, 1, out)
        self.assertIn("cowardly refusing", out["error"])
        self.assertIn("references/hooks.md differs", out["error"])
        self.assertEqual(before, snapshot(self.project))
        (folder / "references" / "hooks.md").unlink()
        os.symlink(str(_support.REPO / "references" / "hooks.md"), str(folder / "references" / "hooks.md"))
        code, out = self.install("--platform", "claude", "--no-git-merge")
        self.assertEqual(code, 1, out)
        (folder / "references" / "hooks.md").unlink()
        (folder / "mine.txt").write_text("a file of the user's")
        code, out = self.install("--platform", "claude", "--uninstall", "--no-git-merge")
        self.assertEqual(code, 1, out)
        self.assertIn("mine.txt differs", out["error"])
        self.assertTrue((folder / "mine.txt").is_file())


# --- the original skill's hooks ----------------------------------------------------------------

LEGACY = {
    "SessionStart": "python .claude/hooks/memory_loader.py",
    "PostToolUse": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/memory_extractor.py',
    "PreCompact": 'cd "$CLAUDE_PROJECT_DIR" && python3 -u ./.claude/hooks/pre_compact.py',
}


class LegacyHooksTest(InstallCase):
    def setUp(self):
        super().setUp()
        (self.project / ".claude/hooks").mkdir(parents=True)
        (self.project / ".claude/memory").mkdir()
        for name in ("memory_loader.py", "memory_extractor.py", "pre_compact.py"):
            (self.project / ".claude/hooks" / name).write_text("# the original skill\n")
        hooks = {event: [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
                 for event, command in LEGACY.items()}
        hooks["Stop"] = [{"hooks": [{"type": "command", "command": "python3 tools/.claude/hooks/memory_loader.py"}]}]
        self.original = json.dumps({"model": "opus", "hooks": hooks}, indent=2) + "\n"
        (self.project / ".claude/settings.json").write_text(self.original)

    def check_entries(self):
        _code, out = run_json("check_memory_3layer.py", "--project-dir", self.project,
                              env=_support.clean_env(CODEX_HOME=str(self.codex_home)))
        return [e for e in out["adapter_status"]["entries"] if "legacy" in e["what"]]

    def test_detection(self):
        from memory_core import install
        data = json.loads(self.original)
        self.assertEqual(sorted(install.legacy_handlers(data)), sorted(LEGACY.items()))
        root = "/abs/proj"
        self.assertTrue(install.is_legacy({"command": "python3 /abs/proj/.claude/hooks/pre_compact.py"}, root))
        for foreign in ("python3 /other/.claude/hooks/pre_compact.py", "python3 .claude/hooks/my_loader.py",
                        "cat .claude/hooks/memory_loader.py.bak", "python3 x/.claude/hooks/memory_loader.py"):
            self.assertFalse(install.is_legacy({"command": foreign}, root), foreign)

    def test_replaced_with_a_backup_and_their_files_kept(self):
        self.assertEqual(len(self.check_entries()), 3)
        code, out = self.install("--platform", "claude", "--no-git-merge")
        self.assertEqual(code, 0, out)
        hooks = self.settings()["hooks"]
        commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
        self.assertFalse(any(c in commands for c in LEGACY.values()))
        self.assertEqual(len(self.ours(self.settings())), 3)
        self.assertIn("python3 tools/.claude/hooks/memory_loader.py", commands)  # a look-alike is not legacy
        text = " ".join(out["changes"])
        self.assertIn("replaced the original memory-3layer's hooks", text)
        self.assertIn("migrate_legacy_memory.py", text)
        for name in ("memory_loader.py", "memory_extractor.py", "pre_compact.py"):
            self.assertTrue((self.project / ".claude/hooks" / name).is_file())
        self.assertTrue((self.project / ".claude/memory").is_dir())
        backups = list((self.store / "state" / "backups").iterdir())
        self.assertEqual([b.read_text() for b in backups], [self.original])
        self.assertEqual(self.check_entries(), [])
        self.install("--platform", "claude", "--uninstall", "--no-git-merge")  # the exact undo
        self.assertEqual((self.project / ".claude/settings.json").read_text(), self.original)

    def test_kept_with_the_flag_and_reported_by_check(self):
        code, out = self.install("--platform", "claude", "--no-git-merge", "--keep-legacy-hooks")
        self.assertEqual(code, 0, out)
        commands = [h["command"] for groups in self.settings()["hooks"].values() for g in groups for h in g["hooks"]]
        self.assertTrue(all(c in commands for c in LEGACY.values()))
        self.assertIn("--keep-legacy-hooks", " ".join(out["changes"]))
        entries = self.check_entries()
        self.assertEqual(len(entries), 3)
        self.assertTrue(all(e["level"] == "finding" and "install_hooks.py" in e["fix"] for e in entries))

    def test_check_reports_them_in_the_local_settings_too(self):
        (self.project / ".claude/settings.json").write_text("{}\n")
        (self.project / ".claude/settings.local.json").write_text(self.original)
        entries = self.check_entries()
        self.assertEqual(len(entries), 3)
        self.assertTrue(all("settings.local.json" in e["evidence"] and "by hand" in e["fix"] for e in entries))


# --- which root --------------------------------------------------------------------------------

class MonorepoRootTest(InstallCase):
    def test_a_subfolder_installs_at_the_git_top_level_and_says_so(self):
        sub = self.project / "packages" / "a"
        sub.mkdir(parents=True)
        code, out = run_json("install_hooks.py", "--project-dir", sub, "--platform", "claude", "--no-git-merge",
                             env=_support.clean_env(CODEX_HOME=str(self.codex_home)))
        self.assertEqual(code, 0, out)
        self.assertEqual(out["project"], str(self.project))
        self.assertEqual(out["project_root"], "project root: %s (git top level of %s)" % (self.project, sub))
        self.assertTrue((self.project / ".claude/settings.json").is_file())
        self.assertTrue(self.store.is_dir())
        self.assertFalse((sub / ".claude").exists() or (sub / ".memory-3layer").exists())
        proc = run_script("install_hooks.py", "--project-dir", sub, "--platform", "claude", "--no-git-merge")
        self.assertIn("project root: %s (existing store above %s)" % (self.project, sub), proc.stdout.decode())
