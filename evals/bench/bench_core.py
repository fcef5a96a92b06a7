#!/usr/bin/env python3
"""Benchmark the memory-3layer core on a large synthetic store, as ratios against a same-run baseline.

Builds a synthetic project (default: 10,000 active facts over 30 topics, one extra topic "big" of
10,000 facts, 365 daily files of ~20 lines, a MEMORY.md of ~40 lines) in a temp folder, then times
each command against a bare interpreter start ([python, "-c", "pass"]), interleaved baseline/command
runs, and reports median(command) / median(baseline). `python` is a clean interpreter: a fresh venv's
python (made once and cached under the temp dir, pyyaml and rapidfuzz installed with its own pip;
see clean_python.py), or the one given with --python. Loading is measured with the core's derived
caches current (a store its recorder maintains) and, for information, with none (a fresh clone).
See evals/bench/README.md.

Examples:
  python evals/bench/bench_core.py
  python evals/bench/bench_core.py --runs 25 --json
  python evals/bench/bench_core.py --check            # exit 1 when a target is missed
  python evals/bench/bench_core.py --keep /tmp/m3l-bench --only load
  python evals/bench/bench_core.py --python /usr/bin/python3   # measure with that interpreter
"""
import argparse
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing the core here must not leave __pycache__ in scripts/
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from memory_core import paths as mpaths  # noqa: E402
from memory_core import store as mstore  # noqa: E402
from memory_core.similarity import fact_id, lcs_length, normalize  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clean_python  # noqa: E402

BIG_TOPIC = "big"
TYPICAL_TOPIC_FACTS = 300  # record_typical writes into the generated topic closest to this size
NOW = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)  # the synthetic store ends today, so record appends to a realistic daily file
FACT_MIN, FACT_MAX = 40, 160


class BenchError(Exception):
    """The benchmark cannot give a meaningful figure (a command failed, ...): exit 2 with the reason."""


DROP_ENV = ("CLAUDE_PROJECT_DIR", "CODEX_HOME")


# --- synthetic facts ------------------------------------------------------------------------------
#
# A template is (category, pattern, slots); a slot is (phrase list, strong). A fact is one phrase per
# slot. Two facts of one template always differ in at least two *strong* slots (phrases of ~15-45
# characters; weak slots are short words such as a version or an environment name and do not count),
# so every pair stays well below the core's near-duplicate score of 90: the store holds no accidental
# duplicates and each benchmark record is a genuinely new fact. No phrase looks like a secret.
# The phrase lists live in words.json beside this file, named as in the templates below.

WORDS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "words.json")


def _load_words(path=WORDS_FILE):
    try:
        with open(path, "r", encoding="utf-8") as fh:
            words = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SystemExit("bench: cannot read the word lists %s: %s" % (path, exc))
    return dict((k, v) for k, v in words.items() if isinstance(v, list))


WORDS = _load_words()

# (category, pattern, [(list name in words.json, strong), ...])
_TEMPLATE_SPECS = [
    ("pitfall", "{0} {1} when {2}; {3}.",
     [("components", True), ("symptoms", True), ("conditions", True), ("workarounds", True)]),
    ("architecture", "{0} calls {1}, caches {2} for {3} and {4}.",
     [("components", True), ("dependencies", True), ("cached", True), ("durations", False), ("arch_extras", True)]),
    ("decision", "We chose {0} for {1} because {2}, decided {3}.",
     [("choice_pairs", True), ("purposes", True), ("reasons", True), ("decision_contexts", True)]),
    ("convention", "In {0}, {1} so that {2}; {3}.",
     [("areas", True), ("conventions", True), ("benefits", True), ("enforcements", True)]),
    ("todo", "Still to do: {0} in {1} before {2}, because {3}.",
     [("todo_actions", True), ("components", True), ("milestones", True), ("todo_reasons", True)]),
    ("procedure", "To {0} from {1} {2}, then {3}.",
     [("goal_commands", True), ("dirs", False), ("prereqs", True), ("followups", True)]),
    ("preference", "{0} prefers {1} in {2} because {3}.",
     [("people", False), ("styles", True), ("artifacts", True), ("pref_reasons", True)]),
    ("fact", "In {0}, {1} {2} since {3} {4}; {5}.",
     [("envs", False), ("components", True), ("env_facts", True), ("months", False), ("years", False),
      ("env_notes", True)]),
    ("procedure", "Tests for {0} need {1}; {2}.",
     [("components", True), ("requirements", True), ("test_notes", True)]),
    ("fact", "{0} owns {1}, so ask before changing {2}; {3}.",
     [("teams", False), ("components", True), ("owned_things", True), ("owner_notes", True)]),
    ("convention", "{0} is built with {1} {2}: {3}; {4}.",
     [("components", True), ("tools", False), ("digits", False), ("tool_rules", True), ("tool_notes", True)]),
    # short ones, so lengths vary
    ("pitfall", "{0} {1} when {2}.", [("components", True), ("symptoms", True), ("conditions", True)]),
    ("architecture", "{0} calls {1} and {2}.", [("components", True), ("dependencies", True), ("arch_extras", True)]),
    ("todo", "Still to do: {0} in {1} before {2}.", [("todo_actions", True), ("components", True), ("milestones", True)]),
]
# One list object per name, shared by every template using it (the generator caches by list identity).
TEMPLATES = [(category, pattern, [(WORDS[name], strong) for name, strong in slots])
             for category, pattern, slots in _TEMPLATE_SPECS]
