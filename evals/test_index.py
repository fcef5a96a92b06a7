"""The derived indexes in state/cache/: the fast paths must give exactly what the full paths give,
and a stale index must never serve stale facts."""
import json
import os
import shutil
import unittest

import _support
from memory_core import index, loading, recording, store as st
from memory_core.paths import resolve_store

try:
    from hypothesis import given, settings, strategies as hs
except ImportError:
    given = None

SETTINGS = {"max_chars": 9000, "max_items": 60, "daily_days": 3, "topics": None}


class FastAppendTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        self.root, self.store_dir, _how = resolve_store(str(self.project), env={})

    def rec(self, fact, topic="t", **kw):
        return recording.record_fact(self.root, self.store_dir, fact, topic=topic, keep_both=True, **kw)

    def items_bytes(self, topic="t"):
        with open(os.path.join(self.store_dir, "areas/topics", topic, "items.json"), "rb") as fh:
            return fh.read()

    def test_fast_path_is_used_and_gives_canonical_bytes(self):
        first = self.rec("Ledger rows are immutable once posted")
        self.assertNotIn("via its index", " ".join(first["read"]))
        second = self.rec("Nightly exports land in the cold bucket, 日本語 too")
        self.assertIn("via its index", " ".join(second["read"]))
        raw = self.items_bytes()
        doc, items = st.parse_items(raw.decode("utf-8"), "items.json")
        self.assertEqual(raw, st.dump_items("t", doc, items))
        self.assertEqual([i["fact"] for i in items][1], "Nightly exports land in the cold bucket, 日本語 too")

    def test_near_match_falls_back_to_full_path(self):
        self.rec("The retry limit is 5 attempts")
        out = self.rec("The retry limit is 7 attempts")  # conflict, recorded because keep_both
        self.assertNotIn("via its index", " ".join(out["read"]))
        self.assertEqual(out["kept_both_with"], [recording.fact_id("t", "The retry limit is 5 attempts")])
        out = self.rec("the retry limit is 5 attempts.")
        self.assertEqual(out["status"], "duplicate")

    def test_hand_edit_invalidates_index(self):
        self.rec("Staging resets every Sunday")
        path = os.path.join(self.store_dir, "areas/topics/t/items.json")
        doc = json.loads(self.items_bytes().decode())
        doc["items"][0]["fact"] = "Staging resets every Saturday"
        with open(path, "w") as fh:
            json.dump(doc, fh)  # not canonical, other size: the index no longer matches
        out = self.rec("Feature flags live in flags.yaml")
        self.assertNotIn("via its index", " ".join(out["read"]))
        text, _r = loading.load_context(self.root, self.store_dir, SETTINGS)
        layer1 = text.split("[Layer 1]")[1]
        self.assertIn("Saturday", layer1)
        self.assertNotIn("Sunday", layer1)

    def test_loader_serves_from_index_and_equals_full_parse(self):
        for n in range(30):
            self.rec("Service number %s talks to queue %s over %s" % (n, n * 3, ["grpc", "http", "amqp"][n % 3]))
        text_indexed, rep = loading.load_context(self.root, self.store_dir, SETTINGS)
        shutil.rmtree(os.path.join(self.store_dir, "state", "cache"))
        text_parsed, rep2 = loading.load_context(self.root, self.store_dir, SETTINGS)
        self.assertEqual(text_indexed, text_parsed)
        self.assertEqual(rep["layers"], rep2["layers"])

    def test_top_level_extra_keys_disable_splicing(self):
        self.rec("Cache keys include the locale")
        path = os.path.join(self.store_dir, "areas/topics/t/items.json")
        doc = json.loads(self.items_bytes().decode())
        doc["a_note"] = [{"x": 1}]
        with open(path, "wb") as fh:
            fh.write(st.dump_items("t", doc, doc["items"]))
        self.rec("Images are served from the CDN")  # full path; rebuilds a non-plain index
        out = self.rec("Emails are sent through the outbox table")
        self.assertNotIn("via its index", " ".join(out["read"]))
        raw = self.items_bytes()
        doc2 = json.loads(raw.decode())
        self.assertEqual(doc2["a_note"], [{"x": 1}])
        self.assertEqual(raw, st.dump_items("t", doc2, doc2["items"]))

    def test_torn_dedup_column_is_ignored(self):
        self.rec("Queues are drained before deploys")
        with open(os.path.join(self.store_dir, index.DEDUP_DIR, "t", "norms"), "a") as fh:
            fh.write("half a line without its meta")
        out = self.rec("Docs are built with mkdocs")
        self.assertNotIn("via its index", " ".join(out["read"]))
        out = self.rec("Search uses the trigram index")
        self.assertIn("via its index", " ".join(out["read"]))

    def test_negation_conflict_found_on_fast_path(self):
        self.rec("We use tabs for indentation")
        self.rec("Builds run on the shared runner pool")
        with self.assertRaises(recording.Refusal):
            recording.record_fact(self.root, self.store_dir, "We never use tabs for indentation", topic="t")
        self.rec("Logs never include request bodies")
        with self.assertRaises(recording.Refusal):
            recording.record_fact(self.root, self.store_dir, "Logs include request bodies", topic="t")

    def test_garbage_index_is_ignored(self):
        self.rec("Queues are drained before deploys")
        for folder, _dirs, files in os.walk(os.path.join(self.store_dir, index.CACHE_DIR)):
            for name in files:
                with open(os.path.join(folder, name), "wb") as fh:
                    fh.write(b"\xff not an index")
        out = self.rec("Docs are built with mkdocs")
        self.assertEqual(out["status"], "recorded")
        text, _r = loading.load_context(self.root, self.store_dir, SETTINGS)
        self.assertIn("mkdocs", text)

    if given is not None:
        @settings(max_examples=25, deadline=None)
        @given(facts=hs.lists(hs.text(alphabet=hs.characters(blacklist_categories=("Cs", "Cc")),
                                      min_size=3, max_size=80), min_size=2, max_size=6, unique=True))
        def test_property_fast_and_full_paths_agree(self, facts):
            shutil.rmtree(self.store_dir, ignore_errors=True)
            for fact in facts:
                try:
                    self.rec(fact)
                except recording.StoreError:
                    continue  # refused input (e.g. a secret-looking string): nothing written
            if not os.path.exists(os.path.join(self.store_dir, "areas/topics/t/items.json")):
                return
            raw = self.items_bytes()
            doc, items = st.parse_items(raw.decode("utf-8"), "items.json")
            self.assertEqual(raw, st.dump_items("t", doc, items))
    else:
        def test_property_fast_and_full_paths_agree(self):
            self.skipTest("needs hypothesis (requirements.txt) for this property test")


