"""hooks/run_hook.py and compact_memory.py: every event, fail-open behaviour, and no tool output
ever becoming memory."""
import json
import os
import subprocess
import time

import _support
from _support import run_script, snapshot

RUN_HOOK = str(_support.HOOKS / "run_hook.py")



class HookCase(_support.TempProject):
    def setUp(self):
        super().setUp()
        (self.project / ".git").mkdir()
        self.record("The deploy script lives in tools/deploy.sh", "--topic", "ops")

    def hook(self, event, payload=None, raw=None, host="claude", env=None, cwd=None, extra=()):
        data = raw if raw is not None else json.dumps(payload or {}).encode("utf-8")
        args = [_support.PYTHON, RUN_HOOK, event] + (["--host", host] if host else []) + list(extra)
        proc = subprocess.run(args, input=data, capture_output=True, timeout=60, cwd=str(cwd or self.project),
                              env=env or _support.clean_env())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn(b"Traceback", proc.stderr)
        return json.loads(proc.stdout.decode("utf-8"))

    def payload(self, **kw):
        base = {"session_id": "sess-1", "cwd": str(self.project), "transcript_path": "",
                "hook_event_name": "x"}
        base.update(kw)
        return base

    def runs(self):
        path = self.store / "state" / "hook-runs.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def layers(self):
        snap = snapshot(self.store)
        return dict((k, v) for k, v in snap.items() if os.sep + "state" + os.sep not in k)


