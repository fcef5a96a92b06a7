"""The first SessionStart on one huge topic, after a fresh clone or a pull (no derived cache).

bench_core.py measures ratios on a 20,000-fact store; this measures the absolute time of the first
SessionStart hook when one topic holds --facts facts (default 100,000, an items.json of ~38 MB) and
state/cache/ is gone, as after a clone or a pull. Each run starts with the caches removed. The
facts are plain generated sentences written by the store's own writer; the interpreter is the
clean venv of bench_core.py (clean_python.py). Stdlib only.

  python3 evals/bench/first_start.py [--facts 100000] [--runs 5] [--keep DIR] [--python PATH]
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import clean_python  # noqa: E402
from memory_core import install, paths, store as st  # noqa: E402

WORDS = ("queue cache timeout retry port config deploy build schema index shard worker token "
         "bucket replica cron backup alert metric").split()
CATEGORIES = ("fact", "decision", "convention", "pitfall")


def build(project, count, seed=1):
    rng = random.Random(seed)
    store = os.path.join(project, paths.STORE_DIRNAME)
    st.init_store(store)
    items = []
    for n in range(count):
        stamp = "2026-%02d-%02dT%02d:%02d:%02dZ" % (1 + n * 12 // count, 1 + (n // 97) % 28, (n // 60) % 24,
                                                   n % 60, (n * 7) % 60)
        text = "Fact %d: the %s %s uses %s %d for the %s." % (n, rng.choice(WORDS), rng.choice(WORDS),
                                                               rng.choice(WORDS), n, rng.choice(WORDS))
        items.append({"id": "big-%012x" % n, "fact": text, "status": "active", "category": rng.choice(CATEGORIES),
                      "source": "user", "inferred": False, "created_at": stamp, "updated_at": stamp,
                      "superseded_by": None, "supersedes": [], "tags": []})
    st.write_topic(store, "big", {}, items)
    return store


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=100000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", metavar="DIR")
    parser.add_argument("--python", metavar="PATH", help="measure with this interpreter instead of the clean venv")
    args = parser.parse_args(argv)
    python = os.path.abspath(args.python) if args.python else clean_python.ensure_venv()[0]
    project = args.keep or tempfile.mkdtemp(prefix="m3l-first-start-")
    try:
        store = build(project, args.facts)
        skill = os.path.join(project, install.HOSTS["claude"].skill_dir)
        install.copy_skill(skill)
        hook = [python, os.path.join(skill, "hooks", "run_hook.py"), "SessionStart", "--host", "claude"]
        env = clean_python.child_env()
        times, sizes = [], []
        for run in range(args.runs + 1):  # the first run also compiles the byte-code: not counted
            shutil.rmtree(os.path.join(store, paths.STATE_DIR, "cache"), ignore_errors=True)
            payload = json.dumps({"session_id": "first-start-%d" % run, "hook_event_name": "SessionStart",
                                  "source": "startup", "cwd": project, "transcript_path": ""}).encode("utf-8")
            t0 = time.perf_counter()
            out = subprocess.run(hook, input=payload, stdout=subprocess.PIPE, cwd=project, env=env, check=True).stdout
            if run:
                times.append(time.perf_counter() - t0)
            sizes.append(len(json.loads(out.decode("utf-8"))["hookSpecificOutput"]["additionalContext"]))
        size = os.path.getsize(paths.topic_items_path(store, "big"))
        print("first SessionStart, %d facts in one topic (items.json %.1f MB), no derived cache: median %.2f s "
              "(runs %s), context %d chars" % (args.facts, size / 1e6, statistics.median(times),
                                               ", ".join("%.2f" % t for t in times), sizes[-1]))
        print("interpreter: %s" % python)
    finally:
        if not args.keep:
            shutil.rmtree(project, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
