"""Judgement by meaning (judgement.py, matching.py): pairs of facts, whole project stores, and what
record does with a conflict or a paraphrase in any topic.

Data, all written by helpers who had not seen the code (evals/fixtures/judgement/):
- pairs.{en,zh}.tune.jsonl: the pair model is trained on these (figures in-sample): rounds 1 to 12, 14
  and 15 (rounds 2 to 12 and 15 were each scored as the blind half before they were folded in;
  references/fact-model.md and fact-model-history.md give every scoring); rounds 15 and 16 had a harder
  brief (low-overlap conflicts, near-miss compatible pairs, strongly reworded paraphrases);
- pairs.{en,zh}.blind.jsonl: round 13 (1,914 pairs, scored with five models), round 16 (1,919
  pairs, the harder brief, three) and round 19 (1,905 pairs, the harder brief, briefs/pairs-round19.md;
  written for tune, then held out when the model trained with it did worse in the stores'
  cross-validation: references/fact-model.md), round 22 (1,858 pairs, briefs/pairs-round22.md, half
  plain and half hard; written for tune, held out the same way), and rounds 23 (1,865), 24 (928, Chinese
  only) and 25 (1,835), round 22's brief, each written for tune and held out the same way, and round 26's
  helpers c and d (877 plain pairs, briefs/pairs-round26.md); judged as record judges (pair_figures);
- pairs.{en,zh}.dev.jsonl: round 26's helpers a and b (878 plain pairs): never trained on; a rule was judged
  on them and their misses were read, so their figures are reported, not guarded;
- stores.{en,zh}.{tune,blind}.jsonl: realistic project memories (existing facts, then new facts
  labelled conflict / duplicate / new), judged the way record judges: candidates by key from every
  topic, then the pair model on the strongest. The model trains on the tune stores' candidates
  (rounds 4 to 10, 13 and 17: 49 projects; round 17's brief is briefs/stores-round17.md); the blind
  stores are round 11 (4 projects, scored with many successive models), round 18 (8 projects,
  round 17's brief), and rounds 20 and 21 (16 projects each, round 17's brief; round 20 was written
  for tune and held out when the model trained with it did worse in cross-validation), reported apart
  (references/fact-model.md).

Targets of the judgement issue: conflict recall >= 0.80 (each language >= 0.75), compatible pairs
refused <= 5%, paraphrases caught >= 0.60. The tests print the blind figures and guard the measured
blind level (a regression floor, not the targets); M3L_FIGURES=1 also prints the in-sample and model-only
figures; references/fact-model.md says which are met."""
import collections
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

import _support
from memory_core import facts, index, judgement, matching, mentions
from memory_core import store as st
from memory_core.similarity import fact_id

FIXTURES = _support.REPO / "evals" / "fixtures" / "judgement"
# Measured when the blind sets were scored (see the module docstring): regression floors.
# With the shipped model (tune rounds 1-12, 14, 15; stores of rounds 4-10, 13, 17; trees blended in where the
# linear model rates a pair related; Chinese units read before more Chinese; the clean read; English bars per
# kind of opposition, and for names each side mentions alone), pairs as record judges them, blind rounds 13, 16,
# 19, 22, 23, 25 and 26 (and 24, Chinese only) together: EN 0.570 / 0.036 refused / 0.001 skipped / 0.673
# caught, ZH 0.739 / 0.042 / 0.004 / 0.726. Stores (conflicts refused, new facts refused, new facts skipped):
# round 11 EN 0.382 / 0.100 / 0.000, ZH 0.412 / 0.050 / 0.000; round 18 EN 0.662 / 0.037 / 0.000, ZH 0.559 /
# 0.050 / 0.000; round 20 EN 0.493 / 0.070 / 0.006, ZH 0.772 / 0.013 / 0.006; round 21 EN 0.585 / 0.075 / 0.000,
# ZH 0.809 / 0.019 / 0.013. (The Chinese stores' floors were lowered on 2026-12-07: the model chosen then by
# cross-validation refuses fewer of their conflicts and catches more duplicates. The English stores' limits on
# new facts refused were raised the same day, twice: the bars per kind of opposition refuse more of them, and the
# bar for names each side mentions, chosen by a rule set before the blind runs, refuses fewer of their
# conflicts; references/fact-model.md.)
# (recall min, compatible refused max, caught min)
PAIR_BLIND_FLOOR = {"en": (0.55, 0.04, 0.60), "zh": (0.71, 0.055, 0.70)}
# (index.KEYS_VERSION, digest of fact_vocab.json without "_about", digest of KEYS_SAMPLE's keys) the keys
# were last versioned with
KEYS_VOCABULARY = (8, "e2b2f734da699ec9073f220634c82190e10464ff0a6b1226f21603b110a0b627",
                   "b073f98f8a6145719a2175dc5cc60427b80a28b50225f152cb5fe7e0158703d6")
# texts whose keys stand for fact_keys' code in that digest: identifiers, names with digits, plurals
KEYS_SAMPLE = ("We use pnpm, not yarn.", "`max_party_size: 4` in matchmaking.yaml", "Rating system is Glicko-2.",
               "Ratings are recomputed nightly.", "session_idle_timeout = 30 min in prod",
               "Postgres 16 on RDS; PG15 in staging", "前端用 pnpm 管理依赖，超时 800ms", "undo.max_steps = 256",
               "Reference genome is GRCh37.", "The API uses PostgreSQL 15 via SQLAlchemy 2.0",
               "WORKER_CONCURRENCY=2", "`max_depth: 15` in orders-service")
