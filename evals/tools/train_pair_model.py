#!/usr/bin/env python3
"""Train the pair model of scripts/memory_core/judgement.py on our own labelled pairs and write
scripts/memory_core/data/pair_model.json (weights and the two thresholds).

Training data: the TUNE halves evals/fixtures/judgement/pairs.{en,zh}.tune.jsonl only; the blind
halves are never read here. Deterministic: the same data gives the same bytes.

Thresholds come from 5-fold cross-validation on the tune half, per language (a pair with Chinese in
it is "zh"): the conflict threshold is the lowest candidate whose cross-validated rate of compatible
pairs judged conflicts is at most 0.04, and the duplicate threshold the lowest whose rate of
compatible pairs judged duplicates is at most 0.03 (margins under the 0.05 target: a recorded fact
is checked against every fact that shares a subject word, not against one).

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
CANDIDATES = tuple(round(0.5 + 0.02 * i, 2) for i in range(24))  # 0.50 .. 0.96
MAX_COMPATIBLE_REFUSED, MAX_COMPATIBLE_SKIPPED = 0.04, 0.03


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


def main():
    rows = tune_rows()
    probs = cross_validated(rows)
    conflict_at, duplicate_at = {}, {}
    for lang in ("en", "zh"):  # per language: Chinese pairs are judged with their own thresholds
        conflict_at[lang] = next(t for t in CANDIDATES
                                 if rates(rows, probs, t, 1.1)[lang][1] <= MAX_COMPATIBLE_REFUSED)
        duplicate_at[lang] = next(t for t in CANDIDATES
                                  if rates(rows, probs, conflict_at[lang], t)[lang][2] <= MAX_COMPATIBLE_SKIPPED)
    cv = dict((lang, rates(rows, probs, conflict_at[lang], duplicate_at[lang])[lang]) for lang in ("en", "zh"))
    model = {"about": "pair model of judgement.py (logistic regression); trained by evals/tools/train_pair_model.py",
             "conflict_threshold": conflict_at, "duplicate_threshold": duplicate_at,
             "features": len(rows[0][0]), "tune_pairs": len(rows),
             "weights": judgement.train([(x, y) for x, y, _l, _s in rows])}
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
        print("5-fold CV %s: conflict recall %.3f, compatible refused %.3f, compatible skipped as duplicates %.3f, "
              "paraphrases caught %.3f" % (lang, recall, refused, skipped, caught))
    return 0


if __name__ == "__main__":
    sys.exit(main())
