"""export_memory.py and record_memory.py --import: the round trip, the gate on every line, refusals
that write nothing, a foreign export's field mapping (references/transfer.md)."""
import json
import os
import unittest
from pathlib import Path

import _support
from _support import run_json, run_script, snapshot

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


class TransferCase(_support.TempProject):
    def setUp(self):
        super().setUp()
        self.other = Path(self._tmp) / "other"
        self.other.mkdir()
        self.other_store = self.other / ".memory-3layer"

    def export(self, project, *args):
        proc = run_script("export_memory.py", "--project-dir", project, *args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout.decode("utf-8")

    def lines(self, project, *args):
        return [json.loads(line) for line in self.export(project, *args).splitlines()]

    def write(self, name, rows):
        path = Path(self._tmp) / name
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), "utf-8")
        return path

    def import_into(self, project, path, *args):
        return run_json("record_memory.py", "--project-dir", project, "--import", path, *args)

    def ok_record(self, fact, *args):
        code, out = self.record(fact, *args)
        self.assertEqual(code, 0, out)
        self.assertEqual(out["status"], "recorded", out)
        return out["id"]

    def outcomes(self, out):
        return dict((o["line"], o) for o in out["lines"])


class RoundTripTest(TransferCase):
    def test_export_then_import_into_an_empty_store_gives_the_same_facts_and_ids(self):
        self.ok_record("The API timeout is 900ms", "--topic", "api")
        self.ok_record("Deploys go through the staging branch", "--topic", "deploy")
        self.ok_record("Tests run with pytest -q", "--topic", "testing", "--inferred")
        exported = self.export(self.project)
        self.assertEqual(len(exported.splitlines()), 3)
        path = self.write("memory.jsonl", exported.splitlines())
        code, out = self.import_into(self.other, path)
        self.assertEqual(code, 0, out)
        self.assertEqual(out["counts"], {"recorded": 3, "duplicate": 0, "refused": 0})
        self.assertEqual(self.export(self.other), exported)  # every stored field, the ids included
        ids = set(json.loads(line)["id"] for line in exported.splitlines())
        daily = "".join(p.read_text("utf-8") for p in (self.other_store / "memory").glob("*.md"))
        for item_id in ids:
            self.assertIn(item_id, daily)
        code, again = self.import_into(self.other, path)  # a second import finds every line known
        self.assertEqual((code, again["counts"]["duplicate"]), (0, 3), again)

    def test_all_round_trip_keeps_superseded_facts_and_their_links(self):
        first = self.ok_record("The API timeout is 500ms", "--topic", "api")
        second = self.ok_record("The API timeout is 700ms", "--topic", "api", "--supersedes", first)
        third = self.ok_record("The API timeout is 900ms", "--topic", "api", "--supersedes", second)
        self.ok_record("Deploys go through the staging branch", "--topic", "deploy")
        self.assertEqual(len(self.lines(self.project)), 2)  # active only by default
        rows = self.lines(self.project, "--all")
        self.assertEqual(len(rows), 4)
        rows.reverse()  # newest first in the file: the import still puts each old fact first
        path = self.write("all.jsonl", [json.dumps(r) for r in rows])
        code, out = self.import_into(self.other, path)
        self.assertEqual(code, 0, out)
        self.assertEqual(self.lines(self.other, "--all"), self.lines(self.project, "--all"))
        by_id = dict((r["id"], r) for r in self.lines(self.other, "--all"))
        self.assertEqual((by_id[first]["status"], by_id[first]["superseded_by"]), ("superseded", second))
        self.assertEqual((by_id[second]["status"], by_id[second]["superseded_by"]), ("superseded", third))
        self.assertEqual(by_id[third]["supersedes"], [second])
        code, load = run_json("load_memory.py", "--project-dir", self.other)
        self.assertIn("900ms", json.dumps(load))
        self.assertNotIn("500ms", json.dumps(load.get("context", load)))
        code, again = self.import_into(self.other, path)
        self.assertEqual((code, again["counts"]["duplicate"]), (0, 4), again)

    def test_history_whose_replacement_the_store_already_holds_is_superseded_by_that_fact(self):
        first = self.ok_record("The API timeout is 500ms", "--topic", "api")
        self.ok_record("The API timeout is 900ms", "--topic", "api", "--supersedes", first)
        path = self.write("all.jsonl", [json.dumps(r) for r in self.lines(self.project, "--all")])
        code, out = run_json("record_memory.py", "--project-dir", self.other, "--fact", "The API timeout is 900 ms",
                             "--topic", "api")
        held = out["id"]
        code, out = self.import_into(self.other, path)
        self.assertEqual(code, 0, out)
        lines = self.outcomes(out)
        self.assertEqual((lines[1]["outcome"], lines[2]["outcome"], lines[2]["duplicate_of"]),
                         ("recorded", "duplicate", held), out)
        by_id = dict((r["id"], r) for r in self.lines(self.other, "--all"))
        self.assertEqual((by_id[first]["status"], by_id[first]["superseded_by"]), ("superseded", held))
        self.assertEqual(by_id[held]["supersedes"], [first])
        code, load = run_json("load_memory.py", "--project-dir", self.other)
        self.assertNotIn("500ms", json.dumps(load))  # nor in the trail: a later line names it superseded

    def test_a_superseded_line_whose_replacement_is_missing_is_refused(self):
        row = {"fact": "The API timeout is 500ms", "id": "api-c09e62c627cb", "topic": "api",
               "status": "superseded", "superseded_by": "api-000000000000"}
        code, out = self.import_into(self.other, self.write("old.jsonl", [row]))
        self.assertEqual(code, 1, out)
        self.assertEqual(out["lines"][0]["kind"], "link")
        self.assertFalse(self.other_store.exists())

    def test_a_free_id_is_kept_and_a_taken_one_replaced(self):
        taken = self.ok_record("Builds use make", "--topic", "build")
        rows = [{"fact": "Releases are tagged vX.Y.Z", "id": "build-0123456789ab", "topic": "build", "status": "active"},
                {"fact": "Lint runs with ruff", "id": taken, "topic": "build", "status": "active"}]
        code, out = self.import_into(self.project, self.write("ids.jsonl", rows))
        self.assertEqual(code, 0, out)
        lines = self.outcomes(out)
        self.assertEqual(lines[1]["id"], "build-0123456789ab")
        self.assertNotEqual(lines[2]["id"], taken)
        self.assertTrue(any("taken" in n for n in lines[2]["notes"]), lines[2])


