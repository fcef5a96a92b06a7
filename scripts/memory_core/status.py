"""What `check_memory_3layer.py` reports: where things are, and three statuses kept apart.

  locate          project root (and how it was found), host, store, legacy store, writability
  artifact_status the skill package (SKILL.md front matter, required files, every .py compiles) and
                  the store files (items.json parse and schema, secrets, orphan superseded_by)
  adapter_status  per host: our handlers in .claude/settings.json / .codex/hooks.json, whether each
                  command resolves to an installed run_hook.py, and for Codex the two trusts, read
                  read-only from $CODEX_HOME/config.toml
  runtime_status  per host and event (runtime_status.py): "verified" only with an ok line in
                  state/hook-runs.jsonl that carries the host's own evidence; else "manual run"

Everything here reads; nothing is ever written (no .pyc either: sources go through compile()).
Every entry is {"level": "ok" | "finding" | "info", "what", "evidence", "fix"?}; a "finding" makes
the check exit 1. "Configured" is never reported as "running".
"""
import hashlib
import json
import os
import re
import sys

from . import install
from .front_matter import parse_front_matter
from .paths import LEGACY_DIRNAME, STORE_DIRNAME, StoreError, resolve_store
from .runtime_status import runtime_status
from .safefs import UnsafePath

ALLOWED_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
REQUIRED_FILES = ("SKILL.md", "LICENSE", "scripts/memory_core/__init__.py", "scripts/load_memory.py",
                  "scripts/record_memory.py", "hooks/run_hook.py", "hooks/install_hooks.py",
                  ".memory-3layer-template/MEMORY.md")
CODEX_DEFAULT_TIMEOUT = 600
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def entry(level, what, evidence, fix=None):
    out = {"level": level, "what": what, "evidence": evidence}
    if fix:
        out["fix"] = fix
    return out


def _summary(entries):
    return "findings" if any(e["level"] == "finding" for e in entries) else "ok"


# --- locate ------------------------------------------------------------------------------------

def _host_from_env(env):
    if env.get("CLAUDECODE") or env.get("CLAUDE_PROJECT_DIR"):
        names = [k for k in ("CLAUDECODE", "CLAUDE_PROJECT_DIR") if env.get(k)]
        return "claude", "environment has %s" % " and ".join(names)
    codex = sorted(k for k in env if k.startswith("CODEX_") and k != "CODEX_HOME")
    if codex:
        return "codex", "environment has %s" % ", ".join(codex[:3])
    return None, "no CLAUDECODE, CLAUDE_PROJECT_DIR or CODEX_* variable in the environment"


