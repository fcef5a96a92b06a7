"""load_memory.py --query: the facts that best answer a text (recall.py), and how often the intended
fact comes back on queries written by helpers who never saw the code (evals/fixtures/recall/: a
tune file, one writer, and a blind file, another; references/recall.md)."""
import collections
import json
import os
import shutil
import tempfile
import unittest

import _support
from memory_core import index, recall
from memory_core import store as st
from memory_core.similarity import fact_id

FIXTURES = _support.REPO / "evals" / "fixtures" / "recall"
# intended fact in the top 5 of the blind file, measured with the shipped engine (2026-12-07): EN 0.880, ZH 0.907
BLIND_FLOOR = {"en": 0.87, "zh": 0.90}
LOCOMO_FLOOR = 0.62  # sample 5's evidence recall@10 (the bench, evals/bench/locomo.py, reports 5-9)


def build_store(root, texts, topics=4):
    """A store of texts spread over topics, written as a writer would (items.json and its indexes);
    [fact id] in the order of texts."""
    store = os.path.join(root, ".memory-3layer")
    st.init_store(store)
    by_topic, ids = collections.defaultdict(list), []
    for i, text in enumerate(texts):
        topic = "t%d" % (i % topics)
        ids.append(fact_id(topic, text))
        by_topic[topic].append({"id": ids[-1], "fact": text, "status": "active",
                                "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"})
    for topic, items in by_topic.items():
        st.write_topic(store, topic, {}, items)
        doc, items = st.read_topic(store, topic)
        index.refresh_topic(store, topic, os.path.join(store, "areas", "topics", topic, "items.json"), doc, items,
                            merge=False)
    return store, ids


def top5_rates(path, with_counts=False):
    """{lang: share of queries whose intended fact is in the top 5} (and {lang: queries})."""
    hit, n = collections.Counter(), collections.Counter()
    with open(str(path), encoding="utf-8") as fh:
        projects = [json.loads(line) for line in fh if line.strip()]
    for project in projects:
        root = tempfile.mkdtemp(prefix="m3l-recall-")
        try:
            store, ids = build_store(root, [f["text"] for f in project["facts"]])
            by_name = dict((f["id"], i) for i, f in zip(ids, project["facts"]))
            for query in project["queries"]:
                found = [r["id"] for r in recall.search(store, query["q"], 5)]
                n[project["lang"]] += 1
                hit[project["lang"]] += by_name[query["target"]] in found
        finally:
            shutil.rmtree(root, ignore_errors=True)
    rates = dict((lang, hit[lang] / float(n[lang])) for lang in n)
    return (rates, dict(n)) if with_counts else rates