class DecisionsTest(TransferCase):
    def test_keep_both_and_force_surface_travel_with_the_fact_and_are_honoured(self):
        self.ok_record("The API timeout is 500ms", "--topic", "api")
        code, out = self.record("The API timeout is 900ms", "--topic", "api")
        self.assertEqual(code, 1, out)  # a conflict without a decision
        kept = self.ok_record("The API timeout is 900ms", "--topic", "api", "--keep-both")
        forced = self.ok_record("TODO: add retries to the uploader", "--force-surface")
        rows = dict((r["id"], r) for r in self.lines(self.project))
        self.assertEqual(rows[kept]["decisions"], ["keep-both"])
        self.assertEqual(rows[forced]["decisions"], ["force-surface"])
        path = self.write("decided.jsonl", [json.dumps(r) for r in self.lines(self.project)])
        code, out = self.import_into(self.other, path)
        self.assertEqual((code, out["counts"]["recorded"]), (0, 3), out)
        self.assertEqual(self.lines(self.other), self.lines(self.project))
        # Without the decisions on the lines the same file is refused: they are what let it in.
        bare = [dict((k, v) for k, v in r.items() if k != "decisions") for r in self.lines(self.project)]
        third = Path(self._tmp) / "third"
        third.mkdir()
        code, out = self.import_into(third, self.write("bare.jsonl", bare))
        self.assertEqual(code, 1, out)
        kinds = sorted(o.get("kind") for o in out["lines"] if o["outcome"] == "refused")
        self.assertEqual(kinds, ["conflict", "surface"], out)
        self.assertIn('"decisions": ["keep-both"]', json.dumps(out["lines"]).replace('\\"', '"'))
        self.assertEqual(os.listdir(str(third)), [])


