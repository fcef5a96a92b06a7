#!/usr/bin/env python3
"""Train the surface gate's naive Bayes model (scripts/memory_core/surface_model.py) on our own
labelled data, and write its weights to scripts/memory_core/data/surface_model.json.

Training data: evals/fixtures/classification.jsonl and the TUNE halves of
evals/fixtures/judgement/classify.{en,zh}.tune.jsonl. The blind halves are never read here.
Deterministic: the same data gives the same bytes. Prints a 5-fold cross-validated figure of the
whole gate (rules plus model) on the tune half, which is how its thresholds were chosen.

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
from memory_core.classification import DURABLE, gate  # noqa: E402

ALPHA, MIN_COUNT = 0.3, 2
OUT = os.path.join(REPO, "scripts", "memory_core", "data", "surface_model.json")


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


def serialise(model):
    model = dict((k, v) for k, v in model.items() if k not in ("index", "dense"))  # rebuilt when loaded
    return (json.dumps(model, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def cross_validate(data, tune_from):
    """Gate figures with 5 folds over the judgement tune rows (the old fixture always trains)."""
    tune = data[tune_from:]
    order = list(range(len(tune)))
    random.Random(7).shuffle(order)
    durable_refused = durable = other_refused = other = 0
    for k in range(5):
        held = set(order[k::5])
        model = surface_model.train(data[:tune_from] + [tune[i] for i in range(len(tune)) if i not in held],
                                    ALPHA, MIN_COUNT)
        for i in held:
            text, label = tune[i]
            refused = gate(text, model=model)["refuse"]
            if label in DURABLE:
                durable += 1
                durable_refused += refused
            else:
                other += 1
                other_refused += refused
    return durable_refused / float(durable), other_refused / float(other)


def main():
    data = training_rows()
    tune_from = sum(1 for _ in rows(os.path.join(REPO, "evals", "fixtures", "classification.jsonl")))
    blob = serialise(surface_model.train(data, ALPHA, MIN_COUNT))
    if "--check" in sys.argv[1:]:
        with open(OUT, "rb") as fh:
            same = fh.read() == blob
        print("surface_model.json is %s" % ("up to date" if same else "OUT OF DATE: run without --check"))
        return 0 if same else 1
    with open(OUT, "wb") as fh:
        fh.write(blob)
    dr, nr = cross_validate(data, tune_from)
    print("wrote %s (%d bytes, %d training rows); 5-fold CV on the tune half: durable refused %.3f, "
          "non-durable refused %.3f" % (os.path.relpath(OUT, REPO), len(blob), len(data), dr, nr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
