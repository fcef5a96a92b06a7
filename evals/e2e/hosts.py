"""Real hosts for the end-to-end tests: find the pinned Claude Code / Codex CLI binaries, run them offline
against the fake APIs (fake_api.py) with a scratch HOME / CODEX_HOME, and set up Codex's two trusts.

Install the hosts (what .ci/run does; the folder is git-ignored):
    npm install --no-audit --no-fund --prefix evals/e2e/.hosts \
        @anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0
or point M3L_HOSTS_DIR at a folder holding node_modules/.bin/{claude,codex}.

Nothing here touches the real HOME or ~/.codex: every run gets HOME, CODEX_HOME, CLAUDE_CONFIG_DIR and
the XDG folders inside a scratch folder, and an environment without the caller's CLAUDE_* / CODEX_* /
ANTHROPIC_* / OPENAI_* / MEMORY_* variables.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path

E2E = Path(__file__).resolve().parent
REPO = E2E.parents[1]
DEFAULT_HOSTS_DIR = E2E / ".hosts"
PINNED = ("@anthropic-ai/claude-code@2.1.197", "@openai/codex@0.171.0")
INSTALL_HINT = ("install the pinned hosts with: npm install --no-audit --no-fund --prefix %s %s "
                "(what .ci/run does), or set M3L_HOSTS_DIR to a folder holding node_modules/.bin/{claude,codex}"
                % (DEFAULT_HOSTS_DIR, " ".join(PINNED)))
RUN_TIMEOUT = 120  # seconds, per host invocation
CODEX_DEFAULT_HOOK_TIMEOUT = 600


def hosts_dirs():
    dirs = []
    if os.environ.get("M3L_HOSTS_DIR"):
        dirs.append(Path(os.environ["M3L_HOSTS_DIR"]).expanduser())
    dirs.append(DEFAULT_HOSTS_DIR)
    return dirs


def find_host(name):
    """Path of the `claude` / `codex` launcher, or None."""
    for d in hosts_dirs():
        for cand in (d / "node_modules" / ".bin" / name, d / "bin" / name, d / name):
            if cand.is_file() and os.access(str(cand), os.X_OK):
                return cand
    return None


def require_host(name):
    """The host's launcher; raises unittest.SkipTest (with how to install) when it cannot run here."""
    if shutil.which("node") is None:
        raise unittest.SkipTest("node is not installed, so %s cannot run; install Node.js 18+ and npm, then %s"
                                % (name, INSTALL_HINT))
    path = find_host(name)
    if path is None:
        if shutil.which("npm") is None:
            raise unittest.SkipTest("npm is not installed and %s is not in %s; %s"
                                    % (name, ", ".join(map(str, hosts_dirs())), INSTALL_HINT))
        raise unittest.SkipTest("%s is not installed in %s; %s"
                                % (name, " or ".join(map(str, hosts_dirs())), INSTALL_HINT))
    return path


# ---------------------------------------------------------------------------------------------- running

def _python3_shim(home):
    """<home>/.m3l-bin holding `python3` -> this interpreter, whatever its file is called."""
    folder = os.path.join(str(home), ".m3l-bin")
    link = os.path.join(folder, "python3")
    if not os.path.lexists(link):
        os.makedirs(folder, exist_ok=True)
        try:
            os.symlink(sys.executable, link)
        except OSError:
            return os.path.dirname(sys.executable)
    return folder