# The figures nothing is asserted on (in-sample, model only) take a minute: printed with M3L_FIGURES=1.
REPORTS = os.environ.get("M3L_FIGURES") == "1"
REPORTS_ONLY = "a report with no assertion, about a minute: M3L_FIGURES=1 prints it"
# per blind store round: new facts refused and skipped at most, conflicts refused at least
STORE_FLOOR = {
    "11": {"new_refused_max": 0.11, "new_skipped_max": 0.01, "conflict_recall_min": {"en": 0.36, "zh": 0.39}},
    "18": {"new_refused_max": 0.08, "new_skipped_max": 0.02, "conflict_recall_min": {"en": 0.65, "zh": 0.53}},
    "20": {"new_refused_max": 0.075, "new_skipped_max": 0.02, "conflict_recall_min": {"en": 0.48, "zh": 0.75}},
    "21": {"new_refused_max": 0.08, "new_skipped_max": 0.02, "conflict_recall_min": {"en": 0.57, "zh": 0.78}}}


def _trainer_and_three_rows():
    """evals/tools/train_pair_model and three English training rows: a conflict, a paraphrase and a
    compatible pair about one port."""
    sys.path.insert(0, str(_support.REPO / "evals" / "tools"))
    import train_pair_model
    rows = [(train_pair_model.prefixed(judgement.pair_features(facts.parse(a), facts.parse(b)), "en"), label)
            for a, b, label in (
                ("The API port is 8080.", "The API port is 9090.", "conflict"),
                ("The API port is 8080.", "The API listens on port 8080.", "paraphrase"),
                ("The API port is 8080.", "The metrics port is 9090.", "compatible"))]
    return train_pair_model, rows


def pair_figures(path, model_only=False):
    """(conflict recall, compatible refused, compatible skipped, paraphrases caught) of a pairs file,
    judged as record judges b in a store holding a: b is judged against a only when they share
    enough keys (judgement.MIN_SCORE) to make a a candidate; model_only judges every pair."""
    counts, hits = collections.Counter(), collections.Counter()
    for line in path.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        shared = set(judgement.fact_keys(row["a"])) & set(judgement.fact_keys(row["b"]))
        verdict = None
        if model_only or judgement.score(shared) >= judgement.MIN_SCORE:
            verdict, _p = judgement.judge(facts.parse(row["a"]), facts.parse(row["b"]))
        counts[row["label"]] += 1
        hits["recall"] += row["label"] == "conflict" and verdict == "conflict"
        hits["refused"] += row["label"] == "compatible" and verdict == "conflict"
        hits["skipped"] += row["label"] == "compatible" and verdict == "duplicate"
        hits["caught"] += row["label"] == "paraphrase" and verdict is not None
    return (hits["recall"] / float(counts["conflict"]), hits["refused"] / float(counts["compatible"]),
            hits["skipped"] / float(counts["compatible"]), hits["caught"] / float(counts["paraphrase"]))


def make_item(topic, text):
    stamp = "2026-01-01T00:00:00Z"
    return {"id": fact_id(topic, text), "fact": text, "status": "active", "category": "fact", "source": "user",
            "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
            "supersedes": [], "tags": []}


def simulate_store(project, folder, topics=4):
    """The project's facts spread over topics, then each new fact judged against the whole store
    as record judges it. Returns [(label, target id or None, duplicate, conflicts)]."""
    store = Path(folder) / ".memory-3layer"
    by_topic = collections.defaultdict(list)
    ids = []
    for i, text in enumerate(project["facts"]):
        topic = "t%d" % (i % topics)
        item = make_item(topic, text)
        by_topic[topic].append(item)
        ids.append(item["id"])
    for topic, items in by_topic.items():
        path = store / "areas" / "topics" / topic / "items.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(st.dump_items(topic, {}, items))
    out = []
    for new in project["new"]:
        dup, conflicts = matching.matches(str(store), new["text"], write=True)
        target = ids[new["target"]] if new.get("target") is not None else None
        out.append((new["label"], target, dup, conflicts))
    return out


def store_round(project):
    """"11" for se11-1-01 or sz11-2-01, "18" for s18en1-01: the round a project was written in."""
    return "".join(ch for ch in project["new"][0]["id"].split("-")[0] if ch.isdigit())[:2]


