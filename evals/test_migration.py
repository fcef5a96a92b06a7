"""migrate_legacy_memory.py: copy + verify a legacy .claude/memory/, never overwrite, never delete."""
import json
import os
import shutil
import unittest
from unittest import mock

import _support
from _support import REPO, run_json, run_script, snapshot

from memory_core import migration
from memory_core.paths import StoreError

FIXTURE = REPO / "evals" / "fixtures" / "legacy"
SCRIPT = "migrate_legacy_memory.py"
WF = ".claude/memory/areas/topics/workflow/items.json"
DEPLOY = ".claude/memory/areas/topics/deploy/items.json"


def fake_token():
    return "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"  # 36 characters after the prefix, built at run time


class MigrationCase(_support.TempProject):
    def setUp(self):
        super().setUp()
        self.legacy = self.project / ".claude" / "memory"
        shutil.copytree(str(FIXTURE), str(self.legacy))

    def migrate(self, *args):
        return run_json(SCRIPT, "--project-dir", self.project, *args)

    def by_path(self, data):
        return dict((f["path"], f) for f in data["files"])

    def outside(self):
        """Everything in the temp dir except the store: must never change."""
        snap = snapshot(self._tmp)
        store = str(self.store) + os.sep
        return dict((k, v) for k, v in snap.items() if not k.startswith(store))

    def add_secret_topic(self):
        folder = self.legacy / "areas" / "topics" / "tokens"
        folder.mkdir(parents=True)
        items = [{"id": "fact-20250106000000", "fact": "The CI bot pushes with token " + fake_token()},
                 {"id": "fact-20250107000000", "fact": "Tokens rotate every ninety days"}]
        (folder / "items.json").write_text(json.dumps(items, indent=1), encoding="utf-8")