def scratch_env(home, **extra):
    """A minimal environment: the test interpreter's folder first on PATH (so `python3` in hook commands is
    this interpreter), node's folder next, and every home-like location inside `home`."""
    home = str(home)
    path = [_python3_shim(home), os.path.dirname(sys.executable)]
    node = shutil.which("node")
    if node:
        path.append(os.path.dirname(node))
    path += [p for p in os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin").split(os.pathsep) if p]
    seen, ordered = set(), []
    for p in path:
        if p not in seen:
            seen.add(p)
            ordered.append(p)
    env = {
        "PATH": os.pathsep.join(ordered),
        "HOME": home,
        "USER": os.environ.get("USER", "tester"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "SHELL": "/bin/bash",
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
        "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for key in ("PYENV_VERSION", "VIRTUAL_ENV", "SYSTEMROOT"):
        if os.environ.get(key):
            env[key] = os.environ[key]
    env.update({k: str(v) for k, v in extra.items()})
    return env


class Result(object):
    def __init__(self, argv, returncode, stdout, stderr, elapsed, timed_out):
        self.argv, self.returncode, self.stdout, self.stderr = argv, returncode, stdout, stderr
        self.elapsed, self.timed_out = elapsed, timed_out

    def json(self):
        """stdout parsed as one JSON value (Claude's --output-format json), or None."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def describe(self, limit=3000):
        return ("$ %s\nexit %s%s in %.1fs\n--- stdout\n%s\n--- stderr\n%s"
                % (" ".join(self.argv), self.returncode, " (TIMED OUT)" if self.timed_out else "",
                   self.elapsed, self.stdout[-limit:], self.stderr[-limit:]))


def run_bounded(argv, cwd, env, timeout=RUN_TIMEOUT, stdin_text=None):
    """Run argv in its own process group; on timeout the whole group is killed. Never raises for the
    child's failure: returns a Result."""
    start = time.monotonic()
    proc = subprocess.Popen([str(a) for a in argv], cwd=str(cwd), env=env, start_new_session=True,
                            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timed_out = False
    try:
        out, err = proc.communicate(input=stdin_text.encode() if stdin_text is not None else None,
                                    timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = proc.communicate()
    finally:
        try:  # leftovers of the group (hooks, helpers) die with the run
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    return Result([str(a) for a in argv], proc.returncode, out.decode("utf-8", "replace"),
                  err.decode("utf-8", "replace"), time.monotonic() - start, timed_out)


def scratch_git_project(test, prefix, home_name="home"):
    """(tmp, project, home) for a test: a temp folder removed at cleanup, holding a new git project
    and an empty home folder."""
    import tempfile
    tmp = Path(os.path.realpath(tempfile.mkdtemp(prefix=prefix)))
    test.addCleanup(shutil.rmtree, str(tmp), True)
    project, home = tmp / "project", tmp / home_name
    project.mkdir()
    home.mkdir()
    git_init(project, home)
    return tmp, project, home


def git_init(project, home):
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True, timeout=30,
                   env=scratch_env(home))


# ---------------------------------------------------------------------------------------------- Claude Code

def claude_env(home, api_url, **extra):
    return scratch_env(home, ANTHROPIC_API_KEY="dummy", ANTHROPIC_BASE_URL=api_url, CLAUDE_CODE_MAX_RETRIES="0",
                       CLAUDE_CONFIG_DIR=os.path.join(str(home), ".claude"), DISABLE_AUTOUPDATER="1",
                       DISABLE_TELEMETRY="1", DISABLE_ERROR_REPORTING="1",
                       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", **extra)


def run_claude(project, home, api_url, prompt, *args, timeout=RUN_TIMEOUT):
    """claude -p PROMPT --output-format json [args], offline against api_url, scratch HOME."""
    binary = require_host("claude")
    argv = [binary, "-p", prompt, "--output-format", "json"] + list(args)
    return run_bounded(argv, project, claude_env(home, api_url), timeout=timeout)


def claude_transcript(home, session_id):
    """Entries of the session transcript Claude Code keeps under the scratch HOME."""
    root = Path(home) / ".claude" / "projects"
    out = []
    for path in root.glob("*/%s.jsonl" % session_id):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


# ---------------------------------------------------------------------------------------------- Codex

def codex_env(codex_home, **extra):
    return scratch_env(codex_home, CODEX_HOME=str(codex_home), OPENAI_API_KEY="dummy", **extra)


# Model metadata for the fake model, so Codex offers the tools it offers real models (apply_patch as a
# freeform tool; without it a file edit can only go through the shell) and stops warning about it.
CODEX_MODEL_CATALOG = {"models": [{
    "slug": "gpt-fake", "display_name": "gpt-fake", "description": "fake model of the e2e tests",
    "priority": 50, "additional_speed_tiers": [], "service_tiers": [], "availability_nux": None,
    "upgrade": None, "default_reasoning_level": "medium",
    "supported_reasoning_levels": [{"effort": "low", "description": "low"},
                                   {"effort": "medium", "description": "medium"}],
    "shell_type": "shell_command", "visibility": "list", "supported_in_api": True,
    "supports_reasoning_summaries": False, "support_verbosity": False, "apply_patch_tool_type": "freeform",
    "web_search_tool_type": "text", "supports_parallel_tool_calls": False,
    "supports_image_detail_original": False, "experimental_supported_tools": [], "supports_search_tool": False,
    "context_window": 200000, "max_context_window": 200000, "effective_context_window_percent": 95,
    "truncation_policy": {"mode": "tokens", "limit": 10000}, "input_modalities": ["text"],
    "base_instructions": "You are a coding agent."}]}


def write_codex_config(codex_home, api_url, auto_compact_token_limit=None):
    """Scratch $CODEX_HOME/config.toml with the fake Responses API as the only provider (and a model
    catalog for the fake model). auto_compact_token_limit: compact once reported usage passes it."""
    home = Path(codex_home)
    home.mkdir(parents=True, exist_ok=True)
    catalog = home / "model-catalog.json"
    catalog.write_text(json.dumps(CODEX_MODEL_CATALOG, indent=1), encoding="utf-8")
    top = ['model = "gpt-fake"', 'model_provider = "fake"', "model_catalog_json = %s" % json.dumps(str(catalog))]
    if auto_compact_token_limit is not None:
        top.append("model_auto_compact_token_limit = %d" % int(auto_compact_token_limit))
    text = ("\n".join(top) + "\n\n"
            "[model_providers.fake]\n"
            'name = "fake"\n'
            'base_url = "%s/v1"\n'
            'wire_api = "responses"\n'
            'env_key = "OPENAI_API_KEY"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n" % api_url)
    (home / "config.toml").write_text(text, encoding="utf-8")


def run_codex(project, codex_home, prompt, *args, resume=None, timeout=RUN_TIMEOUT):
    """codex exec [args] PROMPT </dev/null (or codex exec resume SESSION PROMPT), scratch CODEX_HOME
    (config from write_codex_config)."""
    binary = require_host("codex")
    argv = [binary, "exec"] + list(args) + (["resume", resume] if resume else []) + [prompt]
    return run_bounded(argv, project, codex_env(codex_home), timeout=timeout)


def codex_thread_id(result):
    """The session (thread) id from `codex exec --json` output, else from the stderr banner."""
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("type") == "thread.started":
                return event.get("thread_id")
    match = re.search(r"session id: ([0-9a-f-]{20,})", result.stderr)
    return match.group(1) if match else None


def codex_trust_project(project, codex_home):
    """`codex exec --trust`: Codex itself records [projects."<abs>"] trust_level = "trusted".
    This is a real run (one model request): call it before the hooks are per-hook trusted, or accept
    that its SessionStart runs."""
    res = run_codex(project, codex_home, "trust this project", "--trust")
    text = (Path(codex_home) / "config.toml").read_text(encoding="utf-8")
    if res.returncode != 0 or "trusted" not in text:
        raise AssertionError("codex exec --trust did not record project trust:\n" + res.describe())
    return res


def _snake(event):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_hook_trust(hooks_json):
    """{key: "sha256:<hex>"} for every handler in a Codex hooks.json, computed as host-facts.md describes:
    key `<abs path to hooks.json>:<event_snake>:<group index>:<handler index>`, hash = sha256 of the compact
    sorted-key JSON of {"event_name", "matcher"?, "hooks": [normalised handler]}, effective timeout 600 by
    default."""
    path = os.path.realpath(str(hooks_json))
    with open(path, encoding="utf-8") as fh:
        config = json.load(fh)
    out = {}
    for event, groups in (config.get("hooks") or {}).items():
        for gi, group in enumerate(groups or []):
            for hi, handler in enumerate(group.get("hooks") or []):
                norm = {"type": handler.get("type", "command"), "command": handler.get("command"),
                        "timeout": handler.get("timeout") or CODEX_DEFAULT_HOOK_TIMEOUT,
                        "async": bool(handler.get("async", False))}
                if handler.get("statusMessage") is not None:
                    norm["statusMessage"] = handler["statusMessage"]
                entry = {"event_name": _snake(event), "hooks": [norm]}
                if group.get("matcher") is not None:
                    entry["matcher"] = group["matcher"]
                blob = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                key = "%s:%s:%d:%d" % (path, _snake(event), gi, hi)
                out[key] = "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
    return out


def codex_trust_hooks(project, codex_home):
    """Write the per-hook trust of <project>/.codex/hooks.json into the scratch $CODEX_HOME/config.toml,
    as the TUI's /hooks review would (test setup only; the skill itself never edits CODEX_HOME)."""
    entries = codex_hook_trust(Path(project) / ".codex" / "hooks.json")
    cfg = Path(codex_home) / "config.toml"
    text = cfg.read_text(encoding="utf-8") if cfg.exists() else ""
    for key, digest in sorted(entries.items()):
        header = "[hooks.state.%s]" % json.dumps(key)
        if header in text:
            text = re.sub(re.escape(header) + r'\ntrusted_hash = "[^"]*"',
                          lambda m: '%s\ntrusted_hash = "%s"' % (header, digest), text)
        else:
            text = text.rstrip("\n") + '\n\n%s\ntrusted_hash = "%s"\n' % (header, digest)
    cfg.write_text(text, encoding="utf-8")
    return entries


# ---------------------------------------------------------------------------------------------- the project side

INSTALLER = REPO / "hooks" / "install_hooks.py"
RECORDER = REPO / "scripts" / "record_memory.py"
CHECKER = REPO / "scripts" / "check_memory_3layer.py"


def run_project_script(script, *args, home, timeout=60):
    """Run one of the skill's scripts with the test interpreter; returns a Result."""
    return run_bounded([sys.executable, str(script)] + [str(a) for a in args], REPO,
                       scratch_env(home), timeout=timeout)


def runtime_status(project, home, codex_home=None):
    """check_memory_3layer.py --json's runtime_status hosts: {host: {event: {"status": ..., ...}}}, with
    CODEX_HOME set for Codex (the check reads its trusts there)."""
    env = scratch_env(home, **({"CODEX_HOME": str(codex_home)} if codex_home else {}))
    res = run_bounded([sys.executable, str(CHECKER), "--project-dir", str(project), "--json"], REPO, env, timeout=60)
    try:
        return json.loads(res.stdout)["runtime_status"]["hosts"]
    except (ValueError, KeyError):
        raise AssertionError("check_memory_3layer.py gave no report:\n" + res.describe())


def install_hooks(project, platform, home, *flags):
    """install_hooks.py, with any extra flags (--with-prompt-recall)."""
    res = run_project_script(INSTALLER, "--project-dir", project, "--platform", platform, "--json", *flags, home=home)
    if res.returncode != 0:
        raise AssertionError("install_hooks.py failed:\n" + res.describe())
    return json.loads(res.stdout)


def record_fact(project, fact, topic, home):
    res = run_project_script(RECORDER, "--project-dir", project, "--fact", fact, "--topic", topic, "--json",
                             home=home)
    if res.returncode != 0:
        raise AssertionError("record_memory.py failed:\n" + res.describe())
    return json.loads(res.stdout)


def hook_runs(project):
    """Parsed lines of <project>/.memory-3layer/state/hook-runs.jsonl ([] when absent)."""
    path = Path(project) / ".memory-3layer" / "state" / "hook-runs.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({"unparsed": line})
    return out


def session_state(project):
    path = Path(project) / ".memory-3layer" / "state" / "session.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def touched_files(project, session_id):
    """Files PostToolUse recorded for a session: state/session.json's files_touched and the lines of
    state/files-touched.jsonl (where PostToolUse appends, lock-free, since the hooks' fast path)."""
    out = []
    entry = ((session_state(project) or {}).get("sessions") or {}).get(session_id) or {}
    out.extend(f for f in entry.get("files_touched") or [] if isinstance(f, str))
    log = Path(project) / ".memory-3layer" / "state" / "files-touched.jsonl"
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("session_id") == session_id:
                out.extend(f for f in rec.get("files") or [] if isinstance(f, str))
    return out
