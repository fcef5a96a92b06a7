#!/usr/bin/env python3
"""Train the pair model of scripts/memory_core/judgement.py on our own labelled pairs and write
scripts/memory_core/data/pair_model.json (weights and the two thresholds).

Training data: the TUNE halves evals/fixtures/judgement/pairs.{en,zh}.tune.jsonl only; the blind
halves are never read here. Deterministic: the same data gives the same bytes.

The model also trains on the TUNE project stores (stores.*.tune.jsonl) as record sees them: every
candidate a new fact meets there is a labelled pair (the contradicted or repeated fact, else
compatible), which teaches it the near-misses of a real store. Thresholds, per language (a pair
with Chinese in it is "zh"), are the lowest candidates that keep genuinely new facts refused <= 0.04
and skipped <= 0.02 in a 3-fold cross-validation by project over those stores (each project judged
by a model that never saw it), because a recorded fact meets up to judgement.MAX_CANDIDATES facts,
not one. The pair figures printed are a 5-fold cross-validation of a pairs-only model, for reference.

  python3 evals/tools/train_pair_model.py [--check]   (--check: exit 1 if the file would change)
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)

from model_file import write_or_check  # noqa: E402
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


def store_candidates():
    """The TUNE project stores (stores.*.tune.jsonl) as record sees them: for every new fact, the
    candidates matching.candidates finds in a temporary store of the project's facts (spread over
    four topics), each with its features, signals and a label: conflict or paraphrase when it is the
    fact the new one contradicts or repeats, else compatible. The labelled target is added when the
    search missed it (it still teaches the model). [(project, lang, new label, [(x, signals, label)])]"""
    import shutil
    import tempfile
    from memory_core import matching
    from memory_core import store as st
    from memory_core.similarity import fact_id
    out = []
    for lang in ("en", "zh"):
        path = os.path.join(REPO, "evals", "fixtures", "judgement", "stores.%s.tune.jsonl" % lang)
        with open(path, encoding="utf-8") as fh:
            projects = [json.loads(line) for line in fh if line.strip()]
        for number, project in enumerate(projects):
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
                    target = project["facts"][new["target"]] if new.get("target") is not None else None
                    gold = {"conflict": "conflict", "duplicate": "paraphrase"}.get(new["label"])
                    olds = [old for _s, _t, _id, old in matching.candidates(store, new["text"]) if old != new["text"]]
                    judged = []
                    for old in olds + ([target] if target and target not in olds else []):
                        x, signals = judgement.analyse(facts.parse(old), parsed)
                        judged.append((x, signals, gold if old == target else "compatible", old in olds))
                    out.append(("%s-%d" % (lang, number), lang, new["label"], judged))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    return out


def store_rates(judged, lang, conflict_at, duplicate_at):
    """(new facts refused, new facts skipped, conflicts refused, duplicates caught) on the stores.
    judged: [(new label, [(probs, signals) of the candidates record would judge])]."""
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
    return (hit["refused"] / float(max(n["new"], 1)), hit["skipped"] / float(max(n["new"], 1)),
            hit["recall"] / float(max(n["conflict"], 1)), hit["caught"] / float(max(n["duplicate"], 1)))


def cross_validated_stores(rows, stores, folds=3):
    """{lang: [(new label, [(probs, signals)])]}: each project judged by weights trained on the tune
    pairs and the other projects' candidates (projects dealt into folds in a fixed order)."""
    projects = sorted(set(p for p, _l, _n, _j in stores))
    out = {"en": [], "zh": []}
    for k in range(folds):
        held = set(projects[k::folds])
        train_rows = [(x, y) for x, y, _l, _s in rows] + [
            (x, label) for p, _l, _n, judged in stores if p not in held for x, _s, label, _found in judged]
        weights = judgement.train(train_rows)
        for p, lang, new_label, judged in stores:
            if p in held:
                out[lang].append((new_label, [(judgement.probabilities(x, weights), s)
                                              for x, s, _label, found in judged if found]))
    return out


def main():
    rows = tune_rows()
    stores = store_candidates()
    probs = cross_validated(rows)
    judged = cross_validated_stores(rows, stores)
    weights = judgement.train([(x, y) for x, y, _l, _s in rows] + [
        (x, label) for _p, _l, _n, items in stores for x, _s, label, _found in items])
    conflict_at, duplicate_at = {}, {}
    for lang in ("en", "zh"):  # per language: Chinese pairs are judged with their own thresholds
        conflict_at[lang] = next(t for t in CANDIDATES
                                 if store_rates(judged[lang], lang, t, 1.1)[0] <= MAX_NEW_REFUSED)
        duplicate_at[lang] = next(t for t in CANDIDATES
                                  if store_rates(judged[lang], lang, conflict_at[lang], t)[1] <= MAX_NEW_SKIPPED)
    cv = dict((lang, rates(rows, probs, conflict_at[lang], duplicate_at[lang])[lang]) for lang in ("en", "zh"))
    model = {"about": "pair model of judgement.py (logistic regression); trained by evals/tools/train_pair_model.py",
             "conflict_threshold": conflict_at, "duplicate_threshold": duplicate_at,
             "features": len(rows[0][0]), "tune_pairs": len(rows),
             "tune_store_pairs": sum(len(items) for _p, _l, _n, items in stores), "weights": weights}
    blob = (json.dumps(model, sort_keys=True, indent=1) + "\n").encode("utf-8")
    checked = write_or_check(OUT, blob, sys.argv[1:])
    if checked is not None:
        return checked
    print("wrote %s (%d tune pairs, %d store candidate pairs, %d features); thresholds: conflict %s, duplicate %s"
          % (os.path.relpath(OUT, REPO), len(rows), model["tune_store_pairs"], len(rows[0][0]), conflict_at,
             duplicate_at))
    for lang, (recall, refused, skipped, caught) in sorted(cv.items()):
        print("5-fold CV %s pairs (pairs-only model): conflict recall %.3f, compatible refused %.3f, compatible "
              "skipped %.3f, paraphrases caught %.3f" % (lang, recall, refused, skipped, caught))
        print("  %s tune stores, 3-fold CV by project: new facts refused %.3f, new facts skipped %.3f, conflicts "
              "refused %.3f, duplicates caught %.3f" % ((lang,) + store_rates(judged[lang], lang, conflict_at[lang],
                                                                              duplicate_at[lang])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
