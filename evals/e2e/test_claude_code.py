"""End to end with the real Claude Code CLI (pinned 2.1.197), offline against a fake Anthropic API.

Each test: a temp git project, `hooks/install_hooks.py --platform claude`, a fact with a unique marker
recorded through `scripts/record_memory.py`, then `claude -p ... --output-format json` with a scratch HOME.
What is checked is what the host really did: the hook-runs evidence the hooks wrote, the session state
they saved, and the request bodies the fake model API received.

Skipped (with how to install) only when node/npm or the pinned binaries are missing; see hosts.py.
"""
import json
import unittest
import uuid

import fake_api
import hosts

COMPACT_PREAMBLE = "Session state saved before compaction"


class ClaudeCodeProject(unittest.TestCase):
    """A fresh project with the skill installed for Claude Code, a scratch HOME and a fake API."""

    responder = None

    @classmethod
    def setUpClass(cls):
        hosts.require_host("claude")

    def setUp(self):
        self.tmp, self.project, self.home = hosts.scratch_git_project(self, "m3l-e2e-claude-")
        self.install = hosts.install_hooks(self.project, "claude", self.home)
        self.marker = "zebrafact" + uuid.uuid4().hex[:10]
        self.fact = "Release builds of this project are labelled %s in the changelog" % self.marker
        rec = hosts.record_fact(self.project, self.fact, "e2e", self.home)
        self.assertEqual(rec.get("status"), "recorded", rec)
        self.touched_name = "touched_%s.txt" % uuid.uuid4().hex[:8]
        self.touched = self.project / self.touched_name
        self.api = fake_api.FakeAnthropic(fake_api.ToolOnce(
            "please write the note", "Write", {"file_path": str(self.touched), "content": "hello from e2e\n"}))
        self.api.start()
        self.addCleanup(self.api.stop)

    def claude(self, prompt, *args):
        res = hosts.run_claude(self.project, self.home, self.api.url, prompt, *args)
        self.assertFalse(res.timed_out, res.describe())
        self.assertEqual(res.returncode, 0, res.describe())
        out = res.json()
        self.assertIsInstance(out, dict, res.describe())
        self.assertFalse(out.get("is_error"), res.describe())
        return res, out

    def runs(self, event=None):
        return [r for r in hosts.hook_runs(self.project)
                if event is None or r.get("event") == event]

    def context(self):
        return ("\n--- hook-runs.jsonl\n%s\n--- fake API requests\n%s"
                % ("\n".join(json.dumps(r) for r in hosts.hook_runs(self.project)), self.api.describe(limit=300)))

    def assert_verified(self, *events):
        """Every claude run so far carries Claude Code's own evidence (its hook environment holds
        CLAUDECODE=1 and CLAUDE_CODE_SESSION_ID equal to the payload's session_id), and the check calls
        each of events verified."""
        runs = [r for r in self.runs() if r.get("host") == "claude"]
        self.assertTrue(runs, "no claude run" + self.context())
        self.assertEqual({r.get("evidence") for r in runs}, {"claude-env"}, self.context())
        found = hosts.runtime_status(self.project, self.home)["claude"]
        for event in events:
            self.assertEqual(found[event]["status"], "verified", found[event])


