#!/usr/bin/env python3
"""Train the surface gate's logistic regression (scripts/memory_core/surface_model.py) on our own
labelled data, and write its weights to scripts/memory_core/data/surface_model.tsv.

Training data: evals/fixtures/classification.jsonl and the TUNE halves of
evals/fixtures/judgement/classify.{en,zh}.tune.jsonl. The blind halves are never read here.
Deterministic: the same data gives the same bytes. Prints a 5-fold cross-validated figure of the
whole gate on the tune half for each candidate classification.GATE_REFUSE (used where the rules
read a non-durable surface; GATE_OVERRULE, used where they read a durable one, is fixed); the
shipped value is the one with the best coarse macro-F1 among those whose cross-validated
durable-refused rate is at most 0.02, a margin under the 0.03 target (cross-validation was
optimistic by about 0.01 against the round-2 blind set).

  python3 evals/tools/train_surface_model.py [--check]   (--check: exit 1 if the file would change)
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
from memory_core import surface_model  # noqa: E402
from memory_core.classification import DURABLE, GATE_OVERRULE, GATE_REFUSE, classify, gate_outcome  # noqa: E402

SETTINGS = {"epochs": 25, "rate": 0.2, "l2": 1e-4, "min_count": 1, "keep": 0.01}
REFUSE_AT = (0.8, 0.85, 0.9, 0.93, 0.95)
MAX_DURABLE_REFUSED = 0.02
OUT = os.path.join(REPO, "scripts", "memory_core", "data", "surface_model.tsv")


def rows(path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                yield row["text"].replace("{{}}", ""), row["surface"]


def training_rows():
    data = list(rows(os.path.join(REPO, "evals", "fixtures", "classification.jsonl")))
    for lang in ("en", "zh"):
        data.extend(rows(os.path.join(REPO, "evals", "fixtures", "judgement", "classify.%s.tune.jsonl" % lang)))
    return data


def featurise(data):
    return [(surface_model.tokens(text, classify(text)["surface"]), label) for text, label in data]


def macro_f1(labels, preds):
    scores = []
    for s in sorted(set(labels)):
        tp = sum(1 for a, b in zip(labels, preds) if a == s == b)
        fp = sum(1 for a, b in zip(labels, preds) if a != s and b == s)
        fn = sum(1 for a, b in zip(labels, preds) if a == s and b != s)
        p = tp / float(tp + fp) if tp + fp else 0.0
        r = tp / float(tp + fn) if tp + fn else 0.0
        scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return sum(scores) / len(scores)


def cross_validate(data, feats, tune_from):
    """[(label, rule surface, {surface: probability})] of every judgement tune row, each predicted by a
    model trained without its fold (5 folds; the old fixture always trains)."""
    order = list(range(tune_from, len(data)))
    random.Random(7).shuffle(order)
    out = []
    for k in range(5):
        held = set(order[k::5])
        model = surface_model.train([f for i, f in enumerate(feats) if i not in held], **SETTINGS)
        for i in sorted(held):
            surface = classify(data[i][0])["surface"]
            out.append((data[i][1], surface, surface_model.predict(data[i][0], model, rule_surface=surface)[0]))
    return out


def gate_figures(predicted, refuse_at, overrule_at):
    """(durable refused, non-durable refused, coarse macro-F1) of the gate with these thresholds."""
    labels, preds, refused = [], [], []
    for label, surface, probs in predicted:
        refuse, shown, looks, _p = gate_outcome(surface, probs, refuse_at, overrule_at)
        labels.append(label)
        preds.append(looks if refuse else shown)
        refused.append(refuse)
    coarse = lambda s: "durable" if s in DURABLE else s
    durable = [r for l, r in zip(labels, refused) if l in DURABLE]
    other = [r for l, r in zip(labels, refused) if l not in DURABLE]
    return (sum(durable) / float(len(durable)), sum(other) / float(len(other)),
            macro_f1([coarse(l) for l in labels], [coarse(p) for p in preds]))


def main():
    data = training_rows()
    feats = featurise(data)
    tune_from = sum(1 for _ in rows(os.path.join(REPO, "evals", "fixtures", "classification.jsonl")))
    blob = surface_model.serialise(surface_model.train(feats, **SETTINGS))
    checked = write_or_check(OUT, blob, sys.argv[1:])
    if checked is not None:
        return checked
    print("wrote %s (%d bytes, %d training rows)" % (os.path.relpath(OUT, REPO), len(blob), len(data)))
    predicted = cross_validate(data, feats, tune_from)
    grid = [(r, GATE_OVERRULE) for r in REFUSE_AT]  # the overrule threshold is fixed (classification.py)
    figures = dict((pair, gate_figures(predicted, *pair)) for pair in grid)
    best = max((pair for pair in grid if figures[pair][0] <= MAX_DURABLE_REFUSED),
               key=lambda pair: (round(figures[pair][2], 3), pair))
    print("5-fold CV on the tune half (refuse at, overrule at: durable refused, non-durable refused, coarse "
          "macro-F1); best within durable refused <= %.2f: %s" % (MAX_DURABLE_REFUSED, best))
    for pair in grid:
        print("  %.2f %.2f: %.3f  %.3f  %.3f%s" % (pair + figures[pair] + (
            "  <- shipped" if pair == (GATE_REFUSE, GATE_OVERRULE) else "",)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