class SessionStartTest(HookCase):
    def test_context_and_log(self):
        out = self.hook("SessionStart", self.payload(source="startup"))
        ctx = out["hookSpecificOutput"]["additionalContext"]
        self.assertEqual(out["hookSpecificOutput"]["hookEventName"], "SessionStart")
        self.assertIn("tools/deploy.sh", ctx)
        run = self.runs()[-1]
        self.assertEqual((run["host"], run["event"], run["outcome"]), ("claude", "SessionStart", "ok"))
        self.assertIn("time", run)
        self.assertIsInstance(run["duration_ms"], int)

    def test_never_over_10000_chars(self):
        from memory_core import recording
        from memory_core.paths import resolve_store
        root, store, _how = resolve_store(str(self.project), env={})
        for i in range(150):
            fact = "Service %d uses queue q%d and retries %d times with backoff %s" % (i, i * 7, i % 9, "x" * 60)
            recording.record_fact(root, store, fact, topic="t%d" % (i % 7), keep_both=True)
        env = _support.clean_env(MEMORY_MAX_CHARS="50000", MEMORY_MAX_ITEMS="5000")
        out = self.hook("SessionStart", self.payload(source="startup"), env=env)
        self.assertLessEqual(len(out["hookSpecificOutput"]["additionalContext"]), 10000)

    def test_subfolder_uses_the_project_store(self):
        sub = self.project / "pkg" / "deep"
        sub.mkdir(parents=True)
        out = self.hook("SessionStart", self.payload(source="startup", cwd=str(sub)), host="codex", cwd=sub)
        self.assertIn("tools/deploy.sh", out["hookSpecificOutput"]["additionalContext"])
        self.assertFalse((sub / ".memory-3layer").exists())
        env = _support.clean_env(CLAUDE_PROJECT_DIR=str(self.project))
        out = self.hook("SessionStart", self.payload(source="startup", cwd=str(sub), session_id="sess-2"), host=None,
                        env=env, cwd=sub)
        self.assertIn("tools/deploy.sh", out["hookSpecificOutput"]["additionalContext"])
        self.assertEqual(self.runs()[-1]["host"], "claude")  # detected from the environment
        self.assertEqual(self.runs()[-2]["host"], "codex")

    def test_state_first_after_compact_and_resume(self):
        self.hook("PostToolUse", self.payload(tool_name="Edit", tool_input={"file_path": "src/app.py"}))
        self.hook("PreCompact", self.payload(trigger="manual"))
        for source, sid in (("compact", "sess-1"), ("resume", "sess-2")):
            ctx = self.hook("SessionStart", self.payload(source=source, session_id=sid))
            ctx = ctx["hookSpecificOutput"]["additionalContext"]
            self.assertIn("Session state saved before compaction", ctx)
            self.assertIn("src/app.py", ctx)
            self.assertLess(ctx.index("Session state"), ctx.index("[Layer"))
        ctx = self.hook("SessionStart", self.payload(source="startup", session_id="sess-3"))
        self.assertNotIn("Session state", ctx["hookSpecificOutput"]["additionalContext"])

    def test_a_repeat_within_seconds_is_not_sent_twice(self):
        first = self.hook("SessionStart", self.payload(source="resume"))["hookSpecificOutput"]["additionalContext"]
        again = self.hook("SessionStart", self.payload(source="compact"))["hookSpecificOutput"]["additionalContext"]
        self.assertIn("tools/deploy.sh", first)
        self.assertNotIn("tools/deploy.sh", again)
        self.assertIn("not repeated", again)
        self.hook("PreCompact", self.payload(trigger="auto"))  # a compaction in between: load again
        after = self.hook("SessionStart", self.payload(source="compact"))["hookSpecificOutput"]["additionalContext"]
        self.assertIn("tools/deploy.sh", after)
        other = self.hook("SessionStart", self.payload(source="startup", session_id="another"))
        self.assertIn("tools/deploy.sh", other["hookSpecificOutput"]["additionalContext"])

    def test_a_start_after_a_pull_has_the_indexes_rebuilt_by_a_detached_process(self):
        import shutil
        from memory_core import index, loading
        cache = self.store / "state" / "cache"
        shutil.rmtree(str(cache), ignore_errors=True)  # a fresh clone or a pull: no current derived data
        self.hook("SessionStart", self.payload(source="startup", session_id="cold-1"))

        def stale():
            return loading.load_context(str(self.project), str(self.store), dict(
                max_chars=9000, max_items=60, daily_days=3, topics=None))[1]["stale"]
        sig = index.signature(str(self.store / "areas" / "topics" / "ops" / "items.json"))
        deadline = time.time() + 60  # the indexes are rebuilt by a detached process
        while (stale() or index.read_judgement_keys(str(self.store), "ops", sig) is None) and time.time() < deadline:
            time.sleep(0.1)
        self.assertFalse(stale())  # the next load reads the merged rows and the clean marks
        self.assertIsNotNone(index.read_judgement_keys(str(self.store), "ops", sig))
        code, out = self.record("The deploy script lives in tools/deploy.sh.", "--topic", "ops")
        self.assertEqual(out["status"], "duplicate", out)

    def test_where_no_detached_process_can_start_the_start_saves_what_it_computed(self):
        import shutil
        from unittest import mock
        from memory_core import hooks, loading
        shutil.rmtree(str(self.store / "state" / "cache"), ignore_errors=True)
        with mock.patch("os.posix_spawn", side_effect=OSError("no spawn"), create=True), \
                mock.patch("subprocess.Popen", side_effect=OSError("no fork")):
            out = hooks.session_start(str(self.project), str(self.store), "claude",
                                      self.payload(source="startup", session_id="cold-2"), {})
        self.assertIn("tools/deploy.sh", out["hookSpecificOutput"]["additionalContext"])
        report = loading.load_context(str(self.project), str(self.store), dict(
            max_chars=9000, max_items=60, daily_days=3, topics=None))[1]
        self.assertFalse(report["stale"])  # saved at once: the merged rows and the clean marks

    def test_read_only_store_still_loads(self):
        """Root ignores permissions, so as root the hook runs as nobody under the system Python."""
        for folder, _dirs, _files in os.walk(str(self.store)):
            os.chmod(folder, 0o555)
        args, drop_privileges = [_support.PYTHON], None
        if os.geteuid() == 0:
            if not os.access("/usr/bin/python3", os.X_OK):
                self.skipTest("running as root and no /usr/bin/python3 to run the hook as nobody")
            folder = str(_support.REPO)
            while folder != os.path.dirname(folder):
                if not os.stat(folder).st_mode & 0o001:
                    self.skipTest("the checkout under %s is not reachable by user nobody" % folder)
                folder = os.path.dirname(folder)
            os.chmod(str(self.project.parent), 0o755)
            args = ["/usr/bin/python3"]

            def drop_privileges():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
        before = snapshot(self.store)
        proc = subprocess.run(args + [RUN_HOOK, "SessionStart", "--host", "claude"],
                              input=json.dumps(self.payload(source="startup")).encode(), capture_output=True,
                              cwd=str(self.project), env=_support.clean_env(), preexec_fn=drop_privileges, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout.decode())
        self.assertIn("tools/deploy.sh", out["hookSpecificOutput"]["additionalContext"])
        self.assertEqual(before, snapshot(self.store))


