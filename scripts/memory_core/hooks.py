"""Host lifecycle events, called by hooks/run_hook.py. Each handler imports only what its event needs.

  SessionStart  -> the budgeted loader (session state first after compact/resume)
  PostToolUse   -> files the tool touched, into the session state; nothing else from the payload
  PreCompact    -> the minimal recoverable session state
  UserPromptSubmit -> opt-in (the installer's --with-prompt-recall puts --prompt-recall in the command):
                   the facts most relevant to the prompt not yet given this session; the prompt is
                   never stored; without the opt-in, {}

Nothing from tool_input or tool_response ever becomes a fact: PostToolUse reads only file paths
from tool_input, and no handler calls the recorder.
"""
import os
import time

from . import fastjson
from .paths import StoreError, resolve_store, state_path

EVENTS = ("SessionStart", "PostToolUse", "PreCompact", "UserPromptSubmit")
HOSTS = ("claude", "codex", "manual")
CONTEXT_CAP = 9500          # hosts cap injected context at 10,000 characters; stay under with margin
MAX_PAYLOAD = 10 * 1024 * 1024
HOOK_LOCK_TIMEOUT = 3.0     # a hook never waits long for a busy store
HOOK_RUNS_FILE = "hook-runs.jsonl"
HOOK_RUNS_MAX_BYTES = 256 * 1024  # bounded: the older half is dropped past this size
PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file")


class Skip(Exception):
    """Nothing done, on purpose; the message says why (one line, shown to the user)."""


class NoStore(Exception):
    """No store where the hook looked: it answers {} and writes nothing, not even run evidence."""


class Silent(Exception):
    """Nothing to say, on purpose: the host gets {}, and the run is logged ok with the reason."""

    def __init__(self, reason, store):
        Exception.__init__(self, reason)
        self.reason, self.store = reason, store


NOT_OPTED_IN = "prompt recall not opted in (install_hooks.py --with-prompt-recall)"  # check reads it


def parse_argv(argv):
    """EVENT and options, parsed by hand: argparse would cost every hook run ~6 ms."""
    event, options, rest = None, {}, list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--prompt-recall":
            options["prompt_recall"] = True
        elif arg == "--via-plugin":
            options["via_plugin"] = True
        elif arg in ("--host", "--project-dir") and rest:
            options[arg[2:].replace("-", "_")] = rest.pop(0)
        elif arg.startswith(("--host=", "--project-dir=")):
            key, value = arg[2:].split("=", 1)
            options[key.replace("-", "_")] = value
        elif event is None and not arg.startswith("-"):
            event = arg
    return event, options


def main(argv, usage):
    """Everything run_hook.py does (kept here, where byte-code is cached: the script file itself is
    compiled on every run). Always returns 0 after printing one JSON object."""
    import sys
    started = time.monotonic()
    if argv and argv[0] in ("-h", "--help"):  # a person asked; a host never passes this
        sys.stdout.write(usage)
        return 0
    event, options = parse_argv(argv)
    out, store, host, outcome, reason, session_id = {}, None, options.get("host") or "unknown", "ok", None, None
    payload = {}
    try:
        raw = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read(MAX_PAYLOAD + 1)
        try:
            payload = parse_payload(raw)
        finally:
            host = detect_host(options.get("host"), os.environ, payload)
            session_id = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
        if event is None:
            raise Skip("no event given (expected one of %s)" % ", ".join(EVENTS))
        if event not in EVENTS:
            raise Skip("unknown event %r (expected %s)" % (event[:40], ", ".join(EVENTS)))
        out, store = handle(event, host, payload, os.environ, options.get("project_dir"),
                            options.get("prompt_recall", False), options.get("via_plugin", False))
    except NoStore:
        out = {}  # no store here: hooks never create one, so they stay silent and write nothing
    except Silent as exc:
        out, reason, store = {}, exc.reason, exc.store
    except BaseException as exc:  # fail open: whatever happened, the host gets valid JSON and exit 0
        outcome = "skipped" if isinstance(exc, (Skip, StoreError)) else "error"
        reason = display(str(getattr(exc, "message", None) or exc or type(exc).__name__), limit=300)
        out = {"systemMessage": "memory-3layer: %s %s: %s" % (display((event or "hook")[:40]), outcome, reason)}
        if store is None:
            store = _store_for_log(host, payload, options)
    evidence = host_evidence(host, os.environ, payload) if store is not None else NO_EVIDENCE
    problem = log_run(store, host, (event or "?")[:40], outcome, reason, started, session_id, evidence,
                      "plugin" if options.get("via_plugin") else None)
    if problem:  # a linked log is named, never written through
        out["systemMessage"] = ((out.get("systemMessage") or "memory-3layer:") + " " + display(problem))[:1000]
    sys.stdout.write(fastjson.dumps(out) + "\n")
    return 0


