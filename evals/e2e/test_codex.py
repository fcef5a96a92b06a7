"""End to end with the real Codex CLI (pinned 0.171.0), offline against a fake OpenAI Responses API.

Each test: a temp git project, `hooks/install_hooks.py --platform codex`, a fact with a unique marker
recorded through `scripts/record_memory.py`, a scratch CODEX_HOME whose config.toml points at the fake
API, then `codex exec`. Codex runs a project hook only with two trusts (host-facts.md): the project
(`codex exec --trust`) and each hook (`[hooks.state."<hooks.json>:<event>:<group>:<handler>"]
trusted_hash` in $CODEX_HOME/config.toml, which the tests write as the TUI's /hooks review would). The
negative tests prove a missing or stale trust silently skips the hook: exactly what the status checker
has to report as "configured, not running".

Skipped (with how to install) only when node/npm or the pinned binaries are missing; see hosts.py.
"""
import json
import os
import unittest
import uuid

import fake_api
import hosts

COMPACT_PREAMBLE = "Session state saved before compaction"


class CodexProject(unittest.TestCase):
    """A fresh project with the skill installed for Codex, a scratch CODEX_HOME and a fake API."""

    @classmethod
    def setUpClass(cls):
        hosts.require_host("codex")

    def setUp(self):
        self.tmp, self.project, self.home = hosts.scratch_git_project(self, "m3l-e2e-codex-", "codex-home")  # CODEX_HOME and HOME
        self.install = hosts.install_hooks(self.project, "codex", self.home)
        self.hooks_json = self.project / ".codex" / "hooks.json"
        self.marker = "zebrafact" + uuid.uuid4().hex[:10]
        self.fact = "Release builds of this project are labelled %s in the changelog" % self.marker
        rec = hosts.record_fact(self.project, self.fact, "e2e", self.home)
        self.assertEqual(rec.get("status"), "recorded", rec)
        self.touched_name = "touched_%s.txt" % uuid.uuid4().hex[:8]
        patch = "*** Begin Patch\n*** Add File: %s\n+hello from e2e\n*** End Patch\n" % self.touched_name
        self.api = fake_api.FakeOpenAI(fake_api.ToolOnce("please write the note", "apply_patch", patch))
        self.api.start()
        self.addCleanup(self.api.stop)
        hosts.write_codex_config(self.home, self.api.url)

    def codex(self, prompt, *args, resume=None):
        res = hosts.run_codex(self.project, self.home, prompt, *args, resume=resume)
        self.assertFalse(res.timed_out, res.describe())
        self.assertEqual(res.returncode, 0, res.describe())
        return res

    def trust_project(self):
        hosts.codex_trust_project(self.project, self.home)

    def trust_hooks(self):
        entries = hosts.codex_trust_hooks(self.project, self.home)
        self.assertEqual(len(entries), 3, entries)  # SessionStart, PostToolUse, PreCompact
        return entries

    def runs(self, event=None, since=0):
        return [r for r in hosts.hook_runs(self.project)[since:] if event is None or r.get("event") == event]

    def context(self, res=None):
        return ("\n%s\n--- hook-runs.jsonl\n%s\n--- fake API requests\n%s"
                % (res.describe(1500) if res else "",
                   "\n".join(json.dumps(r) for r in hosts.hook_runs(self.project)), self.api.describe(limit=200)))

    def assert_verified(self, *events):
        """Every codex run so far carries Codex's own evidence (the payload's transcript_path, named after
        the session, already a regular file under $CODEX_HOME/sessions/ when the hook runs: SessionStart
        included), and the check calls each of events verified."""
        runs = [r for r in self.runs() if r.get("host") == "codex"]
        self.assertTrue(runs, "no codex run" + self.context())
        self.assertEqual({r.get("evidence") for r in runs}, {"codex-transcript"}, self.context())
        found = hosts.runtime_status(self.project, self.home, codex_home=self.home)["codex"]
        for event in events:
            self.assertEqual(found[event]["status"], "verified", found[event])

    def developer_texts(self, since=0):
        """Text of every developer message in the model requests since `since`."""
        out = []
        for raw in self.api.bodies(since):
            for item in json.loads(raw).get("input") or []:
                if isinstance(item, dict) and item.get("role") == "developer":
                    out.append(fake_api.text_of(item.get("content")))
        return out


