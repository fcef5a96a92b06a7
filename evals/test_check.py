"""scripts/check_memory_3layer.py: three statuses kept apart, each with evidence; never writes."""
import hashlib
import json
import os
import re
import subprocess
import uuid

import _support
from _support import run_json, run_script, snapshot


def _snake(event):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_trust_entries(hooks_json):
    """{key: "sha256:<hex>"} for every handler of a Codex hooks.json, computed independently of the
    code under test, as host-facts.md describes (what the TUI's /hooks review records)."""
    path = os.path.realpath(str(hooks_json))
    with open(path, encoding="utf-8") as fh:
        config = json.load(fh)
    out = {}
    for event, groups in config["hooks"].items():
        for gi, group in enumerate(groups):
            for hi, handler in enumerate(group["hooks"]):
                norm = {"type": handler.get("type", "command"), "command": handler["command"],
                        "timeout": handler.get("timeout") or 600, "async": bool(handler.get("async", False))}
                blob = {"event_name": _snake(event), "hooks": [norm]}
                if group.get("matcher") is not None:
                    blob["matcher"] = group["matcher"]
                text = json.dumps(blob, sort_keys=True, separators=(",", ":"))
                key = "%s:%s:%d:%d" % (path, _snake(event), gi, hi)
                out[key] = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    return out


class CheckCase(_support.TempProject):
    def setUp(self):
        super().setUp()
        self.codex_home = self.project.parent / "codex-home"
        self.codex_home.mkdir()

    def env(self, **extra):
        return _support.clean_env(CODEX_HOME=str(self.codex_home), **extra)

    def check(self, *args, project=None):
        """(exit code, report), asserting that nothing under the project or CODEX_HOME changed."""
        before = (snapshot(self.project), snapshot(self.codex_home))
        code, out = run_json("check_memory_3layer.py", "--project-dir", project or self.project, *args,
                             env=self.env())
        self.assertEqual(before, (snapshot(self.project), snapshot(self.codex_home)), "check wrote something")
        self.assertIn(code, (0, 1), out)
        self.assertEqual(code == 0, out["ok"])
        return code, out

    def text(self):
        proc = run_script("check_memory_3layer.py", "--project-dir", self.project, env=self.env())
        return proc.returncode, proc.stdout.decode("utf-8")

    def install(self, platform="both"):
        code, out = run_json("install_hooks.py", "--project-dir", self.project, "--platform", platform,
                             env=self.env())
        self.assertEqual(code, 0, out)

    def entries(self, out, section):
        return {e["what"]: e for e in out[section]["entries"]}

    def trust_project(self):
        with open(str(self.codex_home / "config.toml"), "a", encoding="utf-8") as fh:
            fh.write('[projects.%s]\ntrust_level = "trusted"\n\n' % json.dumps(os.path.realpath(str(self.project))))

    def trust_hooks(self):
        with open(str(self.codex_home / "config.toml"), "a", encoding="utf-8") as fh:
            for key, digest in sorted(codex_trust_entries(self.project / ".codex/hooks.json").items()):
                fh.write('[hooks.state.%s]\ntrusted_hash = "%s"\n\n' % (json.dumps(key), digest))


