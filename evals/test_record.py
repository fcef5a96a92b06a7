"""record_memory.py: validation, secrets, dedup, conflicts, layers, and refusals that write nothing."""
import json
import os
import subprocess
import unittest

import _support
from _support import run_json, run_script, snapshot


class RecordBasicsTest(_support.TempProject):
    def test_first_record_creates_store_and_writes_layer1_and_layer2(self):
        code, out = self.record("This project uses pnpm, never npm", "--topic", "workflow")
        self.assertEqual(code, 0, out)
        self.assertEqual(out["status"], "recorded")
        doc = json.loads((self.store / "areas/topics/workflow/items.json").read_text("utf-8"))
        self.assertEqual(doc["schema"], "memory-3layer/items@1")
        self.assertEqual(doc["topic"], "workflow")
        (item,) = doc["items"]
        self.assertEqual(item["id"], out["id"])
        self.assertTrue(item["id"].startswith("workflow-"))
        for key in ("fact", "status", "category", "source", "inferred", "created_at", "updated_at",
                    "superseded_by", "supersedes", "tags"):
            self.assertIn(key, item)
        self.assertEqual((item["status"], item["source"], item["inferred"]), ("active", "user", False))
        self.assertRegex(item["created_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        daily = list((self.store / "memory").glob("*.md"))
        self.assertEqual(len(daily), 1)
        self.assertIn(out["id"], daily[0].read_text("utf-8"))
        self.assertIn("pnpm", daily[0].read_text("utf-8"))
        memory_md = (self.store / "MEMORY.md").read_text("utf-8")
        self.assertNotIn("pnpm", memory_md)  # Layer 3 only with --promote --confirmed
        self.assertIn("secret", memory_md.lower())  # the template's warning
        self.assertEqual((self.store / ".gitignore").read_text(), "state/\n")
        self.assertTrue(out["read"] and out["written"] and out["skipped"])

    def test_canonical_format_sorted_keys_two_space_indent(self):
        self.record("Tests run with pytest -q", "--topic", "testing")
        raw = (self.store / "areas/topics/testing/items.json").read_text("utf-8")
        doc = json.loads(raw)
        self.assertEqual(raw, json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")

    def test_same_fact_same_id_across_stores(self):
        _c, a = self.record("Use UTC in all logs", "--topic", "ops")
        other = self.project.parent / "other"
        other.mkdir()
        _c, b = run_json("record_memory.py", "--project-dir", other, "--fact", "use UTC in all logs.",
                         "--topic", "ops")
        self.assertEqual(a["id"], b["id"])

    def test_human_output_has_action_summary(self):
        proc = run_script("record_memory.py", "--project-dir", self.project, "--fact", "Builds use make")
        text = proc.stdout.decode()
        self.assertEqual(proc.returncode, 0)
        for word in ("recorded", "read:", "written:", "skipped:", "next:"):
            self.assertIn(word, text)

    def test_stdin_fact(self):
        proc = run_script("record_memory.py", "--project-dir", self.project, "--fact", "-", "--json",
                          input="Releases are tagged vX.Y.Z\n".encode())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Releases are tagged", (self.store / "areas/topics/general/items.json").read_text())

    def test_unknown_keys_kept_and_legacy_array_read(self):
        topic_dir = self.store / "areas/topics/legacy"
        topic_dir.mkdir(parents=True)
        (topic_dir / "items.json").write_text(json.dumps(
            [{"id": "fact-1", "fact": "Old fact from a legacy tool", "status": "active", "extra": {"k": 1}}]))
        code, out = self.record("A brand new unrelated fact about caching", "--topic", "legacy")
        self.assertEqual(code, 0, out)
        doc = json.loads((topic_dir / "items.json").read_text())
        self.assertEqual(doc["items"][0]["extra"], {"k": 1})
        self.assertEqual(doc["schema"], "memory-3layer/items@1")
        doc["custom_top"] = "kept"
        (topic_dir / "items.json").write_text(json.dumps(doc))
        self.record("Yet another fact on a different subject entirely", "--topic", "legacy")
        self.assertEqual(json.loads((topic_dir / "items.json").read_text())["custom_top"], "kept")

    def test_dry_run_writes_nothing(self):
        code, out = self.record("Dry runs never write", "--dry-run")
        self.assertEqual(code, 0, out)
        self.assertIn("dry-run", out["status"])
        self.assertFalse(self.store.exists())


class DedupTest(_support.TempProject):
    def test_exact_duplicate_reported_and_nothing_written(self):
        _c, first = self.record("Deploys go through staging", "--topic", "deploy")
        before = snapshot(self.store)
        code, out = self.record("deploys go through staging.", "--topic", "deploy")
        self.assertEqual(code, 0)
        self.assertEqual((out["status"], out["duplicate_of"]), ("duplicate", first["id"]))
        after = snapshot(self.store)
        after.pop(str(self.store / "state" / "lock"), None)
        before.pop(str(self.store / "state" / "lock"), None)
        self.assertEqual(before, after)

    def test_near_duplicate_reported(self):
        _c, first = self.record("This project uses pnpm for installs", "--topic", "workflow")
        code, out = self.record("The project uses pnpm for installs!", "--topic", "workflow")
        self.assertEqual((code, out["status"], out.get("duplicate_of")), (0, "duplicate", first["id"]))

    def test_dedup_is_across_topics(self):
        # The judgement issue: a duplicate (or a conflict) is one whichever topic each side is in.
        _c, first = self.record("Cache entries expire after one hour", "--topic", "cache")
        code, out = self.record("Cache entries expire after one hour", "--topic", "other")
        self.assertEqual((code, out["status"], out["duplicate_of"]), (0, "duplicate", first["id"]))
        self.assertFalse((self.store / "areas/topics/other/items.json").exists()
                         and "expire" in (self.store / "areas/topics/other/items.json").read_text())

    def test_value_conflict_refused_then_keep_both(self):
        _c, first = self.record("The API timeout is 500ms", "--topic", "api")
        code, out = self.record("The API timeout is 900ms", "--topic", "api")
        self.assertEqual(code, 1, out)
        self.assertEqual(out["conflict_with"][0]["id"], first["id"])
        self.assertIn("--supersedes", out["fix"])
        self.assertIn("--keep-both", out["fix"])
        code, out = self.record("The API timeout is 900ms", "--topic", "api", "--keep-both")
        self.assertEqual((code, out["status"]), (0, "recorded"))
        items = json.loads((self.store / "areas/topics/api/items.json").read_text())["items"]
        self.assertEqual([i["status"] for i in items], ["active", "active"])

    def test_tool_name_and_negation_conflicts(self):
        self.record("The frontend uses pnpm", "--topic", "tools")
        code, out = self.record("The frontend uses npm", "--topic", "tools")
        self.assertEqual(code, 1, out)
        self.record("We use tabs for indentation", "--topic", "style")
        code, out = self.record("We never use tabs for indentation", "--topic", "style")
        self.assertEqual(code, 1, out)

    def test_supersede_replaces_old_value(self):
        _c, old = self.record("The API timeout is 500ms", "--topic", "api")
        code, new = self.record("The API timeout is 900ms", "--topic", "api", "--supersedes", old["id"])
        self.assertEqual(code, 0, new)
        items = {i["id"]: i for i in json.loads((self.store / "areas/topics/api/items.json").read_text())["items"]}
        self.assertEqual(items[old["id"]]["status"], "superseded")
        self.assertEqual(items[old["id"]]["superseded_by"], new["id"])
        self.assertEqual(items[new["id"]]["supersedes"], [old["id"]])
        daily = next((self.store / "memory").glob("*.md")).read_text("utf-8")
        self.assertIn("supersedes %s" % old["id"], daily)
        code, out = self.record("The API timeout is 700ms", "--topic", "api", "--supersedes", "api-missing")
        self.assertEqual(code, 1)

    def test_record_needs_no_rapidfuzz(self):
        """Record judges by meaning and by exact wording, never by a wording ratio: without rapidfuzz
        it finds the same duplicate and the same conflict, and reports no degraded mode."""
        blocker = self.project.parent / "no_rapidfuzz"
        blocker.mkdir()
        (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['rapidfuzz'] = None\n")
        env = _support.clean_env(PYTHONPATH=str(blocker))
        _c, first = run_json("record_memory.py", "--project-dir", self.project, "--fact",
                             "Integration tests need Docker 24 running", "--topic", "t", env=env)
        code, out = run_json("record_memory.py", "--project-dir", self.project, "--fact",
                             "Integration tests need docker 24 running!", "--topic", "t", env=env)
        self.assertEqual((code, out["duplicate_of"]), (0, first["id"]))
        code, out = run_json("record_memory.py", "--project-dir", self.project, "--fact",
                             "Integration tests need Docker 25 running", "--topic", "t", env=env)
        self.assertEqual(code, 1, out)
        self.assertFalse(any("degraded" in n for n in first["notes"]), first["notes"])

    def test_alike_wording_with_another_scope_is_recorded(self):
        """A wording 90% alike is no conflict by itself: the tier is another scope."""
        self.record("Free tier is limited to 1,000 API calls per day.", "--topic", "limits")
        code, out = self.record("Pro tier is limited to 100,000 API calls per day.", "--topic", "limits")
        self.assertEqual((code, out["status"]), (0, "recorded"), out)


class SecretsOnRecordTest(_support.TempProject):
    TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

    def test_secret_refused_naming_kind_and_nothing_written(self):
        code, out = self.record("CI uses token %s for pushes" % self.TOKEN)
        self.assertEqual(code, 1, out)
        self.assertIn("github", out["error"])
        self.assertIn("line 1", out["error"])
        self.assertIn("--redact", out["fix"])
        self.assertFalse(self.store.exists())

    def test_redact_stores_masked_text(self):
        code, out = self.record("CI uses token %s for pushes" % self.TOKEN, "--redact")
        self.assertEqual(code, 0, out)
        raw = (self.store / "areas/topics/general/items.json").read_text()
        self.assertNotIn(self.TOKEN, raw)
        self.assertIn("[redacted:", raw)
        for daily in (self.store / "memory").glob("*.md"):
            self.assertNotIn(self.TOKEN, daily.read_text())

    def test_secret_in_source_refused(self):
        code, _out = self.record("A plain fact", "--source", "https://bob:hunter2hunter2@example.com/x")
        self.assertEqual(code, 1)

    def test_chinese_password_refused(self):
        code, out = self.record("数据库密码：Tr0ub4dor&3x9Q")
        self.assertEqual(code, 1, out)


class PromoteTest(_support.TempProject):
    def test_promote_needs_confirmed(self):
        code, out = self.record("Money is stored in integer cents", "--promote")
        self.assertEqual(code, 1)
        self.assertIn("--confirmed", out["fix"])
        self.assertFalse(self.store.exists())

    def test_promote_confirmed_writes_layer3_once(self):
        code, out = self.record("Money is stored in integer cents", "--promote", "--confirmed",
                                "--category", "decision")
        self.assertEqual(code, 0, out)
        md = (self.store / "MEMORY.md").read_text("utf-8")
        self.assertIn("Money is stored in integer cents", md)
        section = md.split("## Decisions", 1)[1].split("##", 1)[0]
        self.assertIn("integer cents", section)
        self.record("Money is stored in integer cents", "--promote", "--confirmed", "--category", "decision")
        self.assertEqual((self.store / "MEMORY.md").read_text("utf-8").count("integer cents"), 1)

    def test_inferred_cannot_be_promoted(self):
        code, _out = self.record("Probably uses Postgres 15", "--inferred", "--promote", "--confirmed")
        self.assertEqual(code, 1)

    def test_inferred_flag_stored(self):
        self.record("The nightly job seems to run at 02:00 UTC", "--inferred", "--topic", "ops")
        item = json.loads((self.store / "areas/topics/ops/items.json").read_text())["items"][0]
        self.assertTrue(item["inferred"])


class BadInputTest(_support.TempProject):
    def assert_refused_untouched(self, code, out, expected_code):
        self.assertEqual(code, expected_code, out)
        self.assertFalse(out["ok"])
        self.assertTrue(out["error"] and out["fix"])
        self.assertFalse(self.store.exists())

    def test_bad_topics(self):
        for topic in ("../x", "a/b", "", "x" * 65, "UPPER"):
            code, out = self.record("A fact", "--topic", topic)
            self.assert_refused_untouched(code, out, 2)

    def test_huge_fact_refused_with_limit(self):
        code, out = self.record("x" * 100000)
        self.assert_refused_untouched(code, out, 1)
        self.assertIn("2000", out["error"])

    def test_empty_and_control_chars(self):
        for fact in ("", "   ", "bell\x07here"):
            code, out = self.record(fact)
            self.assert_refused_untouched(code, out, 2)

    def test_invalid_utf8_argv_and_stdin(self):
        proc = subprocess.run([_support.PYTHON, str(_support.SCRIPTS / "record_memory.py"), "--project-dir",
                               str(self.project), "--fact", b"caf\xe9 \xff"], capture_output=True,
                              env=_support.clean_env())
        self.assertEqual(proc.returncode, 2)
        self.assertIn(b"UTF-8", proc.stderr)
        self.assertNotIn(b"Traceback", proc.stderr)
        proc = run_script("record_memory.py", "--project-dir", self.project, "--fact", "-",
                          input=b"caf\xe9 \xff\n")
        self.assertEqual(proc.returncode, 2)
        self.assertIn(b"UTF-8", proc.stderr)
        self.assertNotIn(b"Traceback", proc.stderr)
        self.assertFalse(self.store.exists())

    def test_read_only_store_reports_and_exits_2(self):
        self.record("Seed fact before the store goes read-only")
        before = snapshot(self.store)
        os.chmod(str(self.project.parent), 0o755)
        for folder, dirs, files in os.walk(str(self.store)):
            os.chmod(folder, 0o555)
        code, out, err = _support.run_unprivileged("record_memory.py", "--project-dir", self.project,
                                                   "--fact", "A second fact on another subject")
        self.assertEqual(code, 2, (out, err))
        self.assertIn("read-only", err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(before, snapshot(self.store))

    def test_corrupt_topic_refused_and_byte_identical(self):
        self.record("The API listens on port 8080.", "--topic", "api")
        path = self.store / "areas/topics/api/items.json"
        path.write_bytes(b'{"items": [ {"fact": "half')
        before = snapshot(self.store)
        code, out = self.record("The API is written in Go.", "--topic", "api")
        self.assertEqual(code, 1, out)
        self.assertIn("items.json", out["error"])
        self.assertIn("invalid JSON", out["error"])
        self.assertEqual(before, snapshot(self.store))
        code, out = self.record("A fact for a healthy topic", "--topic", "other")
        self.assertEqual(code, 0, out)
        self.assertEqual(path.read_bytes(), b'{"items": [ {"fact": "half')

    def test_corrupt_daily_file_refuses_whole_record(self):
        _c, out = self.record("Logs are shipped to Loki.")
        daily = next((self.store / "memory").glob("*.md"))
        daily.write_bytes(b"# day\n\xff\xfe broken\n")
        before = snapshot(self.store)
        code, out = self.record("A different fact about logging")
        self.assertEqual(code, 1, out)
        self.assertIn("UTF-8", out["error"])
        self.assertEqual(before, snapshot(self.store))

    def test_no_traceback_on_missing_project_dir(self):
        proc = run_script("record_memory.py", "--project-dir", self.project / "missing", "--fact", "x")
        self.assertEqual(proc.returncode, 2)
        self.assertNotIn(b"Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()


class ClassificationOnRecordTest(_support.TempProject):
    def test_not_lasting_facts_refused_with_where_they_belong(self):
        cases = {"TODO: add retries to the uploader": "todo", "可能是连接池太小导致超时": "speculation",
                 "The integration tests are running right now": "ephemeral",
                 "To release: 1. bump the version 2. run make dist 3. upload with twine": "procedure"}
        for fact, surface in cases.items():
            code, out = self.record(fact)
            self.assertEqual(code, 1, (fact, out))
            self.assertEqual(out["classification"]["surface"], surface, fact)
            self.assertIn("--force-surface", out["fix"])
        self.assertFalse(self.store.exists())

    def test_force_surface_and_inferred_speculation(self):
        code, out = self.record("TODO: add retries to the uploader", "--force-surface")
        self.assertEqual((code, out["status"]), (0, "recorded"))
        code, out = self.record("The slowdown is probably caused by the cache warmup", "--inferred")
        self.assertEqual((code, out["status"]), (0, "recorded"))

    def test_category_from_the_classifier_unless_given(self):
        _c, out = self.record("We decided to drop Python 3.7 support", "--topic", "compat")
        item = json.loads((self.store / "areas/topics/compat/items.json").read_text())["items"][0]
        self.assertEqual((out["classification"]["surface"], item["category"]), ("decision", "decision"))
        self.record("Prefer small pull requests over big ones", "--topic", "style", "--category", "fact")
        item = json.loads((self.store / "areas/topics/style/items.json").read_text())["items"][0]
        self.assertEqual(item["category"], "fact")
