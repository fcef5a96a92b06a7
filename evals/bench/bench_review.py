#!/usr/bin/env python3
"""Benchmark review_memory.py on large stores: targets 10,000 facts <= 2 s, 100,000 facts <= 30 s.

Builds a synthetic store (seeded word-combination facts over 30 topics, with 1% planted duplicates
and 1% planted value conflicts), times `review_memory.py --json` as a whole command, and checks the
planted pairs were found (recall) so the figure is of a review that works. The command runs with
the same clean interpreter as bench_core.py (a cached fresh venv's python with pyyaml and rapidfuzz,
see clean_python.py) unless --python is given.

  python3 evals/bench/bench_review.py                 # 10k and 100k
  python3 evals/bench/bench_review.py --sizes 2000    # quick
  python3 evals/bench/bench_review.py --python /usr/bin/python3
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))

from memory_core import store as mstore  # noqa: E402
from memory_core.similarity import fact_id  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clean_python  # noqa: E402

TARGETS = {10000: 2.0, 100000: 30.0}
NOUNS = ("cache queue worker index table schema branch release build pipeline token session cookie "
         "bucket topic shard replica cluster node pod service gateway proxy router handler job "
         "cron lint format test fixture mock config flag secretstore vault metric alert dashboard "
         "trace span log parser lexer compiler bundle asset image container registry").split()
VERBS = ("uses runs keeps stores sends reads writes caches retries rotates validates signs "
         "compresses encrypts mirrors pins tags").split()
ADJ = ("primary secondary nightly hourly shared private public legacy new internal external "
       "regional global staging production local remote").split()


def make_fact(rng, n):
    return "The %s %s %s %s the %s %s for %s %s" % (
        rng.choice(ADJ), rng.choice(NOUNS), rng.choice(VERBS), rng.choice(ADJ), rng.choice(NOUNS),
        "n%d" % n, rng.choice(ADJ), rng.choice(NOUNS))


def build(project, size, seed=7):
    rng = random.Random(seed)
    store = os.path.join(project, ".memory-3layer")
    os.makedirs(store)
    topics = ["topic-%02d" % i for i in range(30)]
    by_topic = dict((t, []) for t in topics)
    planted = []
    stamp = "2026-11-01T00:00:00Z"
    for n in range(size):
        topic = rng.choice(topics)
        fact = make_fact(rng, n)
        by_topic[topic].append(fact)
        if n % 100 == 1:  # a duplicate, maybe in another topic
            other = rng.choice(topics)
            twin = fact.lower() + "."
            by_topic[other].append(twin)
            planted.append(("duplicate", fact_id(topic, fact), fact_id(other, twin)))
        elif n % 100 == 2:  # a value conflict
            clash = fact.replace("n%d" % n, "n%d" % (n + 1)) + " at 500ms"
            base = fact + " at 900ms"
            by_topic[topic][-1] = base
            by_topic[topic].append(clash)
            planted.append(("conflict", fact_id(topic, base), fact_id(topic, clash)))
    for topic, facts in by_topic.items():
        items = [{"id": fact_id(topic, f), "fact": f, "status": "active", "category": "fact", "source": "user",
                  "inferred": False, "created_at": stamp, "updated_at": stamp, "superseded_by": None,
                  "supersedes": [], "tags": []} for f in facts]
        path = os.path.join(store, "areas", "topics", topic, "items.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "wb") as fh:
            fh.write(mstore.dump_items(topic, {}, items))
    return planted


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated store sizes")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--python", metavar="PATH", help="run review_memory.py with this interpreter instead "
                        "of the cached clean venv")
    args = parser.parse_args()

    def log(message):
        sys.stderr.write("bench_review: %s\n" % message)

    try:
        if args.python:
            python, interpreter = clean_python.given_python(args.python)
        else:
            python, interpreter = clean_python.ensure_venv(log)
    except clean_python.CleanPythonError as exc:
        log(str(exc))
        return 2
    if interpreter["mode"] != "normal":
        log("WARNING: this run measures the DEGRADED mode: %s missing in %s" % (
            " and ".join(interpreter["missing"]), python))
    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        work = tempfile.mkdtemp(prefix="m3l-review-bench-")
        try:
            planted = build(work, size)
            start = time.perf_counter()
            proc = subprocess.run([python, os.path.join(REPO, "scripts", "review_memory.py"),
                                   "--project-dir", work, "--json"], capture_output=True,
                                  env=clean_python.child_env(), stdin=subprocess.DEVNULL)
            seconds = time.perf_counter() - start
            if proc.returncode not in (0, 1):  # 1: it has findings, as a store with planted pairs does
                log("review_memory.py exited %s: %s" % (proc.returncode,
                                                        proc.stderr.decode("utf-8", "replace")[-1500:]))
                return 2
            report = json.loads(proc.stdout.decode("utf-8"))
            found = set((f["kind"], tuple(sorted(f["ids"]))) for f in report["findings"])
            hits = sum(1 for kind, a, b in planted if (kind, tuple(sorted((a, b)))) in found)
            target = TARGETS.get(size)
            results.append({"facts": report["facts"], "seconds": round(seconds, 2), "target_s": target,
                            "ok": target is None or seconds <= target, "planted": len(planted),
                            "planted_found": hits, "findings": len(report["findings"])})
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"results": results, "python": interpreter["version"], "executable": python,
                          "interpreter": interpreter}))
    else:
        print("%8s  %8s  %8s  %6s  %s" % ("facts", "seconds", "target", "result", "planted pairs found"))
        for r in results:
            print("%8d  %8.2f  %8s  %6s  %d/%d (%d findings in all)" % (
                r["facts"], r["seconds"], "<= %gs" % r["target_s"] if r["target_s"] else "-",
                "ok" if r["ok"] else "MISS", r["planted_found"], r["planted"], r["findings"]))
        for line in clean_python.describe(interpreter):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