class LocateTest(CheckCase):
    def test_no_store_is_a_finding_with_the_next_step(self):
        code, out = self.check()
        self.assertEqual(code, 1)
        loc = out["locate"]
        self.assertEqual((loc["root"], loc["found_by"]), (str(self.project), "--project-dir"))
        self.assertFalse(loc["store_exists"])
        self.assertTrue(loc["writable"])
        self.assertIsNone(loc["legacy"])
        self.assertEqual(loc["host"], "manual")
        self.assertTrue(any("does not exist" in f for f in out["findings"]))
        self.assertTrue(any("record_memory.py" in step for step in out["next"]))
        self.assertEqual(out["runtime_status"]["hosts"], {})  # nothing configured: nothing claimed
        code, text = self.text()
        self.assertEqual(code, 1)
        self.assertIn("does not exist", text)
        for section in ("locate", "artifact_status", "adapter_status", "runtime_status", "next steps"):
            self.assertIn(section, text)

    def test_legacy_store_reported_with_migrate_hint(self):
        (self.project / ".claude" / "memory").mkdir(parents=True)
        (self.project / ".claude" / "memory" / "notes.md").write_text("- uses pnpm\n")
        code, out = self.check()
        self.assertEqual(code, 1)
        self.assertTrue(out["locate"]["legacy"].endswith(os.path.join(".claude", "memory")))
        self.assertTrue(any("migrate_legacy_memory.py" in step for step in out["next"]))
        self.assertIn("migrate_legacy_memory.py would bring it over", self.text()[1])

    def test_host_from_environment(self):
        env = self.env(CLAUDECODE="1")
        code, out = run_json("check_memory_3layer.py", "--project-dir", self.project, env=env)
        self.assertEqual(out["locate"]["host"], "claude")
        self.assertIn("CLAUDECODE", out["locate"]["host_evidence"])

    def test_ambiguous_root_without_store_or_git(self):
        sub = self.project / "sub"
        sub.mkdir()
        proc = run_script("check_memory_3layer.py", "--json", cwd=str(sub), env=self.env())
        out = json.loads(proc.stdout.decode())
        self.assertEqual(out["locate"]["found_by"], "current directory")
        self.assertTrue(out["locate"]["ambiguous"])
        self.assertTrue(any("--project-dir" in step for step in out["next"]))

    def test_usage_error_exits_2(self):
        proc = run_script("check_memory_3layer.py", "--bogus", env=self.env())
        self.assertEqual(proc.returncode, 2)
        proc = run_script("check_memory_3layer.py", "--project-dir", self.project / "missing", env=self.env())
        self.assertEqual(proc.returncode, 2)
        self.assertIn("does not exist", proc.stderr.decode())


class ArtifactTest(CheckCase):
    def test_skill_package_itself_is_valid(self):
        code, out = run_json("check_memory_3layer.py", "--project-dir", self.project, env=self.env())
        status = out["artifact_status"]
        self.assertEqual(status["skill_root"], str(_support.REPO))
        self.assertEqual(status["status"], "ok", status)
        whats = self.entries(out, "artifact_status")
        for what in ("SKILL.md front matter", "required files", "python sources"):
            self.assertEqual(whats[what]["level"], "ok", whats[what])
        self.assertIn("name memory-3layer", whats["SKILL.md front matter"]["evidence"])
        self.assertFalse(list(_support.REPO.glob("scripts/**/__pycache__/status*.pyc")))  # compile() only

    def test_front_matter_rules(self):
        from memory_core import status
        good = "---\nname: memory-3layer\ndescription: Keeps memory.\nmetadata:\n  version: \"1\"\n---\n# x\n"
        data, err = status.parse_front_matter(good)
        self.assertEqual((data["name"], data["metadata"]), ("memory-3layer", {"version": "1"}))
        import tempfile
        for text, needle in ((good.replace("memory-3layer", "Memory_3layer"), "name"),
                             (good.replace("Keeps memory.", "Keeps <b>memory</b>"), "< or >"),
                             (good.replace("metadata:", "author: me\nmetadata:"), "author"),
                             ("# no front matter\n", "front matter")):
            with tempfile.TemporaryDirectory() as tmp:
                with open(os.path.join(tmp, "SKILL.md"), "w") as fh:
                    fh.write(text)
                found = status.check_front_matter(tmp)
            self.assertEqual(found[0]["level"], "finding", text)
            self.assertIn(needle, found[0]["evidence"])

    def test_healthy_store_and_corrupt_file_left_byte_identical(self):
        code, out = self.record("Payments go through the ledger service", "--topic", "arch")
        self.assertEqual(code, 0, out)
        code, out = self.check()
        self.assertEqual(out["artifact_status"]["status"], "ok", out["artifact_status"])
        bad = self.store / "areas" / "topics" / "broken" / "items.json"
        bad.parent.mkdir(parents=True)
        bad.write_bytes(b'{"items": [')
        code, out = self.check()  # check() asserts the snapshot is unchanged
        self.assertEqual(code, 1)
        self.assertEqual(out["artifact_status"]["status"], "findings")
        self.assertTrue(any("broken" in e["what"] and "invalid JSON" in e["evidence"]
                            for e in out["artifact_status"]["entries"] if e["level"] == "finding"))
        self.assertEqual(bad.read_bytes(), b'{"items": [')

    def test_unknown_schema_orphan_and_secret_are_findings(self):
        self.record("Deploys go through the staging branch", "--topic", "deploy")
        topic = self.store / "areas" / "topics" / "deploy" / "items.json"
        doc = json.loads(topic.read_text())
        doc["items"][0]["superseded_by"] = "does-not-exist"
        topic.write_text(json.dumps(doc))
        other = self.store / "areas" / "topics" / "future" / "items.json"
        other.parent.mkdir(parents=True)
        other.write_text(json.dumps({"schema": "memory-3layer/items@9", "items": []}))
        with open(str(self.store / "MEMORY.md"), "a") as fh:
            fh.write("- deploy token ghp_%s\n" % ("a1B2c3D4e5" * 4)[:36])
        code, out = self.check()
        self.assertEqual(code, 1)
        text = json.dumps(out["artifact_status"])
        self.assertIn("does-not-exist", text)
        self.assertIn("unknown schema", text)
        self.assertIn("MEMORY.md", text)
        self.assertNotIn("a1B2c3D4e5", json.dumps(out))  # the secret itself is never printed