def store_figures(lang, half, rounds=None):
    path = FIXTURES / ("stores.%s.%s.jsonl" % (lang, half))
    if not path.is_file():
        raise unittest.SkipTest("%s not present" % path)
    results = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip() and (rounds is None or store_round(json.loads(line)) in rounds):
            folder = tempfile.mkdtemp(prefix="m3l-judge-")
            try:
                results.extend(simulate_store(json.loads(line), folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    n = collections.Counter(label for label, _t, _d, _c in results)
    conflict_caught = sum(1 for label, _t, _d, c in results if label == "conflict" and c)
    conflict_target = sum(1 for label, t, _d, c in results if label == "conflict" and any(x["id"] == t for x in c))
    dup_caught = sum(1 for label, _t, d, c in results if label == "duplicate" and (d or c))
    new_refused = sum(1 for label, _t, _d, c in results if label == "new" and c)
    new_skipped = sum(1 for label, _t, d, c in results if label == "new" and d and not c)
    return {"conflict_recall": conflict_caught / float(n["conflict"]),
            "conflict_on_target": conflict_target / float(n["conflict"]),
            "duplicates_caught": dup_caught / float(n["duplicate"]),
            "new_refused": new_refused / float(n["new"]), "new_skipped": new_skipped / float(n["new"]),
            "n": dict(n)}


class PairFiguresTest(unittest.TestCase):
    def report(self, name, figures):
        line = ("conflict recall %.3f, compatible refused %.3f, compatible skipped %.3f, paraphrases caught %.3f"
                % figures)
        print("pairs %s: %s" % (name, line))
        _support.report_metric("pairs %s" % name, line)

    @unittest.skipUnless(REPORTS, REPORTS_ONLY)
    def test_tune_in_sample(self):
        for lang in ("en", "zh"):
            self.report("%s tune (in-sample)" % lang, pair_figures(FIXTURES / ("pairs.%s.tune.jsonl" % lang)))

    @unittest.skipUnless(REPORTS, REPORTS_ONLY)
    def test_blind_model_only(self):
        for lang in ("en", "zh"):  # every pair judged, found by the keys or not: for the record
            self.report("%s blind, model only" % lang,
                        pair_figures(FIXTURES / ("pairs.%s.blind.jsonl" % lang), model_only=True))

    @unittest.skipUnless(REPORTS, REPORTS_ONLY)
    def test_plain_dev(self):
        for lang in ("en", "zh"):  # round 26's helpers a and b: never trained on, but looked at
            self.report("%s plain dev (round 26 a, b)" % lang, pair_figures(FIXTURES / ("pairs.%s.dev.jsonl" % lang)))

    def blind(self, lang):
        figures = pair_figures(FIXTURES / ("pairs.%s.blind.jsonl" % lang))
        self.report("%s blind" % lang, figures)
        recall_min, refused_max, caught_min = PAIR_BLIND_FLOOR[lang]
        self.assertGreaterEqual(figures[0], recall_min)
        self.assertLessEqual(figures[1], refused_max)
        self.assertGreaterEqual(figures[3], caught_min)

    def test_blind_en(self):  # one test a language: the suite's workers share the two
        self.blind("en")

    def test_blind_zh(self):
        self.blind("zh")


class StoreFiguresTest(unittest.TestCase):
    def figures(self, half, rounds=None, name=""):
        out = {}
        for lang in ("en", "zh"):
            f = store_figures(lang, half, rounds)
            line = ("conflicts refused %.3f (on the right fact %.3f), duplicates caught %.3f, new facts refused %.3f, "
                    "new facts skipped %.3f (%s)" % (f["conflict_recall"], f["conflict_on_target"],
                                                     f["duplicates_caught"], f["new_refused"], f["new_skipped"], f["n"]))
            label = "stores %s %s%s" % (lang, half, name)
            print("%s: %s" % (label, line))
            _support.report_metric(label, line)
            out[lang] = (f, line)
        return out

    @unittest.skipUnless(REPORTS, REPORTS_ONLY)
    def test_tune_stores_in_sample(self):
        self.figures("tune")  # the thresholds were chosen on these: reported, not asserted

    def test_blind_stores(self):
        for rounds in ("11", "18", "20", "21"):
            name = " round " + rounds
            for lang, (f, line) in self.figures("blind", (rounds,), name).items():
                floor = STORE_FLOOR[rounds]
                self.assertLessEqual(f["new_refused"], floor["new_refused_max"], line)
                self.assertLessEqual(f["new_skipped"], floor["new_skipped_max"], line)
                self.assertGreaterEqual(f["conflict_recall"], floor["conflict_recall_min"][lang], line)


class KeysTest(unittest.TestCase):
    def test_a_tool_finds_the_other_members_of_its_family(self):
        self.assertIn("F:package_manager", judgement.fact_keys("We use pnpm as the package manager."))
        self.assertIn("F:package_manager", judgement.fact_keys("The repo uses yarn for installs."))
        self.assertIn("C:timeout", judgement.fact_keys("请求超时 500 毫秒"))

    def test_identifiers_and_plurals_find_their_prose(self):
        # a config key finds the sentence that says the same in words: with the old keys 149 of the
        # 1,426 English tune conflicts of rounds 1-9 shared no key at all, with these 56
        shared = set(judgement.fact_keys("`max_party_size: 4` in matchmaking.yaml")) & set(
            judgement.fact_keys("Parties can have up to six players."))
        self.assertEqual(shared, {"W:party"})
        self.assertIn("C:timeout", judgement.fact_keys("session_idle_timeout = 30"))
        self.assertEqual(judgement.stem("ratings"), judgement.stem("rating"))
        self.assertIn("W:glicko-2", judgement.fact_keys("Rating system is Glicko-2."))  # a name, not a value

    def test_parts_that_tie_nothing_are_not_keys(self):
        keys = judgement.fact_keys("`max_retries: 3` in deploy.yaml, MIN_WORKERS=2")
        for word in ("W:max", "W:min", "W:yaml"):
            self.assertNotIn(word, keys)
        self.assertNotIn("W:500ms", judgement.fact_keys("Timeout is 500ms"))

    def test_judge_without_a_model_falls_back_to_the_rules(self):
        verdict, probs = judgement.judge(facts.parse("We use pnpm as the package manager."),
                                         facts.parse("The repo uses yarn for installs."), model=None)
        self.assertIsNotNone(judgement.load())
        even = {"related": 0.9, "plain": 0.9, "weak": 0.9, "duplicate": 0.9}
        self.assertIsNone(judgement.judge(facts.parse("a"), facts.parse("b"), model={
            "blob": b"", "cache": {}, "thresholds": {"en": even, "zh": even}})[0])
        self.assertIn(verdict, ("conflict", None))
        self.assertIsNotNone(probs)

    def test_training_is_deterministic(self):
        train_pair_model, rows = _trainer_and_three_rows()
        settings = dict(train_pair_model.SETTINGS, epochs=5)
        self.assertEqual(train_pair_model.train(rows, **settings), train_pair_model.train(rows, **settings))
        # and across processes: a set's order changes with the string hash seed, and a float sum
        # with its order (the full trainer gave other bytes run to run), so each row is summed in
        # sorted order
        for x, _label in rows:
            self.assertEqual(list(x), sorted(x))

    def test_the_weights_are_averaged_over_the_last_epochs(self):
        # one run's last weights move with the order the rows are visited in (cross-validated objective
        # over three seeds: English 2.371 to 2.386, and up to 0.19 apart with more rows); the mean of the
        # last epochs' weights moves less (fact-model.md, "Averaged weights")
        train_pair_model, rows = _trainer_and_three_rows()
        settings = dict(train_pair_model.SETTINGS, keep=0.0, seeds=(5,))
        last = [train_pair_model.train(rows, **dict(settings, epochs=n, tail=1))["weights"] for n in (4, 5, 6)]
        averaged = train_pair_model.train(rows, **dict(settings, epochs=6, tail=3))["weights"]
        self.assert_mean_of(averaged, last, last[2])

    def test_the_weights_are_averaged_over_seeds(self):
        # the shipped weights are the mean of one run per visiting order (seeds 5, 6, 7): no one order's
        # luck is shipped (fact-model.md, "Averaged over three orders")
        train_pair_model, rows = _trainer_and_three_rows()
        settings = dict(train_pair_model.SETTINGS, keep=0.0, epochs=5)
        self.assertEqual(len(train_pair_model.SETTINGS["seeds"]), 3)
        alone = [train_pair_model.train(rows, **dict(settings, seeds=(seed,)))["weights"] for seed in (5, 6, 7)]
        averaged = train_pair_model.train(rows, **dict(settings, seeds=(5, 6, 7)))["weights"]
        self.assert_mean_of(averaged, alone, alone[0])
        self.assertEqual(averaged, train_pair_model.train(rows, **dict(settings, seeds=(5, 6, 7)))["weights"])

    def assert_mean_of(self, averaged, parts, one):
        """averaged is, weight by weight, the mean of parts (to the 4 digits a model keeps): the same
        features as one of them, and not simply that one."""
        self.assertEqual(set(averaged), set(one))
        for name, row in averaged.items():
            for k, value in enumerate(row):
                self.assertAlmostEqual(value, sum(w[name][k] for w in parts) / float(len(parts)), places=3)
        self.assertNotEqual(averaged, one)


class ThresholdSearchTest(unittest.TestCase):
    def test_the_counts_by_binary_search_are_what_decide_flags(self):
        # the trainer searches some 20,000 threshold sets per language by binary search over sorted
        # values; each count must be the number of pairs decide() would not leave alone, with one bar
        # for every kind of opposition or a bar per kind
        sys.path.insert(0, str(_support.REPO / "evals" / "tools"))
        import train_pair_model
        import random
        rng = random.Random(7)
        kinds = {None: {}, "value": {"dims_differ": 1}, "choice": {"family_clash": 1}, "other": {"negation_flip": 1},
                 "mention": {"mentions_differ": True}}
        items = [(rng.choice(judgement.LABELS), round(rng.random(), 2), rng.choice(sorted(kinds, key=str)),
                  rng.random() < 0.5) for _ in range(400)]
        counts = train_pair_model._Counts(items)
        for related, plain, weak, split in ((0.8, 0.9, 0.0, None), (0.7, 0.95, 0.97, None), (0.9, 0.9, 0.91, None),
                                            (0.5, 0.6, 0.99, None), (0.8, 0.9, 0.0, (0.5, 0.7, 0.95)),
                                            (0.7, 0.95, 0.8, (0.9, 0.6, 0.75, 0.97))):
            thresholds = {"related": related, "plain": plain, "weak": weak, "duplicate": 1.01}
            if split:
                thresholds.update(zip(("related_value", "related_choice", "related_other", "related_mention"), split))
            for label in judgement.LABELS:
                expected = 0
                for y, value, kind, weakly_tied in items:
                    signals = dict(same_text=0, swap=0, clean="", dims_differ=0, family_clash=0,
                                   negation_flip=0, polarity_flip=0, versions_differ=0, numbers_differ=0, tags_differ=0,
                                   names_differ=0, change=0, retracts=0, unique_words=1, differences=1,
                                   values_differ=0, one_sided_tags=0, cjk_overlap=0, reversed=0, mentions_differ=False,
                                   tie=1 if weakly_tied else judgement.STRONG_TIE)
                    signals.update(kinds[kind])
                    self.assertEqual(judgement.opposition(signals), kind)
                    probs = {"compatible": 1.0 - value, "conflict": value, "paraphrase": 0.0}
                    expected += y == label and judgement.decide(probs, signals, thresholds) is not None
                self.assertEqual(counts.flagged(label, thresholds), expected, (label, thresholds))


class MentionsTest(unittest.TestCase):
    """mentions.py: the names a fact mentions, and whether two facts each mention one the other lacks."""

    def test_names_are_capitalised_words_after_the_first_identifiers_and_code(self):
        self.assertEqual(mentions.names("Routing uses go_router. Logs go to Datadog via `vector`."),
                         {"go_router", "datadog", "vector"})
        self.assertEqual(mentions.names("Builds run on EC2 and ship com.ridego.app; see log/slog."),
                         {"ec2", "com.ridego.app", "log/slog"})
        self.assertEqual(mentions.names("Retries are capped. Backoff doubles."), set())  # sentence openers

    def differ(self, a, b):
        return mentions.differ(mentions.names(a), mentions.words(a), mentions.names(b), mentions.words(b))

    def test_each_side_must_mention_a_name_the_other_lacks(self):
        self.assertTrue(self.differ("App logs are shipped to Datadog.", "We send app logs to Papertrail."))
        self.assertFalse(self.differ("Supported languages: English and Spanish.",
                                     "The app ships English, Spanish and French strings."))  # one side adds
        self.assertFalse(self.differ("Logs go to Datadog.", "Datadog keeps logs for 15 days."))
        self.assertFalse(self.differ("The log module is log/slog.", "Logging uses the slog package from log."))


class DecideTest(unittest.TestCase):
    """decide(): the model's probabilities and the pair's signals make the verdict."""
    THRESHOLDS = {"related": 0.8, "plain": 0.95, "weak": 0.97, "duplicate": 0.9}

    def signals(self, a, b):
        return judgement.analyse(facts.parse(a), facts.parse(b))[1]

    def test_a_detail_added_needs_the_higher_plain_threshold(self):
        added = self.signals("The app stores local data in SQLite.",
                             "The local SQLite database is encrypted with SQLCipher.")
        self.assertFalse(judgement.opposed(added))
        probs = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}  # related 0.9: below "plain"
        self.assertIsNone(judgement.decide(probs, added, self.THRESHOLDS))
        changed = self.signals("Backups are kept for 30 days.", "Backups are kept for 90 days.")
        self.assertTrue(judgement.opposed(changed))
        self.assertEqual(judgement.decide(probs, changed, self.THRESHOLDS), "conflict")

    def test_each_kind_of_opposition_may_have_its_own_threshold(self):
        choice = self.signals("Payments go through Stripe.", "Checkout charges are processed by Adyen.")
        value = self.signals("Backups are kept for 30 days.", "Nightly snapshots are retained for 90 days in S3.")
        self.assertEqual((judgement.opposition(choice), judgement.opposition(value)), ("choice", "value"))
        probs = {"compatible": 0.4, "conflict": 0.5, "paraphrase": 0.1}  # related 0.6: under "related"
        split = dict(self.THRESHOLDS, related_choice=0.55, related_value=0.9)
        self.assertEqual(judgement.decide(probs, choice, split), "conflict")
        self.assertIsNone(judgement.decide(probs, value, split))
        self.assertIsNone(judgement.decide(probs, choice, self.THRESHOLDS))  # one bar for every kind

    def test_names_each_side_mentions_alone_have_their_own_bar_else_the_plain_one(self):
        # nothing opposed, but "Provider" and "Riverpod" may fill one slot: English has a bar for that
        # ("related_mention"); a language without one (Chinese) keeps "plain", as a pair with nothing opposed
        named = self.signals("State management uses Provider.", "State management is Riverpod.")
        self.assertFalse(judgement.opposed(named))
        self.assertEqual(judgement.opposition(named), "mention")
        probs = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}  # related 0.9: under "plain"
        weak_off = dict(self.THRESHOLDS, weak=0.0)  # two shared words tie them weakly: no higher bar here
        self.assertIsNone(judgement.decide(probs, named, weak_off))
        self.assertEqual(judgement.decide(probs, named, dict(weak_off, related_mention=0.85)), "conflict")
        added = self.signals("The app stores local data in SQLite.",
                             "The local SQLite database is encrypted with SQLCipher.")
        self.assertIsNone(judgement.opposition(added))  # only one side names something new

    def test_many_words_on_one_side_are_never_skipped_as_a_duplicate(self):
        # the model once read these as a paraphrase (a shared frame, unknown words) and record skipped
        # a genuinely new fact; now the pair is refused, "may say the same", and --keep-both keeps it
        framed = self.signals("Component eagle pepper routes quill through nickel with lilac wharf glacier",
                              "Component garnet hazel routes eagle through nickel with cobalt wharf quill")
        self.assertGreater(framed["unique_words"], judgement.MAX_DUPLICATE_WORDS)
        probs = {"compatible": 0.01, "conflict": 0.01, "paraphrase": 0.98}
        self.assertEqual(judgement.decide(probs, framed, self.THRESHOLDS), "conflict")
        reworded = self.signals("Linting is done with Biome.", "Biome is the linter we run.")
        self.assertLessEqual(reworded["unique_words"], judgement.MAX_DUPLICATE_WORDS)
        self.assertEqual(judgement.decide(probs, reworded, self.THRESHOLDS), "duplicate")

    def test_a_conflict_says_what_it_rests_on(self):
        a, b = facts.parse("Backups are kept for 30 days."), facts.parse("Backups are kept for 90 days.")
        self.assertEqual(judgement.conflict_reason(a, b), "same subject and scope, another value or claim")
        a = facts.parse("The app stores local data in SQLite.")
        b = facts.parse("The local SQLite database is encrypted with SQLCipher.")
        self.assertIn("may say the same", judgement.conflict_reason(a, b))

    def test_a_retracted_word_the_older_fact_states_is_opposed(self):
        # "grid" is no tool of the vocabulary: the retraction is read from the words themselves
        taken_back = self.signals("Path planning uses A* on a grid map.",
                                  "We replaced grid A* with a lattice-based planner.")
        self.assertEqual(taken_back["retracts"], 1)
        self.assertTrue(judgement.opposed(taken_back))
        probs = {"compatible": 0.15, "conflict": 0.8, "paraphrase": 0.05}  # related 0.85: between the two
        self.assertEqual(judgement.decide(probs, taken_back, dict(self.THRESHOLDS, weak=0.5)), "conflict")
        elsewhere = self.signals("Path planning uses A* on a grid map.", "We replaced the old lidar driver.")
        self.assertEqual(elsewhere["retracts"], 0)

    def test_one_value_or_choice_swapped_in_the_same_sentence_is_a_conflict(self):
        # whatever the model's probability: "pnpm" / "yarn" alone once came out at 0.84, under "related"
        for a, b in (("We use pnpm.", "We use yarn."),
                     ("The primary database is Postgres.", "The primary database is MySQL."),
                     ("Server time zone is UTC.", "Server time zone is Asia/Shanghai."), ("前端用 pnpm", "前端用 yarn"),
                     ("Gateway timeout is 3 s", "Gateway timeout is 5 s")):
            self.assertEqual(self.signals(a, b)["swap"], 1, (a, b))
            self.assertEqual(judgement.judge(facts.parse(a), facts.parse(b))[0], "conflict", (a, b))
        # the member is the subject here (each bot's own limit), and two words differ there
        bots = self.signals("企微群机器人每分钟最多发 20 条消息", "钉钉群机器人每分钟最多发 20 条消息")
        self.assertEqual(bots["swap"], 0)
        self.assertEqual(self.signals("The web app uses React.", "The admin app uses Vue.")["swap"], 0)

    def test_a_clean_read_is_decided_by_the_contract(self):
        # one subject, one scope, one slot each: another value is a conflict and the same value a
        # duplicate, whatever the model says (it read these conflicts at 0.68, 0.07 and 0.71)
        for a, b, verdict in (("The data warehouse is Snowflake.", "Our data warehouse is BigQuery.", "conflict"),
                              ("Rate limit is 100 requests per minute.", "Rate limit is 10 requests per second.",
                               "conflict"),
                              ("The default branch is main.", "Our default branch is master.", "conflict"),
                              ("Our package manager is pnpm.", "We use yarn.", "conflict"),
                              ("The backend runs on Node 18.", "The backend runs on Node.js 20.", "conflict"),
                              ("Sessions expire after 7 days.", "Sessions expire after one week.", "duplicate"),
                              ("We deploy on Kubernetes.", "We deploy on k8s.", "duplicate"),
                              ("前端包管理用 pnpm", "前端包管理用 yarn", "conflict")):
            self.assertEqual(self.signals(a, b)["clean"], verdict, (a, b))
            self.assertEqual(judgement.judge(facts.parse(a), facts.parse(b))[0], verdict, (a, b))
        for a, b in (("Read timeout is 5 s.", "Write timeout is 10 s."),  # another attribute
                     ("Staging uses Postgres.", "Prod uses MySQL."),  # another scope
                     ("Checkout p95 latency budget: 300 ms.", "Checkout p99 latency budget: 800 ms."),
                     ("学员每天最多预约 2 课时", "学员每周最多预约 8 课时"),  # a count per day, per week
                     ("Audit logs are kept for 7 years.", "Audit logs are kept for 84 months."),  # rounding
                     ("We no longer use Jenkins.", "We use GitHub Actions."),  # a negation: the model's
                     ("The API uses Postgres and Redis.", "The API uses MySQL.")):  # two tools: no one slot
            self.assertEqual(self.signals(a, b)["clean"], "", (a, b))

    def test_a_fact_that_says_it_adds_is_a_feature_of_the_newer_side(self):
        # "also", "another", 另外 (additive_markers): a new attribute of the same thing, not a new value
        a = "The gpu-normal QOS allows at most 8 running GPU jobs per user."
        for b, adds in (("The gpu-normal QOS also caps each user at 16 GPUs in use.", 1),
                        ("gpu-normal 队列另外限制每人最多 16 张 GPU。", 1),
                        ("The gpu-normal QOS caps each user at 16 GPUs in use.", 0),
                        ("The gpu-normal QOS is for tools and toolchains too.", 1),
                        ("The gpu-normal QOS is for tools and toolchains.", 0)):  # "tools" is not "too"
            features = judgement.pair_features(facts.parse(a), facts.parse(b))
            self.assertEqual(features.get("x59", 0), adds, b)  # the newer side's marker
            self.assertEqual(features.get("x60", 0), 0, b)  # the older side's: none
            self.assertEqual(judgement.pair_features(facts.parse(b), facts.parse(a)).get("x60", 0), adds, b)

    def test_a_fact_written_as_a_setting_is_a_feature_of_its_side(self):
        # a config line states one setting: next to a fact about the same thing it mostly gives
        # another value or the same one (x61: the newer side, x62: the older, x63: both)
        prose = "Default scan concurrency is 64 hosts."
        for text, setting in (("`SCAN_WORKERS=32` is the shipped default.", 1),
                              ("max_delivery_attempts: 3 for outbound connectors", 1),
                              ("Param file: `RTL_RETURN_ALT 60`", 1), ("`brotli_comp_level 11;`", 1),
                              ("kube-apiserver runs with `--max-requests-inflight=400`.", 1),
                              ("ruff format configured with quote-style = 'single'.", 1),
                              ("连接池配置 `max_pool = 20`（db.toml）", 1),
                              ("Note: we use pnpm for installs.", 0), ("Python quote style: double quotes", 0),
                              ("Run `make test` before pushing.", 0), ("Cron jobs run at 02:00 UTC.", 0),
                              ("超时时间：30 秒", 0)):
            newer = judgement.pair_features(facts.parse(prose), facts.parse(text))
            older = judgement.pair_features(facts.parse(text), facts.parse(prose))
            self.assertEqual((newer.get("x61", 0), newer.get("x62", 0), older.get("x62", 0)), (setting, 0, setting), text)
            both = judgement.pair_features(facts.parse(text), facts.parse(text + " "))
            self.assertEqual(both.get("x63", 0), setting, text)

    def test_how_an_english_fact_is_written_is_a_feature(self):
        # "sh:" features: says what holds now, a semicolon, a "label: value" note, a number in words;
        # the side that has it (a, b or ab); English pairs only
        a = "Sessions expire after 30 minutes."
        cases = (("As of v2, sessions expire after half an hour.", {"sh:now:b", "sh:numword:b"}),
                 ("Sessions expire since v3 after 45 minutes", {"sh:now:b"}),
                 ("Session expiry: 45 minutes; set in auth.yaml", {"sh:semi:b", "sh:label:b"}),
                 ("Sessions - expire after 30 minutes.", {"sh:label:b"}),
                 ("Sessions expire after 45 minutes.", set()),
                 ("Sessions expire after thirty minutes - currently.", {"sh:numword:b", "sh:label:b", "sh:now:b"}))
        for b, expected in cases:
            features = judgement.pair_features(facts.parse(a), facts.parse(b))
            self.assertEqual(set(f for f in features if f.startswith("sh:")), expected, b)
        both = judgement.pair_features(facts.parse("Retries: three"), facts.parse("Retries: five"))
        self.assertEqual(set(f for f in both if f.startswith("sh:")), {"sh:label:ab", "sh:numword:ab"})
        older = judgement.pair_features(facts.parse("Retries: three"), facts.parse("We retry 5 times."))
        self.assertEqual(set(f for f in older if f.startswith("sh:")), {"sh:label:a", "sh:numword:a"})
        chinese = judgement.pair_features(facts.parse("会话 30 分钟过期"), facts.parse("As of v2: 会话半小时过期; half"))
        self.assertEqual([f for f in chinese if f.startswith("sh:")], [])

    def test_a_direction_reversed_is_never_a_duplicate(self):
        # the same words both ways round read as a paraphrase to the model (0.98): skipping one
        # would drop a fact that says the opposite
        for a, b in (("Orders sync from Shopify to NetSuite nightly", "Orders sync from NetSuite to Shopify nightly"),
                     ("订单每晚从 Shopify 同步到 NetSuite", "订单每晚从 NetSuite 同步到 Shopify"),
                     ("Replication runs primary -> replica", "Replication runs replica -> primary"),
                     ("We moved from MySQL to Postgres", "We moved from Postgres to MySQL")):
            self.assertEqual(self.signals(a, b)["reversed"], 1, (a, b))
            self.assertEqual(judgement.judge(facts.parse(a), facts.parse(b))[0], "conflict", (a, b))
            self.assertEqual(judgement.conflict_reason(facts.parse(a), facts.parse(b)), judgement.OPPOSED)
        # the same direction told the other way round is no reversal
        for a, b in (("Logs are shipped to Loki from Vector", "Vector ships logs to Loki"),
                     ("Upgraded from Node 18 to Node 20", "Upgraded from Node 18 to Node 22")):
            self.assertEqual(self.signals(a, b)["reversed"], 0, (a, b))

    def test_a_weak_tie_needs_the_weak_threshold(self):
        loose = self.signals("Mobile builds use Fastlane lanes.", "Mobile analytics go to Amplitude.")
        self.assertLess(loose["tie"], judgement.STRONG_TIE)
        probs = {"compatible": 0.1, "conflict": 0.8, "paraphrase": 0.1}
        self.assertIsNone(judgement.decide(probs, loose, dict(self.THRESHOLDS, plain=0.85)))
        self.assertEqual(judgement.decide(probs, loose, dict(self.THRESHOLDS, plain=0.85, weak=0.5)), "conflict")

    def test_a_value_that_differs_is_never_a_duplicate(self):
        changed = self.signals("Backups are kept for 30 days.", "Backups are kept for 90 days.")
        probs = {"compatible": 0.0, "conflict": 0.01, "paraphrase": 0.99}
        self.assertEqual(judgement.decide(probs, changed, self.THRESHOLDS), "conflict")
        same = self.signals("Backups are kept for 30 days.", "Backups are retained for a month of 30 days.")
        self.assertEqual(judgement.decide(probs, same, self.THRESHOLDS), "duplicate")

    def test_unit_words_are_not_tokens_and_identifiers_are_split(self):
        v = judgement.vocabulary.vocab(None)
        tokens = judgement._side(facts.parse("session_idle_timeout=45 ms, minSdkVersion 26, 1 GiB"), v,
                                 judgement._words(v))["toks"]
        self.assertTrue({"session", "C:timeout", "sdk"} <= tokens, tokens)
        self.assertFalse({"ms", "gi", "gib", "b"} & tokens, tokens)


