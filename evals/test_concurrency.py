"""Concurrent writers and writers killed mid-write: nothing lost, no file ever half-written."""
import json
import os
import random
import signal
import subprocess
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

import _support

WORDS = ("amber basil cedar delta ember fjord garnet harbor iris juniper kelp lagoon meadow nickel "
         "onyx pepper quartz raven saffron tundra umber violet willow xenon yarrow zinnia anchor "
         "beacon canyon dune estuary falcon glacier heron island jetty kestrel lantern mesa nectar "
         "orchid prairie quarry reef sierra thicket upland valley wharf yucca zephyr acorn bramble "
         "cobalt drizzle eagle fennel granite hazel indigo jasper kiln lilac marble nutmeg oak "
         "pebble quill rust slate teal urchin vine walnut").split()


def unique_fact(rng, worker, n):
    words = rng.sample(WORDS, 7)
    return "Component %s %s routes %s through %s with %s %s %s" % tuple(words)


def parse_store(store):
    """Parse every file of the store; raise on the first that does not parse. Returns (ids, lines)."""
    ids, lines = [], []
    for folder, _dirs, files in os.walk(str(store)):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".tmp") or "state" in path.split(os.sep):
                continue
            with open(path, "rb") as fh:
                data = fh.read()
            text = data.decode("utf-8")
            if name == "items.json":
                doc = json.loads(text)
                ids.extend(item["id"] for item in doc["items"])
            elif folder.endswith("memory"):
                lines.extend(l for l in text.split("\n") if l.startswith("- "))
    return ids, lines


class ConcurrentWritersTest(_support.TempProject):
    def test_concurrent_processes_all_present(self):
        # 8 x 6 by default (about 5 s on 2 cores: the suite stays short); M3L_STRESS=1 runs the long 32 x 20
        # (about 75 s), as .ci/run does
        workers, per_worker = (32, 20) if os.environ.get("M3L_STRESS") == "1" else (8, 6)
        rng = random.Random(1234)
        plan = []
        seen = set()
        for w in range(workers):
            facts = []
            while len(facts) < per_worker:
                fact = unique_fact(rng, w, len(facts))
                if fact not in seen:
                    seen.add(fact)
                    facts.append(fact)
            plan.append(facts)
        env = _support.clean_env(MEMORY_LOCK_TIMEOUT="120")
        errors, duplicates = [], []
        stop = threading.Event()
        reader_errors = []

        def reader():  # readers must never see a half-written file
            while not stop.is_set():
                try:
                    parse_store(self.store)
                except (ValueError, UnicodeDecodeError) as exc:
                    reader_errors.append(repr(exc))
                except OSError:
                    pass

        def worker(w):
            for n, fact in enumerate(plan[w]):
                proc = _support.run_script("record_memory.py", "--project-dir", self.project, "--fact", fact,
                                           "--topic", "topic-%d" % (w % 4), "--keep-both", "--json",
                                           env=env, timeout=300)
                if proc.returncode != 0:
                    errors.append((w, n, proc.returncode, proc.stdout[-500:], proc.stderr[-500:]))
                    continue
                # the judgement may read two of these word salads as one fact: skipped, and said so
                duplicate = json.loads(proc.stdout).get("duplicate_of")
                if duplicate:
                    duplicates.append(duplicate)

        watcher = threading.Thread(target=reader)
        watcher.start()
        try:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(worker, range(workers)))
        finally:
            stop.set()
            watcher.join()
        self.assertEqual(errors, [])
        self.assertEqual(reader_errors, [])
        ids, lines = parse_store(self.store)
        # every fact is stored, or reported as the duplicate of a stored one: nothing is lost unsaid
        self.assertLessEqual(len(duplicates), max(1, workers * per_worker // 50))
        self.assertEqual(len(ids) + len(duplicates), workers * per_worker)
        self.assertEqual(len(set(ids)), len(ids))
        self.assertTrue(set(duplicates) <= set(ids), duplicates)
        self.assertEqual(len(lines), len(ids))
        leftovers = [n for _f, _d, files in os.walk(str(self.store)) for n in files if n.endswith(".tmp")]
        self.assertEqual(leftovers, [])


WRITER = r"""
import sys, random
sys.path.insert(0, sys.argv[1])
from memory_core.paths import resolve_store
from memory_core.recording import record_fact
root, store, _ = resolve_store(sys.argv[2])
rng = random.Random(int(sys.argv[3]))
words = sys.argv[4].split()
n = 0
while True:
    n += 1
    fact = "Service %s calls %s via %s and %s %s %s" % tuple(rng.sample(words, 6))
    try:
        record_fact(root, store, fact + " run %d" % n, topic="kill-%d" % (n % 2), keep_both=True)
        sys.stdout.write(".")  # a write that completed
    except Exception:
        sys.stdout.write("x")  # one that failed: the test must notice if they all do
    sys.stdout.flush()
"""


class KilledWriterTest(_support.TempProject):
    def test_sigkill_mid_write_never_leaves_unparseable_file(self):
        rng = random.Random(99)
        env = _support.clean_env()
        kills, completed = 0, 0
        for round_no in range(25):
            proc = subprocess.Popen([_support.PYTHON, "-c", WRITER, str(_support.SCRIPTS), str(self.project),
                                     str(round_no), " ".join(WORDS)], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env=env)
            completed += proc.stdout.read(1 + rng.randrange(3)).count(b".")  # wait until it has tried at least once
            time.sleep(rng.uniform(0.0, 0.05))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
            ids, _lines = parse_store(self.store)  # raises if any file is half-written
            self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(kills, 25)
        self.assertGreater(completed, 0)  # the writers really wrote: a run where every write failed fails here
        self.assertGreaterEqual(len(parse_store(self.store)[0]), completed)  # and every completed write is there
        # A killed writer's temp file is swept by the next writer, and loading ignores it.
        code, out = self.load()
        self.assertEqual(code, 0, out)
        self.assertEqual(out["report"]["skipped"], [])
        code, out = self.record("After the storm a last fact lands", "--topic", "kill-0", "--keep-both")
        self.assertEqual(code, 0, out)
        stale = [n for n in os.listdir(str(self.store / "areas/topics/kill-0")) if n.endswith(".tmp")]
        self.assertEqual(stale, [])


if __name__ == "__main__":
    unittest.main()