class AdapterRuntimeTest(CheckCase):
    def setUp(self):
        super().setUp()
        subprocess.run(["git", "init", "-q", str(self.project)], check=False)

    def run_installed_hook(self, host, event, payload, **env_extra):
        """The command install_hooks.py wrote for host and event, run as the host would run it, in an
        environment without the caller's CLAUDE* / CODEX* variables plus env_extra."""
        config = ".claude/settings.json" if host == "claude" else ".codex/hooks.json"
        groups = json.loads((self.project / config).read_text())["hooks"][event]
        command = [h["command"] for g in groups for h in g["hooks"] if "memory-3layer" in h["command"]][0]
        env = {k: v for k, v in _support.clean_env(**env_extra).items()
               if not k.startswith(("CLAUDE", "CODEX")) or k in env_extra}
        env["PATH"] = os.path.dirname(_support.PYTHON) + os.pathsep + env.get("PATH", "")
        proc = subprocess.run(command, shell=True, cwd=str(self.project), input=json.dumps(payload).encode(),
                              capture_output=True, env=env, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        _support.wait_for_rebuild(self.store)
        return self.last_run()

    def last_run(self):
        return json.loads((self.store / "state/hook-runs.jsonl").read_text().splitlines()[-1])

    def run_claude_session_start(self, evidence=True, env_session=None):
        """SessionStart as Claude Code runs it: CLAUDECODE=1 and CLAUDE_CODE_SESSION_ID equal to the
        payload's session_id (evidence=False: piped in by hand, CLAUDE_PROJECT_DIR only)."""
        sid = uuid.uuid4().hex
        env = {"CLAUDE_PROJECT_DIR": str(self.project)}
        if evidence:
            env.update(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID=env_session or sid)
        payload = {"session_id": sid, "cwd": str(self.project), "source": "startup"}
        return self.run_installed_hook("claude", "SessionStart", payload, **env)

    def codex_transcript(self, session_id):
        """A rollout file where Codex 0.171 keeps it: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-...-<id>.jsonl."""
        folder = self.codex_home / "sessions" / "2026" / "01" / "02"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / ("rollout-2026-01-02T03-04-05-%s.jsonl" % session_id)
        path.write_text('{"type": "session_meta"}\n')
        return path

    def run_codex_session_start(self, transcript, sid):
        payload = {"session_id": sid, "transcript_path": str(transcript or ""), "cwd": str(self.project),
                   "hook_event_name": "SessionStart", "source": "startup", "model": "gpt-fake"}
        return self.run_installed_hook("codex", "SessionStart", payload, CODEX_HOME=str(self.codex_home))

    def test_configured_but_never_run_is_not_verified(self):
        self.install("both")
        code, out = self.check()
        self.assertEqual(code, 1)
        hosts = out["adapter_status"]["hosts"]
        self.assertTrue(hosts["claude"]["configured"] and hosts["codex"]["configured"])
        self.assertEqual(set(hosts["claude"]["events"].values()), {"configured"})
        for host in ("claude", "codex"):
            for event in ("SessionStart", "PostToolUse", "PreCompact"):
                self.assertEqual(out["runtime_status"]["hosts"][host][event]["status"], "not observed")
        self.assertNotIn("verified", json.dumps(out["runtime_status"]))
        self.assertIn("start a new Claude Code session in this project",
                      out["runtime_status"]["hosts"]["claude"]["SessionStart"]["next"])
        codex_next = out["runtime_status"]["hosts"]["codex"]["SessionStart"]["next"]
        self.assertLess(codex_next.index("trust"), codex_next.index("start a new Codex session"))
        code, text = self.text()
        self.assertIn("not observed", text)
        self.assertNotIn("verified", text)

    def test_a_real_run_is_verified_with_its_time(self):
        self.install("claude")
        self.assertEqual(self.run_claude_session_start()["evidence"], "claude-env")
        runs = [json.loads(l) for l in (self.store / "state/hook-runs.jsonl").read_text().splitlines()]
        code, out = self.check()
        start = out["runtime_status"]["hosts"]["claude"]["SessionStart"]
        self.assertEqual(start["status"], "verified")
        self.assertEqual(start["last_ok"], runs[-1]["time"])
        self.assertEqual(out["runtime_status"]["hosts"]["claude"]["PreCompact"]["status"], "not observed")
        # SessionStart seen, the store parses: healthy; events not yet seen are still listed with their step
        self.assertEqual(code, 0, out["findings"])
        self.assertTrue(any("/compact" in step for step in out["next"]))
        self.assertIn("verified: last ok run %s" % runs[-1]["time"], self.text()[1])

    def test_a_hand_run_is_a_manual_run_never_verified(self):
        self.install("claude")
        run = self.run_claude_session_start(evidence=False)
        self.assertEqual((run["host"], run["outcome"], run["evidence"]), ("claude", "ok", "none"))
        code, out = self.check()
        start = out["runtime_status"]["hosts"]["claude"]["SessionStart"]
        self.assertEqual((start["status"], start["last_manual"], start["runs"]), ("manual run", run["time"], 1))
        self.assertNotIn("last_ok", start)
        self.assertIn("start a new Claude Code session in this project", start["next"])
        self.assertEqual(code, 1)  # the memory is not shown to load in a real session: still a finding
        self.assertTrue(any("manual run" in f for f in out["findings"]))
        code, text = self.text()
        self.assertIn("claude SessionStart: manual run: last %s" % run["time"], text)
        self.assertNotIn("verified", text)
        # the same host's environment for another session is not evidence for this payload
        run = self.run_claude_session_start(env_session="another-session")
        self.assertEqual(run["evidence"], "none")
        self.assertEqual(self.check()[1]["runtime_status"]["hosts"]["claude"]["SessionStart"]["status"], "manual run")
        # the real run verifies; an earlier hand run does not hide it
        self.run_claude_session_start()
        self.assertEqual(self.check()[1]["runtime_status"]["hosts"]["claude"]["SessionStart"]["status"], "verified")

    def test_old_log_lines_without_evidence_count_as_manual_runs(self):
        self.install("both")
        with open(str(self.store / "state/hook-runs.jsonl"), "a") as fh:
            for host in ("claude", "codex"):
                fh.write(json.dumps({"time": "2026-01-02T03:04:05Z", "host": host, "event": "SessionStart",
                                     "outcome": "ok", "duration_ms": 150, "session_id": "s"}) + "\n")
            fh.write(json.dumps({"time": "2026-01-02T03:04:06Z", "host": "claude", "event": "PostToolUse",
                                 "outcome": "ok", "duration_ms": 150, "evidence": "codex-transcript"}) + "\n")
        code, out = self.check()
        hosts = out["runtime_status"]["hosts"]
        self.assertEqual(hosts["claude"]["SessionStart"]["status"], "manual run")
        self.assertEqual(hosts["codex"]["SessionStart"]["status"], "manual run")
        self.assertEqual(hosts["claude"]["PostToolUse"]["status"], "manual run")  # another host's evidence
        self.assertEqual(self.entries(out, "runtime_status")["claude PostToolUse"]["level"], "info")
        self.assertNotIn("verified", json.dumps(out["runtime_status"]))

    def test_a_host_run_that_failed_is_failing_whatever_a_hand_run_did(self):
        self.install("claude")
        self.run_claude_session_start(evidence=False)
        with open(str(self.store / "state/hook-runs.jsonl"), "a") as fh:
            fh.write(json.dumps({"time": "2026-01-02T03:04:05Z", "host": "claude", "event": "SessionStart",
                                 "outcome": "error", "reason": "boom", "evidence": "claude-env"}) + "\n")
        code, out = self.check()
        start = out["runtime_status"]["hosts"]["claude"]["SessionStart"]
        self.assertEqual(start["status"], "failing")
        self.assertIn("boom", self.entries(out, "runtime_status")["claude SessionStart"]["evidence"])

    def test_codex_is_verified_only_with_its_transcript_under_codex_home(self):
        self.install("codex")
        sid = str(uuid.uuid4())
        outside = self.project.parent / "elsewhere" / ("rollout-x-%s.jsonl" % sid)
        outside.parent.mkdir()
        outside.write_text("{}\n")
        self.assertEqual(self.run_codex_session_start(outside, sid)["evidence"], "none")
        self.assertEqual(self.run_codex_session_start(None, sid)["evidence"], "none")
        code, out = self.check()
        self.assertEqual(out["runtime_status"]["hosts"]["codex"]["SessionStart"]["status"], "manual run")
        run = self.run_codex_session_start(self.codex_transcript(sid), sid)
        self.assertEqual((run["host"], run["evidence"]), ("codex", "codex-transcript"))
        code, out = self.check()
        start = out["runtime_status"]["hosts"]["codex"]["SessionStart"]
        self.assertEqual((start["status"], start["last_ok"]), ("verified", run["time"]))
        # verified that it ran, and still says Codex skips it until both trusts are given
        self.assertIn("Codex will skip it until", self.entries(out, "runtime_status")["codex SessionStart"]["evidence"])

    def test_the_prompt_hook_is_checked_only_where_opted_in_and_a_silent_run_verifies_nothing(self):
        self.install("claude")
        code, out = self.check()
        self.assertNotIn("UserPromptSubmit", out["adapter_status"]["hosts"]["claude"]["events"])
        self.assertNotIn("UserPromptSubmit", out["runtime_status"]["hosts"]["claude"])
        code, done = run_json("install_hooks.py", "--project-dir", self.project, "--platform", "claude",
                              "--with-prompt-recall", env=self.env())
        self.assertEqual(code, 0, done)
        payload = json.dumps({"session_id": "s1", "cwd": str(self.project), "prompt": "anything"}).encode()
        run_script("run_hook.py", "UserPromptSubmit", "--host", "claude", input=payload)  # no opt-in flag
        code, out = self.check()
        self.assertEqual(out["adapter_status"]["hosts"]["claude"]["events"]["UserPromptSubmit"], "configured")
        self.assertEqual(out["runtime_status"]["hosts"]["claude"]["UserPromptSubmit"]["status"], "failing")
        run_script("run_hook.py", "UserPromptSubmit", "--host", "claude", "--prompt-recall", input=payload)
        code, out = self.check()  # piped in by hand: it answered, but Claude Code is not shown to run it
        self.assertEqual(out["runtime_status"]["hosts"]["claude"]["UserPromptSubmit"]["status"], "manual run")
        env = _support.clean_env(CLAUDECODE="1", CLAUDE_CODE_SESSION_ID="s1")
        run_script("run_hook.py", "UserPromptSubmit", "--host", "claude", "--prompt-recall", input=payload, env=env)
        code, out = self.check()
        self.assertEqual(out["runtime_status"]["hosts"]["claude"]["UserPromptSubmit"]["status"], "verified")

    def test_skipped_run_is_not_verified_and_missing_script_is_a_finding(self):
        self.install("claude")
        line = {"time": "2026-01-02T03:04:05Z", "host": "claude", "event": "SessionStart", "outcome": "error",
                "reason": "boom", "duration_ms": 5}
        with open(str(self.store / "state/hook-runs.jsonl"), "a") as fh:
            fh.write(json.dumps(line) + "\n")
        code, out = self.check()
        self.assertEqual(out["runtime_status"]["hosts"]["claude"]["SessionStart"]["status"], "failing")
        import shutil
        shutil.rmtree(str(self.project / ".claude/skills/memory-3layer"))
        code, out = self.check()
        self.assertEqual(out["adapter_status"]["hosts"]["claude"]["events"]["SessionStart"], "broken")

    def test_codex_untrusted_trusted_and_modified(self):
        self.install("codex")
        code, out = self.check()
        trust = out["adapter_status"]["hosts"]["codex"]["trust"]
        self.assertEqual(trust["project"], "untrusted")
        self.assertEqual(set(trust["hooks"].values()), {"untrusted"})
        self.assertEqual(trust["config"], str(self.codex_home / "config.toml"))

        self.trust_project()
        self.trust_hooks()
        code, out = self.check()
        trust = out["adapter_status"]["hosts"]["codex"]["trust"]
        self.assertEqual(trust["project"], "trusted")
        self.assertEqual(trust["hooks"], {"SessionStart": "trusted", "PostToolUse": "trusted",
                                          "PreCompact": "trusted"})
        self.assertEqual(out["adapter_status"]["status"], "ok", out["adapter_status"]["entries"])
        codex_next = out["runtime_status"]["hosts"]["codex"]["SessionStart"]["next"]
        self.assertNotIn("/hooks", codex_next)  # trusted: the remaining step is to start a session

        hooks_json = self.project / ".codex/hooks.json"
        config = json.loads(hooks_json.read_text())
        config["hooks"]["PreCompact"][-1]["hooks"][0]["timeout"] = 45
        config["hooks"]["PostToolUse"][-1]["hooks"][0]["command"] += " --extra"
        hooks_json.write_text(json.dumps(config, indent=2))
        code, out = self.check()
        trust = out["adapter_status"]["hosts"]["codex"]["trust"]
        self.assertEqual(trust["hooks"], {"SessionStart": "trusted", "PostToolUse": "modified",
                                          "PreCompact": "modified"})
        self.assertEqual(code, 1)
        self.assertIn("/hooks", " ".join(out["next"]))
        # an earlier ok run stays verified (with its time), and says Codex now skips the edited hook
        line = {"time": "2026-01-02T03:04:05Z", "host": "codex", "event": "PostToolUse", "outcome": "ok",
                "duration_ms": 150, "evidence": "codex-transcript"}
        with open(str(self.store / "state/hook-runs.jsonl"), "a") as fh:
            fh.write(json.dumps(line) + "\n")
        code, out = self.check()
        self.assertEqual(out["runtime_status"]["hosts"]["codex"]["PostToolUse"]["last_ok"], line["time"])
        evidence = self.entries(out, "runtime_status")["codex PostToolUse"]["evidence"]
        self.assertIn("Codex will skip it until", evidence)

    def test_minimal_toml_reader_matches_tomllib(self):
        from memory_core import status
        self.install("codex")
        self.trust_project()
        self.trust_hooks()
        text = (self.codex_home / "config.toml").read_text()
        text = 'model = "gpt-fake" # comment\n[features]\nhooks = true\n' + text
        mini = status._mini_toml(text)
        try:
            import tomllib  # novermin: skipped below 3.11
        except ImportError:
            self.skipTest("tomllib needs Python 3.11")
        self.assertEqual(mini, tomllib.loads(text))


class DemoTest(CheckCase):
    def test_repo_itself_check_runs(self):
        proc = run_script("check_memory_3layer.py", "--project-dir", _support.REPO, "--json", env=self.env())
        out = json.loads(proc.stdout.decode())
        self.assertEqual(out["artifact_status"]["entries"][0]["level"], "ok")
        self.assertIn(proc.returncode, (0, 1))