class ClaudeCodeSessionStartTest(ClaudeCodeProject):
    def test_installed_settings_hold_the_three_hooks(self):
        settings = json.loads((self.project / ".claude" / "settings.json").read_text())
        self.assertEqual(sorted(settings["hooks"]), ["PostToolUse", "PreCompact", "SessionStart"])
        self.assertEqual(settings["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear|compact")
        for groups in settings["hooks"].values():
            self.assertIn("$CLAUDE_PROJECT_DIR", groups[0]["hooks"][0]["command"])
            self.assertNotIn(str(self.tmp), groups[0]["hooks"][0]["command"])
        self.assertTrue((self.project / ".claude" / "skills" / "memory-3layer" / "SKILL.md").is_file())

    def test_session_start_runs_and_the_fact_reaches_the_model(self):
        res, out = self.claude("hello")
        starts = [r for r in self.runs("SessionStart") if r.get("host") == "claude"]
        self.assertTrue(starts, "no SessionStart line for host claude" + self.context())
        self.assertEqual(starts[-1].get("outcome"), "ok", starts[-1])
        self.assertTrue(starts[-1].get("time"), starts[-1])
        self.assertEqual(starts[-1].get("session_id"), out.get("session_id"))
        self.assert_verified("SessionStart")
        bodies = self.api.bodies()
        self.assertTrue(bodies, "the fake API got no model request" + self.context())
        hits = [b for b in bodies if self.marker in b]
        self.assertTrue(hits, "the recorded fact never reached the model" + self.context())
        # It arrives as the SessionStart hook context, not by accident (e.g. a file read).
        body = json.loads(hits[0])
        self.assertIn("SessionStart hook additional context", fake_api.text_of(body.get("messages")))
        self.assertIn(self.fact, fake_api.text_of(body.get("messages")))


class ClaudeCodePromptRecallTest(ClaudeCodeProject):
    """The opt-in UserPromptSubmit hook: the fact relevant to the prompt reaches the model as its context."""

    def test_the_prompt_hook_runs_and_its_fact_reaches_the_model(self):
        hosts.install_hooks(self.project, "claude", self.home, "--with-prompt-recall")
        res, out = self.claude("How are release builds labelled in the changelog?")
        prompts = [r for r in self.runs("UserPromptSubmit") if r.get("host") == "claude"]
        self.assertTrue(prompts, "no UserPromptSubmit line for host claude" + self.context())
        self.assertEqual(prompts[-1].get("outcome"), "ok", prompts[-1])
        self.assertNotIn("reason", prompts[-1])  # opted in: it answered
        self.assertEqual(prompts[-1].get("session_id"), out.get("session_id"))
        self.assert_verified("SessionStart", "UserPromptSubmit")
        hits = [b for b in self.api.bodies() if "relevant to this prompt" in b]
        self.assertTrue(hits, "the prompt recall never reached the model" + self.context())
        text = fake_api.text_of(json.loads(hits[0]).get("messages"))
        self.assertIn("UserPromptSubmit hook additional context", text)
        recall = text[text.index("relevant to this prompt"):]
        self.assertIn(self.marker, recall)


class ClaudeCodeToolAndCompactTest(ClaudeCodeProject):
    def _write_turn(self, session_id):
        res, out = self.claude("please write the note", "--resume", session_id, "--allowedTools", "Write")
        self.assertTrue(self.touched.is_file(), "the Write tool did not run:\n" + res.describe())
        self.assertFalse(out.get("permission_denials"), out)
        return out

    def test_post_tool_use_tracks_the_touched_file(self):
        _res, first = self.claude("hello")
        sid = first["session_id"]
        self._write_turn(sid)
        post = [r for r in self.runs("PostToolUse") if r.get("host") == "claude"]
        self.assertTrue(post, "no PostToolUse line" + self.context())
        self.assertEqual(post[-1].get("outcome"), "ok", post[-1])
        touched = hosts.touched_files(self.project, sid)
        self.assertIn(self.touched_name, touched, "PostToolUse did not record the file" + self.context())
        self.assert_verified("SessionStart", "PostToolUse")
        # Tool output is never persisted.
        state_dir = self.project / ".memory-3layer" / "state"
        for path in state_dir.iterdir():
            if path.is_file():
                self.assertNotIn("hello from e2e", path.read_text(errors="replace"), path)

    def test_compact_saves_state_and_session_start_brings_it_back(self):
        _res, first = self.claude("hello")
        sid = first["session_id"]
        self._write_turn(sid)  # two exchanges: /compact now has something to compact
        before = self.api.mark()
        runs_before = len(hosts.hook_runs(self.project))
        res, out = self.claude("/compact", "--resume", sid)

        new_runs = hosts.hook_runs(self.project)[runs_before:]
        events = [(r.get("event"), r.get("outcome")) for r in new_runs]
        self.assertIn(("PreCompact", "ok"), events, res.describe() + self.context())
        after_pre = events[events.index(("PreCompact", "ok")) + 1:]
        self.assertIn(("SessionStart", "ok"), after_pre, "no SessionStart after PreCompact" + self.context())
        self.assertEqual({r.get("session_id") for r in new_runs}, {sid}, self.context())  # --resume keeps the id
        self.assert_verified("SessionStart", "PostToolUse", "PreCompact")

        # PreCompact saved the minimal state of this session.
        entry = (hosts.session_state(self.project) or {}).get("sessions", {}).get(sid)
        self.assertIsNotNone(entry, "PreCompact saved no state for %s" % sid)
        self.assertEqual(entry.get("trigger"), "manual", entry)
        self.assertGreaterEqual(entry.get("compactions", 0), 1, entry)
        self.assertEqual(entry.get("host"), "claude", entry)
        self.assertTrue(entry.get("compacted_at"), entry)
        self.assertIn(self.touched_name, entry.get("files_touched"), entry)
        self.assertEqual(entry.get("last_request"), "please write the note", entry)
        self.assertNotIn("hello from e2e", json.dumps(entry))
        self.assertTrue(self.api.model_requests(before), "the compaction made no model request")

        # The SessionStart(compact) hook answered the saved state (as the host recorded it) ...
        compact_ctx = None
        for item in hosts.claude_transcript(self.home, sid):
            att = item.get("attachment") or {}
            if att.get("hookName") == "SessionStart:compact" and att.get("stdout"):
                compact_ctx = json.loads(att["stdout"])["hookSpecificOutput"]["additionalContext"]
        self.assertIsNotNone(compact_ctx, "no SessionStart:compact output in the transcript")
        self.assertIn(COMPACT_PREAMBLE, compact_ctx)
        self.assertIn(self.touched_name, compact_ctx)
        self.assertIn(self.marker, compact_ctx)
        self.assertLess(compact_ctx.index(COMPACT_PREAMBLE), compact_ctx.index(self.marker),
                        "the session state should come before the facts")

        # ... and the next model request after the compaction carries it to the model.
        before = self.api.mark()
        self.claude("what next?", "--resume", sid)
        after = [json.loads(b) for b in self.api.bodies(before)]
        self.assertTrue(after, "no model request after the compaction")
        texts = [fake_api.text_of(b.get("messages")) for b in after]
        self.assertTrue(any(compact_ctx in t for t in texts),
                        "the SessionStart(compact) context never reached the model" + self.context())


if __name__ == "__main__":
    unittest.main()