def display(text, limit=None):
    """Text from files or payloads on its way to the host: secrets masked, control characters escaped."""
    from .rendering import masked_line
    return masked_line(text, limit=limit)


def _store_for_log(host, payload, options):
    """Where to log a run that failed before its store was known: an existing store only."""
    try:
        return project_for(host, payload, os.environ, options.get("project_dir"))[1]
    except BaseException:
        return None


def detect_host(explicit, env, payload):
    if explicit in HOSTS:
        return explicit
    if env.get("CLAUDECODE") or env.get("CLAUDE_PROJECT_DIR"):
        return "claude"
    if "turn_id" in payload or "model" in payload or any(k.startswith("CODEX_") for k in env):
        return "codex"
    return "manual"


NO_EVIDENCE = "none"
HOST_EVIDENCE = {"claude": "claude-env", "codex": "codex-transcript"}  # what check_memory_3layer.py trusts


def host_evidence(host, env, payload):
    """What shows that the host named in --host really ran this hook (logged with the run; check reports
    a run without it as a manual run, never as verified). A couple of stat calls, no imports:
      claude  the environment Claude Code gives its hooks, CLAUDECODE=1 and CLAUDE_CODE_SESSION_ID equal
              to the payload's session_id -> "claude-env"
      codex   the payload's transcript_path is a regular file (not a link), named after the payload's
              session_id, under $CODEX_HOME/sessions/ (default ~/.codex) both as written and resolved,
              with no ".." -> "codex-transcript" (Codex 0.171 writes the file before SessionStart)
    Anything else (a payload piped in by hand, another host's environment) -> "none"."""
    session_id = _text(payload, "session_id")
    if not session_id or len(session_id) > 200:
        return NO_EVIDENCE
    try:
        if host == "claude" and env.get("CLAUDECODE") == "1" and env.get("CLAUDE_CODE_SESSION_ID") == session_id:
            return HOST_EVIDENCE["claude"]
        if host == "codex" and len(session_id) >= 8 and _codex_transcript(env, _text(payload, "transcript_path"),
                                                                         session_id):
            return HOST_EVIDENCE["codex"]
    except (OSError, ValueError, TypeError):
        pass
    return NO_EVIDENCE


def _codex_transcript(env, path, session_id):
    if not path or "\x00" in path or len(path) > 4096 or not os.path.isabs(path):
        return False
    if os.pardir in path.replace("\\", "/").split("/") or session_id not in os.path.basename(path):
        return False
    home = env.get("CODEX_HOME") or (os.path.join(env["HOME"], ".codex") if env.get("HOME") else None)
    if not home:
        return False
    sessions = os.path.join(os.path.abspath(home), "sessions")
    real_sessions = os.path.realpath(sessions)
    written = os.path.normpath(path)
    if not any(written.startswith(s + os.sep) for s in (sessions, real_sessions)):
        return False  # a link elsewhere that leads into sessions/ is not Codex's path
    if not os.path.realpath(path).startswith(real_sessions + os.sep):
        return False  # a link inside sessions/ that leads out of it
    return os.path.isfile(path) and not os.path.islink(path)


