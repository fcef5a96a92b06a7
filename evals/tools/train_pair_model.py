#!/usr/bin/env python3
"""Train the pair model of scripts/memory_core/judgement.py on our own labelled pairs and write
scripts/memory_core/data/pair_model.json (weights and the two thresholds).

Training data: the TUNE halves evals/fixtures/judgement/pairs.{en,zh}.tune.jsonl only; the blind
halves are never read here. Deterministic: the same data gives the same bytes.

Thresholds, per language (a pair with Chinese in it is "zh"), are the lowest candidates that keep
both of these low: on pairs, 5-fold cross-validation on the tune half (compatible pairs judged
conflicts <= 0.04, judged duplicates <= 0.03); and on whole project stores, the TUNE stores
(stores.*.tune.jsonl) judged as record judges (genuinely new facts refused <= 0.04, skipped <= 0.02),
because a recorded fact meets up to judgement.MAX_CANDIDATES facts, not one. The pair model never
trains on the stores.

  python3 evals/tools/train_pair_model.py [--check]   (--check: exit 1 if the file would change)
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from memory_core import facts, judgement  # noqa: E402

OUT = os.path.join(REPO, "scripts", "memory_core", "data", "pair_model.json")
CANDIDATES = tuple(round(0.5 + 0.02 * i, 2) for i in range(25)) + (0.99, 1.01)  # 0.50 .. 0.98, 0.99, off
MAX_COMPATIBLE_REFUSED, MAX_COMPATIBLE_SKIPPED = 0.04, 0.03
MAX_NEW_REFUSED, MAX_NEW_SKIPPED = 0.04, 0.02  # of the new facts of the tune project stores


def tune_rows():
    rows = []
    for lang in ("en", "zh"):
        path = os.path.join(REPO, "evals", "fixtures", "judgement", "pairs.%s.tune.jsonl" % lang)
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    features, signals = judgement.analyse(facts.parse(row["a"]), facts.parse(row["b"]))
                    rows.append((features, row["label"], lang, signals))
    return rows


def cross_validated(rows):
    order = list(range(len(rows)))
    random.Random(3).shuffle(order)
    probs = [None] * len(rows)
    for k in range(5):
        held = set(order[k::5])
        weights = judgement.train([(x, y) for i, (x, y, _l, _s) in enumerate(rows) if i not in held])
        for i in held:
            probs[i] = judgement.probabilities(rows[i][0], weights)
    return probs


def rates(rows, probs, conflict_at, duplicate_at):
    """{lang: (conflict recall, compatible refused, compatible skipped, paraphrases caught)}."""
    out = {}
    for lang in ("en", "zh"):
        n = dict(conflict=0, compatible=0, paraphrase=0)
        hit = dict(recall=0, refused=0, skipped=0, caught=0)
        for (_x, label, row_lang, signals), p in zip(rows, probs):
            if row_lang != lang:
                continue
            verdict = judgement.decide(p, signals, lang, conflict_at, duplicate_at)
            conflict, duplicate = verdict == "conflict", verdict == "duplicate"
            n[label] += 1
            hit["recall"] += label == "conflict" and conflict
            hit["refused"] += label == "compatible" and conflict
            hit["skipped"] += label == "compatible" and duplicate
            hit["caught"] += label == "paraphrase" and (conflict or duplicate)
        out[lang] = (hit["recall"] / float(n["conflict"]), hit["refused"] / float(n["compatible"]),
                     hit["skipped"] / float(n["compatible"]), hit["caught"] / float(n["paraphrase"]))
    return out


def store_judgements(weights):
    """{lang: [(label, [(probs, signals) of each candidate])]} for the new facts of the TUNE project
    stores (evals/fixtures/judgement/stores.*.tune.jsonl), judged the way record judges them: the
    facts spread over four topics of a temporary store, candidates from matching.candidates."""
    import shutil
    import tempfile
    from memory_core import matching
    from memory_core import store as st
    from memory_core.similarity import fact_id
    out = {}
    for lang in ("en", "zh"):
        path = os.path.join(REPO, "evals", "fixtures", "judgement", "stores.%s.tune.jsonl" % lang)
        out[lang] = []
        with open(path, encoding="utf-8") as fh:
            projects = [json.loads(line) for line in fh if line.strip()]
        for project in projects:
            folder = tempfile.mkdtemp(prefix="m3l-train-")
            try:
                store = os.path.join(folder, ".memory-3layer")
                by_topic = {}
                for i, text in enumerate(project["facts"]):
                    topic = "t%d" % (i % 4)
                    by_topic.setdefault(topic, []).append({"id": fact_id(topic, text), "fact": text, "status": "active"})
                for topic, items in by_topic.items():
                    os.makedirs(os.path.join(store, "areas", "topics", topic))
                    with open(os.path.join(store, "areas", "topics", topic, "items.json"), "wb") as fh:
                        fh.write(st.dump_items(topic, {}, items))
                for new in project["new"]:
                    parsed = facts.parse(new["text"])
                    judged = []
                    for _s, _t, _id, old in matching.candidates(store, new["text"]):
                        if old != new["text"]:
                            x, signals = judgement.analyse(facts.parse(old), parsed)
                            judged.append((judgement.probabilities(x, weights), signals))
                    out[lang].append((new["label"], judged))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    return out


def store_rates(judged, lang, conflict_at, duplicate_at):
    """(new facts refused, new facts skipped, conflicts refused, duplicates caught) on the stores."""
    n = {"new": 0, "conflict": 0, "duplicate": 0}
    hit = {"refused": 0, "skipped": 0, "recall": 0, "caught": 0}
    for label, candidates in judged:
        verdicts = [judgement.decide(p, s, lang, conflict_at, duplicate_at) for p, s in candidates]
        conflict, duplicate = "conflict" in verdicts, "duplicate" in verdicts
        n[label] += 1
        hit["refused"] += label == "new" and conflict
        hit["skipped"] += label == "new" and duplicate and not conflict
        hit["recall"] += label == "conflict" and conflict
        hit["caught"] += label == "duplicate" and (conflict or duplicate)
    return (hit["refused"] / float(n["new"]), hit["skipped"] / float(n["new"]),
            hit["recall"] / float(n["conflict"]), hit["caught"] / float(n["duplicate"]))


def main():
    rows = tune_rows()
    probs = cross_validated(rows)
    weights = judgement.train([(x, y) for x, y, _l, _s in rows])
    stores = store_judgements(weights)
    conflict_at, duplicate_at = {}, {}
    for lang in ("en", "zh"):  # per language: Chinese pairs are judged with their own thresholds
        conflict_at[lang] = next(t for t in CANDIDATES
                                 if rates(rows, probs, t, 1.1)[lang][1] <= MAX_COMPATIBLE_REFUSED
                                 and store_rates(stores[lang], lang, t, 1.1)[0] <= MAX_NEW_REFUSED)
        duplicate_at[lang] = next(t for t in CANDIDATES
                                  if rates(rows, probs, conflict_at[lang], t)[lang][2] <= MAX_COMPATIBLE_SKIPPED
                                  and store_rates(stores[lang], lang, conflict_at[lang], t)[1] <= MAX_NEW_SKIPPED)
    cv = dict((lang, rates(rows, probs, conflict_at[lang], duplicate_at[lang])[lang]) for lang in ("en", "zh"))
    model = {"about": "pair model of judgement.py (logistic regression); trained by evals/tools/train_pair_model.py",
             "conflict_threshold": conflict_at, "duplicate_threshold": duplicate_at,
             "features": len(rows[0][0]), "tune_pairs": len(rows), "weights": weights}
    blob = (json.dumps(model, sort_keys=True, indent=1) + "\n").encode("utf-8")
    if "--check" in sys.argv[1:]:
        with open(OUT, "rb") as fh:
            same = fh.read() == blob
        print("pair_model.json is %s" % ("up to date" if same else "OUT OF DATE: run without --check"))
        return 0 if same else 1
    with open(OUT, "wb") as fh:
        fh.write(blob)
    print("wrote %s (%d tune pairs, %d features); thresholds: conflict %s, duplicate %s"
          % (os.path.relpath(OUT, REPO), len(rows), len(rows[0][0]), conflict_at, duplicate_at))
    for lang, (recall, refused, skipped, caught) in sorted(cv.items()):
        print("5-fold CV %s pairs: conflict recall %.3f, compatible refused %.3f, compatible skipped as duplicates "
              "%.3f, paraphrases caught %.3f" % (lang, recall, refused, skipped, caught))
        print("  %s tune stores (in-sample): new facts refused %.3f, new facts skipped %.3f, conflicts refused %.3f, "
              "duplicates caught %.3f" % ((lang,) + store_rates(stores[lang], lang, conflict_at[lang], duplicate_at[lang])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