class RefusalTest(TransferCase):
    def test_a_secret_line_refuses_the_import_and_nothing_is_written(self):
        self.ok_record("Builds use make", "--topic", "build")
        before = snapshot(self.store)
        rows = [{"fact": "Lint runs with ruff", "topic": "build"},
                {"fact": "The deploy token is %s" % TOKEN, "topic": "deploy"},
                {"fact": "Releases are tagged vX.Y.Z", "topic": "build"}]
        code, out = self.import_into(self.project, self.write("secret.jsonl", rows))
        self.assertEqual(code, 1, out)
        lines = self.outcomes(out)
        self.assertEqual((lines[2]["outcome"], lines[2]["kind"]), ("refused", "secret"))
        self.assertIn("line 2", lines[2]["reason"])
        self.assertNotIn(TOKEN, json.dumps(out))
        self.assertEqual(out["written"], [])
        self.assertEqual(snapshot(self.store), before)  # no scratch left in state/ either

    def test_a_secret_in_another_field_is_refused_too(self):
        row = {"fact": "The API timeout is 900ms", "id": "api-81695b328165", "topic": "api", "status": "active",
               "notes_by_hand": "token %s" % TOKEN}
        code, out = self.import_into(self.other, self.write("field.jsonl", [row]))
        self.assertEqual((code, out["lines"][0]["kind"]), (1, "secret"), out)
        self.assertIn("notes_by_hand", out["lines"][0]["reason"])

    def test_skip_refused_writes_the_rest_and_reports_the_refused(self):
        rows = [{"fact": "Lint runs with ruff", "topic": "build"},
                {"fact": "The deploy token is %s" % TOKEN, "topic": "deploy"},
                "{not json",
                {"fact": "Releases are tagged vX.Y.Z", "topic": "build"}]
        code, out = self.import_into(self.project, self.write("mixed.jsonl", rows), "--skip-refused")
        self.assertEqual(code, 0, out)
        self.assertEqual(out["counts"], {"recorded": 2, "duplicate": 0, "refused": 2})
        lines = self.outcomes(out)
        self.assertEqual([lines[n]["outcome"] for n in (1, 2, 3, 4)], ["recorded", "refused", "refused", "recorded"])
        self.assertEqual(lines[3]["kind"], "malformed")
        facts = [r["fact"] for r in self.lines(self.project)]
        self.assertEqual(sorted(facts), ["Lint runs with ruff", "Releases are tagged vX.Y.Z"])
        self.assertTrue(any(s.startswith("line 2 (secret)") for s in out["skipped"]), out["skipped"])

    def test_skip_refused_leaves_out_history_whose_replacement_was_refused(self):
        old = {"fact": "The API timeout is 500ms", "id": "api-c09e62c627cb", "topic": "api",
               "status": "superseded", "superseded_by": "api-81695b328165"}
        new = {"fact": "The API timeout is 900ms and the key is %s" % TOKEN, "id": "api-81695b328165",
               "topic": "api", "status": "active", "supersedes": ["api-c09e62c627cb"]}
        keep = {"fact": "Deploys go through the staging branch", "topic": "deploy"}
        code, out = self.import_into(self.other, self.write("chain.jsonl", [old, new, keep]), "--skip-refused")
        self.assertEqual(code, 0, out)
        lines = self.outcomes(out)
        self.assertEqual((lines[1]["outcome"], lines[1]["kind"]), ("refused", "link"), lines[1])
        self.assertEqual(lines[3]["outcome"], "recorded")
        self.assertEqual([r["fact"] for r in self.lines(self.other, "--all")], [keep["fact"]])

    def test_malformed_lines_are_named_by_number(self):
        rows = ["not json at all", "", "[1, 2]", {"text": "   "}, {"topic": "api"},
                {"fact": "ok line", "decisions": ["trust-me"]}]
        code, out = self.import_into(self.other, self.write("bad.jsonl", rows))
        self.assertEqual(code, 1, out)
        lines = self.outcomes(out)
        self.assertEqual(sorted(lines), [1, 3, 4, 5, 6])  # the blank line 2 is no line
        self.assertEqual([lines[n]["kind"] for n in (1, 3, 4, 5, 6)],
                         ["malformed", "malformed", "no-text", "no-text", "malformed"])
        for n in (1, 3, 4, 5, 6):
            self.assertIn("line %d" % n, lines[n]["reason"])
        self.assertFalse(self.other_store.exists())

    def test_two_contradicting_lines_in_one_import_are_caught(self):
        rows = [{"fact": "The API timeout is 500ms", "topic": "api"},
                {"fact": "The API timeout is 900ms", "topic": "api"}]
        code, out = self.import_into(self.other, self.write("contra.jsonl", rows))
        self.assertEqual(code, 1, out)
        lines = self.outcomes(out)
        self.assertEqual(lines[1]["outcome"], "recorded")
        self.assertEqual((lines[2]["outcome"], lines[2]["kind"]), ("refused", "conflict"))
        self.assertIn(lines[1]["id"], lines[2]["reason"])
        self.assertFalse(self.other_store.exists())

    def test_duplicates_of_the_store_and_of_earlier_lines_are_reported(self):
        known = self.ok_record("Builds use make", "--topic", "build")
        rows = [{"fact": "builds use make.", "topic": "build"},
                {"fact": "Lint runs with ruff", "topic": "build"},
                {"fact": "Lint runs with ruff", "topic": "build"}]
        code, out = self.import_into(self.project, self.write("dups.jsonl", rows))
        self.assertEqual(code, 0, out)
        lines = self.outcomes(out)
        self.assertEqual((lines[1]["outcome"], lines[1]["duplicate_of"]), ("duplicate", known))
        self.assertEqual((lines[3]["outcome"], lines[3]["duplicate_of"]), ("duplicate", lines[2]["id"]))
        self.assertEqual(out["counts"], {"recorded": 1, "duplicate": 2, "refused": 0})

    def test_dry_run_writes_nothing_even_the_store_folder(self):
        rows = [{"fact": "Lint runs with ruff", "topic": "build"}]
        code, out = self.import_into(self.other, self.write("dry.jsonl", rows), "--dry-run")
        self.assertEqual((code, out["counts"]["recorded"]), (0, 1), out)
        self.assertTrue(out["status"].startswith("dry-run"))
        self.assertEqual(os.listdir(str(self.other)), [])

    def test_flags_that_lines_carry_are_refused_with_import(self):
        path = self.write("x.jsonl", [{"fact": "Lint runs with ruff"}])
        proc = run_script("record_memory.py", "--project-dir", self.other, "--import", path, "--keep-both")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--keep-both cannot go with --import", proc.stderr.decode())
        proc = run_script("record_memory.py", "--project-dir", self.other)
        self.assertEqual(proc.returncode, 2)

    def test_the_store_changed_while_importing_writes_nothing(self):
        from memory_core import importing
        from memory_core.paths import resolve_store
        self.ok_record("Builds use make", "--topic", "build")
        _root, store, _how = resolve_store(str(self.project))
        scratch = importing.Scratch(store)
        try:
            items = self.store / "areas/topics/build/items.json"
            items.write_text(items.read_text("utf-8").replace("make", "cmake"), "utf-8")
            with self.assertRaises(importing.StoreError) as caught:
                scratch.check_unchanged([])
            self.assertIn("changed while importing", caught.exception.message)
        finally:
            scratch.remove()
        self.assertEqual([n for n in os.listdir(str(self.store / "state")) if n.startswith("import-")], [])