def _writable(path):
    """(bool, evidence): the nearest existing folder of path, checked with os.access (nothing written)."""
    probe = path
    while not os.path.isdir(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return False, "no existing folder above %s" % path
        probe = parent
    ok = os.access(probe, os.W_OK | os.X_OK)
    return ok, "%s is %swritable for this user" % (probe, "" if ok else "not ")


def locate(project_dir=None, cwd=None, env=None):
    env = os.environ if env is None else env
    unsafe = None
    try:
        root, store, how = resolve_store(project_dir, cwd=cwd, env=env)
    except UnsafePath as exc:  # the store (or MEMORY_DIR) is a link: reported, never followed
        from .paths import find_project_root, store_relpath
        root, how = find_project_root(project_dir, cwd)
        store, unsafe = os.path.join(root, store_relpath(env)), exc.message
    out = {"root": root, "found_by": how, "store": store, "notes": [], "unsafe": unsafe,
           "store_exists": unsafe is None and os.path.isdir(store)}
    host, evidence = _host_from_env(env)
    configured = [name for name in ("claude", "codex") if _our_handlers(os.path.join(root, install.HOSTS[name].config))[0]]
    out["host"] = host or "manual"
    out["host_evidence"] = evidence + ("; hooks of ours configured for: %s" % ", ".join(configured) if configured
                                       else "; no host config of ours in the project")
    out["configured_hosts"] = configured
    legacy = os.path.join(root, LEGACY_DIRNAME)
    out["legacy"] = legacy if os.path.isdir(legacy) else None
    out["writable"], out["writable_evidence"] = _writable(store)
    ambiguous = None
    if how == "current directory":
        ambiguous = "no %s/ and no git repository above %s: the root is only the current folder" % (STORE_DIRNAME, root)
    elif how == "existing store":
        start = os.path.abspath(cwd or os.getcwd())
        git = start
        while git != os.path.dirname(git) and not os.path.lexists(os.path.join(git, ".git")):
            git = os.path.dirname(git)
        if os.path.lexists(os.path.join(git, ".git")) and git != root and git.startswith(root + os.sep):
            ambiguous = "the store found at %s is above the git repository %s" % (root, git)
    out["ambiguous"] = ambiguous
    return out


# --- artifact_status ---------------------------------------------------------------------------

def check_front_matter(skill_root):
    path = os.path.join(skill_root, "SKILL.md")
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [entry("finding", "SKILL.md", "cannot be read: %s" % exc, "restore SKILL.md from the package")]
    data, error = parse_front_matter(text)
    if error:
        return [entry("finding", "SKILL.md front matter", error, "fix the --- block at the top of SKILL.md")]
    problems = []
    name, description = data.get("name"), data.get("description")
    if name != install.SKILL_NAME:
        problems.append("name is %r, expected %r" % (name, install.SKILL_NAME))
    elif not (1 <= len(name) <= 64 and _NAME_RE.match(name)):
        problems.append("name must be 1-64 chars of a-z, 0-9 and single inner hyphens")
    if not isinstance(description, str) or not 1 <= len(description.strip()) <= 1024:
        problems.append("description must be text of 1-1024 characters")
    elif "<" in description or ">" in description:
        problems.append("description contains < or >")
    extra = sorted(set(data) - set(ALLOWED_KEYS))
    if extra:
        problems.append("top-level keys not allowed: %s (allowed: %s)" % (", ".join(extra), ", ".join(ALLOWED_KEYS)))
    lines = text.count("\n") + 1
    if problems:
        return [entry("finding", "SKILL.md front matter", "; ".join(problems), "edit the front matter of %s" % path)]
    out = [entry("ok", "SKILL.md front matter", "name %s, description %d chars, keys %s (parsed with %s)"
                 % (name, len(description.strip()), ", ".join(sorted(data)), "pyyaml" if _has_yaml() else
                    "the built-in reader"))]
    if lines >= 500:
        out.append(entry("info", "SKILL.md length", "%d lines; under 500 is recommended" % lines))
    return out


def _has_yaml():
    import importlib.util
    return importlib.util.find_spec("yaml") is not None


def check_package(skill_root):
    out = check_front_matter(skill_root)
    missing = [rel for rel in REQUIRED_FILES if not os.path.isfile(os.path.join(skill_root, rel))]
    out.append(entry("finding", "required files", "missing: %s" % ", ".join(missing), "reinstall the skill")
               if missing else entry("ok", "required files", "%d present" % len(REQUIRED_FILES)))
    sources, broken = [], []
    for sub in ("scripts", "hooks"):
        for folder, dirs, files in os.walk(os.path.join(skill_root, sub)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            sources.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))
    for path in sources:
        try:
            with open(path, "rb") as fh:
                compile(fh.read(), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OSError) as exc:
            broken.append("%s: %s" % (os.path.relpath(path, skill_root), exc))
    out.append(entry("finding", "python sources", "do not compile: %s" % "; ".join(broken), "fix the syntax error")
               if broken else entry("ok", "python sources", "%d files under scripts/ and hooks/ compile" % len(sources)))
    return out