TOPIC_NAMES = WORDS["topic_names"]
SOURCE_FILES = WORDS["source_files"]
TAGS = WORDS["tags"]


def _cap(text):
    return text[0].upper() + text[1:]


class FactGenerator(object):
    """Seeded, varied facts of 40-160 characters, none a near-duplicate of another.

    Two rules, per template: (1) every pattern "all strong slots but one" is used at most once, so two
    facts differ in at least two strong slots; (2) a candidate is compared with every fact that
    differs from it in exactly two strong slots, estimating their similarity slot by slot (the
    similarity measure of the core: 100 * (1 - indel distance / total length) on normalised text), and
    dropped above NEAR_LIMIT. A template is drawn in proportion to how many facts it can hold."""

    NEAR_LIMIT = 84.0  # well under the core's 90: a slot-by-slot estimate slightly underrates similarity

    def __init__(self, rng):
        self.rng = rng
        self.used_keys = set()
        self.used_texts = set()
        self.pair_index = {}      # (template, i, j, other strong picks) -> [(picks, normalised length)]
        self._dist = {}           # (slot list id, a, b) -> indel distance of the two normalised phrases
        self._norm = {}
        self.strong = [[i for i, (_lst, strong) in enumerate(t[2]) if strong] for t in TEMPLATES]
        self.weights = []
        for tid, (_cat, _pat, slots) in enumerate(TEMPLATES):
            sizes = [len(slots[i][0]) for i in self.strong[tid]]
            product = 1
            for n in sizes:
                product *= n
            self.weights.append(product // max(sizes))
        self.template_ids = list(range(len(TEMPLATES)))

    def _phrase(self, lst, index):
        key = (id(lst), index)
        if key not in self._norm:
            self._norm[key] = normalize(lst[index])
        return self._norm[key]

    def _indel(self, lst, a, b):
        if a > b:
            a, b = b, a
        key = (id(lst), a, b)
        found = self._dist.get(key)
        if found is None:
            x, y = self._phrase(lst, a), self._phrase(lst, b)
            found = self._dist[key] = len(x) + len(y) - 2 * lcs_length(x, y)
        return found

    def _too_close(self, slots, picks, norm_len, neighbours):
        for other, other_len in neighbours:
            dist = 0
            for (lst, _strong), a, b in zip(slots, picks, other):
                if a != b:
                    dist += self._indel(lst, a, b)
            if 100.0 * (1.0 - float(dist) / (norm_len + other_len)) >= self.NEAR_LIMIT:
                return True
        return False

    def next(self):
        rng = self.rng
        for _attempt in range(20000):
            tid = rng.choices(self.template_ids, weights=self.weights)[0]
            category, pattern, slots = TEMPLATES[tid]
            picks = tuple(rng.randrange(len(lst)) for lst, _strong in slots)
            text = _cap(pattern.format(*(lst[p] for (lst, _s), p in zip(slots, picks))))
            if not FACT_MIN <= len(text) <= FACT_MAX or text in self.used_texts:
                continue
            strong = self.strong[tid]
            keys = [(tid, i) + tuple(picks[j] for j in strong if j != i) for i in strong]
            if any(k in self.used_keys for k in keys):
                continue
            pair_keys = [(tid, i, j) + tuple(picks[m] for m in strong if m != i and m != j)
                         for n, i in enumerate(strong) for j in strong[n + 1:]]
            norm_len = len(normalize(text))
            if any(self._too_close(slots, picks, norm_len, self.pair_index.get(k, ())) for k in pair_keys):
                continue
            self.used_keys.update(keys)
            for k in pair_keys:
                self.pair_index.setdefault(k, []).append((picks, norm_len))
            self.used_texts.add(text)
            return category, text
        raise BenchError("the fact generator ran out of distinct facts; use fewer --facts")


# --- the synthetic store --------------------------------------------------------------------------

def _topic_names(count):
    names = list(TOPIC_NAMES[:count])
    n = 2
    while len(names) < count:
        names.extend("%s-%d" % (t, n) for t in TOPIC_NAMES[:count - len(names)])
        n += 1
    return names


def _make_item(rng, gen, topic, stamp):
    category, text = gen.next()
    roll = rng.random()
    if roll < 0.6:
        source = "user"
    elif roll < 0.85:
        source = "file:" + rng.choice(SOURCE_FILES)
    else:
        source = "migrated:.claude/memory/notes.md"
    created = stamp
    updated = created
    if rng.random() < 0.1:
        updated = created + datetime.timedelta(hours=rng.randint(1, 24 * 30))
    return {"id": fact_id(topic, text), "fact": text, "status": "active", "category": category,
            "source": source, "inferred": rng.random() < 0.15, "created_at": mstore.iso(created),
            "updated_at": mstore.iso(min(updated, NOW)), "superseded_by": None, "supersedes": [],
            "tags": sorted(rng.sample(TAGS, rng.choice((0, 0, 1, 1, 2))))}


def build_store(project, facts, topics, days, big_facts, seed, extra_facts):
    """Write the synthetic store under project/.memory-3layer; return (stats, [extra new facts])."""
    rng = random.Random(seed)
    gen = FactGenerator(rng)
    store = os.path.join(project, mpaths.STORE_DIRNAME)
    os.makedirs(store)
    with mstore.StoreLock(store):
        mstore.init_store(store)  # template files, exactly as a first record would create them
    today = NOW.replace(hour=0, minute=0, second=0)
    day_starts = [today - datetime.timedelta(days=d) for d in range(max(days, 1))]

    def stamp():
        start = rng.choice(day_starts)
        moment = start + datetime.timedelta(seconds=rng.randint(7 * 3600, 20 * 3600))
        return min(moment, NOW)

    names = _topic_names(topics)
    weights = [rng.uniform(0.3, 3.0) for _ in names]  # uneven, as real topics are
    by_topic = dict((t, []) for t in names)
    for _ in range(facts):
        topic = rng.choices(names, weights=weights)[0]
        by_topic[topic].append(_make_item(rng, gen, topic, stamp()))
    by_topic[BIG_TOPIC] = [_make_item(rng, gen, BIG_TOPIC, stamp()) for _ in range(big_facts)]

    per_day = {}
    items_bytes = 0
    for topic, items in by_topic.items():
        items.sort(key=lambda it: (it["created_at"], it["id"]))  # record appends in time order
        path = mpaths.topic_items_path(store, topic)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = mstore.dump_items(topic, {}, items)
        items_bytes += len(data)
        with open(path, "wb") as fh:
            fh.write(data)
        for it in items:
            per_day.setdefault(it["created_at"][:10], []).append((topic, it))

    daily_lines = 0
    if days > 0:
        daily_dir = os.path.join(store, mpaths.DAILY_DIR)
        for start in day_starts:
            day = start.strftime("%Y-%m-%d")
            recorded = per_day.get(day, [])
            chosen = rng.sample(recorded, min(len(recorded), rng.randint(15, 25)))
            chosen.sort(key=lambda pair: pair[1]["created_at"])
            lines = [mstore.daily_line_text(mstore.parse_time(it["created_at"]), topic, it["fact"], it["id"])
                     for topic, it in chosen]
            daily_lines += len(lines)
            with open(os.path.join(daily_dir, day + ".md"), "wb") as fh:
                fh.write(("# %s\n\n%s\n" % (day, "\n".join(lines))).encode("utf-8"))

    # Layer 3: the template plus confirmed facts, added the way --promote --confirmed adds them.
    memory_path = os.path.join(store, mpaths.LAYER3_FILE)
    memory_md = mstore.read_text(memory_path) or mstore.FALLBACK_MEMORY_MD
    pool = [(t, it) for t in names for it in by_topic[t]]
    for topic, it in rng.sample(pool, min(len(pool), 26)):
        memory_md = mstore.promote_text(memory_md, it["fact"], it["id"], it["category"],
                                        mstore.parse_time(it["updated_at"])) or memory_md
    with open(memory_path, "wb") as fh:
        fh.write(memory_md.encode("utf-8"))

    # The record benchmarks time recording a new fact, so a drawn fact that record would refuse as a
    # conflict or skip as a duplicate (judged by meaning against the whole store) is drawn again.
    from memory_core import matching
    extra = []
    while len(extra) < extra_facts:
        text = gen.next()[1]
        duplicate, conflicts = matching.matches(store, text, write=True)
        if duplicate is None and not conflicts:
            extra.append(text)
    typical = min(names, key=lambda t: abs(len(by_topic[t]) - TYPICAL_TOPIC_FACTS))
    stats = {"facts": facts, "topics": len(names), "big_topic_facts": big_facts, "daily_files": days,
             "typical_topic": typical, "typical_topic_facts": len(by_topic[typical]),
             "daily_lines": daily_lines, "memory_md_lines": memory_md.count("\n") + 1,
             "items_json_bytes": items_bytes}
    return stats, extra


# --- running children -----------------------------------------------------------------------------

# Runs exactly one child and prints its peak RSS in KiB. Kept tiny (no subprocess import), because the
# child's figure can include the RSS of the process that spawned it.
RSS_WRAPPER = (
    "import os,resource,sys\n"
    "fd=os.open(os.devnull,os.O_RDWR)\n"
    "pid=os.posix_spawn(sys.argv[1],sys.argv[1:],os.environ,"
    "file_actions=[(os.POSIX_SPAWN_DUP2,fd,0),(os.POSIX_SPAWN_DUP2,fd,1),(os.POSIX_SPAWN_DUP2,fd,2)])\n"
    "st=os.waitpid(pid,0)[1]\n"
    "r=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(os.waitstatus_to_exitcode(st) if hasattr(os,'waitstatus_to_exitcode') else st>>8,"
    "r//1024 if sys.platform=='darwin' else r)\n"
)


class Context(object):
    def __init__(self, python, project, env, new_facts):
        self.python = python
        self.project = project
        self.store = os.path.join(project, mpaths.STORE_DIRNAME)
        self.env = env
        self._new_facts = list(new_facts)
        self.facts_used = 0

    def script(self, name):
        """The installed copy's script: what a project runs (and where its byte-code is cached)."""
        return os.path.join(self.skill, "hooks" if name == "run_hook.py" else "scripts", name)

    def new_fact(self):
        if self.facts_used >= len(self._new_facts):
            raise BenchError("out of pre-generated new facts (raise EXTRA_FACTS_PER_RUN)")
        fact = self._new_facts[self.facts_used]
        self.facts_used += 1
        return fact


def clean_env():
    """No MEMORY_* settings and no PYTHON* knobs (PYTHONPATH, PYTHONDONTWRITEBYTECODE, ...): the
    interpreter starts as on a clean machine, and byte-code is compiled once in the warm-up."""
    return dict((k, v) for k, v in clean_python.child_env().items()
                if not k.startswith("MEMORY_") and k not in DROP_ENV)


def run_timed(argv, ctx, stdin_data=None):
    """Wall time of one child, stdout/stderr discarded; (seconds, exit code)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ctx.project, env=ctx.env,
                            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.communicate(stdin_data)
    return time.perf_counter() - t0, proc.returncode


def explain_failure(name, argv, code, ctx, stdin_data=None):
    proc = subprocess.run(argv, cwd=ctx.project, env=ctx.env, input=stdin_data, capture_output=True,
                          stdin=None if stdin_data is not None else subprocess.DEVNULL)
    tail = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace").strip()[-1500:]
    raise BenchError("%s failed with exit code %s\n  command: %s\n  re-run exit %s, output:\n%s"
                     % (name, code, " ".join(argv), proc.returncode, tail))


def peak_rss_kib(argv, ctx):
    out = subprocess.run([ctx.python, "-c", RSS_WRAPPER] + argv, cwd=ctx.project, env=ctx.env,
                         stdin=subprocess.DEVNULL, capture_output=True)
    try:
        code, kib = (int(x) for x in out.stdout.decode().split())
    except ValueError:
        raise BenchError("the RSS wrapper failed: %s" % out.stderr.decode("utf-8", "replace")[-1500:])
    return code, kib


# --- the benchmarks -------------------------------------------------------------------------------

class Bench(object):
    """One measured command. kind "time": wall-time ratio to the baseline, target = highest ratio;
    kind "rss": peak RSS in MB, target = highest MB; target None: reported, never a MISS.
    prepare(ctx) puts the store in the state to measure (e.g. caches warm or absent); argv(ctx)
    builds a fresh argv per run; stdin(ctx) optionally gives the bytes to send (hook payloads);
    before(ctx) snapshots what verify(ctx, calls, snapshot) checks once all runs are done; each(ctx),
    untimed, puts the store back before every run (a command that warms what it found cold)."""

    def __init__(self, name, kind, argv, target, prepare=None, stdin=None, before=None, verify=None, note="",
                 each=None):
        self.name, self.kind, self.argv, self.target = name, kind, argv, target
        self.prepare, self.stdin, self.before, self.verify, self.note = prepare, stdin, before, verify, note
        self.each = each


def _load_argv(ctx):
    return [ctx.python, ctx.script("load_memory.py"), "--project-dir", ctx.project]


def _query_argv(ctx):
    return [ctx.python, ctx.script("load_memory.py"), "--project-dir", ctx.project, "--query",
            "which timeout do the retries use", "--limit", "5", "--json"]


def _record_argv(ctx):
    # --force-surface: the generated sentences are facts; a word such as "still" must not turn a timed
    # write into a refusal (the classifier still runs and is timed).
    return [ctx.python, ctx.script("record_memory.py"), "--project-dir", ctx.project, "--topic", BIG_TOPIC,
            "--force-surface", "--fact", ctx.new_fact()]


def _record_typical_argv(ctx):
    return [ctx.python, ctx.script("record_memory.py"), "--project-dir", ctx.project, "--topic", ctx.typical_topic,
            "--force-surface", "--fact", ctx.new_fact()]


def _hook_argv(event, *flags):
    def argv(ctx):
        return [ctx.python, ctx.script("run_hook.py"), event, "--host", "claude"] + list(flags)
    return argv


def _hook_payload(event, **fields):
    """The payload a host sends, as bytes; cwd is the project, as Codex and Claude Code send it."""
    def payload(ctx):
        ctx.hook_runs = getattr(ctx, "hook_runs", 0) + 1
        # A new session each run: a SessionStart repeated within seconds for one session is answered
        # with a one-line note instead of the memory, which would flatter the figure.
        data = {"session_id": "bench-session-%d" % ctx.hook_runs, "transcript_path": "", "cwd": ctx.project,
                "hook_event_name": event}
        data.update(fields)
        if event == "PostToolUse":  # a new file each run: every run really records
            ctx.hook_files = getattr(ctx, "hook_files", 0) + 1
            data["tool_input"] = {"file_path": os.path.join(ctx.project, "src", "module_%d.py" % ctx.hook_files)}
        return json.dumps(data).encode("utf-8")
    return payload


def _big_count(ctx):
    return len(mstore.read_topic(ctx.store, BIG_TOPIC)[1])


def _verify_record(ctx, calls, expected_before):
    _doc, items = mstore.read_topic(ctx.store, BIG_TOPIC)
    if len(items) != expected_before + calls:
        raise BenchError("record ran %d times but topic %s went from %d to %d items: some runs were "
                         "taken as duplicates, so their timings are not of a real write"
                         % (calls, BIG_TOPIC, expected_before, len(items)))


def _index_module():
    try:
        from memory_core import index
    except ImportError:  # a core without derived caches
        return None
    return index


def _cache_dir(ctx):
    index = _index_module()
    return os.path.join(ctx.store, getattr(index, "CACHE_DIR", os.path.join(mpaths.STATE_DIR, "cache")))


def warm_caches(ctx):
    """The steady state of a store its writers maintain: the derived caches (state/cache/) are
    current. Built with the core's own refresh, as the recorder leaves them after each write."""
    index = _index_module()
    refresh = getattr(index, "refresh_all", None)
    if refresh is not None:
        with mstore.StoreLock(ctx.store):
            refresh(ctx.store)


def wait_for_rebuild(ctx, timeout=30):
    """After a timed SessionStart (ctx.hook_runs), wait until the detached rebuild it started is done
    (the recall index matches every topic) or timeout seconds pass: a rebuild still running would
    load the machine while the next run is timed. A core without a recall index waits for nothing."""
    try:
        from memory_core import recall_index
        from memory_core.cache_files import signature
        from memory_core.paths import topic_items_path
    except ImportError:
        return
    deadline = time.time() + timeout
    while getattr(ctx, "hook_runs", 0) and time.time() < deadline:
        sigs = dict((t, signature(topic_items_path(ctx.store, t))) for t in mstore.list_topics(ctx.store))
        if recall_index.is_current(ctx.store, sigs):
            return
        time.sleep(0.05)


def drop_caches_after_rebuild(ctx):
    """drop_caches, once the previous run's detached rebuild is done (a fresh clone each run)."""
    wait_for_rebuild(ctx)
    drop_caches(ctx)


def touch_one_topic(ctx):
    """A pull that changed one topic: its items.json gets a new signature (the same bytes, a new
    mtime), so its indexes are stale and the others current. Waits for the previous run's rebuild."""
    from memory_core.paths import topic_items_path
    wait_for_rebuild(ctx)
    path = topic_items_path(ctx.store, sorted(mstore.list_topics(ctx.store))[0])
    stamp = time.time() + getattr(ctx, "hook_runs", 0)
    os.utime(path, (stamp, stamp))


def drop_caches(ctx):
    """A fresh clone (state/ is git-ignored) or a store after a pull: no current derived cache.
    Loading never writes, so it stays this way until something records."""
    shutil.rmtree(_cache_dir(ctx), ignore_errors=True)


BENCHES = [
    Bench("load", "time", _load_argv, 2.0, prepare=warm_caches,
          note="load_memory.py, default budget, derived caches current"),
    Bench("record", "time", _record_argv, None, prepare=warm_caches, before=_big_count, verify=_verify_record,
          note="record_memory.py --topic big: a new fact into the 10k-fact topic"),
    Bench("record_typical", "time", _record_typical_argv, None, prepare=warm_caches,
          note="record_memory.py into the topic closest to %d facts (pure-Python matching)" % 300),
    Bench("hook_session_start", "time", _hook_argv("SessionStart"), 2.2, prepare=warm_caches,
          stdin=_hook_payload("SessionStart", source="startup"),
          note="run_hook.py SessionStart: the loader's context as hook JSON, caches current"),
    Bench("hook_post_tool_use", "time", _hook_argv("PostToolUse"), 1.3,
          stdin=_hook_payload("PostToolUse", tool_name="Write", tool_response={"success": True}),
          note="run_hook.py PostToolUse: one touched file into state/session.json"),
    Bench("hook_pre_compact", "time", _hook_argv("PreCompact"), 2.2,
          stdin=_hook_payload("PreCompact", trigger="auto", custom_instructions=""),
          note="run_hook.py PreCompact: the minimal session state saved"),
    Bench("query", "time", _query_argv, 2.5, prepare=warm_caches,
          note="load_memory.py --query, 5 results as JSON, derived caches current"),
    Bench("hook_user_prompt_submit", "time", _hook_argv("UserPromptSubmit", "--prompt-recall"), 2.5,
          prepare=warm_caches, stdin=_hook_payload("UserPromptSubmit", prompt="which timeout do the retries use?"),
          note="run_hook.py UserPromptSubmit, opted in: the prompt's recall, caches current"),
    Bench("load_peak_rss", "rss", _load_argv, 40.0, prepare=warm_caches,
          note="peak RSS of one load_memory.py run, caches current"),
    Bench("hook_session_start_pull", "time", _hook_argv("SessionStart"), 4.0, prepare=warm_caches,
          each=touch_one_topic, stdin=_hook_payload("SessionStart", source="startup"),
          note="run_hook.py SessionStart after a pull that changed one topic: that topic parsed, the others "
               "from their indexes"),
    Bench("hook_session_start_cold", "time", _hook_argv("SessionStart"), 4.0, prepare=drop_caches,
          each=drop_caches_after_rebuild, stdin=_hook_payload("SessionStart", source="startup"), note="run_hook.py SessionStart after a fresh clone or a pull: no derived cache, every items.json "
               "parsed, and what it computed saved for the next start"),
    Bench("load_cold", "time", _load_argv, None, prepare=drop_caches,
          note="load_memory.py with no derived cache (fresh clone, after a pull): every items.json parsed"),
    Bench("load_cold_peak_rss", "rss", _load_argv, None, prepare=drop_caches,
          note="peak RSS of one load_memory.py run with no derived cache"),
]
EXTRA_FACTS_PER_RUN = 1  # new facts pre-generated per timed or warm-up run (record uses one each)


def measure_time(bench, ctx, baseline, runs, warmup):
    snapshot = bench.before(ctx) if bench.before else None
    base, cmd = [], []
    calls = 0
    for i in range(warmup + runs):
        dt_base, code = run_timed(baseline, ctx)
        if code != 0:
            explain_failure("the baseline", baseline, code, ctx)
        argv = bench.argv(ctx)
        data = bench.stdin(ctx) if bench.stdin else None
        if bench.each:
            bench.each(ctx)
        dt_cmd, code = run_timed(argv, ctx, data)
        calls += 1
        if code != 0:
            explain_failure(bench.name, argv, code, ctx, data)
        if i >= warmup:
            base.append(dt_base)
            cmd.append(dt_cmd)
    if bench.verify:
        bench.verify(ctx, calls, snapshot)
    med, med_base = statistics.median(cmd), statistics.median(base)
    ratio = med / med_base
    target = bench.target
    return {"name": bench.name, "kind": "time", "note": bench.note,
            "median_ms": round(med * 1000, 2), "baseline_median_ms": round(med_base * 1000, 2),
            "ratio": round(ratio, 3), "extra_ms": round((med - med_base) * 1000, 2),
            "target": target, "target_text": "<= %.1fx" % target if target is not None else "-",
            "ok": target is None or ratio <= target, "samples_ms": [round(x * 1000, 2) for x in cmd],
            "baseline_samples_ms": [round(x * 1000, 2) for x in base]}


def measure_rss(bench, ctx, baseline):
    import importlib.util
    usable = hasattr(os, "posix_spawn") and importlib.util.find_spec("resource") is not None  # Unix only
    if not usable:
        return {"name": bench.name, "kind": "rss", "note": bench.note, "skipped": "needs resource and "
                "os.posix_spawn (Unix)", "peak_rss_mb": None, "baseline_peak_rss_mb": None, "ratio": None,
                "extra_mb": None, "target": bench.target, "target_text": _mb_target(bench.target), "ok": True}
    code, base_kib = peak_rss_kib(baseline, ctx)
    if code != 0:
        explain_failure("the baseline", baseline, code, ctx)
    argv = bench.argv(ctx)
    code, kib = peak_rss_kib(argv, ctx)
    if code != 0:
        explain_failure(bench.name, argv, code, ctx)
    mb, base_mb = kib / 1024.0, base_kib / 1024.0
    return {"name": bench.name, "kind": "rss", "note": bench.note, "peak_rss_mb": round(mb, 2),
            "baseline_peak_rss_mb": round(base_mb, 2), "ratio": round(mb / base_mb, 3),
            "extra_mb": round(mb - base_mb, 2),
            "target": bench.target, "target_text": _mb_target(bench.target),
            "ok": bench.target is None or mb <= bench.target}


def _mb_target(target):
    return "<= %.0f MB" % target if target is not None else "-"


# --- output ---------------------------------------------------------------------------------------

def print_table(summary):
    rows = [("name", "median", "baseline", "extra", "ratio", "target", "result")]
    for r in summary["results"]:
        if r["kind"] == "time":
            value, base = "%.1f ms" % r["median_ms"], "%.1f ms" % r["baseline_median_ms"]
            extra = "%+.1f ms" % r["extra_ms"]
        elif r.get("skipped"):
            rows.append((r["name"], "n/a", "n/a", "", "", r["target_text"], "skipped"))
            continue
        else:
            value, base = "%.1f MB" % r["peak_rss_mb"], "%.1f MB" % r["baseline_peak_rss_mb"]
            extra = "%+.1f MB" % r["extra_mb"]
        verdict = "info" if r["target"] is None else "ok" if r["ok"] else "MISS"
        rows.append((r["name"], value, base, extra, "%.2fx" % r["ratio"], r["target_text"], verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("  ".join("-" * w for w in widths))
    s = summary["store"]
    print("store: %d facts / %d topics + %s %d facts, %d daily files (%d lines), MEMORY.md %d lines, "
          "items.json %.1f MB; built in %.1f s"
          % (s["facts"], s["topics"], BIG_TOPIC, s["big_topic_facts"], s["daily_files"], s["daily_lines"],
             s["memory_md_lines"], s["items_json_bytes"] / 1e6, summary["build_seconds"]))
    for line in clean_python.describe(summary["interpreter"]):
        print(line)
    print("summary: python=%s executable=%s pyyaml=%s rapidfuzz=%s cpus=%s runs=%d warmup=%d total=%.1fs"
          % (summary["python"], summary["executable"], summary["pyyaml"] or "absent",
             summary["rapidfuzz"] or "absent", summary["cpus"], summary["runs"], summary["warmup"],
             summary["total_seconds"]))


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Every figure is a ratio to a bare interpreter start measured in the same run with the same "
               "clean interpreter (a cached fresh venv's python under %s, or --python), so a slow or busy "
               "machine moves both. Exit 0, or with --check 1 when a target is missed; 2 on a usage or "
               "setup error." % os.path.dirname(clean_python.cache_dir()),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--facts", type=int, default=10000, help="active facts spread over the topics (default %(default)s)")
    p.add_argument("--topics", type=int, default=30, help="number of topics (default %(default)s)")
    p.add_argument("--big-facts", type=int, default=10000,
                   help="facts in the extra topic '%s' that record writes into (default %%(default)s)" % BIG_TOPIC)
    p.add_argument("--days", type=int, default=365, help="daily files of ~20 lines (default %(default)s)")
    p.add_argument("--runs", type=int, default=15, help="timed runs of each command and of the baseline (default %(default)s)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (default %(default)s)")
    p.add_argument("--seed", type=int, default=3, help="random seed of the synthetic store (default %(default)s)")
    p.add_argument("--only", help="comma-separated benchmark names (default: all of %s)"
                   % ", ".join(b.name for b in BENCHES))
    p.add_argument("--keep", metavar="DIR", help="build the project in DIR (new or empty) and keep it")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    p.add_argument("--python", metavar="PATH",
                   help="measure with this interpreter, called by this path, instead of the cached clean venv "
                        "(nothing is installed into it; the output says whether it is clean)")
    args = p.parse_args(argv)
    for name in ("facts", "big_facts", "days"):
        if getattr(args, name) < 0:
            p.error("--%s must be >= 0" % name.replace("_", "-"))
    if args.topics < 1 or args.runs < 1 or args.warmup < 0:
        p.error("--topics and --runs must be >= 1, --warmup >= 0")
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in [b.name for b in BENCHES]]
        if unknown:
            p.error("unknown benchmark(s): %s" % ", ".join(unknown))
        args.only = wanted
    if args.keep and os.path.exists(args.keep) and os.listdir(args.keep):
        p.error("--keep %s: the folder exists and is not empty" % args.keep)
    return args


def _log(message):
    sys.stderr.write("bench: %s\n" % message)
    sys.stderr.flush()


def choose_python(given):
    """(path, clean_python.probe() facts) of the interpreter every command and the baseline run with.
    Says on stderr, before any timing, when the figures will not be of the normal mode."""
    try:
        if given:
            python, info = clean_python.given_python(given)
        else:
            python, info = clean_python.ensure_venv(_log)
    except clean_python.CleanPythonError as exc:
        raise BenchError(str(exc))
    if not info["clean"]:
        _log("WARNING: %s is not a clean interpreter, so the baseline hides start-up costs: %s"
             % (python, "; ".join(info["not_clean_because"])))
    if info["mode"] != "normal":
        _log("WARNING: this run measures the DEGRADED mode: %s missing in %s (%s)" % (
            " and ".join(info["missing"]), python, info.get("install_error") or "not installed"))
    return python, info


def main(argv=None):
    args = parse_args(argv)
    started = time.perf_counter()
    python, interpreter = choose_python(args.python)
    benches = [b for b in BENCHES if not args.only or b.name in args.only]
    work = tempfile.mkdtemp(prefix="m3l-bench-")
    try:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            project = os.path.abspath(args.keep)
        else:
            project = os.path.join(work, "project")
            os.makedirs(project)
        t0 = time.perf_counter()
        new_needed = (args.runs + args.warmup) * EXTRA_FACTS_PER_RUN * len(benches)
        stats, new_facts = build_store(project, args.facts, args.topics, args.days, args.big_facts, args.seed,
                                       new_needed)
        build_seconds = time.perf_counter() - t0
        ctx = Context(python, project, clean_env(), new_facts)
        # Run the skill as a project has it: installed into the project (byte-code cached beside it,
        # as in real use, in the temp project rather than the repository).
        from memory_core import install
        ctx.skill = os.path.join(project, install.HOSTS["claude"].skill_dir)
        install.copy_skill(ctx.skill)
        ctx.typical_topic = stats["typical_topic"]
        baseline = [python, "-c", "pass"]
        results = []
        for bench in benches:
            if bench.prepare:
                bench.prepare(ctx)
            if bench.kind == "time":
                results.append(measure_time(bench, ctx, baseline, args.runs, args.warmup))
            else:
                results.append(measure_rss(bench, ctx, baseline))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    summary = {"python": interpreter["version"], "executable": python, "interpreter": interpreter,
               "clean": interpreter["clean"], "mode": interpreter["mode"],
               "pyyaml": interpreter["deps"].get("pyyaml"), "rapidfuzz": interpreter["deps"].get("rapidfuzz"),
               "cpus": os.cpu_count(), "platform": platform.platform(), "runs": args.runs,
               "warmup": args.warmup, "store": stats, "build_seconds": round(build_seconds, 2),
               "kept": project if args.keep else None, "results": results,
               "all_ok": all(r["ok"] for r in results),
               "total_seconds": round(time.perf_counter() - started, 2)}
    if args.json:
        sys.stdout.write(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    else:
        print_table(summary)
        if args.keep:
            print("kept: %s" % project)
    return 1 if args.check and not summary["all_ok"] else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        sys.stderr.write("bench: %s\n" % exc)
        sys.exit(2)