class RecordJudgesByMeaningTest(_support.TempProject):
    """record_memory.py refuses a conflict and skips a paraphrase in any topic."""

    def test_conflict_in_another_topic_is_refused(self):
        code, out = self.record("We use pnpm as the package manager.", "--topic", "build")
        self.assertEqual(code, 0, out)
        first = out["id"]
        before = sorted(p.read_bytes() for p in self.store.rglob("items.json"))
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "ci")
        self.assertEqual(code, 1, out)
        self.assertEqual(out["conflict_with"][0]["id"], first)
        self.assertEqual(out["conflict_with"][0]["topic"], "build")
        self.assertEqual(before, sorted(p.read_bytes() for p in self.store.rglob("items.json")))
        self.assertIn("--topic build --supersedes %s" % first, out["fix"])
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "build", "--supersedes", first)
        self.assertEqual(code, 0, out)
        self.assertEqual(out["superseded"], [first])

    def test_paraphrase_is_caught_in_another_topic(self):
        # caught = skipped as a duplicate or refused naming the fact it rewords; the shipped model
        # has no duplicate share that keeps new store facts skipped <= 0.01, so a reworded fact
        # with anything that differs is refused (references/fact-model.md, section 2)
        code, out = self.record("The request timeout is 500 ms.", "--topic", "api")
        self.assertEqual(code, 0, out)
        code, again = self.record("Request timeout: 500 milliseconds.", "--topic", "ops")
        named = again.get("duplicate_of") or (again.get("conflict_with") or [{}])[0].get("id")
        self.assertEqual(named, out["id"], again)
        self.assertIn(code, (0, 1), again)

    def test_the_same_words_are_skipped_as_a_duplicate(self):
        code, out = self.record("The request timeout is 500 ms.", "--topic", "api")
        self.assertEqual(code, 0, out)
        code, dup = self.record("The request timeout is 500 ms!", "--topic", "ops")
        self.assertEqual((code, dup.get("duplicate_of")), (0, out["id"]), dup)

    def test_keep_both_records_a_conflict(self):
        self.record("We use pnpm as the package manager.", "--topic", "build")
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "build", "--keep-both")
        self.assertEqual(code, 0, out)
        self.assertTrue(out.get("kept_both_with"), out)

    def test_compatible_fact_is_recorded(self):
        self.record("The API port is 8080.", "--topic", "api")
        code, out = self.record("Prometheus scrapes metrics every 15 seconds.", "--topic", "ops")
        self.assertEqual((code, out["status"]), (0, "recorded"), out)