class PostToolUseTest(HookCase):
    def touched(self):
        from memory_core import session
        return session.files_touched(str(self.store), "sess-1")

    def test_tracks_files_inside_the_project_only(self):
        self.hook("PostToolUse", self.payload(tool_name="Write", tool_input={"file_path": str(self.project / "a.py")}))
        self.hook("PostToolUse", self.payload(tool_name="Edit", tool_input={"file_path": "lib/b.py"}))
        for outside in ("/etc/passwd", "../elsewhere.txt", str(self.project.parent / "x.py")):
            self.hook("PostToolUse", self.payload(tool_name="Write", tool_input={"file_path": outside}))
        patch = "*** Begin Patch\n*** Update File: src/c.py\n@@\n-a\n+b\n*** Add File: ../../escape.py\n*** End Patch"
        self.hook("PostToolUse", self.payload(tool_name="apply_patch", tool_input={"command": ["apply_patch", patch]}),
                  host="codex")
        self.assertEqual(self.touched(), ["a.py", "lib/b.py", "src/c.py"])
        self.hook("PreCompact", self.payload(trigger="manual"))
        saved = json.loads((self.store / "state" / "session.json").read_text())["sessions"]["sess-1"]
        self.assertEqual(saved["files_touched"], ["a.py", "lib/b.py", "src/c.py"])

    def test_list_is_bounded(self):
        for i in range(53):
            self.hook("PostToolUse", self.payload(tool_name="Write", tool_input={"file_path": "f%02d.py" % i}))
        files = self.touched()
        self.assertEqual(len(files), 50)
        self.assertEqual((files[0], files[-1]), ("f03.py", "f52.py"))

    def test_tool_output_never_becomes_a_fact(self):
        before = self.layers()
        sneaky = {"memory_fact": "EVIL top", "fact": "EVIL fact", "summary": "EVIL summary", "confirmed": True,
                  "nested": {"memory_fact": "EVIL nested", "fact": "EVIL deep", "confirmed": True}}
        payload = self.payload(tool_name="Bash", tool_input=dict(sneaky, command="echo hi"),
                               tool_response=dict(sneaky, stdout="EVIL stdout"))
        payload.update(sneaky)
        for event in ("PostToolUse", "PreCompact", "SessionStart"):
            self.hook(event, payload)
        self.assertEqual(before, self.layers())
        for path, data in snapshot(self.store).items():
            self.assertNotIn(b"EVIL", data, path)

    def test_touched_log_is_bounded(self):
        from memory_core import session
        old, session.TOUCHED_MAX_BYTES = session.TOUCHED_MAX_BYTES, 4096
        try:
            for i in range(200):
                session.note_touched(str(self.store), "sess-1", ["file_%03d.py" % i])
        finally:
            session.TOUCHED_MAX_BYTES = old
        size = (self.store / "state" / "files-touched.jsonl").stat().st_size
        self.assertLess(size, 4096 + 200)
        self.assertEqual(self.touched()[-1], "file_199.py")

    def test_no_path_no_write(self):
        self.hook("PostToolUse", self.payload(tool_name="Bash", tool_input={"command": "ls"}))
        self.assertFalse((self.store / "state" / "session.json").exists())
        self.assertFalse((self.store / "state" / "files-touched.jsonl").exists())