class TestCleanMigration(MigrationCase):
    def test_copy_convert_verify_and_rerun_is_noop(self):
        before_outside = self.outside()
        code, data = self.migrate()
        self.assertEqual(code, 0, data)
        self.assertTrue(data["ok"])
        self.assertEqual(data["status"], "migrated")
        files = self.by_path(data)
        self.assertEqual(dict((p, f["status"]) for p, f in files.items()), {
            ".claude/memory/MEMORY.md": "copied",
            ".claude/memory/README.md": "skipped",
            DEPLOY: "copied",
            WF: "copied",
            ".claude/memory/memory/2025-01-01.md": "copied",
        })
        self.assertEqual(files[".claude/memory/README.md"]["reason"], "not part of the legacy layout; left in place")
        self.assertEqual(data["counts"], {"copied": 4, "skipped": 1, "conflict": 0, "invalid": 0, "secret": 0})
        wf = files[WF]["items"]
        self.assertEqual((wf["legacy"], wf["imported"]), (9, 4))
        self.assertEqual([(s["index"], s.get("legacy_id"), s["reason"]) for s in wf["skipped"]], [
            (2, None, "a UUID only"),
            (3, None, "shorter than 4 characters"),
            (4, None, "empty"),
            (5, "fact-20250103000000", "shorter than 4 characters"),
            (7, "fact-20250104000000", "duplicate of workflow-68cc9982f3c2"),
        ])
        # text layers are byte-identical copies
        for rel in ("MEMORY.md", "memory/2025-01-01.md"):
            self.assertEqual((self.store / rel).read_bytes(), (FIXTURE / rel).read_bytes())
        # topic files are converted to the current schema
        doc = json.loads((self.store / "areas/topics/workflow/items.json").read_text("utf-8"))
        self.assertEqual(doc["schema"], "memory-3layer/items@1")
        first, second, third, fourth = doc["items"]
        self.assertEqual(first["id"], "workflow-68cc9982f3c2")
        self.assertEqual(first["legacy_id"], "fact-20250101120000")
        self.assertEqual(first["created_at"], "2025-01-01T10:00:00Z")  # +02:00 -> UTC
        self.assertEqual(first["confidence"], 0.9)  # unknown field kept
        self.assertEqual(first["source"], "migrated:" + WF)
        self.assertEqual(second["fact"], "Run the linter before every commit")
        self.assertEqual(second["created_at"], "2025-01-02T09:30:00Z")  # from the legacy id
        self.assertEqual(third["fact"], "Captured note: CI runs on GitHub Actions")  # bare string item
        self.assertIsNone(third["created_at"])
        self.assertEqual((fourth["status"], fourth["legacy_status"]), ("superseded", "archived"))
        for item in doc["items"]:
            for key in ("id", "fact", "status", "category", "source", "inferred", "created_at", "updated_at",
                        "superseded_by", "supersedes", "tags"):
                self.assertIn(key, item)
        deploy = json.loads((self.store / "areas/topics/deploy/items.json").read_text("utf-8"))
        self.assertEqual(deploy["owner"], "platform-team")
        old, new = deploy["items"]
        self.assertEqual(old["created_at"], "2025-02-01T08:00:00Z")
        self.assertEqual(new["created_at"], "2025-02-02T08:00:00Z")
        self.assertEqual(new["updated_at"], "2025-02-03T00:00:00Z")
        self.assertEqual(old["superseded_by"], new["id"])  # legacy links follow the new ids
        self.assertEqual(new["supersedes"], [old["id"]])
        # one provenance event per written topic
        events = [json.loads(l) for l in (self.store / "state/changelog.jsonl").read_text("utf-8").splitlines()]
        self.assertEqual(sorted((e["op"], e["topic"], len(e["ids"])) for e in events),
                         [("migrate", "deploy", 2), ("migrate", "workflow", 4)])
        self.assertEqual(self.outside(), before_outside)  # legacy and everything else untouched
        # the store loads
        code, loaded = self.load()
        self.assertEqual(code, 0)
        # re-running is a no-op
        store_before = snapshot(self.store)
        code, again = self.migrate()
        self.assertEqual(code, 0, again)
        self.assertEqual(again["status"], "nothing to do")
        self.assertEqual(set(f["status"] for f in again["files"]), {"skipped"})
        self.assertEqual(set(f["reason"] for f in again["files"] if f["kind"] != "other"), {"identical already"})
        self.assertEqual(again["written"], [])
        self.assertEqual(snapshot(self.store), store_before)
        self.assertEqual(self.outside(), before_outside)

    def test_later_records_do_not_turn_a_rerun_into_a_conflict(self):
        self.assertEqual(self.migrate()[0], 0)
        code, rec = self.record("Feature flags live in config/flags.yaml", "--topic", "workflow")
        self.assertEqual(code, 0, rec)
        code, again = self.migrate()
        self.assertEqual(code, 0, again)
        self.assertEqual(self.by_path(again)[WF]["reason"], "already holds every item (by id)")

    def test_existing_store_conflict_then_hand_merge(self):
        code, rec = self.record("Feature flags live in config/flags.yaml", "--topic", "flags")
        self.assertEqual(code, 0, rec)
        before = snapshot(self._tmp)
        code, data = self.migrate()
        self.assertEqual(code, 1, data)
        entry = self.by_path(data)[".claude/memory/MEMORY.md"]
        self.assertEqual((entry["status"], entry["reason"]), ("conflict", "target exists and differs"))
        self.assertEqual(snapshot(self._tmp), before)  # the conflict stopped every write
        # the person merges the legacy lines into the store's MEMORY.md by hand, then re-runs
        target = self.store / "MEMORY.md"
        legacy_lines = (FIXTURE / "MEMORY.md").read_text("utf-8").splitlines()
        target.write_text(target.read_text("utf-8") + "\n".join(legacy_lines[2:]) + "\n", encoding="utf-8")
        with open(str(target), "a", encoding="utf-8") as fh:
            fh.write("# Project memory (legacy)\n")
        code, data = self.migrate()
        self.assertEqual(code, 0, data)
        entry = self.by_path(data)[".claude/memory/MEMORY.md"]
        self.assertEqual((entry["status"], entry["reason"]),
                         ("skipped", "already merged (every line of it is in the target)"))
        self.assertEqual(data["counts"]["copied"], 3)

    def test_target_folder_link_is_invalid(self):
        elsewhere = os.path.join(self._tmp, "elsewhere")
        os.makedirs(elsewhere)
        (self.store / "areas" / "topics").mkdir(parents=True)
        os.symlink(elsewhere, str(self.store / "areas" / "topics" / "deploy"))
        code, data = self.migrate()
        self.assertEqual(code, 1)
        entry = self.by_path(data)[DEPLOY]
        self.assertEqual((entry["status"], entry["reason"]),
                         ("invalid", "target .memory-3layer/areas/topics/deploy/items.json goes through a symbolic link"))
        self.assertEqual(os.listdir(elsewhere), [])

    def test_dry_run_writes_nothing(self):
        before = snapshot(self._tmp)
        code, data = self.migrate("--dry-run")
        self.assertEqual(code, 0, data)
        self.assertTrue(data["status"].startswith("dry-run: would copy 4 files"))
        self.assertEqual(len(data["would_write"]), 4)
        self.assertFalse(self.store.exists())
        self.assertEqual(snapshot(self._tmp), before)

    def test_no_legacy_folder_is_nothing_to_do(self):
        shutil.rmtree(str(self.legacy))
        code, data = self.migrate()
        self.assertEqual((code, data["status"]), (0, "nothing to do"))
        self.assertFalse(self.store.exists())

    def test_human_summary_and_usage(self):
        proc = run_script(SCRIPT, "--project-dir", self.project, "--dry-run")
        out = proc.stdout.decode()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for word in ("read:", "written: nothing", "skipped:", "next:"):
            self.assertIn(word, out)
        proc = run_script(SCRIPT, "--project-dir", self.project, "--source", "../elsewhere")
        self.assertEqual(proc.returncode, 2)
        self.assertNotIn(b"Traceback", proc.stderr)
        self.assertEqual(run_script(SCRIPT, "--bogus").returncode, 2)