if __name__ == "__main__":
    unittest.main()


class JudgementRowsTest(_support.TempProject):
    """Candidates' texts come through the offsets column: the same as reading the columns whole."""
    FACTS = ["Ledger rows are immutable once posted", "Nightly exports land in the cold bucket, 日本語 too",
             "Tabs\tand back\\slashes survive", "The retry limit is 5 attempts", "Staging resets every Sunday"]

    def setUp(self):
        super().setUp()
        self.root, self.store_dir, _how = resolve_store(str(self.project), env={})

    def rec(self, fact, topic="t"):
        return recording.record_fact(self.root, self.store_dir, fact, topic=topic, keep_both=True)

    def columns(self, topic="t"):
        base = os.path.join(self.store_dir, "state/cache/dedup", topic)
        with open(os.path.join(base, "ids"), encoding="utf-8") as fh:
            ids = fh.read().split("\n")[:-1]
        with open(os.path.join(base, "texts"), encoding="utf-8") as fh:
            texts = fh.read().split("\n")[:-1]
        return ids, texts

    def test_rows_equal_the_whole_columns_after_rebuilds_and_fast_appends(self):
        self.rec(self.FACTS[0])
        for fact in self.FACTS[1:]:
            self.rec(fact)  # fast appends, each adding an offsets line
        ids, texts = self.columns()
        self.assertEqual(len(ids), len(self.FACTS))
        rows = index.read_judgement_rows(self.store_dir, "t", len(ids), [4, 0, 2, 2])
        self.assertEqual(rows, dict((r, (ids[r], texts[r])) for r in (0, 2, 4)))
        self.assertEqual(index.unescape(rows[2][1]), self.FACTS[2])
        path = os.path.join(self.store_dir, "areas/topics/t/items.json")
        doc, items = st.read_topic(self.store_dir, "t")
        index.refresh_topic(self.store_dir, "t", path, doc, items)  # the full rebuild writes the same
        self.assertEqual(index.read_judgement_rows(self.store_dir, "t", len(ids), range(len(ids))),
                         dict((r, (ids[r], texts[r])) for r in range(len(ids))))

    def test_a_column_that_does_not_match_its_offsets_reads_as_torn(self):
        for fact in self.FACTS:
            self.rec(fact)
        ids, texts = self.columns()
        base = os.path.join(self.store_dir, "state/cache/dedup/t")
        with open(os.path.join(base, "texts"), "w", encoding="utf-8") as fh:
            fh.write("".join("x" + t + "\n" for t in texts))  # every line one byte longer
        self.assertIsNone(index.read_judgement_rows(self.store_dir, "t", len(ids), [3]))
        with open(os.path.join(base, "offsets"), "ab") as fh:
            fh.write(b"0000000001")  # torn mid-line
        self.assertIsNone(index.read_judgement_rows(self.store_dir, "t", len(ids), [0]))

    def test_a_linked_offsets_column_is_not_followed(self):
        for fact in self.FACTS[:2]:
            self.rec(fact)
        base = os.path.join(self.store_dir, "state/cache/dedup/t")
        outside = os.path.join(str(self.project), "..", "offsets-elsewhere")
        shutil.copy(os.path.join(base, "offsets"), outside)
        os.remove(os.path.join(base, "offsets"))
        os.symlink(os.path.abspath(outside), os.path.join(base, "offsets"))
        self.assertIsNone(index.read_judgement_rows(self.store_dir, "t", 2, [0]))

    def test_an_index_of_the_layout_before_offsets_is_rebuilt(self):
        self.rec(self.FACTS[0])
        self.rec(self.FACTS[1])
        base = os.path.join(self.store_dir, "state/cache/dedup/t")
        os.remove(os.path.join(base, "offsets"))
        with open(os.path.join(base, "meta")) as fh:
            fields = fh.read().split()
        with open(os.path.join(base, "meta"), "w") as fh:
            fh.write(" ".join(fields[:6]) + "\n")  # what layout 1 wrote: no layout field
        self.rec("Exports are compressed with zstd")  # finding candidates rebuilds the stale index
        with open(os.path.join(base, "meta")) as fh:
            self.assertEqual(fh.read().split()[6:], [str(index.DEDUP_LAYOUT)])
        ids, texts = self.columns()
        self.assertEqual(index.read_judgement_rows(self.store_dir, "t", len(ids), [0]), {0: (ids[0], texts[0])})


