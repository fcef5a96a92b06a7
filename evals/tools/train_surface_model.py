#!/usr/bin/env python3
"""Train the surface gate's logistic regression (scripts/memory_core/surface_model.py) on our own
labelled data, and write its weights to scripts/memory_core/data/surface_model.tsv.

Training data: evals/fixtures/classification.jsonl and the TUNE halves of
evals/fixtures/judgement/classify.{en,zh}.tune.jsonl. The blind halves are never read here.
Deterministic: the same data gives the same bytes. Prints a 5-fold cross-validated figure of the
whole gate on the tune half at several refusal thresholds. classification.GATE_REFUSE is the lowest
of them whose cross-validated durable-refused rate is at most 0.02: a margin under the 0.03 target,
because cross-validation was optimistic by about 0.01 against the round-2 blind set.

  python3 evals/tools/train_surface_model.py [--check]   (--check: exit 1 if the file would change)
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from memory_core import surface_model  # noqa: E402
from memory_core.classification import DURABLE, GATE_REFUSE, classify, gate  # noqa: E402

SETTINGS = {"epochs": 25, "rate": 0.2, "l2": 1e-4, "min_count": 1, "keep": 0.01}
THRESHOLDS = (0.8, 0.85, 0.9, 0.93, 0.95)
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


def cross_validate(data, feats, tune_from, thresholds):
    """{threshold: (durable refused, non-durable refused, coarse macro-F1)}: 5 folds over the
    judgement tune rows (the old fixture always trains), the gate run with each refusal threshold."""
    from memory_core import classification
    order = list(range(tune_from, len(data)))
    random.Random(7).shuffle(order)
    runs = dict((t, ([], [], [])) for t in thresholds)
    saved = classification.GATE_REFUSE
    try:
        for k in range(5):
            held = set(order[k::5])
            model = surface_model.train([f for i, f in enumerate(feats) if i not in held], **SETTINGS)
            for t in thresholds:
                classification.GATE_REFUSE = t
                labels, preds, refused = runs[t]
                for i in sorted(held):
                    verdict = gate(data[i][0], model=model)
                    labels.append(data[i][1])
                    preds.append(verdict["looks_like"] if verdict["refuse"] else verdict["surface"])
                    refused.append(verdict["refuse"])
    finally:
        classification.GATE_REFUSE = saved
    coarse = lambda s: "durable" if s in DURABLE else s
    out = {}
    for t, (labels, preds, refused) in runs.items():
        durable = [r for l, r in zip(labels, refused) if l in DURABLE]
        other = [r for l, r in zip(labels, refused) if l not in DURABLE]
        out[t] = (sum(durable) / float(len(durable)), sum(other) / float(len(other)),
                  macro_f1([coarse(l) for l in labels], [coarse(p) for p in preds]))
    return out


def main():
    data = training_rows()
    feats = featurise(data)
    tune_from = sum(1 for _ in rows(os.path.join(REPO, "evals", "fixtures", "classification.jsonl")))
    blob = surface_model.serialise(surface_model.train(feats, **SETTINGS))
    if "--check" in sys.argv[1:]:
        with open(OUT, "rb") as fh:
            same = fh.read() == blob
        print("surface_model.tsv is %s" % ("up to date" if same else "OUT OF DATE: run without --check"))
        return 0 if same else 1
    with open(OUT, "wb") as fh:
        fh.write(blob)
    print("wrote %s (%d bytes, %d training rows)" % (os.path.relpath(OUT, REPO), len(blob), len(data)))
    print("5-fold CV on the tune half (threshold: durable refused, non-durable refused, coarse macro-F1):")
    for t, (dr, nr, f1) in sorted(cross_validate(data, feats, tune_from, THRESHOLDS).items()):
        print("  %.2f: %.3f  %.3f  %.3f%s" % (t, dr, nr, f1, "  <- GATE_REFUSE" if t == GATE_REFUSE else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