class QueryTest(_support.TempProject):
    def setUp(self):
        super().setUp()
        for fact in ("We use pnpm for every JavaScript package.", "The request timeout is 500 ms in api/config.py.",
                     "Audit logs are retained for 400 days in S3.", "Postgres 16 runs on RDS for the orders service.",
                     "生产环境部署必须走发布流水线，禁止手动上传。"):
            code, out = self.record(fact, "--topic", "conventions")
            self.assertEqual(code, 0, out)

    def query(self, text, *args):
        code, out = self.load("--query", text, "--json", *args)
        self.assertEqual(code, 0, out)
        return out["results"]

    def test_results_are_the_best_first_with_id_fact_topic_and_score(self):
        results = self.query("how long do we keep audit logs")
        self.assertEqual(results[0]["fact"], "Audit logs are retained for 400 days in S3.")
        self.assertTrue(set(("id", "fact", "topic", "score")) <= set(results[0]))
        scores = [r["score"] for r in results]
        self.assertEqual(scores, sorted(scores, reverse=True))

    def test_aliases_concepts_and_chinese_find_their_fact(self):
        self.assertIn("pnpm", self.query("which package manager")[0]["fact"])  # the concept names the family
        self.assertIn("Postgres", self.query("PG version")[0]["fact"])  # an alias
        self.assertIn("发布流水线", self.query("上线部署走什么流程")[0]["fact"])

    def test_limit_and_nothing_shared(self):
        self.assertEqual(len(self.query("service", "--limit", "1")), 1)
        self.assertEqual(self.query("zebra"), [])

    def test_text_output_is_one_fenced_data_block(self):
        proc = _support.run_script("load_memory.py", "--project-dir", self.project, "--query", "audit logs")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        text = proc.stdout.decode("utf-8")
        self.assertIn("~~~memory-3layer-data\n- [conventions-", text)
        self.assertTrue(text.rstrip().endswith("~~~"))

    def test_superseded_facts_only_with_all_and_with_what_replaced_them(self):
        old = self.query("request timeout")[0]
        code, out = self.record("The request timeout is 800 ms in api/config.py.", "--topic", "conventions",
                                "--supersedes", old["id"])
        self.assertEqual(code, 0, out)
        self.assertNotIn(old["id"], [r["id"] for r in self.query("request timeout")])
        everything = dict((r["id"], r) for r in self.query("request timeout", "--all"))
        self.assertEqual(everything[old["id"]]["status"], "superseded")
        self.assertEqual(everything[old["id"]]["superseded_by"]["fact"], "The request timeout is 800 ms in api/config.py.")

    def test_a_secret_in_a_stored_fact_is_masked(self):
        path = self.store / "areas" / "topics" / "conventions" / "items.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        key = "AKIA" + "QWERTYUIOPASDFGH"
        doc["items"][0]["fact"] = "Audit export uses the key %s for the audit bucket." % key
        path.write_text(json.dumps(doc), encoding="utf-8")  # a hand edit: the indexes are stale now
        code, out = self.load("--query", "audit export key", "--json")
        self.assertEqual(code, 0, out)
        self.assertNotIn(key, json.dumps(out))
        proc = _support.run_script("load_memory.py", "--project-dir", self.project, "--query", "audit export key")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn(key.encode("ascii"), proc.stdout)
        self.assertIn(b"masked 1 secret", proc.stdout)


    def query_in_fresh_process(self, text):
        """(whether the secret detector was imported, the text answer) of one query in a new process."""
        return _support.detector_loaded_for("from memory_core import recall\nfound, text = recall.answer(%r, %r, 5)"
                                            % (str(self.store), text))

    def test_facts_a_writer_scanned_clean_are_shown_without_loading_the_detector(self):
        loaded, answer = self.query_in_fresh_process("how long do we keep audit logs")
        self.assertIn("Audit logs are retained", answer)
        self.assertFalse(loaded)

    def test_a_fact_edited_by_hand_or_flags_of_another_detector_load_the_detector(self):
        key = "AKIA" + "QWERTYUIOPASDFGH"
        path = self.store / "areas" / "topics" / "conventions" / "items.json"
        clean = self.store / "state" / "cache" / "dedup" / "conventions" / "clean"
        self.assertTrue(clean.read_text("ascii").endswith("CCCCC"))
        clean.write_text("another-detector\nCCCCC", "ascii")  # flags set by another detector vouch for nothing
        loaded, answer = self.query_in_fresh_process("how long do we keep audit logs")
        self.assertTrue(loaded)
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["items"][2]["fact"] = "Audit logs are retained for 400 days in S3 with key %s." % key
        path.write_text(json.dumps(doc), encoding="utf-8")  # a hand edit: the index vouches for nothing
        loaded, answer = self.query_in_fresh_process("how long do we keep audit logs")
        self.assertTrue(loaded)
        self.assertNotIn(key, answer)


    def test_linked_index_folders_are_never_read_through(self):
        outside = tempfile.mkdtemp(prefix="m3l-outside-")
        self.addCleanup(shutil.rmtree, outside, True)
        dedup = self.store / "state" / "cache" / "dedup"
        for linked in (dedup / "conventions", dedup):  # a topic's folder, then the whole dedup folder
            fake = os.path.join(outside, linked.name)
            shutil.copytree(str(linked), fake)
            with open(os.path.join(fake, "conventions", "texts") if linked == dedup else os.path.join(fake, "texts"),
                      "w", encoding="utf-8") as fh:
                fh.write("PLANTED\n" * 5)
            shutil.rmtree(str(linked))
            os.symlink(fake, str(linked))
            results = self.query("how long do we keep audit logs")
            self.assertEqual(results[0]["fact"], "Audit logs are retained for 400 days in S3.")
            self.assertNotIn("PLANTED", json.dumps(results))
            os.unlink(str(linked))
            shutil.copytree(fake, str(linked))  # back to a real folder, the planted text inside it
            shutil.rmtree(fake)
            with st.StoreLock(str(self.store)):
                for topic in st.list_topics(str(self.store)):
                    doc, items = st.read_topic(str(self.store), topic)
                    index.refresh_topic(str(self.store), topic, str(self.store / "areas" / "topics" / topic / "items.json"),
                                        doc, items)


