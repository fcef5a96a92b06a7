"""The Claude Code plugin (the repository root: .claude-plugin/plugin.json, hooks/hooks.json), loaded
with the real CLI's `--plugin-dir`, offline against a fake Anthropic API and a scratch HOME.

No per-project settings: the plugin alone brings a project's stored facts to the model. In a project
without a store it stays silent and creates nothing. In a project that also has the per-project install,
each hook runs once: the project's own copy runs, and the plugin's hooks step aside.
"""
import json
import unittest
import uuid

import fake_api
import hosts

PLUGIN_ROOT = hosts.REPO


def skill_description():
    head = (PLUGIN_ROOT / "SKILL.md").read_text("utf-8").split("\n---\n", 1)[0]
    return [l for l in head.splitlines() if l.startswith("description:")][0].split(":", 1)[1].strip().strip("'")


class ClaudePluginTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        hosts.require_host("claude")

    def setUp(self):
        self.tmp, self.project, self.home = hosts.scratch_git_project(self, "m3l-e2e-plugin-")
        self.marker = "plugfact" + uuid.uuid4().hex[:10]
        self.fact = "Nightly exports of this project are tagged %s in the bucket" % self.marker
        self.api = fake_api.FakeAnthropic()
        self.api.start()
        self.addCleanup(self.api.stop)

    def claude(self, prompt="hello"):
        res = hosts.run_claude(self.project, self.home, self.api.url, prompt, "--plugin-dir", str(PLUGIN_ROOT))
        self.assertFalse(res.timed_out, res.describe())
        self.assertEqual(res.returncode, 0, res.describe())
        out = res.json()
        self.assertIsInstance(out, dict, res.describe())
        self.assertFalse(out.get("is_error"), res.describe())
        return out

    def context(self):
        return ("\n--- hook-runs.jsonl\n%s\n--- fake API requests\n%s"
                % ("\n".join(json.dumps(r) for r in hosts.hook_runs(self.project)), self.api.describe(limit=300)))

    def starts(self):
        return [r for r in hosts.hook_runs(self.project) if r.get("event") == "SessionStart"]

    def test_the_plugin_alone_brings_the_projects_facts_to_the_model(self):
        rec = hosts.record_fact(self.project, self.fact, "e2e", self.home)
        self.assertEqual(rec.get("status"), "recorded", rec)
        self.assertFalse((self.project / ".claude").exists())  # no per-project settings, no copy
        out = self.claude()
        starts = self.starts()
        self.assertEqual(len(starts), 1, "one SessionStart run expected" + self.context())
        self.assertEqual(starts[0].get("outcome"), "ok", starts[0])
        self.assertEqual(starts[0].get("session_id"), out.get("session_id"))
        self.assertEqual(starts[0].get("evidence"), "claude-env", starts[0])  # a host run, not a hand run
        self.assertEqual(starts[0].get("via"), "plugin", starts[0])
        self.assertEqual(hosts.runtime_status(self.project, self.home)["claude"]["SessionStart"]["status"], "verified")
        hits = [json.loads(b) for b in self.api.bodies() if self.marker in b]
        self.assertTrue(hits, "the recorded fact never reached the model" + self.context())
        text = fake_api.text_of(hits[0].get("messages"))
        self.assertIn("SessionStart hook additional context", text)
        self.assertIn(self.fact, text)
        # The plugin's skill (plugin.json "skills": ["./"]) is offered to the model too.
        listed = "memory-3layer:memory-3layer: " + skill_description()[:40]
        self.assertTrue(any(listed in b for b in self.api.bodies()),
                        "the plugin's skill is not listed" + self.context())

    def test_a_project_without_a_store_gets_nothing_and_keeps_nothing(self):
        self.claude()
        self.assertFalse((self.project / ".memory-3layer").exists())
        self.assertEqual(hosts.hook_runs(self.project), [])
        self.assertTrue(self.api.bodies(), "the fake API got no model request")
        self.assertFalse(any("SessionStart hook" in b for b in self.api.bodies()),
                         "the plugin spoke in a project without a store" + self.context())

    def test_with_the_per_project_install_each_hook_runs_once(self):
        hosts.install_hooks(self.project, "claude", self.home)
        rec = hosts.record_fact(self.project, self.fact, "e2e", self.home)
        self.assertEqual(rec.get("status"), "recorded", rec)
        self.claude()
        starts = self.starts()
        self.assertEqual(len(starts), 1, "SessionStart ran %d times" % len(starts) + self.context())
        hits = [json.loads(b) for b in self.api.bodies() if self.marker in b]
        self.assertTrue(hits, "the recorded fact never reached the model" + self.context())
        text = fake_api.text_of(hits[0].get("messages"))
        self.assertEqual(text.count(self.fact), 1, "the memory was given twice" + self.context())


if __name__ == "__main__":
    unittest.main()
