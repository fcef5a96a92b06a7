"""The Claude Code plugin files (the repository root is the plugin root) and how its hooks step aside
for a per-project install. The real binary loads it in evals/e2e/test_claude_plugin.py."""
import json
import os
import subprocess
import unittest

import _support
from memory_core import __version__, install

PLUGIN = _support.REPO / ".claude-plugin"
RUN_HOOK = str(_support.HOOKS / "run_hook.py")


def _json(path):
    with open(str(path), encoding="utf-8") as fh:
        return json.load(fh)


class PluginFilesTest(unittest.TestCase):
    def test_the_manifest_names_the_skill_at_the_root_and_this_version(self):
        manifest = _json(PLUGIN / "plugin.json")
        self.assertEqual(manifest["name"], "memory-3layer")
        self.assertEqual(manifest["version"], __version__)
        self.assertEqual(manifest["skills"], ["./"])  # the root's SKILL.md is the plugin's skill
        self.assertTrue((_support.REPO / "SKILL.md").is_file())

    def test_the_marketplace_offers_the_root_as_the_plugin(self):
        market = _json(PLUGIN / "marketplace.json")
        self.assertEqual([(p["name"], p["source"], p["version"]) for p in market["plugins"]],
                         [("memory-3layer", "./", __version__)])

    def test_plugin_hooks_are_the_installers_events_run_from_the_plugin_root(self):
        hooks = _json(_support.HOOKS / "hooks.json")["hooks"]
        self.assertEqual(sorted(hooks), sorted(e for e, _m, _t in install.EVENTS))
        for event, matcher, timeout in install.EVENTS:
            (group,) = hooks[event]
            self.assertEqual(group.get("matcher"), matcher)
            (handler,) = group["hooks"]
            self.assertEqual(handler["timeout"], timeout)
            self.assertEqual(handler["command"], 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/run_hook.py" %s '
                                                 '--host claude --via-plugin' % event)


class PluginStepsAsideTest(_support.TempProject):
    def hook(self, *extra):
        proc = subprocess.run([_support.PYTHON, RUN_HOOK, "SessionStart", "--host", "claude"] + list(extra),
                              input=json.dumps({"session_id": "s1", "source": "startup",
                                                "cwd": str(self.project)}).encode(),
                              env=_support.clean_env(CLAUDE_PROJECT_DIR=self.project), capture_output=True,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout.decode())

    def runs(self):
        path = self.store / "state" / "hook-runs.jsonl"
        return path.read_text().splitlines() if path.exists() else []

    def setUp(self):
        super().setUp()
        code, out = self.record("Nightly exports are tagged plugfact in the bucket", "--topic", "ops")
        self.assertEqual(code, 0, out)

    def wire_project(self, settings_text=None):
        copy = self.project / ".claude" / "skills" / "memory-3layer" / "hooks"
        copy.mkdir(parents=True)
        (copy / "run_hook.py").write_text("# the project's own copy\n")
        if settings_text is None:
            settings_text = json.dumps({"hooks": {"SessionStart": [{"hooks": [
                {"type": "command", "command": install.HOSTS["claude"].command("SessionStart")}]}]}})
        (self.project / ".claude" / "settings.json").write_text(settings_text)

    def test_without_a_project_install_the_plugin_loads_the_memory(self):
        out = self.hook("--via-plugin")
        self.assertIn("plugfact", out["hookSpecificOutput"]["additionalContext"])
        self.assertEqual(len(self.runs()), 1)
        _support.wait_for_rebuild(self.store)

    def test_a_project_that_runs_its_own_copy_wins(self):
        self.wire_project()
        self.assertEqual(self.hook("--via-plugin"), {})
        self.assertEqual(self.runs(), [])  # the project's own hook logs its run; this one did nothing
        self.assertIn("plugfact", self.hook()["hookSpecificOutput"]["additionalContext"])  # not via the plugin
        _support.wait_for_rebuild(self.store)

    def test_a_copy_that_no_setting_runs_does_not_silence_the_plugin(self):
        self.wire_project(settings_text='{"hooks": {}}')
        self.assertIn("plugfact", self.hook("--via-plugin")["hookSpecificOutput"]["additionalContext"])
        _support.wait_for_rebuild(self.store)

    @unittest.skipIf(os.name != "posix", "symbolic links")
    def test_linked_settings_are_not_trusted_as_the_projects_wiring(self):
        self.wire_project()
        real = self.project / "elsewhere.json"
        os.rename(str(self.project / ".claude" / "settings.json"), str(real))
        os.symlink(str(real), str(self.project / ".claude" / "settings.json"))
        self.assertIn("plugfact", self.hook("--via-plugin")["hookSpecificOutput"]["additionalContext"])
        _support.wait_for_rebuild(self.store)


class PluginInCheckTest(_support.TempProject):
    """check_memory_3layer.py: a run of the plugin's hooks verifies Claude Code with no project config,
    and says it came through the plugin; a plugin enabled in a settings file is named."""

    def check(self, home):
        code, report = _support.run_json("check_memory_3layer.py", "--project-dir", self.project,
                                         env=_support.clean_env(HOME=home))
        return code, report

    def test_a_plugin_run_verifies_claude_code_through_the_plugin(self):
        code, out = self.record("Nightly exports are tagged plugfact in the bucket", "--topic", "ops")
        self.assertEqual(code, 0, out)
        payload = json.dumps({"session_id": "sess-plugin-1", "source": "startup", "cwd": str(self.project)})
        proc = subprocess.run([_support.PYTHON, RUN_HOOK, "SessionStart", "--host", "claude", "--via-plugin"],
                              input=payload.encode(), capture_output=True, timeout=60,
                              env=_support.clean_env(CLAUDE_PROJECT_DIR=self.project, CLAUDECODE="1",
                                                     CLAUDE_CODE_SESSION_ID="sess-plugin-1"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        _support.wait_for_rebuild(self.store)
        (run,) = [json.loads(l) for l in (self.store / "state" / "hook-runs.jsonl").read_text().splitlines()]
        self.assertEqual((run["via"], run["evidence"]), ("plugin", "claude-env"))
        _code, report = self.check(str(self.project / "nohome"))
        self.assertEqual(report["runtime_status"]["hosts"]["claude"]["SessionStart"]["status"], "verified")
        texts = [e["evidence"] for e in report["runtime_status"]["entries"]]
        self.assertTrue(any("through the Claude Code plugin" in t for t in texts), texts)

    def test_a_plugin_enabled_in_user_settings_is_named(self):
        home = self.project.parent / "home"
        (home / ".claude").mkdir(parents=True)
        settings = home / ".claude" / "settings.json"
        settings.write_text(json.dumps({"enabledPlugins": {"memory-3layer@memory-3layer": True}}))
        _code, report = self.check(str(home))
        self.assertEqual(report["adapter_status"]["hosts"]["claude"].get("plugin"), [str(settings)])
        settings.write_text(json.dumps({"enabledPlugins": {"memory-3layer@memory-3layer": False,
                                                           "memory-3layer-fork@x": True}}))
        _code, report = self.check(str(home))
        self.assertNotIn("plugin", report["adapter_status"]["hosts"]["claude"])


if __name__ == "__main__":
    unittest.main()