class ConfigVocabularyTest(_support.TempProject):
    """config.yaml's fact_model section extends the vocabulary record and review judge with."""

    def test_a_family_member_from_config_makes_a_conflict(self):
        code, out = self.record("The primary database is Postgres.", "--topic", "db")
        self.assertEqual(code, 0, out)
        code, out = self.record("The primary database is acmedb.", "--topic", "db", "--dry-run")
        self.assertEqual(code, 0, out)  # acmedb is unknown: not judged a database
        (self.store / "config.yaml").write_text("fact_model:\n  families:\n    database: [acmedb]\n", "utf-8")
        code, out = self.record("The primary database is acmedb.", "--topic", "db")
        self.assertEqual(code, 1, out)
        self.assertTrue(out["conflict_with"], out)


class ReviewByMeaningTest(_support.TempProject):
    def test_review_reports_a_conflict_worded_differently(self):
        self.record("We use pnpm as the package manager.", "--topic", "build")
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "ci", "--keep-both")
        self.assertEqual(code, 0, out)
        code, rep = _support.run_json("review_memory.py", "--project-dir", self.project)
        meant = [f for f in rep["findings"] if "by meaning" in f["evidence"]]
        self.assertEqual([f["kind"] for f in meant], ["conflict"], rep["findings"])
        self.assertIn("topics build, ci", meant[0]["evidence"])
        self.assertEqual(meant[0]["action"]["op"], "supersede")