def parse_payload(raw):
    """The payload as a dict; Skip when it is too large, not UTF-8, not JSON or not an object."""
    if len(raw) > MAX_PAYLOAD:
        raise Skip("payload over %d MB ignored" % (MAX_PAYLOAD // (1024 * 1024)))
    if not raw.strip():
        return {}
    try:
        payload = fastjson.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Skip("payload is not valid JSON")
    if not isinstance(payload, dict):
        raise Skip("payload is not a JSON object")
    return payload


def _text(payload, key):
    value = payload.get(key)
    return value if isinstance(value, str) else None


def project_for(host, payload, env, project_dir=None):
    """(root, store) of an EXISTING store for a hook; hooks never create one. The start is
    --project-dir, else CLAUDE_PROJECT_DIR, else the payload's cwd, each used only when absolute and
    not the file-system root; from there it walks up to the nearest store. NoStore when none of
    them leads to one (a relative or missing cwd is ignored, never resolved against our folder)."""
    from .paths import find_project_root, store_relpath
    for start in (project_dir, env.get("CLAUDE_PROJECT_DIR"), _text(payload, "cwd")):
        if not start or not isinstance(start, str) or "\x00" in start or len(start) > 4096:
            continue
        if project_dir is not None and start is project_dir:
            start = os.path.abspath(start)  # a flag given by hand may be relative to where it ran
        if not os.path.isabs(start) or os.path.dirname(os.path.normpath(start)) == os.path.normpath(start):
            continue
        if not os.path.isdir(start):
            continue
        root, how = find_project_root(cwd=start, store_name=store_relpath(env))
        if how != "existing store" or os.path.dirname(root) == root:
            continue  # no store at or above start (or only one at the file-system root)
        home = installed_project()
        if home is not None and not (root == home or root.startswith(home.rstrip(os.sep) + os.sep)):
            continue  # a copy installed in one project never acts on another project's store
        root, store, _how = resolve_store(project_dir=root, env=env)  # UnsafePath for a linked store
        return root, store
    raise NoStore()


PROJECT_HOOK = "/.claude/skills/memory-3layer/hooks/run_hook.py"
PROJECT_RUN_HOOK = "$CLAUDE_PROJECT_DIR" + PROJECT_HOOK  # the script install_hooks.py's Claude commands run


def project_wires_its_own(root):
    """True when the project's Claude settings run its own installed copy (install_hooks.py): the
    plugin's hooks then step aside, so each event runs once and the per-project install wins."""
    if not os.path.isfile(root + PROJECT_HOOK):
        return False
    from .safefs import UnsafePath, read_bytes
    for name in ("settings.json", "settings.local.json"):
        try:
            raw = read_bytes(os.path.join(root, ".claude", name), 16 * 1024 * 1024)
        except (OSError, UnsafePath):
            continue  # a linked or special file is not a wiring we trust
        if raw and PROJECT_RUN_HOOK.encode() in raw:
            return True
    return False


def installed_project():
    """The project this code is installed in (<project>/.claude|.agents/skills/memory-3layer/), or
    None when it runs from a checkout of the skill itself."""
    here = os.path.dirname(os.path.abspath(__file__))  # .../skills/memory-3layer/scripts/memory_core
    skill = os.path.dirname(os.path.dirname(here))
    skills = os.path.dirname(skill)
    host_dir = os.path.dirname(skills)
    if os.path.basename(skills) == "skills" and os.path.basename(host_dir) in (".claude", ".agents"):
        return os.path.dirname(host_dir)
    return None


def handle(event, host, payload, env, project_dir=None, prompt_recall=False, via_plugin=False):
    """Run one event; returns the JSON object to print. Raises Skip or StoreError to fail open."""
    root, store = project_for(host, payload, env, project_dir)
    if via_plugin and project_wires_its_own(root):
        raise NoStore()  # its own copy's hooks run for this event; the plugin's would run them twice
    if event == "UserPromptSubmit":
        if not prompt_recall:
            raise Silent(NOT_OPTED_IN, store)
        return user_prompt_submit(store, payload), store
    if event == "SessionStart":
        return session_start(root, store, host, payload, env), store
    if event == "PostToolUse":
        return post_tool_use(root, store, host, payload), store
    if event == "PreCompact":
        return pre_compact(root, store, host, payload), store
    raise Skip("unknown event %r" % event)


REPEAT_WINDOW = 10  # seconds: a second SessionStart of one session this soon, with no compaction
                    # between, repeats the same context (Codex fires resume and compact together)


def _recent_start(store, session_id):
    """Time of this session's last SessionStart when it ran within REPEAT_WINDOW seconds and no
    PreCompact of the session came after it; else None."""
    if not session_id:
        return None
    from . import jsonlog
    for run in reversed(jsonlog.read(state_path(store, HOOK_RUNS_FILE), needle=session_id, tail_bytes=16384)):
        if run.get("session_id") != session_id:
            continue
        if run.get("event") == "PreCompact":
            return None
        if run.get("event") == "SessionStart" and run.get("outcome") == "ok":
            from .store import epoch_seconds
            when = epoch_seconds(str(run.get("time")))
            return run["time"] if when is not None and 0 <= time.time() - when <= REPEAT_WINDOW else None
    return None


def session_start(root, store, host, payload, env):
    previous = _recent_start(store, _text(payload, "session_id"))
    if previous:
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext":
                "[memory-3layer] The project memory was loaded for this session at %s (above); not repeated."
                % previous}}
    from .config import extra_secret_patterns, load_settings, read_config
    from .loading import load_context
    config, notes = read_config(store)
    settings = load_settings(config, {}, env)
    settings["max_chars"] = min(settings["max_chars"], CONTEXT_CAP)
    preamble = None
    if _text(payload, "source") in ("compact", "resume"):
        from .session import preamble as session_preamble
        preamble = session_preamble(store, _text(payload, "session_id"))
    patterns = extra_secret_patterns(config)
    touched = ()
    if _text(payload, "session_id") and _text(payload, "source") in ("compact", "resume"):
        from .session import files_touched
        touched = files_touched(store, _text(payload, "session_id"))
    parsed = {}
    text, report = load_context(root, store, settings, preamble=preamble, extra_patterns=patterns, notes=notes,
                                touched=touched, parsed=parsed)
    # Files changed since they were indexed or scanned (a clone, a pull, a hand edit): a detached
    # process rebuilds what is stale; only where it cannot start is what this load computed saved here.
    spawned = ((report.get("stale") or parsed.get("topics") or _recall_index_stale(store, parsed.get("sigs")))
               and _warm_later(store))
    if report.get("stale") and not spawned:
        _warm_indexes(store, patterns, parsed)
    _note_given_at_start(store, _text(payload, "session_id"), report)
    out = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    problems = ["%s (%s)" % (s["path"], s["reason"]) for s in report.get("skipped") or ()] + report["notes"]
    if problems:
        out["systemMessage"] = display("memory-3layer: skipped %s" % "; ".join(problems))
    return out