class TestMessyLegacy(MigrationCase):
    def make_mess(self):
        self.add_secret_topic()
        (self.legacy / "memory" / "2025-01-02.md").write_bytes(b"# 2025-01-02\n- caf\xe9 latin-1 note\n")
        outside = os.path.join(self._tmp, "outside.md")
        with open(outside, "w") as fh:
            fh.write("not project memory\n")
        os.symlink(outside, str(self.legacy / "memory" / "2025-01-03.md"))
        bad = self.legacy / "areas" / "topics" / "broken"
        bad.mkdir()
        (bad / "items.json").write_text('[{"fact": "unterminated', encoding="utf-8")
        (self.store / "memory").mkdir(parents=True)
        (self.store / "memory" / "2025-01-01.md").write_text("# 2025-01-01\n\n- something else\n", encoding="utf-8")

    def test_exact_report_and_nothing_written(self):
        self.make_mess()
        before = snapshot(self._tmp)
        for args in (("--dry-run",), ()):
            code, data = self.migrate(*args)
            self.assertEqual(code, 1, data)
            self.assertFalse(data["ok"])
            self.assertEqual(data["status"], "stopped: nothing written")
            got = dict((p, (f["status"], f.get("reason"))) for p, f in self.by_path(data).items())
            self.assertEqual(got, {
                ".claude/memory/MEMORY.md": ("copied", None),
                ".claude/memory/README.md": ("skipped", "not part of the legacy layout; left in place"),
                ".claude/memory/areas/topics/broken/items.json":
                    ("invalid", "invalid JSON (Unterminated string starting at: line 1 column 11 (char 10))"),
                DEPLOY: ("copied", None),
                ".claude/memory/areas/topics/tokens/items.json": ("copied", None),
                WF: ("copied", None),
                ".claude/memory/memory/2025-01-01.md": ("conflict", "target exists and differs"),
                ".claude/memory/memory/2025-01-02.md": ("invalid", "not UTF-8 (byte 18)"),
                ".claude/memory/memory/2025-01-03.md":
                    ("invalid", "symbolic link to a path outside the project; links are never followed"),
            })
            tokens = self.by_path(data)[".claude/memory/areas/topics/tokens/items.json"]["items"]
            self.assertEqual(tokens["skipped"], [{"index": 0, "legacy_id": "fact-20250106000000",
                                                  "reason": "secret: github-token at line 4"}])
            self.assertEqual(data["written"], [])
            self.assertEqual(snapshot(self._tmp), before)  # nothing written anywhere, source intact
            self.assertNotIn(fake_token(), json.dumps(data))

    def test_symlinked_folder_is_invalid(self):
        target = os.path.join(self._tmp, "elsewhere")
        os.mkdir(target)
        os.symlink(target, str(self.legacy / "areas" / "topics" / "linked"))
        code, data = self.migrate("--dry-run")
        self.assertEqual(code, 1)
        entry = self.by_path(data)[".claude/memory/areas/topics/linked"]
        self.assertEqual(entry["status"], "invalid")

    def test_secret_in_text_file_stops_unless_redact(self):
        (self.legacy / "memory" / "2025-01-02.md").write_text(
            "# 2025-01-02\n\n- pushed with " + fake_token() + "\n", encoding="utf-8")
        before = snapshot(self._tmp)
        code, data = self.migrate()
        self.assertEqual(code, 1)
        entry = self.by_path(data)[".claude/memory/memory/2025-01-02.md"]
        self.assertEqual((entry["status"], entry["reason"]), ("secret", "holds a secret: github-token at line 3"))
        self.assertEqual(entry["secrets"], [{"kind": "github-token", "line": 3}])
        self.assertEqual(snapshot(self._tmp), before)
        legacy_before = snapshot(self.legacy)
        code, data = self.migrate("--redact")
        self.assertEqual(code, 0, data)
        entry = self.by_path(data)[".claude/memory/memory/2025-01-02.md"]
        self.assertEqual(entry["status"], "copied")
        text = (self.store / "memory" / "2025-01-02.md").read_text("utf-8")
        self.assertIn("[redacted:github-token]", text)
        self.assertNotIn(fake_token(), text)
        self.assertEqual(snapshot(self.legacy), legacy_before)
        # a re-run without --redact recognises the masked copy
        code, again = self.migrate()
        self.assertEqual(code, 0, again)
        self.assertEqual(self.by_path(again)[".claude/memory/memory/2025-01-02.md"]["reason"], "identical already")

    def test_redact_migrates_secret_items_masked(self):
        self.add_secret_topic()
        code, data = self.migrate("--redact")
        self.assertEqual(code, 0, data)
        report = self.by_path(data)[".claude/memory/areas/topics/tokens/items.json"]["items"]
        self.assertEqual(report["imported"], 2)
        self.assertEqual(report["redacted"], [{"index": 0, "legacy_id": "fact-20250106000000",
                                               "secrets": "github-token at line 4"}])
        raw = (self.store / "areas/topics/tokens/items.json").read_text("utf-8")
        self.assertIn("The CI bot pushes with token [redacted:github-token]", raw)
        self.assertNotIn(fake_token(), raw)
        code, again = self.migrate()  # without --redact: the masked copy counts as identical
        self.assertEqual(code, 0, again)
        self.assertEqual(self.by_path(again)[".claude/memory/areas/topics/tokens/items.json"]["reason"],
                         "identical already")

    def test_secret_item_skipped_without_redact(self):
        self.add_secret_topic()
        code, data = self.migrate()
        self.assertEqual(code, 0, data)
        raw = (self.store / "areas/topics/tokens/items.json").read_text("utf-8")
        self.assertNotIn(fake_token(), raw)
        self.assertNotIn("redacted", raw)
        self.assertIn("Tokens rotate every ninety days", raw)