class JudgementIndexTest(_support.TempProject):
    """The keys index behind record's store-wide search: kept by writers, never by a dry run."""

    def test_dry_run_writes_no_index_and_a_hand_edit_is_still_seen(self):
        self.record("We use pnpm as the package manager.", "--topic", "build")
        cache = self.store / "state" / "cache" / "dedup"
        import shutil as _sh
        _sh.rmtree(str(cache))
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "ci", "--dry-run")
        self.assertEqual(code, 1, out)  # found without an index
        self.assertFalse(cache.exists())
        # a hand edit changes the file's signature: the stale index is not trusted
        path = self.store / "areas/topics/build/items.json"
        path.write_text(path.read_text().replace("pnpm", "bun"))
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "ci")
        self.assertEqual(code, 1, out)
        self.assertIn("bun", out["conflict_with"][0]["fact"])

    def test_appended_facts_are_found_through_the_tail(self):
        for i, fact in enumerate(("The API listens on port 8080.", "Logs are kept for 30 days.",
                                  "We use pnpm as the package manager.")):
            code, out = self.record(fact, "--topic", "misc")
            self.assertEqual(code, 0, out)
        code, out = self.record("We switched the repo to yarn for installs.", "--topic", "misc")
        self.assertEqual(code, 1, out)
        self.assertIn("pnpm", out["conflict_with"][0]["fact"])