def _warm_indexes(store, patterns, parsed):
    """Where no detached rebuild could start: save what the load computed so the next start is fast
    again (index.save_parsed: no file parsed twice, no judgement keys computed). Only when the store
    lock is free at once: a hook never waits for this."""
    from . import index
    from . import store as st
    try:
        with st.StoreLock(store, timeout=0):
            index.save_parsed(store, parsed, patterns)
    except (StoreError, OSError):
        pass


WARM_CODE = ("import sys; sys.path.insert(0, sys.argv[1]); from memory_core.hooks import warm_all; "
             "warm_all(sys.argv[2])")


def _warm_later(store):
    """Rebuild the judgement keys (state/cache/dedup/) and the recall index (state/cache/recall/) in a
    detached process: the session starts now, and a later record, query or prompt recall finds them
    current instead of computing them (seconds on 100,000 facts). The process shares no pipe with
    the host (its standard streams are /dev/null), so the host does not wait for it. True when it
    started. os.posix_spawn where there is one: importing subprocess alone costs a start ~10 ms."""
    import sys
    scripts = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    argv = [sys.executable or "python3", "-c", WARM_CODE, scripts, store]
    try:
        if hasattr(os, "posix_spawn"):
            null = os.devnull
            os.posix_spawn(argv[0], argv, os.environ, setsid=True, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0), (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0)])
            return True
        import subprocess
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         close_fds=True, cwd=store,
                         creationflags=0x00000008 | 0x00000200)  # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
        return True
    except (OSError, ValueError, TypeError):
        return False  # then the caller saves what it can, and writers rebuild the rest