class TestRollback(MigrationCase):
    def test_failed_verification_removes_what_the_run_created(self):
        root, store = str(self.project), str(self.store)
        before = snapshot(self._tmp)

        def broken(entries):
            raise migration.VerifyError("%s holds 0 items, expected 4" % entries[-1]["target"])

        with mock.patch.object(migration, "verify", broken):
            with self.assertRaises(StoreError) as ctx:
                migration.migrate(root, store)
        self.assertEqual(ctx.exception.exit_code, 1)
        self.assertIn("rolled back", ctx.exception.message)
        after = snapshot(self._tmp)
        self.assertEqual(after, before)  # only state/lock (left out of snapshots) may remain
        leftover = [os.path.relpath(os.path.join(r, f), store) for r, _d, fs in os.walk(store) for f in fs]
        self.assertEqual(leftover, [os.path.join("state", "lock")])

    def test_real_verification_catches_a_bad_write(self):
        real = migration.st.atomic_write_bytes

        def truncating(path, data):
            if path.endswith("items.json") and "workflow" in path:
                data = data[:len(data) // 2]
            return real(path, data)

        before = snapshot(self._tmp)
        with mock.patch.object(migration.st, "atomic_write_bytes", truncating):
            with self.assertRaises(StoreError) as ctx:
                migration.migrate(str(self.project), str(self.store))
        self.assertEqual(ctx.exception.exit_code, 1)
        self.assertIn("workflow/items.json does not read back as written", ctx.exception.message)
        self.assertEqual(snapshot(self._tmp), before)

    def test_write_error_midway_rolls_back(self):
        import errno
        real, calls = migration.st.atomic_write_bytes, []

        def failing(path, data):
            calls.append(path)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "No space left on device", path)
            return real(path, data)

        before = snapshot(self._tmp)
        with mock.patch.object(migration.st, "atomic_write_bytes", failing):
            with self.assertRaises(StoreError) as ctx:
                migration.migrate(str(self.project), str(self.store))
        self.assertEqual(ctx.exception.exit_code, 2)
        self.assertIn("rolled back (2 files removed)", ctx.exception.message)
        self.assertEqual(snapshot(self._tmp), before)

    def test_rollback_keeps_files_that_were_there(self):
        (self.store / "areas" / "topics" / "other").mkdir(parents=True)
        mine = self.store / "areas" / "topics" / "other" / "items.json"
        mine.write_text('{"items": []}\n', encoding="utf-8")
        before = snapshot(self._tmp)
        with mock.patch.object(migration, "verify", mock.Mock(side_effect=migration.VerifyError("boom"))):
            with self.assertRaises(StoreError):
                migration.migrate(str(self.project), str(self.store))
        self.assertEqual(snapshot(self._tmp), before)


