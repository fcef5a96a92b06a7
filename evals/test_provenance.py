"""state/changelog.jsonl: one event per Layer 1 / Layer 3 change, hashes only, never the text."""
import json

import _support
from memory_core import provenance


class ChangelogTest(_support.TempProject):
    def events(self):
        path = self.store / "state" / "changelog.jsonl"
        return [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []

    def test_record_supersede_promote_are_logged_without_text(self):
        _c, old = self.record("The API timeout is 500ms", "--topic", "api")
        self.record("Workers run on three nodes", "--topic", "api")  # fast path
        _c, new = self.record("The API timeout is 900ms", "--topic", "api", "--supersedes", old["id"])
        self.record("Errors follow RFC 7807", "--promote", "--confirmed", "--category", "convention")
        self.record("The API timeout is 900ms", "--topic", "api")  # a duplicate changes nothing
        ops = [e["op"] for e in self.events()]
        self.assertEqual(ops, ["record", "record", "supersede", "record", "promote"])
        sup = self.events()[2]
        self.assertEqual(sup["ids"], [old["id"], new["id"]])
        self.assertIsNone(sup["before"][new["id"]])
        self.assertNotEqual(sup["before"][old["id"]], sup["after"][old["id"]])
        raw = (self.store / "state" / "changelog.jsonl").read_text()
        for text in ("500ms", "900ms", "RFC 7807", "three nodes"):
            self.assertNotIn(text, raw)
        for e in self.events():
            self.assertEqual(set(e), {"time", "op", "topic", "ids", "source", "before", "after"})
        history = provenance.history(str(self.store), old["id"])
        self.assertEqual([e["op"] for e in history], ["record", "supersede"])

    def test_recording_survives_an_unwritable_changelog(self):
        self.record("The API listens on port 8080.")
        (self.store / "state" / "changelog.jsonl").unlink()
        (self.store / "state" / "changelog.jsonl").mkdir()  # any write to it fails
        code, out = self.record("Ops dashboards live in Grafana.", "--topic", "ops")
        self.assertEqual((code, out["status"]), (0, "recorded"))
        self.assertTrue(any("changelog not written" in n for n in out["notes"]), out["notes"])
        items = json.loads((self.store / "areas/topics/ops/items.json").read_text())["items"]
        self.assertEqual(items[0]["fact"], "Ops dashboards live in Grafana.")