def _recall_index_stale(store, sigs):
    """Whether the store's recall index (recall_index.py) misses a topic as it is now; sigs: every
    topic's signature, as the load found them."""
    from . import recall_index
    return bool(sigs) and not recall_index.is_current(store, sigs)


def warm_all(store):
    """The detached rebuild: every stale index of the store, only when the lock is free at once."""
    from . import index
    from . import store as st
    from .config import extra_secret_patterns, read_config
    try:
        with st.StoreLock(store, timeout=0):
            index.refresh_all(store, extra_secret_patterns(read_config(store)[0]))
    except Exception:  # noqa: BLE001 (nobody reads this process's output; a cache is only speed)
        pass


def touched_paths(root, cwd, tool_input):
    """Project-relative paths named in a tool's input: file keys, and apply_patch headers. Paths
    outside the project are dropped."""
    found = []
    if isinstance(tool_input, dict):
        for key in PATH_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str):
                found.append(value)
        for key in ("paths", "files"):
            values = tool_input.get(key)
            if isinstance(values, list):
                found.extend(v for v in values if isinstance(v, str))
        for key in ("input", "patch", "command"):
            value = tool_input.get(key)
            if isinstance(value, list):
                value = "\n".join(v for v in value if isinstance(v, str))
            if isinstance(value, str) and "*** " in value:
                found.extend(_patch_paths(value))
    elif isinstance(tool_input, str) and "*** " in tool_input:
        found.extend(_patch_paths(tool_input))
    out = []
    real_root = os.path.realpath(root)
    for raw in found[:200]:
        if not raw or "\x00" in raw or len(raw) > 4096:
            continue
        full = os.path.realpath(os.path.join(cwd, os.path.expanduser(raw)))
        rel = os.path.relpath(full, real_root)
        if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
            continue
        rel = rel.replace(os.sep, "/")
        if rel not in out:
            out.append(rel)
    return out


def _patch_paths(text):
    paths = []
    for line in text.split("\n"):
        for marker in ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "):
            if line.startswith(marker):
                paths.append(line[len(marker):].strip())
    return paths


def _session_id(payload):
    """Writes belong to a session: a payload without a text session_id is not acted on."""
    session_id = _text(payload, "session_id")
    if not session_id or len(session_id) > 200:
        raise Skip("payload has no usable session_id; nothing saved")
    return session_id


def post_tool_use(root, store, host, payload):
    cwd = _text(payload, "cwd") or root
    paths = touched_paths(root, cwd if os.path.isabs(cwd) and os.path.isdir(cwd) else root, payload.get("tool_input"))
    if not paths:
        return {}
    from .session import note_touched
    session_id = _session_id(payload)
    note_touched(store, session_id, paths)
    return {}


def pre_compact(root, store, host, payload):
    from . import store as st
    from .config import extra_secret_patterns, read_config
    from .session import last_user_request, save_compaction
    trigger = _text(payload, "trigger") or "unknown"
    session_id = _session_id(payload)
    request = last_user_request(_text(payload, "transcript_path"))
    config, notes = read_config(store)
    with st.StoreLock(store, timeout=HOOK_LOCK_TIMEOUT):
        save_compaction(store, session_id, host, trigger, st.utc_now(), last_request=request,
                        extra_patterns=extra_secret_patterns(config))
    return {"systemMessage": display("memory-3layer: " + "; ".join(notes))} if notes else {}


PROMPT_CAP = 2000       # characters a prompt's recall may add
PROMPT_FACTS = 5        # facts at most
# per session, by a hash of its id; under cache_files.CACHE_DIR, spelled out: PostToolUse imports no cache_files
PROMPT_GIVEN_DIR = os.path.join("state", "cache", "prompt-given")