class SynonymGroupsTest(unittest.TestCase):
    def test_the_groups_a_query_holds_are_found_by_its_words_as_by_looking_for_every_word(self):
        import random
        from memory_core.key_vocab import RECALL_SOURCE, recall_tables
        tables = recall.recall_vocab()
        with open(RECALL_SOURCE, encoding="utf-8") as fh:
            from_file = recall.RecallVocab(tables=recall_tables(json.load(fh)))
        groups = recall_tables(json.load(open(RECALL_SOURCE, encoding="utf-8")))["groups"]
        rng = random.Random(3)
        words = [w for group in groups for w in group]
        texts = []
        for name in ("tune", "blind", "proof"):
            with open(str(FIXTURES / ("queries.%s.jsonl" % name)), encoding="utf-8") as fh:
                texts.extend(q["q"] for line in fh for q in json.loads(line)["queries"])
        for _ in range(1500):  # group words glued to each other and to punctuation, in both languages
            texts.append(rng.choice(["", "x", "-", "_", "a "]).join(rng.choice(words + [".", " ", "中", "é"])
                                                               for _ in range(rng.randint(1, 6))))
        for text in texts:
            low = text.lower()
            slow = [g for g, group in enumerate(groups) if any(recall._holds(low, w) for w in group)]
            self.assertEqual(recall.held_groups(low, tables), slow, repr(text))  # by the key table
            self.assertEqual(recall.held_groups(low, from_file), slow, repr(text))  # by the file


class RecallIndexTest(unittest.TestCase):
    """The store's recall index (recall_index.py) only saves reads: a search gives the same results
    with it, without it, and with topics changed since it was built."""

    def results(self, store, queries):
        return [[(r["id"], r["score"], r["status"]) for r in recall.search(store, q["q"], 10, include_superseded=True)]
                for q in queries]

    def test_the_same_results_with_the_index_without_it_and_with_a_topic_changed_since(self):
        from memory_core import recall_index
        with open(str(FIXTURES / "queries.tune.jsonl"), encoding="utf-8") as fh:
            projects = [json.loads(line) for line in fh if line.strip()][:2]
        self.assertEqual(len(projects), 2)
        for project in projects:
            root = tempfile.mkdtemp(prefix="m3l-recall-index-")
            self.addCleanup(shutil.rmtree, root, True)
            store, _ids = build_store(root, [f["text"] for f in project["facts"]])
            plain = self.results(store, project["queries"])
            with st.StoreLock(store):
                self.assertEqual(sorted(recall_index.build(store)), ["t0", "t1", "t2", "t3"])
            self.assertEqual(len(recall_index.topic_views(store, dict(
                (t, index.signature(os.path.join(store, "areas", "topics", t, "items.json"))) for t in
                ("t0", "t1", "t2", "t3")))), 4)
            self.assertEqual(self.results(store, project["queries"]), plain)
            doc, items = st.read_topic(store, "t1")  # a change since the index: t1 is read on its own
            items[0]["status"] = "superseded"
            items.append(dict(items[1], id="t1-added", fact=project["queries"][0]["q"] + " (added)"))
            st.write_topic(store, "t1", doc, items)
            doc, items = st.read_topic(store, "t1")
            index.refresh_topic(store, "t1", os.path.join(store, "areas", "topics", "t1", "items.json"), doc, items,
                                merge=False)
            mixed = self.results(store, project["queries"])
            shutil.rmtree(os.path.join(store, recall_index.RECALL_DIR))
            self.assertEqual(mixed, self.results(store, project["queries"]))
            self.assertNotEqual(mixed, plain)


class QueryFiguresTest(unittest.TestCase):
    def test_the_proof_set_has_the_intended_fact_in_the_top_5_for_45_of_50(self):
        """The issue's proof: 50 queries (2 English and 2 Chinese projects) written by a helper after
        the engine was built, scored once (references/recall.md): 49 of 50."""
        rates, counts = top5_rates(FIXTURES / "queries.proof.jsonl", with_counts=True)
        for lang, rate in sorted(rates.items()):
            _support.report_metric("recall proof %s top 5" % lang, "%.3f" % rate)
        hits = sum(round(rates[lang] * counts[lang]) for lang in rates)
        self.assertEqual(sum(counts.values()), 50)
        self.assertGreaterEqual(hits, 45)

    def test_the_intended_fact_is_in_the_top_5(self):
        for name in ("tune", "blind"):
            rates = top5_rates(FIXTURES / ("queries.%s.jsonl" % name))
            for lang, rate in sorted(rates.items()):
                label = "recall %s %s top 5%s" % (name, lang, " (in-sample)" if name == "tune" else "")
                _support.report_metric(label, "%.3f" % rate)
                if name == "blind":
                    self.assertGreaterEqual(rate, BLIND_FLOOR[lang], label)

    def test_locomo_sample_5(self):
        _support.shared_data("locomo10.json")
        import sys
        sys.path.insert(0, str(_support.REPO / "evals" / "bench"))
        import locomo
        figures, questions, _seconds = locomo.evaluate(range(5, 6))
        _support.report_metric("LOCOMO sample 5 evidence R@10", "%.3f (%d questions)" % (figures["R@10"], questions))
        self.assertGreaterEqual(figures["R@10"], LOCOMO_FLOOR)


if __name__ == "__main__":
    unittest.main()