def check_store(root, store):
    """Store files: parse, schema, orphans (review.collect, read-only) and secrets in every layer."""
    from . import review
    from . import store as st
    from .config import extra_secret_patterns, read_config
    from .paths import LAYER3_FILE, daily_path, layer3_path
    from .redaction import describe, find_secrets
    out = []
    config, notes = read_config(store)
    for note in notes:
        out.append(entry("finding", "config.yaml", note, "fix config.yaml (or install pyyaml); until then "
                                                         "record, review --apply and migrate refuse to write"))
    try:
        patterns = extra_secret_patterns(config)
        find_secrets("", patterns)
    except ValueError:
        patterns = []  # reported below, where the scan uses them
    facts, problems = review.collect(store)
    from .rendering import masked_line
    for p in problems:
        legacy = "no schema field" in p["evidence"]
        what = "topic %s" % p["path"] if "ids" in p else os.path.join(os.path.basename(store), p["path"])
        if p["kind"] == "security":
            what = "security: " + what
        out.append(entry("info" if legacy else "finding", what, masked_line(p["evidence"], patterns), p["action"]))
    patterns = extra_secret_patterns(config)
    try:
        daily_names = st.list_daily_files(store)
    except st.CorruptFile:
        daily_names = []  # memory/ is a link: a security finding above
    texts = [(LAYER3_FILE, layer3_path(store))]
    texts += [(os.path.join("memory", d), daily_path(store, d[:-3])) for d in daily_names]
    secrets, scanned = [], 0
    for rel, path in texts:
        try:
            text = st.read_text(path)
        except st.CorruptFile as exc:
            if not exc.security:  # a link or special file is already a security finding
                out.append(entry("finding", rel, exc.reason, exc.fix))
            continue
        if text is None:
            continue
        scanned += 1
        try:
            found = find_secrets(text, patterns)
        except ValueError as exc:
            out.append(entry("finding", "config.yaml", "bad secret pattern: %s" % exc, "fix secrets.extra_patterns"))
            return out
        if found:
            secrets.append("%s: %s" % (rel, describe(found)))
    for fact in facts:
        found = find_secrets(fact.get("fact", ""), patterns)
        if found:
            secrets.append("topic %s item %s: %s" % (fact["_topic"], fact.get("id"), ", ".join(f.kind for f in found)))
    out.append(entry("finding", "secrets", "; ".join(secrets[:10]) + (" and %d more" % (len(secrets) - 10)
                                                                        if len(secrets) > 10 else ""),
                     "remove or mask them by hand (the loader masks them, but the files are committed)")
               if secrets else entry("ok", "secrets", "none in %d Markdown file(s) and %d fact(s)" % (scanned, len(facts))))
    from . import git_merge
    missing = git_merge.unregistered(root, store)
    if missing:  # local git config is not cloned: the attributes came with the clone, the driver did not
        out.append(entry("finding", "git merge driver", ".gitattributes routes the store's topic files to the "
                         "memory-3layer merge driver (%s), but this clone's git config does not define it, so a "
                         "merge of two branches' facts will stop with conflicts" % missing[0],
                         "register it: %s (or re-run install_hooks.py in this clone, which changes nothing "
                         "else)" % missing[1]))
    if not [e for e in out if e["level"] == "finding" and e["what"] != "secrets"]:
        out.insert(0, entry("ok", "store files", "%d topic(s) parse (schema %s), %d fact(s), no orphan superseded_by"
                            % (len(st.list_topics(store)), "memory-3layer/items@1", len(facts))))
    return out


# --- adapter_status ----------------------------------------------------------------------------

def _our_handlers(config_path):
    """([(event, group index, handler index, group, handler)], error or None); read-only."""
    if not os.path.isfile(config_path):
        return [], None
    try:
        data = install.read_config(config_path)[0]
    except StoreError as exc:
        return [], exc.message
    # an edited handler of ours counts too (Codex: "modified"); the installer owns only exact ones
    return [h for h in install.handlers(data) if install.runs_our_hook(h[4])], None