def user_prompt_submit(store, payload):
    """The facts most relevant to the prompt that this hook has not given in this session, at most
    PROMPT_FACTS and PROMPT_CAP characters, masked and fenced; {} when none scores well (shares a
    tool, family or concept with the prompt, or two words, and scores at least half the best). The
    prompt is never written anywhere; the ids given are, under a hash of the session id."""
    from . import recall
    prompt = _text(payload, "prompt")
    if not prompt.strip():
        return {}
    found = recall.search(store, prompt[:4000], PROMPT_FACTS * 3)
    best = max([f["by_keys"] for f in found] or [0.0])
    found = [f for f in found if f["by_keys"] >= best / 2 and
             (len(f["keys"]) >= 2 or any(k.startswith(("F:", "E:", "C:")) for k in f["keys"]))]
    given_path = _given_path(store, _text(payload, "session_id"))
    given = _read_given(store, given_path)
    found = [f for f in found if f["id"] not in given][:PROMPT_FACTS]
    if not found:
        return {}
    from .config import extra_secret_patterns, read_config
    config, _notes = read_config(store)
    text = recall.render(found, extra_secret_patterns(config), "relevant to this prompt", limit=PROMPT_CAP)
    shown = [f["id"] for f in found if "[%s]" % f["id"] in text]
    if given_path:
        _write_given(store, given_path, sorted(given | set(shown)))
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}


def _note_given_at_start(store, session_id, report):
    """Where the prompt hook is in use (its folder exists), the facts this start showed, in any
    layer (a promoted fact's line in MEMORY.md, a trail line, a Layer 1 fact), count as given in the
    session, so a prompt does not bring them again."""
    if not session_id or not os.path.isdir(os.path.join(store, PROMPT_GIVEN_DIR)):
        return
    shown = set(report.get("shown_ids") or ())
    if shown:
        rel = _given_path(store, session_id)
        _write_given(store, rel, sorted(_read_given(store, rel) | shown))


def _given_path(store, session_id):
    if not session_id:
        return None
    from .similarity import sha256  # the builtin digest: hashlib would load OpenSSL first
    return os.path.join(PROMPT_GIVEN_DIR, sha256(session_id.encode("utf-8")).hexdigest()[:32] + ".txt")


def _read_given(store, rel):
    from .cache_files import read_cache
    text = read_cache(store, rel) if rel else None
    return set(text.split()) if text else set()


PROMPT_GIVEN_KEEP = 200  # sessions whose given ids are kept; the least recently written go first


def _write_given(store, rel, ids):
    from .cache_files import write_cache
    from .safefs import UnsafePath, list_dir
    try:
        write_cache(store, rel, ("\n".join(ids) + "\n").encode("utf-8"))
        folder = os.path.join(store, PROMPT_GIVEN_DIR)
        names = [n for n in list_dir(folder, store) if n.endswith(".txt")]
        if len(names) > PROMPT_GIVEN_KEEP:  # bounded: a session long gone needs no list
            by_age = sorted(names, key=lambda n: os.lstat(os.path.join(folder, n)).st_mtime_ns)
            for name in by_age[:len(names) - PROMPT_GIVEN_KEEP]:
                os.unlink(os.path.join(folder, name))
    except (OSError, StoreError, UnsafePath):
        pass  # not remembered: the same facts may be given again, nothing worse


def log_run(store, host, event, outcome, reason, started, session_id=None, evidence=NO_EVIDENCE, via=None):
    """Append one line to state/hook-runs.jsonl: the runtime evidence that hooks really run, with
    `evidence` (host_evidence) saying whether the host itself ran it, and `via` "plugin" for a run of
    the Claude Code plugin's hooks (no project config holds them). Never raises: a hook that cannot
    log still answers its host; returns why, for a link or a special file in the way (None otherwise)."""
    if store is None:
        return None
    record = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": host, "event": event,
              "outcome": outcome, "evidence": evidence,
              "duration_ms": int((time.monotonic() - started) * 1000)}
    if reason:
        record["reason"] = reason
    if session_id:
        record["session_id"] = session_id[:100]
    if via:
        record["via"] = via
    from .safefs import UnsafePath
    try:
        from . import jsonlog
        jsonlog.append(state_path(store, HOOK_RUNS_FILE), record, HOOK_RUNS_MAX_BYTES, store)
    except UnsafePath as exc:
        return "run not logged: %s" % exc.message
    except (OSError, StoreError):
        pass
    return None
