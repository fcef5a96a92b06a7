#!/usr/bin/env python3
"""LOCOMO as a recall benchmark: each conversation's turns are stored as facts (one topic per session,
written in-process by the store's writer with no surface gate: they are chat, not facts), every
question is asked of load_memory's --query engine (recall.search), and the evidence turns found in
the top 5 and top 10 are counted (evidence recall@k: the share of a question's evidence turns found,
averaged over questions). Samples 0-4 tune the engine; samples 5-9 are reported as blind.

The data is ../shared/data/locomo10.json (CC BY-NC): read in place, never copied into the repository.
When it is absent this says so and exits 0.

  python3 evals/bench/locomo.py                 # blind samples 5-9
  python3 evals/bench/locomo.py --samples 0-4   # the tune samples
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
DATA = os.path.join(os.path.dirname(REPO), "shared", "data", "locomo10.json")

from memory_core import index, recall  # noqa: E402
from memory_core import store as st  # noqa: E402
from memory_core.similarity import fact_id  # noqa: E402


def turn_text(turn):
    text = "%s: %s" % (turn["speaker"], turn.get("text", ""))
    if turn.get("blip_caption"):
        text += " [shares a photo: %s]" % turn["blip_caption"]
    return " ".join(text.split())


def build_store(root, conversation):
    """Write the turns as facts, a topic per session; {dia_id: fact id}."""
    store = os.path.join(root, ".memory-3layer")
    st.init_store(store)
    ids, stamp = {}, "2023-01-01T00:00:00Z"
    for key in sorted((k for k in conversation if k.startswith("session_") and isinstance(conversation[k], list)),
                      key=lambda k: int(k.split("_")[1])):
        topic = "session-%s" % key.split("_")[1]
        items, seen = [], {}
        for turn in conversation[key]:
            text = turn_text(turn)
            item_id = fact_id(topic, text)
            if item_id not in seen:
                seen[item_id] = True
                items.append({"id": item_id, "fact": text, "status": "active", "category": "fact",
                              "source": "bench:locomo", "created_at": stamp, "updated_at": stamp})
            ids[turn["dia_id"]] = item_id
        st.write_topic(store, topic, {}, items)
        doc, items = st.read_topic(store, topic)
        index.refresh_topic(store, topic, os.path.join(store, "areas", "topics", topic, "items.json"), doc, items,
                            merge=False)
    return store, ids


def evaluate(samples, ks=(5, 10)):
    with open(DATA, encoding="utf-8") as fh:
        data = json.load(fh)
    totals, questions, seconds = dict((k, 0.0) for k in ks), 0, 0.0
    for number in samples:
        sample = data[number]
        root = tempfile.mkdtemp(prefix="m3l-locomo-")
        try:
            store, ids = build_store(root, sample["conversation"])
            for qa in sample["qa"]:
                wanted = set(ids[e] for e in qa.get("evidence") or () if e in ids)
                if not wanted:
                    continue
                start = time.time()
                found = [f["id"] for f in recall.search(store, str(qa["question"]), max(ks))]
                seconds += time.time() - start
                questions += 1
                for k in ks:
                    totals[k] += len(wanted & set(found[:k])) / float(len(wanted))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return dict(("R@%d" % k, round(totals[k] / max(questions, 1), 4)) for k in ks), questions, seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", default="5-9", help="a range of sample numbers, 0-9 (default 5-9: blind)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not os.path.isfile(DATA):
        print("skipped: %s is absent (LOCOMO is read in place, never copied into the repository)" % DATA)
        return 0
    first, _sep, last = args.samples.partition("-")
    samples = range(int(first), int(last or first) + 1)
    figures, questions, seconds = evaluate(samples)
    out = dict(figures, samples=args.samples, questions=questions, ms_per_query=round(1000 * seconds / max(questions, 1), 1))
    print(json.dumps(out, sort_keys=True) if args.json else
          "LOCOMO samples %s: %d questions, evidence R@5 %.3f, R@10 %.3f, %.1f ms a query"
          % (args.samples, questions, figures["R@5"], figures["R@10"], out["ms_per_query"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