class SortedLinesTest(_support.TempProject):
    def test_a_mapped_file_finds_what_its_bytes_find(self):
        from memory_core import sortedlines
        lines = sorted(("k%03d\t%d" % (i, i * 7)).encode() for i in range(0, 300, 3)) + ["zh|超时\t1".encode("utf-8")]
        path = self.project / "model.tsv"
        path.write_bytes(b'{"labels": []}\n' + b"\n".join(lines) + b"\n")
        head, blob, start = sortedlines.map_file(str(path))
        self.assertEqual(head, b'{"labels": []}')
        self.assertNotIsInstance(blob, bytes)  # mapped
        plain = path.read_bytes()
        for key in ("k000", "k003", "k297", "k001", "k298", "a", "zz", "zh|超时", "k00", ""):
            self.assertEqual(sortedlines.find(blob, key, start), sortedlines.find(plain, key, start), key)
        self.assertEqual(sortedlines.find(blob, "k297", start), b"2079")
        self.assertIsNone(sortedlines.find(blob, "labels", start))  # the header is not a line
        empty = self.project / "empty.tsv"
        empty.write_bytes(b"")
        with self.assertRaises(ValueError):
            sortedlines.map_file(str(empty))


class LinesTest(unittest.TestCase):
    def test_membership_is_by_whole_line(self):
        lines = index.Lines("ab\nabc x\nq\n")
        self.assertEqual(len(lines), 3)
        for present in ("ab", "abc x", "q"):
            self.assertIn(present, lines)
        for absent in ("a", "b", "abc", "x", "c x", "", "ab\nabc x"[:4]):
            self.assertNotIn(absent, lines)
        self.assertEqual([lines[0], lines[2]], ["ab", "q"])
        self.assertEqual(len(index.Lines("")), 0)