class ForeignExportTest(TransferCase):
    def test_another_tools_fields_are_mapped(self):
        rows = [{"id": "9f1c-uuid", "memory": "We deploy with Helm charts", "categories": ["Deploy Notes"],
                 "created_at": "2025-03-01T10:00:00+02:00", "user_id": "someone"},
                {"content": "API errors use RFC 7807", "category": "convention", "tags": ["api", "errors"]},
                {"text": "Builds use make", "topic": "Build Tools", "source": "notes-app"},
                {"note": "Lint runs with ruff", "type": "preference"}]
        code, out = self.import_into(self.other, self.write("mem0.jsonl", rows), "--topic", "imported")
        self.assertEqual(code, 0, out)
        by_fact = dict((r["fact"], r) for r in self.lines(self.other))
        helm = by_fact["We deploy with Helm charts"]
        self.assertEqual((helm["topic"], helm["created_at"]), ("deploy-notes", "2025-03-01T08:00:00Z"))
        self.assertEqual(helm["source"], "import:mem0.jsonl")
        self.assertNotIn("user_id", helm)  # a foreign line keeps only the mapped fields
        self.assertTrue(helm["id"].startswith("deploy-notes-"))
        rfc = by_fact["API errors use RFC 7807"]
        self.assertEqual((rfc["topic"], rfc["category"], rfc["tags"]), ("api", "convention", ["api", "errors"]))
        ruff = by_fact["Lint runs with ruff"]  # no topic field: --topic
        self.assertEqual((ruff["topic"], ruff["category"]), ("imported", "preference"))
        self.assertEqual((by_fact["Builds use make"]["topic"], by_fact["Builds use make"]["source"]),
                         ("build-tools", "notes-app"))