class PreCompactTest(HookCase):
    def test_saves_minimal_state_with_redacted_last_request(self):
        transcript = self.project.parent / "t.jsonl"
        token = "ghp_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3"
        lines = [{"type": "user", "message": {"role": "user", "content": "first question about SECRETPLAN"}},
                 {"type": "assistant", "message": {"role": "assistant", "content": "an answer SECRETPLAN"}},
                 {"type": "user", "message": {"role": "user", "content": [
                     {"type": "text", "text": "please fix the login bug, token %s" % token}]}},
                 {"type": "assistant", "message": {"role": "assistant", "content": "ok"}}]
        transcript.write_text("\n".join(json.dumps(l) for l in lines) + "\n")
        for n in (1, 2):
            self.hook("PreCompact", self.payload(trigger="auto", transcript_path=str(transcript)))
            state = json.loads((self.store / "state" / "session.json").read_text())["sessions"]["sess-1"]
            self.assertEqual((state["trigger"], state["compactions"], state["host"]), ("auto", n, "claude"))
        self.assertIn("fix the login bug", state["last_request"])
        self.assertNotIn(token, state["last_request"])
        raw = (self.store / "state" / "session.json").read_text()
        self.assertNotIn("SECRETPLAN", raw)  # never the transcript
        self.assertIn("compacted_at", state)

    def test_corrupt_session_file_left_alone(self):
        path = self.store / "state" / "session.json"
        path.write_bytes(b"{not json")
        out = self.hook("PreCompact", self.payload(trigger="manual"))
        self.assertIn("session.json", out["systemMessage"])
        self.assertEqual(path.read_bytes(), b"{not json")
        self.assertEqual(self.runs()[-1]["outcome"], "skipped")

    def test_manual_compact_script(self):
        proc = run_script("compact_memory.py", "--project-dir", self.project, "--summary",
                          "Refactoring auth; api_key=Zx81Lq02Vn55Rt77", "--json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        state = json.loads(proc.stdout)["state"]
        self.assertNotIn("Zx81Lq02Vn55Rt77", state["summary"])
        ctx = self.hook("SessionStart", self.payload(source="compact", session_id="other"))
        self.assertIn("Refactoring auth", ctx["hookSpecificOutput"]["additionalContext"])


class UserPromptSubmitTest(HookCase):
    PROMPT = "Where does the deploy script live? I need to change the rollout order."

    def test_without_the_opt_in_it_answers_nothing_and_logs_why(self):
        self.assertEqual(self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT)), {})
        run = self.runs()[-1]
        self.assertEqual((run["event"], run["outcome"]), ("UserPromptSubmit", "ok"))
        self.assertIn("not opted in", run["reason"])

    def test_the_relevant_fact_once_a_session_fenced_and_the_prompt_never_stored(self):
        out = self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT), extra=["--prompt-recall"])
        context = out["hookSpecificOutput"]["additionalContext"]
        self.assertEqual(out["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit")
        self.assertIn("~~~memory-3layer-data\n- [ops-", context)
        self.assertIn("tools/deploy.sh", context)
        self.assertLessEqual(len(context), 2000)
        again = self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT), extra=["--prompt-recall"])
        self.assertEqual(again, {})  # given already in this session
        other = self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT, session_id="sess-2"),
                          extra=["--prompt-recall"])
        self.assertIn("tools/deploy.sh", other["hookSpecificOutput"]["additionalContext"])
        for path, data in snapshot(self.store).items():
            self.assertNotIn(b"rollout order", data, path)  # the prompt is nowhere on disk
            self.assertNotIn(b"sess-1", data if "prompt-given" in path else b"", path)  # ids under a hash

    def test_a_fact_shown_at_session_start_is_not_given_again(self):
        (self.store / "state" / "cache" / "prompt-given").mkdir(parents=True)  # the prompt hook is in use
        start = self.hook("SessionStart", self.payload(source="startup"))
        self.assertIn("tools/deploy.sh", start["hookSpecificOutput"]["additionalContext"])
        self.assertEqual(self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT), extra=["--prompt-recall"]), {})
        other = self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT, session_id="sess-2"),
                          extra=["--prompt-recall"])
        self.assertIn("tools/deploy.sh", other["hookSpecificOutput"]["additionalContext"])

    def test_a_promoted_fact_shown_in_memory_md_at_session_start_is_not_given_again(self):
        code, out = self.record("Rollbacks go through tools/rollback.sh, never by hand.", "--topic", "release",
                                "--category", "convention", "--promote", "--confirmed")
        self.assertEqual(code, 0, out)
        (self.store / "state" / "cache" / "prompt-given").mkdir(parents=True)
        start = self.hook("SessionStart", self.payload(source="startup"))["hookSpecificOutput"]["additionalContext"]
        layer3 = start.split("[Layer 3]")[1].split("[Layer")[0]
        self.assertIn("tools/rollback.sh", layer3)
        self.assertEqual(start.count("tools/rollback.sh"), 1)
        prompt = "Can rollbacks be done by hand?"
        self.assertEqual(self.hook("UserPromptSubmit", self.payload(prompt=prompt), extra=["--prompt-recall"]), {})
        other = self.hook("UserPromptSubmit", self.payload(prompt=prompt, session_id="sess-2"), extra=["--prompt-recall"])
        self.assertIn("tools/rollback.sh", other["hookSpecificOutput"]["additionalContext"])

    def test_the_lists_of_given_facts_are_bounded(self):
        from memory_core import hooks
        folder = self.store / "state" / "cache" / "prompt-given"
        folder.mkdir(parents=True)
        for n in range(hooks.PROMPT_GIVEN_KEEP + 5):
            (folder / ("old%03d.txt" % n)).write_text("x\n", "utf-8")
            os.utime(str(folder / ("old%03d.txt" % n)), (1000000 + n, 1000000 + n))
        self.hook("UserPromptSubmit", self.payload(prompt=self.PROMPT), extra=["--prompt-recall"])
        names = sorted(p.name for p in folder.iterdir())
        self.assertEqual(len(names), hooks.PROMPT_GIVEN_KEEP)
        self.assertNotIn("old000.txt", names)  # the oldest went first
        self.assertNotIn("old005.txt", names)
        self.assertIn("old006.txt", names)

    def test_nothing_when_nothing_scores_well_and_at_most_2000_characters(self):
        self.assertEqual(self.hook("UserPromptSubmit", self.payload(prompt="Tell me a joke about zebras"),
                                   extra=["--prompt-recall"]), {})
        for n in range(12):
            self.record("The deploy script step %d runs %s before the rollout" % (n, "migration " * 30), "--topic",
                        "ops%d" % n)
        out = self.hook("UserPromptSubmit", self.payload(prompt="deploy script rollout migration step"),
                        extra=["--prompt-recall"])
        self.assertLessEqual(len(out["hookSpecificOutput"]["additionalContext"]), 2000)