def _script_of(command, root):
    """The run_hook.py a command runs, as a path in this project (None when it cannot be told)."""
    match = re.search(r"([^\s\"';]*skills/%s/hooks/run_hook\.py)" % re.escape(install.SKILL_NAME), command)
    if not match:
        return None
    path = match.group(1)
    for var in ("${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "$d", "$PWD"):
        if path.startswith(var + "/"):
            path = path[len(var) + 1:]
    return path if os.path.isabs(path) else os.path.join(root, path)


def codex_home(env=None):
    env = os.environ if env is None else env
    return env.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def read_toml(path):
    """(dict, error). tomllib on 3.11+; else a minimal reader that understands only what the trust
    check needs: [table."quoted key"] headers, `key = "string" | 'literal' | true | false | integer`.
    Arrays, inline tables, multi-line strings and dotted keys on the left are skipped, not read."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, "%s cannot be read: %s" % (path, exc)
    try:
        import tomllib  # novermin: 3.11+ only; older Pythons use _mini_toml below
    except ImportError:
        tomllib = None
    try:
        if tomllib is not None:
            return tomllib.loads(raw.decode("utf-8")), None
        return _mini_toml(raw.decode("utf-8")), None
    except (ValueError, UnicodeDecodeError) as exc:
        return {}, "%s is not valid TOML: %s" % (path, exc)


_TOML_KEY = r'(?:"(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)'


def _toml_key(part):
    part = part.strip()
    if part.startswith('"'):
        return json.loads(part)
    return part.strip("'")


def _mini_toml(text):
    data, table = {}, None
    table = data
    for line in text.split("\n"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and not line.startswith("[["):
            parts = re.findall(_TOML_KEY, line[1:line.rindex("]")])
            table = data
            for part in parts:
                table = table.setdefault(_toml_key(part), {})
            continue
        match = re.match(r"(%s)\s*=\s*(.*)$" % _TOML_KEY, line)
        if not match or table is None:
            continue
        value = match.group(2).strip()
        if value.startswith('"'):
            end = re.match(r'"(?:[^"\\]|\\.)*"', value)
            table[_toml_key(match.group(1))] = json.loads(end.group(0)) if end else value
        elif value.startswith("'"):
            table[_toml_key(match.group(1))] = value[1:value.find("'", 1)]
        elif value.split("#")[0].strip() in ("true", "false"):
            table[_toml_key(match.group(1))] = value.split("#")[0].strip() == "true"
        elif re.match(r"-?\d+\s*(#.*)?$", value):
            table[_toml_key(match.group(1))] = int(value.split("#")[0])
    return data


def _snake(event):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_trust_key_and_hash(hooks_json, event, gi, hi, group, handler):
    """As host-facts.md: key `<abs hooks.json>:<event_snake>:<group>:<handler>`, hash = sha256 of the
    compact sorted-key JSON of {event_name, matcher?, hooks: [handler with effective timeout]}."""
    norm = {"type": handler.get("type", "command"), "command": handler.get("command"),
            "timeout": handler.get("timeout") or CODEX_DEFAULT_TIMEOUT, "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        norm["statusMessage"] = handler["statusMessage"]
    blob = {"event_name": _snake(event), "hooks": [norm]}
    if group.get("matcher") is not None:
        blob["matcher"] = group["matcher"]
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = "%s:%s:%d:%d" % (hooks_json, _snake(event), gi, hi)
    return key, "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_trust(root, handlers, env):
    """Project trust and per-hook trust, read-only from $CODEX_HOME/config.toml."""
    home = codex_home(env)
    cfg_path = os.path.join(home, "config.toml")
    cfg, error = read_toml(cfg_path)
    out = {"config": cfg_path, "error": error}
    projects = cfg.get("projects") if isinstance(cfg.get("projects"), dict) else {}
    candidates = [root, os.path.realpath(root)]
    level = next((projects[p].get("trust_level") for p in candidates
                  if isinstance(projects.get(p), dict)), None)
    out["project"] = "trusted" if level == "trusted" else ("untrusted (%s)" % level if level else "untrusted")
    features = cfg.get("features") if isinstance(cfg.get("features"), dict) else {}
    out["hooks_disabled"] = features.get("hooks") is False or features.get("codex_hooks") is False
    hooks_cfg = cfg.get("hooks") if isinstance(cfg.get("hooks"), dict) else {}
    state = hooks_cfg.get("state") if isinstance(hooks_cfg.get("state"), dict) else {}
    hooks_json = os.path.join(root, install.HOSTS["codex"].config)
    out["hooks"] = {}
    for event, gi, hi, group, handler in handlers:
        status = "untrusted"
        for base in dict.fromkeys((os.path.realpath(hooks_json), os.path.abspath(hooks_json))):
            key, digest = codex_trust_key_and_hash(base, event, gi, hi, group, handler)
            recorded = state.get(key)
            if isinstance(recorded, dict) and recorded.get("trusted_hash"):
                status = "trusted" if recorded["trusted_hash"] == digest else "modified"
                break
        out["hooks"][event] = status
    return out


def _installer():
    """The installer of this copy of the skill, as a command that runs from any folder."""
    return "python3 %s" % os.path.join(install.SOURCE_ROOT, "hooks", "install_hooks.py")


def _legacy_entries(root):
    """Findings for the original skill's hooks in the project's Claude settings; the installer
    replaces them in settings.json and never edits settings.local.json."""
    out = []
    for rel, fix in ((os.path.join(".claude", "settings.json"), "%s --project-dir %s --platform claude (replaces it, "
                      "with a backup)" % (_installer(), root)),
                     (os.path.join(".claude", "settings.local.json"), "remove it from .claude/settings.local.json "
                      "by hand (the installer never edits that file)")):
        try:
            legacy = install.legacy_handlers(install.read_config(os.path.join(root, rel))[0], root)
        except StoreError:
            legacy = []
        out.extend(entry("finding", "claude legacy %s hook" % event, "%s still runs the original memory-3layer's "
                         "`%s`" % (rel, command), fix + "; then migrate_legacy_memory.py") for event, command in legacy)
    return out


def adapter_status(root, env):
    hosts, entries = {}, []
    for name in ("claude", "codex"):
        host = install.HOSTS[name]
        config = os.path.join(root, host.config)
        handlers, error = _our_handlers(config)
        info = {"config": host.config, "configured": bool(handlers), "events": {}}
        hosts[name] = info
        if error:
            entries.append(entry("finding", "%s %s" % (name, host.config), error, "fix the file by hand"))
            info["configured"] = None
            continue
        if name == "claude":  # the original skill's hooks still wired: both memory systems would run
            entries.extend(_legacy_entries(root))
        plugin = install.plugin_enabled_in(root, env) if name == "claude" else []
        if plugin:
            info["plugin"] = plugin
            entries.append(entry("info", "claude plugin", "enabled in %s: its hooks run in every project with a store, "
                                 "unless the project wires its own copy" % ", ".join(plugin)))
        if not handlers:
            what = "not configured" if os.path.isfile(config) or not os.path.isdir(os.path.join(root, host.skill_dir)) \
                else "skill copied but no hooks"
            entries.append(entry("info", name, "%s: no memory-3layer handler in %s" % (what, host.config),
                                 "%s --project-dir %s --platform %s" % (_installer(), root, name)))
            continue
        info["event_names"] = _event_names(handlers)
        for event in info["event_names"]:
            mine = [h for h in handlers if h[0] == event]
            if not mine:
                info["events"][event] = "missing"
                entries.append(entry("finding", "%s %s" % (name, event), "no handler of ours in %s" % host.config,
                                     "re-run %s --project-dir %s --platform %s" % (_installer(), root, name)))
                continue
            script = _script_of(mine[0][4]["command"], root)
            ok = script is not None and os.path.isfile(script)
            info["events"][event] = "configured" if ok else "broken"
            shown = os.path.relpath(script, root) if script else "(no path in the command)"
            entries.append(entry("ok" if ok else "finding", "%s %s" % (name, event),
                                 "configured in %s; command runs %s (%s)" % (host.config, shown, "exists" if ok else "missing"),
                                 None if ok else "re-run %s --project-dir %s --platform %s to copy the skill"
                                 % (_installer(), root, name)))
        target = os.path.join(root, host.skill_dir)
        if os.path.isdir(target) and os.path.abspath(target) != install.SOURCE_ROOT \
                and not install.skill_up_to_date(target):
            entries.append(entry("info", "%s skill copy" % name, "%s differs from this package (%s)"
                                 % (host.skill_dir, install.SOURCE_ROOT),
                                 "re-run %s --project-dir %s --platform %s to update it" % (_installer(), root, name)))
        if name == "codex":
            trust = codex_trust(root, handlers, env)
            info["trust"] = trust
            if trust["error"]:
                entries.append(entry("finding", "codex config.toml", trust["error"], "fix it by hand"))
            entries.append(entry("ok" if trust["project"] == "trusted" else "finding", "codex project trust",
                                 "%s: [projects.\"%s\"] %s" % (trust["config"], root, trust["project"]),
                                 None if trust["project"] == "trusted" else
                                 "start `codex` in %s and accept the trust prompt (or `codex exec --trust`)" % root))
            if trust["hooks_disabled"]:
                entries.append(entry("finding", "codex hooks feature", "[features] turns hooks off in %s"
                                     % trust["config"], "remove `hooks = false` from [features]"))
            for event, status in sorted(trust["hooks"].items()):
                entries.append(entry("ok" if status == "trusted" else "finding", "codex %s hook trust" % event,
                                     "%s ([hooks.state] in %s)" % (status, trust["config"]),
                                     None if status == "trusted" else "in the Codex TUI run /hooks and trust the "
                                     "memory-3layer hooks%s" % (" again (the handler changed)" if status == "modified" else "")))
    return {"status": _summary(entries), "hosts": hosts, "entries": entries}


def _event_names(handlers):
    """The events our hooks should handle: the installer's, and UserPromptSubmit where it was opted in."""
    names = [e for e, _m, _t in install.EVENTS]
    return names + ["UserPromptSubmit"] if any(h[0] == "UserPromptSubmit" for h in handlers) else names


# --- the whole report --------------------------------------------------------------------------

def environment():
    import importlib.util
    from .similarity import rapidfuzz_installed
    rapid, yaml = rapidfuzz_installed(), importlib.util.find_spec("yaml") is not None
    degraded = [n for n, present in (("rapidfuzz", rapid), ("pyyaml", yaml)) if not present]
    return {"python": "%d.%d.%d" % sys.version_info[:3], "python_ok": sys.version_info >= (3, 8),
            "rapidfuzz": rapid, "pyyaml": yaml, "degraded": degraded}


def build_report(project_dir=None, cwd=None, env=None, skill_root=None):
    env = os.environ if env is None else env
    skill_root = skill_root or install.SOURCE_ROOT
    loc = locate(project_dir, cwd, env)
    root, store = loc["root"], loc["store"]
    findings, next_steps = [], []
    loc_entries = []
    if loc["unsafe"]:
        loc_entries.append(entry("finding", "security: store", "SECURITY: %s" % loc["unsafe"],
                                 "remove the link and keep a real %s/ folder in the project" % os.path.basename(store)))
    if loc["ambiguous"]:
        loc_entries.append(entry("finding", "root", "ambiguous: %s; check reports on it, but nothing should be "
                                 "recorded or installed there" % loc["ambiguous"], "pass --project-dir with the project root"))
    if not loc["store_exists"] and not loc["unsafe"]:
        loc_entries.append(entry("finding", "store", "%s does not exist: nothing to load, and hooks neither "
                                 "create it nor write run evidence until it exists" % store,
                                 "record a first fact: python3 %s --project-dir %s --fact TEXT --topic TOPIC "
                                 "(or run hooks/install_hooks.py, which creates it)"
                                 % (os.path.join(skill_root, "scripts", "record_memory.py"), root)))
    if loc["legacy"]:
        loc_entries.append(entry("finding" if not loc["store_exists"] else "info", "legacy",
                                 "%s exists (old layout)" % loc["legacy"],
                                 "scripts/migrate_legacy_memory.py would bring it over: python3 %s --project-dir %s "
                                 "--dry-run, then without --dry-run"
                                 % (os.path.join(skill_root, "scripts", "migrate_legacy_memory.py"), root)))
    if not loc["writable"]:
        loc_entries.append(entry("finding", "writable", "%s: record, install and the hooks will refuse to write; "
                                 "load and check still work" % loc["writable_evidence"],
                                 "run on a writable checkout or fix the permissions"))
    loc["entries"] = loc_entries
    artifacts = check_package(skill_root)
    if loc["store_exists"]:
        artifacts += check_store(root, store)
    adapters = adapter_status(root, env)
    runtime = runtime_status(root, None if loc["unsafe"] else store, adapters)
    env_info = environment()
    env_entries = []
    if env_info["degraded"]:
        env_entries.append(entry("info", "degraded", "%s not installed: %s" % (
            " and ".join(env_info["degraded"]), "review compares wordings with the pure-Python ratio (slower); "
            "config.yaml must be plain JSON"), "pip install -r requirements.txt"))
    if not env_info["python_ok"]:
        env_entries.append(entry("finding", "python", "Python %s; 3.8+ is required" % env_info["python"],
                                 "use Python 3.8 or newer"))
    env_info["entries"] = env_entries
    for section in (loc_entries, artifacts, adapters["entries"], runtime["entries"], env_entries):
        for e in section:
            if e["level"] == "finding":
                findings.append("%s: %s" % (e["what"], e["evidence"]))
            wanted = e["level"] == "finding" or e["what"] in ("legacy", "degraded") or \
                (section is runtime["entries"] and e["level"] == "info")
            if wanted and e.get("fix") and e["fix"] not in next_steps:
                next_steps.append(e["fix"])
    read = [os.path.join(skill_root, "SKILL.md"), os.path.join(skill_root, "scripts"), os.path.join(skill_root, "hooks")]
    read += [p for p in [store] + [os.path.join(root, install.HOSTS[n].config) for n in ("claude", "codex")]
             + [adapters["hosts"]["codex"].get("trust", {}).get("config")] if p and os.path.exists(p)]
    return {"ok": not findings, "action": "check", "locate": loc, "read": read,
            "artifact_status": {"status": _summary(artifacts), "skill_root": skill_root, "entries": artifacts},
            "adapter_status": adapters, "runtime_status": runtime, "environment": env_info,
            "findings": findings, "next": next_steps, "written": []}


def render(report):
    """Human lines: one section per status, each line with its evidence."""
    loc = report["locate"]
    lines = ["locate",
             "  root:     %s (found by %s)" % (loc["root"], loc["found_by"]),
             "  host:     %s (%s)" % (loc["host"], loc["host_evidence"]),
             "  store:    %s (%s)" % (loc["store"], "exists" if loc["store_exists"] else "does not exist"),
             "  legacy:   %s" % (("%s exists: scripts/migrate_legacy_memory.py would bring it over" % loc["legacy"])
                                 if loc["legacy"] else "no .claude/memory/"),
             "  writable: %s (%s)" % ("yes" if loc["writable"] else "no", loc["writable_evidence"])]
    lines += _entry_lines(loc["entries"])
    for key, title in (("artifact_status", "artifact_status"), ("adapter_status", "adapter_status"),
                       ("runtime_status", "runtime_status")):
        lines.append("%s: %s" % (title, report[key]["status"]))
        lines += _entry_lines(report[key]["entries"])
    env = report["environment"]
    lines.append("environment: Python %s, pyyaml %s, rapidfuzz %s%s" % (
        env["python"], "yes" if env["pyyaml"] else "no", "yes" if env["rapidfuzz"] else "no",
        ", degraded mode" if env["degraded"] else ""))
    lines += _entry_lines(env["entries"])
    lines.append("read:     %s" % ", ".join(report["read"]))
    lines.append("written:  nothing (check only reads)")
    if report["next"]:
        lines.append("next steps:")
        lines += ["  %d. %s" % (i + 1, step) for i, step in enumerate(report["next"])]
    lines.append("result:   %s" % ("healthy" if report["ok"] else "%d findings" % len(report["findings"])))
    return lines


def _entry_lines(entries):
    marks = {"ok": "ok     ", "finding": "FINDING", "info": "info   "}
    return ["  %s %s: %s" % (marks[e["level"]], e["what"], e["evidence"]) for e in entries]