class ExportTest(TransferCase):
    def test_output_file_markdown_and_no_overwrite(self):
        first = self.ok_record("The API timeout is 500ms", "--topic", "api")
        self.ok_record("The API timeout is 900ms", "--topic", "api", "--supersedes", first)
        target = Path(self._tmp) / "out" / "memory.md"
        code, out = run_json("export_memory.py", "--project-dir", self.project, "--format", "markdown",
                             "--all", "--output", target)
        self.assertEqual(code, 0, out)
        text = target.read_text("utf-8")
        self.assertIn("## api", text)
        self.assertIn("~~The API timeout is 500ms~~", text)
        self.assertIn("superseded by", text)
        code, out = run_json("export_memory.py", "--project-dir", self.project, "--output", target)
        self.assertEqual(code, 1, out)
        self.assertIn("--force", out["fix"])
        self.assertIn("~~", target.read_text("utf-8"))
        code, out = run_json("export_memory.py", "--project-dir", self.project, "--output", target, "--force")
        self.assertEqual(code, 0, out)
        self.assertEqual(json.loads(target.read_text("utf-8").splitlines()[0])["topic"], "api")
        inside = self.store / "export.jsonl"
        code, out = run_json("export_memory.py", "--project-dir", self.project, "--output", inside)
        self.assertEqual(code, 2, out)
        self.assertFalse(inside.exists())

    def test_a_stored_secret_is_refused_by_name_or_masked_with_redact(self):
        item_id = self.ok_record("The deploy key lives in CI secrets", "--topic", "deploy")
        items = self.store / "areas/topics/deploy/items.json"  # a hand edit puts a token in
        items.write_text(items.read_text("utf-8").replace("lives in CI secrets", "is " + TOKEN), "utf-8")
        proc = run_script("export_memory.py", "--project-dir", self.project)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout, b"")
        self.assertIn(item_id, proc.stderr.decode())
        self.assertNotIn(TOKEN, proc.stderr.decode())
        (row,) = self.lines(self.project, "--redact")
        self.assertNotIn(TOKEN, json.dumps(row))
        self.assertIn("[redacted:", row["fact"])
        self.assertEqual(row["id"], item_id)

    def test_json_without_output_holds_the_facts(self):
        self.ok_record("Builds use make", "--topic", "build")
        code, out = run_json("export_memory.py", "--project-dir", self.project)
        self.assertEqual(code, 0, out)
        self.assertEqual(out["facts"], 1)
        self.assertEqual(out["export"][0]["fact"], "Builds use make")


if __name__ == "__main__":
    unittest.main()