class TestUnits(unittest.TestCase):
    def test_normalize_time(self):
        n = migration.normalize_time
        self.assertEqual(n("2025-01-01T12:00:00+02:00"), "2025-01-01T10:00:00Z")
        self.assertEqual(n("2025-01-01 12:00:00"), "2025-01-01T12:00:00Z")
        self.assertEqual(n("2025-01-01"), "2025-01-01T00:00:00Z")
        self.assertEqual(n(1735732800), "2025-01-01T12:00:00Z")
        self.assertEqual(n(1735732800000), "2025-01-01T12:00:00Z")
        self.assertIsNone(n("yesterday"))
        self.assertIsNone(n(True))

    def test_parse_time_reads_one_set_of_forms_on_every_python(self):
        """datetime.fromisoformat accepts more on 3.11 than on 3.8 ("Z", a 1-digit fraction, "+0200",
        week dates, basic forms): parse_time fixes the set, so migration reads a date the same way on
        every version; this table holds on both."""
        from memory_core import store as st
        accepted = {"2025-01-01": "2025-01-01T00:00:00Z", "2025-01-01T12:30": "2025-01-01T12:30:00Z",
                    "2025-01-01T12:30:05Z": "2025-01-01T12:30:05Z", "2025-01-01 12:30:05.5+02:00": "2025-01-01T10:30:05Z",
                    "2025-01-01T12:30:05.123456-0130": "2025-01-01T14:00:05Z", " 2025-01-01T00:00:00+00:00 ":
                    "2025-01-01T00:00:00Z"}
        for text, want in accepted.items():
            self.assertEqual(st.iso(st.parse_time(text)), want, text)
        for text in ("20250101T000000", "2025-W01-1", "2025-01-01T12", "2025-01-01T12:30:05.1234567",
                     "2025-01-01T12:30:05 +02:00", "2025-13-01", "yesterday", "2025-01-01T12:30:05Zjunk"):
            with self.assertRaises(ValueError, msg=text):
                st.parse_time(text)

    def test_noise(self):
        r = migration.noise_reason
        self.assertEqual(r(""), "empty")
        self.assertEqual(r("ok"), "shorter than 4 characters")
        self.assertEqual(r("550E8400-E29B-41D4-A716-446655440000"), "a UUID only")
        self.assertEqual(r("whatever"), "a single word, not a fact")
        self.assertIsNone(r("本项目统一使用pnpm"))
        self.assertIsNone(r("Use pnpm"))


if __name__ == "__main__":
    unittest.main()