class CodexPromptRecallTest(CodexProject):
    """The opt-in UserPromptSubmit hook, with both trusts: the relevant fact reaches the model."""

    def test_the_prompt_hook_runs_and_its_fact_reaches_the_model(self):
        hosts.install_hooks(self.project, "codex", self.home, "--with-prompt-recall")
        self.trust_project()
        entries = hosts.codex_trust_hooks(self.project, self.home)
        self.assertEqual(len(entries), 4, entries)
        before = self.api.mark()
        res = self.codex("How are release builds labelled in the changelog?", "--json")
        prompts = [r for r in self.runs("UserPromptSubmit") if r.get("host") == "codex"]
        self.assertTrue(prompts, "no UserPromptSubmit line for host codex" + self.context(res))
        self.assertEqual(prompts[-1].get("outcome"), "ok", prompts[-1])
        self.assertNotIn("reason", prompts[-1])
        recalls = [t for t in self.developer_texts(before) if "relevant to this prompt" in t]
        self.assertTrue(recalls, "the prompt recall never reached the model" + self.context(res))
        self.assert_verified("SessionStart", "UserPromptSubmit")
        self.assertIn(self.marker, recalls[0])


class CodexSessionStartTest(CodexProject):
    def test_installed_hooks_json_holds_the_three_hooks(self):
        config = json.loads(self.hooks_json.read_text())
        self.assertEqual(sorted(config["hooks"]), ["PostToolUse", "PreCompact", "SessionStart"])
        self.assertEqual(config["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear|compact")
        for groups in config["hooks"].values():
            self.assertNotIn(str(self.tmp), groups[0]["hooks"][0]["command"])
        self.assertTrue((self.project / ".agents" / "skills" / "memory-3layer" / "SKILL.md").is_file())

    def test_session_start_runs_with_both_trusts_and_the_fact_reaches_the_model(self):
        self.trust_project()
        self.assertEqual(self.runs(), [], "a hook ran before it was trusted" + self.context())
        self.trust_hooks()
        before = self.api.mark()
        res = self.codex("hello", "--json")
        starts = [r for r in self.runs("SessionStart") if r.get("host") == "codex"]
        self.assertTrue(starts, "no SessionStart line for host codex" + self.context(res))
        self.assertEqual(starts[-1].get("outcome"), "ok", starts[-1])
        self.assertTrue(starts[-1].get("time"), starts[-1])
        self.assertEqual(starts[-1].get("session_id"), hosts.codex_thread_id(res))
        self.assert_verified("SessionStart")
        self.assertTrue(self.api.any_body_contains(self.marker, before),
                        "the recorded fact never reached the model" + self.context(res))
        # It arrives as the hook's context: a developer message holding the fact.
        self.assertTrue(any(self.fact in t for t in self.developer_texts(before)), self.context(res))

    def test_hooks_in_an_untrusted_project_do_not_run(self):
        self.trust_hooks()  # per-hook trust alone is not enough
        res = self.codex("hello")
        self.assertEqual(self.runs(), [], "a hook ran in an untrusted project" + self.context(res))
        self.assertFalse(self.api.any_body_contains(self.marker), self.context(res))


class CodexHookTrustTest(CodexProject):
    def test_hook_without_per_hook_trust_does_not_run(self):
        self.trust_project()
        res = self.codex("hello")
        self.assertEqual(self.runs(), [], "an untrusted hook ran" + self.context(res))
        self.assertFalse(self.api.any_body_contains(self.marker), "the fact reached the model without a hook")
        self.assertTrue(self.api.bodies(), "codex made no model request at all")
        # Control: the same run with the per-hook trust entries does run the hook.
        self.trust_hooks()
        res = self.codex("hello again")
        self.assertEqual([r.get("event") for r in self.runs()], ["SessionStart"], self.context(res))

    def test_editing_a_trusted_hook_makes_it_modified_and_skipped(self):
        self.trust_project()
        self.trust_hooks()
        res = self.codex("hello")
        self.assertEqual(len(self.runs("SessionStart")), 1, self.context(res))
        # Any change to the handler changes its hash: Codex now treats it as "modified" and skips it.
        config = json.loads(self.hooks_json.read_text())
        config["hooks"]["SessionStart"][0]["hooks"][0]["timeout"] += 1
        self.hooks_json.write_text(json.dumps(config, indent=2) + "\n")
        res = self.codex("hello after the edit")
        self.assertEqual(len(self.runs("SessionStart")), 1, "a modified hook ran" + self.context(res))
        self.trust_hooks()  # re-trusted: runs again
        res = self.codex("hello after re-trust")
        self.assertEqual(len(self.runs("SessionStart")), 2, self.context(res))

    def test_trust_hash_matches_the_hosts_formula(self):
        """The hash for one handler, computed by hand from host-facts.md, equals what hosts.py writes."""
        import hashlib
        config = json.loads(self.hooks_json.read_text())
        group = config["hooks"]["SessionStart"][0]
        handler = group["hooks"][0]
        norm = {"event_name": "session_start", "matcher": group["matcher"],
                "hooks": [{"type": "command", "command": handler["command"],
                           "timeout": handler.get("timeout", 600), "async": False}]}
        blob = json.dumps(norm, sort_keys=True, separators=(",", ":")).encode("utf-8")
        key = "%s:session_start:0:0" % os.path.realpath(str(self.hooks_json))
        self.assertEqual(hosts.codex_hook_trust(self.hooks_json)[key],
                         "sha256:" + hashlib.sha256(blob).hexdigest())


class CodexToolAndCompactTest(CodexProject):
    def test_post_tool_use_tracks_the_patched_file(self):
        self.trust_project()
        self.trust_hooks()
        res = self.codex("please write the note", "--json")
        sid = hosts.codex_thread_id(res)
        self.assertTrue((self.project / self.touched_name).is_file(), "apply_patch did not run" + self.context(res))
        post = [r for r in self.runs("PostToolUse") if r.get("host") == "codex"]
        self.assertTrue(post, "no PostToolUse line" + self.context(res))
        self.assertEqual(post[-1].get("outcome"), "ok", post[-1])
        self.assertIn(self.touched_name, hosts.touched_files(self.project, sid),
                      "PostToolUse did not record the file" + self.context(res))
        self.assert_verified("SessionStart", "PostToolUse")
        for path in (self.project / ".memory-3layer" / "state").iterdir():
            if path.is_file():  # tool input / output is never persisted
                self.assertNotIn("hello from e2e", path.read_text(errors="replace"), path)

    def test_auto_compaction_saves_state_and_session_start_brings_it_back(self):
        hosts.write_codex_config(self.home, self.api.url, auto_compact_token_limit=5000)
        self.trust_project()
        self.trust_hooks()
        res = self.codex("please write the note", "--json")
        sid = hosts.codex_thread_id(res)
        self.assertTrue(sid, res.describe())
        self.api.usage_tokens = 9000  # the next answer reports more than the limit ...
        self.codex("second turn", resume=sid)
        self.api.usage_tokens = 1
        runs_before = len(hosts.hook_runs(self.project))
        before = self.api.mark()
        res = self.codex("third turn", resume=sid)  # ... so Codex compacts before this turn
        events = [(r.get("event"), r.get("outcome")) for r in self.runs(since=runs_before)]
        self.assertIn(("PreCompact", "ok"), events, self.context(res))
        self.assertIn(("SessionStart", "ok"), events[events.index(("PreCompact", "ok")) + 1:], self.context(res))
        self.assert_verified("SessionStart", "PostToolUse", "PreCompact")  # resumed and compacted: the same transcript

        entry = (hosts.session_state(self.project) or {}).get("sessions", {}).get(sid)
        self.assertIsNotNone(entry, "PreCompact saved no state for %s" % sid)
        self.assertEqual(entry.get("trigger"), "auto", entry)
        self.assertEqual(entry.get("host"), "codex", entry)
        self.assertGreaterEqual(entry.get("compactions", 0), 1, entry)
        self.assertIn(self.touched_name, entry.get("files_touched"), entry)
        self.assertTrue(entry.get("last_request"), entry)

        # The model request after the compaction carries the saved state, then the facts.
        texts = [t for t in self.developer_texts(before) if COMPACT_PREAMBLE in t]
        self.assertTrue(texts, "no request after the compaction carried the saved state" + self.context(res))
        self.assertIn("trigger auto", texts[-1])
        self.assertIn(self.touched_name, texts[-1])
        self.assertIn(self.marker, texts[-1])
        self.assertLess(texts[-1].index(COMPACT_PREAMBLE), texts[-1].index(self.marker))
        # Codex fires SessionStart for resume and for compact together: the memory goes in once.
        last = json.loads(self.api.bodies(before)[-1])
        loaded = [fake_api.text_of(i.get("content")) for i in last.get("input") or []
                  if isinstance(i, dict) and i.get("role") == "developer"]
        full = [t for t in loaded if COMPACT_PREAMBLE in t]
        self.assertEqual(len(full), 1, "the saved state and memory reached the model %d times" % len(full))


if __name__ == "__main__":
    unittest.main()