class FailOpenTest(HookCase):
    def test_bad_payloads(self):
        before = self.layers()
        big = b'{"session_id": "' + b"x" * (10 * 1024 * 1024 + 10) + b'"}'
        env = _support.clean_env(CLAUDE_PROJECT_DIR=str(self.project))  # as Claude Code sets it
        for event in ("SessionStart", "PostToolUse", "PreCompact"):
            self.assertIn("payload over", self.hook(event, raw=big, env=env)["systemMessage"])
        cases = [b"{not json", b"", b"[1, 2]", b"\xff\xfe\x00", b'"a string"', b"null",
                 json.dumps({"session_id": 5, "cwd": [1], "tool_input": "x", "source": {"a": 1},
                             "transcript_path": 7, "trigger": None}).encode()]
        for event in ("SessionStart", "PostToolUse", "PreCompact", "Bogus"):
            for raw in cases:
                out = self.hook(event, raw=raw, env=env)
                self.assertIsInstance(out, dict)
                if "systemMessage" in out:
                    self.assertNotIn("\n", out["systemMessage"])
        self.assertEqual(before, self.layers())
        self.assertFalse((self.store / "state" / "session.json").exists())
        self.assertFalse((self.store / "state" / "files-touched.jsonl").exists())
        outcomes = set(r["outcome"] for r in self.runs())
        self.assertIn("skipped", outcomes)

    def test_no_project_at_all_stays_silent_and_writes_nothing(self):
        empty = self.project.parent / "empty"
        empty.mkdir()
        for event in ("SessionStart", "PostToolUse", "PreCompact"):
            out = self.hook(event, {"session_id": "s", "cwd": str(empty), "source": "startup",
                                    "tool_input": {"file_path": str(empty / "a.py")}}, cwd=empty)
            self.assertEqual(out, {})
        self.assertEqual(os.listdir(str(empty)), [])

    def test_help_exits_zero(self):
        proc = subprocess.run([_support.PYTHON, RUN_HOOK, "--help"], capture_output=True, timeout=30)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b"SessionStart", proc.stdout)