class CleanMarksTest(_support.TempProject):
    """Writers mark what they scanned clean so loading can skip the scan; any change to a file,
    the detector or the user's patterns must bring the scan back."""
    TOKEN = "ghp_" + "Xq7Lm2Zr9Tb4Wc8Nv1Kp6Hd3Jf5Gs0Ya2Ue7Ri"

    def setUp(self):
        super().setUp()
        self.root, self.store_dir, _how = resolve_store(str(self.project), env={})
        recording.record_fact(self.root, self.store_dir, "Release notes live in CHANGES.md", topic="docs")

    def load_in_fresh_process(self):
        return _support.detector_loaded_for(
            "from memory_core import loading\ntext, report = loading.load_context(%r, %r, dict(max_chars=9000, "
            "max_items=60, daily_days=3, topics=None))" % (self.root, self.store_dir))

    def test_maintained_store_loads_without_scanning(self):
        scanned, text = self.load_in_fresh_process()
        self.assertFalse(scanned)
        self.assertIn("CHANGES.md", text)

    def test_hand_edits_are_scanned_and_masked(self):
        with open(os.path.join(self.store_dir, "MEMORY.md"), "a") as fh:
            fh.write("- deploy with %s\n" % self.TOKEN)
        scanned, text = self.load_in_fresh_process()
        self.assertTrue(scanned)
        self.assertNotIn(self.TOKEN, text)
        self.assertIn("[redacted:github-token]", text)

    def test_hand_edited_topic_is_scanned(self):
        path = os.path.join(self.store_dir, "areas/topics/docs/items.json")
        doc = json.loads(open(path).read())
        doc["items"][0]["fact"] = "Release token is %s" % self.TOKEN
        with open(path, "w") as fh:
            json.dump(doc, fh)
        _scanned, text = self.load_in_fresh_process()
        self.assertNotIn(self.TOKEN, text)

    def scans_of_next_record(self, fact, **kw):
        """(result, texts find_secrets scanned) of one record in this process."""
        from unittest import mock
        from memory_core import redaction
        scanned, real = [], redaction.find_secrets

        def spy(text, extra=()):
            scanned.append(text)
            return real(text, extra)
        with mock.patch.object(redaction, "find_secrets", spy):
            out = recording.record_fact(self.root, self.store_dir, fact, topic="docs", force_surface=True, **kw)
        return out, scanned

    def plant_token_in_newest_rows(self):
        """A hand edit of the merged newest rows: the first fact becomes one with a token."""
        path = os.path.join(self.store_dir, index.NEWEST_INDEX)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.replace("Release notes live in CHANGES.md", "Release token is " + self.TOKEN))

    def newest_mark(self):
        marks = index.read_clean(self.store_dir, index.scan_fingerprint(()))
        return marks.get(index.NEWEST_INDEX), index.signature(os.path.join(self.store_dir, index.NEWEST_INDEX))

    def test_fast_append_carries_the_newest_rows_mark_unscanned(self):
        out, scanned = self.scans_of_next_record("The changelog is generated by towncrier")
        self.assertIn("via its index", " ".join(out["read"]))
        mark, sig = self.newest_mark()
        self.assertEqual(mark, sig)
        self.assertFalse([t for t in scanned if "CHANGES.md" in t and not t.startswith("#")])  # rows unscanned
        scanned_again, _text = self.load_in_fresh_process()
        self.assertFalse(scanned_again)

    def test_a_hand_edited_newest_row_is_scanned_not_carried(self):
        self.plant_token_in_newest_rows()
        out, _scanned = self.scans_of_next_record("The changelog is generated by towncrier")
        self.assertIn("via its index", " ".join(out["read"]))
        mark, sig = self.newest_mark()
        self.assertNotEqual(mark, sig)
        _scanned, loaded = self.load_in_fresh_process()
        self.assertNotIn(self.TOKEN, loaded)

    def test_no_mark_before_carries_nothing(self):
        self.plant_token_in_newest_rows()
        os.remove(os.path.join(self.store_dir, index.CLEAN_INDEX))  # no marks at all
        index.mark_clean(self.store_dir, (), [index.NEWEST_INDEX], {index.NEWEST_INDEX: None})
        mark, sig = self.newest_mark()
        self.assertIsNone(mark)  # scanned, found the token, left unmarked

    def test_a_redacted_fact_does_not_carry_the_mark(self):
        out, scanned = self.scans_of_next_record("CI pushes with " + self.TOKEN, redact=True)
        self.assertTrue(out.get("redacted"))
        self.assertTrue([t for t in scanned if "CHANGES.md" in t and not t.startswith("#")])  # the rows were scanned

    def test_new_user_pattern_voids_marks(self):
        recording.record_fact(self.root, self.store_dir, "Ticket TKT-ABCDEFGHJKLMNPQRSTUVWXYZ12 tracks it",
                              topic="docs", force_surface=True)
        with open(os.path.join(self.store_dir, "config.yaml"), "w") as fh:
            fh.write('{"secrets": {"extra_patterns": [{"kind": "ticket", "regex": "TKT-[A-Z0-9]{24}"}]}}')
        from memory_core.config import extra_secret_patterns, read_config
        patterns = extra_secret_patterns(read_config(self.store_dir)[0])
        text, report = loading.load_context(self.root, self.store_dir, SETTINGS, extra_patterns=patterns)
        self.assertNotIn("TKT-ABCDEFGHJKLMNPQRSTUVWXYZ12", text)
        self.assertTrue(report["masked"])