class KeysFormatTest(_support.TempProject):
    """A concept or tool of several words is one key, and an index written with older keys is rebuilt."""

    def test_a_phrase_is_one_key(self):
        keys = judgement.fact_keys("The batch size for fine-tuning is 32.")
        self.assertIn("C:batch_size", keys)
        self.assertFalse([k for k in keys if " " in k], keys)

    def test_a_vocabulary_change_comes_with_a_new_keys_version(self):
        # fact_keys reads the shipped vocabulary: an index written with another one holds other keys,
        # and only a new KEYS_VERSION makes stores rebuild it. After changing fact_vocab.json or the
        # keys' code, bump index.KEYS_VERSION and put the digests this test prints here.
        raw = json.loads((_support.REPO / "scripts" / "memory_core" / "data" / "fact_vocab.json").read_text("utf-8"))
        raw.pop("_about", None)
        digest = hashlib.sha256(json.dumps(raw, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
        keys = hashlib.sha256(json.dumps([judgement.fact_keys(t) for t in KEYS_SAMPLE]).encode("utf-8")).hexdigest()
        self.assertEqual(KEYS_VOCABULARY, (index.KEYS_VERSION, digest, keys),
                         "fact_vocab.json or fact_keys changed: bump index.KEYS_VERSION and record %s, %s"
                         % (digest, keys))

    def test_an_index_with_keys_of_an_older_version_is_rebuilt(self):
        self.record("The batch size for fine-tuning is 32.", "--topic", "ml")
        meta = self.store / "state" / "cache" / "dedup" / "ml" / "meta"
        fields = meta.read_text().split()
        self.assertEqual(fields[5:], [str(index.KEYS_VERSION), str(index.DEDUP_LAYOUT)])
        keys = self.store / "state" / "cache" / "dedup" / "ml" / "keys"
        keys.write_text(" W:unrelated \n")  # what an older version might have written
        meta.write_text(" ".join(fields[:5]) + "\n")  # ... with a meta that has no keys version
        code, out = self.record("Fine-tuning now uses a batch size of 64.", "--topic", "ml", "--dry-run")
        self.assertEqual(code, 1, out)  # found through keys recomputed from the file
        self.assertIn("32", out["conflict_with"][0]["fact"])


if __name__ == "__main__":
    unittest.main()