def without_host_env(**extra):
    """An environment for a hand run: none of the caller's CLAUDE* / CODEX* variables, plus extra."""
    env = {k: v for k, v in _support.clean_env().items() if not k.startswith(("CLAUDE", "CODEX"))}
    env.update({k: str(v) for k, v in extra.items()})
    return env


class HostEvidenceTest(HookCase):
    """Every logged run says whether the host it names really ran it (hooks.host_evidence);
    check_memory_3layer.py reports a run without it as a manual run, never as verified."""

    def setUp(self):
        super().setUp()
        self.codex_home = self.project.parent / "codex-home"
        self.day = self.codex_home / "sessions" / "2026" / "01" / "02"
        self.day.mkdir(parents=True)
        self.sid = "0199a213-81c0-7800-8aa1-bbab2a035a53"
        self.transcript = self.day / ("rollout-2026-01-02T03-04-05-%s.jsonl" % self.sid)
        self.transcript.write_text('{"type": "session_meta"}\n')

    def evidence(self, host, env, **payload):
        from memory_core import hooks
        return hooks.host_evidence(host, env, dict({"session_id": self.sid}, **payload))

    def codex(self, path, **env):
        return self.evidence("codex", dict({"CODEX_HOME": str(self.codex_home)}, **env), transcript_path=str(path))

    def test_a_payload_piped_in_by_hand_is_logged_as_a_manual_run_of_the_named_host(self):
        for host in ("claude", "codex", "manual"):
            self.hook("PreCompact", self.payload(trigger="manual"), host=host, env=without_host_env())
            run = self.runs()[-1]
            self.assertEqual((run["host"], run["outcome"], run["evidence"]), (host, "ok", "none"))

    def test_claude_code_environment_with_the_payload_session_is_evidence(self):
        env = without_host_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="sess-1", CLAUDE_PROJECT_DIR=self.project)
        self.hook("SessionStart", self.payload(source="startup"), env=env)
        self.assertEqual(self.runs()[-1]["evidence"], "claude-env")
        for wrong in ({"CLAUDE_CODE_SESSION_ID": "another-session"}, {"CLAUDE_CODE_SESSION_ID": ""},
                      {"CLAUDECODE": "0"}, {"CLAUDECODE": ""}):
            self.hook("PostToolUse", self.payload(tool_input={"file_path": "a.py"}), env=dict(env, **wrong))
            self.assertEqual(self.runs()[-1]["evidence"], "none", wrong)
        # the right environment, but the run claims another host or has no session of its own
        self.assertEqual(self.evidence("codex", {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": self.sid}), "none")
        self.assertEqual(self.evidence("claude", {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": ""}, session_id=""),
                         "none")

    def test_a_codex_transcript_under_codex_home_sessions_is_evidence(self):
        env = without_host_env(CODEX_HOME=self.codex_home)
        self.hook("SessionStart", self.payload(session_id=self.sid, transcript_path=str(self.transcript),
                                               source="startup"), host="codex", env=env)
        self.assertEqual(self.runs()[-1]["evidence"], "codex-transcript")
        self.assertEqual(self.codex(self.transcript), "codex-transcript")
        # CODEX_HOME unset: ~/.codex
        home = self.project.parent
        os.rename(str(self.codex_home), str(home / ".codex"))
        self.assertEqual(self.evidence("codex", {"HOME": str(home)}, transcript_path=str(
            home / ".codex" / "sessions" / "2026" / "01" / "02" / self.transcript.name)), "codex-transcript")
        self.assertEqual(self.evidence("codex", {}, transcript_path=str(self.transcript)), "none")

    def test_a_codex_home_reached_through_a_link_still_counts(self):
        linked = self.project.parent / "linked-home"
        os.symlink(str(self.codex_home), str(linked))
        via_link = linked / "sessions" / "2026" / "01" / "02" / self.transcript.name
        self.assertEqual(self.codex(via_link, CODEX_HOME=str(linked)), "codex-transcript")
        self.assertEqual(self.codex(self.transcript, CODEX_HOME=str(linked)), "codex-transcript")
        # Codex spells the path from CODEX_HOME (or its real path): through some other link it is not Codex's
        self.assertEqual(self.codex(via_link), "none")

    def test_transcripts_that_are_not_codex_s_own_are_not_evidence(self):
        elsewhere = self.project.parent / "elsewhere"
        elsewhere.mkdir()
        outside = elsewhere / self.transcript.name
        outside.write_text("{}\n")
        self.assertEqual(self.codex(outside), "none")  # outside sessions/
        self.assertEqual(self.codex(self.codex_home / self.transcript.name), "none")  # in CODEX_HOME, not sessions/
        (self.codex_home / self.transcript.name).write_text("{}\n")
        self.assertEqual(self.codex(self.codex_home / self.transcript.name), "none")
        link_out = self.day / ("rollout-link-out-%s.jsonl" % self.sid)
        os.symlink(str(outside), str(link_out))
        self.assertEqual(self.codex(link_out), "none")  # a link in sessions/ to a file elsewhere
        link_in = self.day / ("rollout-link-in-%s.jsonl" % self.sid)
        os.symlink(str(self.transcript), str(link_in))
        self.assertEqual(self.codex(link_in), "none")  # a link, even to a real transcript
        os.symlink(str(self.day), str(elsewhere / "day"))
        self.assertEqual(self.codex(elsewhere / "day" / self.transcript.name), "none")  # a folder link into sessions/
        os.symlink(str(elsewhere), str(self.day / "out"))
        self.assertEqual(self.codex(self.day / "out" / self.transcript.name), "none")  # a folder link out of it
        for traversal in (str(self.codex_home / "sessions" / ".." / ".." / "elsewhere" / self.transcript.name),
                          str(self.day / ".." / "02" / self.transcript.name)):
            self.assertEqual(self.codex(traversal), "none", traversal)
        folder = self.day / ("rollout-folder-%s.jsonl" % self.sid)
        folder.mkdir()
        self.assertEqual(self.codex(folder), "none")  # not a regular file
        self.assertEqual(self.codex(self.day / ("rollout-gone-%s.jsonl" % self.sid)), "none")
        other = self.day / "rollout-2026-01-02T03-04-05-another-session.jsonl"
        other.write_text("{}\n")
        self.assertEqual(self.codex(other), "none")  # another session's transcript
        self.assertEqual(self.codex(os.path.relpath(str(self.transcript))), "none")
        self.assertEqual(self.codex(str(self.transcript) + "\x00"), "none")
        self.assertEqual(self.evidence("codex", {"CODEX_HOME": str(self.codex_home)}, transcript_path=42), "none")
        self.assertEqual(self.evidence("codex", {"CODEX_HOME": str(self.codex_home)}, session_id=None,
                                       transcript_path=str(self.transcript)), "none")
        # a real transcript, but the run claims to be Claude Code
        self.assertEqual(self.evidence("claude", {"CODEX_HOME": str(self.codex_home)},
                                       transcript_path=str(self.transcript)), "none")


class HookRunsLogTest(_support.TempProject):
    def test_log_is_bounded_and_keeps_whole_lines(self):
        import time
        from memory_core import hooks, store
        with store.StoreLock(str(self.store)):
            store.init_store(str(self.store))
        old, hooks.HOOK_RUNS_MAX_BYTES = hooks.HOOK_RUNS_MAX_BYTES, 4096
        try:
            for i in range(300):
                hooks.log_run(str(self.store), "claude", "PostToolUse", "ok", None, time.monotonic(), "s%d" % i)
        finally:
            hooks.HOOK_RUNS_MAX_BYTES = old
        path = self.store / "state" / "hook-runs.jsonl"
        self.assertLessEqual(path.stat().st_size, 4096 + 200)
        lines = path.read_text().splitlines()
        self.assertTrue(all(json.loads(l)["event"] == "PostToolUse" for l in lines))
        self.assertEqual(json.loads(lines[-1])["session_id"], "s299")
