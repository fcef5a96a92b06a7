"""Installing the skill into a project and wiring host hooks, without touching anything not ours.

Ownership is explicit (as pre-commit does it): a copied skill folder carries INSTALL_MARKER (a
hand-made copy identical to this release is adopted), and a hook handler is ours only when its
command is one this installer generates (OUR_COMMANDS, or an earlier release's PAST_COMMANDS).
Configs are edited in place (install_configs.py): foreign hooks and keys keep their bytes, invalid
JSON is refused untouched, the previous file is backed up under the store's state/, re-running
changes nothing, and uninstall puts back the exact original bytes when the file is as we left it
(state/installs.json says which backup holds them), else removes exactly our handlers.
"""
import filecmp
import json
import os
import shlex
import shutil
import stat

from . import __version__
from . import store as st
from .install_configs import (diff_text, edit_text, manifest_entry, new_file_text, original_text,  # noqa: F401
                              read_config, read_manifest, sha, write_manifest)  # (status uses read_config)
from .paths import StoreError, state_path

SKILL_NAME = "memory-3layer"
INSTALL_MARKER = ".installed-by-memory-3layer"
COPIED = ("SKILL.md", "LICENSE", "scripts", "hooks", "references", ".memory-3layer-template")
RUN_HOOK_TAIL = "skills/%s/hooks/run_hook.py" % SKILL_NAME
GITIGNORE_LINE = ".memory-3layer/state/"
COPY_GITIGNORE = "__pycache__/\n*.pyc\n"  # the copy is committed; byte-code is not
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (event, matcher or None, timeout seconds)
EVENTS = (("SessionStart", "startup|resume|clear|compact", 30), ("PostToolUse", None, 10),
          ("PreCompact", "manual|auto", 30))
# opt-in (--with-prompt-recall): the facts relevant to each prompt; kept by a later install, removed by uninstall
PROMPT_RECALL = ("UserPromptSubmit --prompt-recall", None, 10)
# The hooks of the original memory-3layer skill (wired in .claude/settings.json as `python
# .claude/hooks/<script>`): replaced by ours unless --keep-legacy-hooks, their files never touched.
LEGACY_HOOK_SCRIPTS = ("memory_loader.py", "memory_extractor.py", "pre_compact.py")
_PROJECT_DIR_VARS = ("$CLAUDE_PROJECT_DIR/", "${CLAUDE_PROJECT_DIR}/", "./")


class Host(object):
    def __init__(self, name, skill_dir, config, command):
        self.name, self.skill_dir, self.config, self.command = name, skill_dir, config, command


# The command strings are pinned (evals/test_install.py): Codex trusts a hook by a sha256 of its
# command, so any change makes every user's hooks "modified" and Codex skips them silently. A
# change must move the old template into PAST_COMMANDS, so an upgrade still knows it as ours.

def _claude_command(event):
    # Claude Code sets CLAUDE_PROJECT_DIR for every hook, whatever the session's cwd. The plugin's
    # hooks look for this path in a project's settings to step aside (hooks.project_wires_its_own).
    from .hooks import PROJECT_RUN_HOOK
    return 'python3 "%s" %s --host claude' % (PROJECT_RUN_HOOK, event)


def _codex_command(event):
    # Codex runs hooks in the session's cwd, which may be a subfolder: walk up to the skill. When it
    # is not found, answer {} and exit 0 so the session goes on.
    script = ".agents/skills/%s/hooks/run_hook.py" % SKILL_NAME
    return ("sh -c 'd=$PWD; while [ ! -f \"$d/%s\" ] && [ -n \"$d\" ]; do d=${d%%/*}; done; "
            "if [ -f \"$d/%s\" ]; then exec python3 \"$d/%s\" %s --host codex; else echo {}; fi'"
            % (script, script, script, event))


HOSTS = {
    "claude": Host("claude", os.path.join(".claude", "skills", SKILL_NAME), os.path.join(".claude", "settings.json"),
                   _claude_command),
    "codex": Host("codex", os.path.join(".agents", "skills", SKILL_NAME), os.path.join(".codex", "hooks.json"),
                  _codex_command),
}
MANUAL_SKILL_DIR = os.path.join(".agents", "skills", SKILL_NAME)
EVENT_ARGS = tuple(e for e, _m, _t in EVENTS + (PROMPT_RECALL,))
# Commands earlier releases generated, as (host, template with %s for the event): none yet, the
# commands have not changed since the first release.
PAST_COMMANDS = ()
OUR_COMMANDS = frozenset(HOSTS[h].command(e) for h in HOSTS for e in EVENT_ARGS)


def plugin_enabled_in(root, env):
    """The settings files (user, project, local) whose enabledPlugins turn on a memory-3layer plugin
    (`memory-3layer@<marketplace>`: true). `claude --plugin-dir` leaves no trace in any file."""
    from .safefs import UnsafePath, read_bytes
    home = env.get("HOME")
    paths = ([os.path.join(home, ".claude", "settings.json")] if home else []) + \
        [os.path.join(root, ".claude", name) for name in ("settings.json", "settings.local.json")]
    found = []
    for path in paths:
        try:
            data = json.loads((read_bytes(path, 16 * 1024 * 1024) or b"{}").decode("utf-8"))
        except (OSError, UnsafePath, ValueError, UnicodeDecodeError):
            continue
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(plugins, dict) and any(isinstance(k, str) and k.split("@")[0] == SKILL_NAME and v is True
                                             for k, v in plugins.items()):
            found.append(path)
    return found


def past_commands():
    return frozenset(template % e for _host, template in PAST_COMMANDS for e in EVENT_ARGS)


def is_ours(handler):
    """Exactly a command we generate (now or in an earlier release); a look-alike is not ours."""
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and (command in OUR_COMMANDS or command in past_commands())


def runs_our_hook(handler):
    """Any command naming a memory-3layer run_hook.py: what check reports, never what we remove."""
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) \
        and RUN_HOOK_TAIL in handler["command"]


def is_legacy(handler, root=None):
    """A handler running one of the original skill's .claude/hooks scripts, directly or through a
    python interpreter: `python .claude/hooks/memory_loader.py`, `"$CLAUDE_PROJECT_DIR"/.claude/...`."""
    command = handler.get("command") if isinstance(handler, dict) else None
    if not isinstance(command, str) or handler.get("type", "command") != "command":
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    segments, current = [], []
    for word in words:  # `cd "$CLAUDE_PROJECT_DIR" && python3 .claude/hooks/...` runs the last part
        if word in ("&&", ";", "||"):
            segments.append(current)
            current = []
        elif not word.startswith("-"):
            current.append(word)
    return any(_runs_legacy_script(seg, root) for seg in segments + [current])


def _runs_legacy_script(words, root):
    program = os.path.basename(words[0]) if words else ""
    if len(words) > 1 and (program == "py" or program.startswith("python")):
        words = words[1:]
    if not words:
        return False
    script = words[0]
    for prefix in _PROJECT_DIR_VARS + ((root.rstrip("/") + "/",) if root else ()):
        if script.startswith(prefix):
            script = script[len(prefix):]
            break
    return any(script == ".claude/hooks/" + name for name in LEGACY_HOOK_SCRIPTS)


def handlers(data):
    """(event, group index, handler index, group, handler) for every handler in a config."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for gi, group in enumerate(groups if isinstance(groups, list) else ()):
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                for hi, handler in enumerate(group["hooks"]):
                    yield event, gi, hi, group, handler


def legacy_handlers(config_data, root=None):
    """[(event, command)] of the original skill's hooks still wired in a Claude config."""
    return [(event, h["command"]) for event, _gi, _hi, _g, h in handlers(config_data) if is_legacy(h, root)]


def our_groups(host, prompt_recall=False):
    groups = []
    for event, matcher, timeout in EVENTS + ((PROMPT_RECALL,) if prompt_recall else ()):
        group = {}
        if matcher:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": host.command(event), "timeout": timeout}]
        groups.append((event.split(" ")[0], group))
    return groups


# --- config data ---------------------------------------------------------------------------------

def merged_config(data, host, prompt_recall=False, drop_legacy_of=None):
    """A copy of data with our groups added (once); foreign content keeps its order. drop_legacy_of:
    the project root, to also drop the original skill's handlers (Claude only)."""
    out = json.loads(json.dumps(data))
    hooks = out.setdefault("hooks", {})
    if drop_legacy_of:
        for event in list(hooks):
            if _strip(hooks[event], lambda h: is_legacy(h, drop_legacy_of)) and not hooks[event]:
                del hooks[event]
    for event, group in our_groups(host, prompt_recall):
        groups = hooks.setdefault(event, [])
        wanted = group["hooks"][0]
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h)]
        if present == [wanted] and any(g == group for g in groups):
            continue
        _strip(groups, is_ours)  # an older or edited handler of ours is replaced, not duplicated
        groups.append(group)
    return out


def _strip(groups, drop):
    """Remove the handlers drop() picks from a list of groups (a group left empty goes); True if any."""
    removed = False
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = [h for h in group["hooks"] if not drop(h)]
        if len(kept) != len(group["hooks"]):
            removed = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return removed


def stripped_config(data):
    """A copy of data without our handlers; containers left empty by that removal are dropped."""
    out = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        before = len(hooks[event])
        _strip(hooks[event], is_ours)
        if before and not hooks[event]:
            del hooks[event]
    if not hooks and "hooks" in data and data["hooks"]:
        del out["hooks"]
    return out


def _codex_trust_pairs(data):
    """The (key, hash) Codex records when our handlers are trusted: a change means re-trusting."""
    from .status import codex_trust_key_and_hash
    return {codex_trust_key_and_hash("hooks.json", e, gi, hi, g, h)
            for e, gi, hi, g, h in handlers(data) if is_ours(h)}


# --- the skill folder --------------------------------------------------------------------------

def _marker_path(folder):
    return os.path.join(folder, INSTALL_MARKER)


def check_skill_target(target):
    """None when target is absent or ours; "adopt" for a hand-made copy identical to this release;
    anything else at our name is refused."""
    if os.path.islink(target):
        raise StoreError("%s is a symbolic link; refusing to replace it" % target,
                         fix="remove the link or install by hand", exit_code=1, path=target)
    if not os.path.exists(target) or os.path.isfile(_marker_path(target)):
        return None
    differs = hand_copy_differences(target)
    if not differs:
        return "adopt"
    raise StoreError("cowardly refusing to replace %s: it was not installed by memory-3layer's installer "
                     "(no %s inside) and is not a copy of this release (%s)"
                     % (target, INSTALL_MARKER, "; ".join(differs)),
                     fix="move that folder away (or delete it if it is an old manual copy), then run "
                         "the installer again", exit_code=1, path=target)


def hand_copy_differences(target, limit=5000):
    """Why a folder without our marker is not an unmodified copy of this source tree ([] when it is):
    SKILL.md names memory-3layer, and every file (byte-code aside) is a regular file identical to
    the file at the same path here; files may be missing (a copy without evals/ is adopted, and so
    is one with it). Only this release is matched: an older copy differs and is refused."""
    from .safefs import read_regular
    from .front_matter import parse_front_matter
    skill_md = os.path.join(target, "SKILL.md")
    try:
        raw = None if os.path.islink(skill_md) else read_regular(skill_md, 65536)
        front = parse_front_matter(raw.decode("utf-8"))[0] if raw else None
    except (OSError, UnicodeDecodeError):
        front = None
    if not isinstance(front, dict) or front.get("name") != SKILL_NAME:
        return ["its SKILL.md does not say name: %s" % SKILL_NAME]
    differs, seen = [], 0
    for folder, dirs, files in os.walk(target):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, target)
            seen += 1
            if seen > limit:
                return differs + ["more than %d files" % limit]
            if name.endswith(".pyc") and not os.path.islink(path):
                continue
            if not _same_regular_file(path, os.path.join(SOURCE_ROOT, rel), rel):
                differs.append("%s differs" % rel)
                if len(differs) >= 5:
                    return differs + ["..."]
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    return differs


def _same_regular_file(path, source, rel):
    try:
        mine = os.lstat(path)
        if not stat.S_ISREG(mine.st_mode):
            return False
        if rel == ".gitignore":  # the one file our installer writes into a copy
            with open(path, "rb") as fh:
                if fh.read(len(COPY_GITIGNORE) + 1) == COPY_GITIGNORE.encode():
                    return True
        theirs = os.lstat(source)
        return stat.S_ISREG(theirs.st_mode) and mine.st_size == theirs.st_size \
            and filecmp.cmp(path, source, shallow=False)
    except OSError:
        return False


def adopt_skill(target):
    """Write our marker into a hand-made copy (checked identical to this release), making it ours."""
    st.atomic_write_bytes(_marker_path(target), _marker_bytes(adopted=True))


def _marker_bytes(adopted=False):
    data = {"name": SKILL_NAME, "version": __version__, "installed_by": "hooks/install_hooks.py"}
    if adopted:
        data["adopted"] = "a hand-made copy identical to this release"
    return (json.dumps(data) + "\n").encode()


def skill_up_to_date(target):
    if not os.path.isfile(_marker_path(target)) or not os.path.isfile(os.path.join(target, ".gitignore")):
        return False
    for name in COPIED:
        src, dst = os.path.join(SOURCE_ROOT, name), os.path.join(target, name)
        if not os.path.exists(src):
            continue
        if os.path.isdir(src):
            if not os.path.isdir(dst) or not _same_tree(src, dst):
                return False
        elif not os.path.isfile(dst) or not filecmp.cmp(src, dst, shallow=False):
            return False
    return True


def _same_tree(a, b):
    cmp = filecmp.dircmp(a, b, ignore=["__pycache__"])
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _match, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(_same_tree(os.path.join(a, d), os.path.join(b, d))
                                               for d in cmp.common_dirs)


def copy_skill(target):
    """Copy the skill to target, replacing an older copy of ours by a swap of two renames."""
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    staging = os.path.join(parent, ".%s.new-%d" % (SKILL_NAME, os.getpid()))
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in COPIED:
        src = os.path.join(SOURCE_ROOT, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(staging, name), ignore=ignore)
        elif os.path.isfile(src):
            shutil.copy2(src, os.path.join(staging, name))
    with open(os.path.join(staging, ".gitignore"), "w") as fh:
        fh.write(COPY_GITIGNORE)
    with open(_marker_path(staging), "wb") as fh:
        fh.write(_marker_bytes())
    old = None
    if os.path.exists(target):
        old = os.path.join(parent, ".%s.old-%d" % (SKILL_NAME, os.getpid()))
        os.rename(target, old)
    os.rename(staging, target)
    if old:
        shutil.rmtree(old, ignore_errors=True)


# --- the whole job -----------------------------------------------------------------------------

def plan(root, platform, uninstall, prompt_recall=False, git_merge=True, store=None, keep_legacy=False):
    """What to do, as a list of steps; nothing is written. Raises StoreError on a refusal. git_merge:
    in a git repository, wire the merge driver too (git_merge.py). keep_legacy: leave the original
    skill's Claude hooks wired."""
    store = store or os.path.join(root, ".memory-3layer")
    hosts = [HOSTS[p] for p in (("claude", "codex") if platform == "both" else (platform,)) if p in HOSTS]
    manifest = read_manifest(store) if os.path.isdir(store) else {}
    steps = []
    for host in hosts:
        steps.extend(_config_steps(root, store, host, uninstall, prompt_recall, keep_legacy, manifest))
    skills = [h.skill_dir for h in hosts] + ([MANUAL_SKILL_DIR] if platform == "manual" and not uninstall else [])
    for rel in skills:
        target = os.path.join(root, rel)
        if uninstall and not os.path.exists(target):
            continue
        if check_skill_target(target) == "adopt":
            steps.append(("adopt-skill", rel))
        if uninstall:
            steps.append(("remove-skill", rel))
        elif os.path.abspath(target) != SOURCE_ROOT and not skill_up_to_date(target):
            steps.append(("copy-skill", rel))
    if not uninstall:
        gitignore = os.path.join(root, ".gitignore")
        current = st.read_text(gitignore) or ""
        if GITIGNORE_LINE not in [l.strip() for l in current.split("\n")]:
            steps.append(("gitignore", ".gitignore", current))
    if git_merge:
        from . import git_merge as gm
        skill = MANUAL_SKILL_DIR if platform == "manual" else hosts[0].skill_dir
        steps.extend(gm.plan(root, store, os.path.join(root, skill), uninstall))
    return steps


def _config_steps(root, store, host, uninstall, prompt_recall, keep_legacy, manifest):
    rel = host.config
    key = rel.replace(os.sep, "/")
    data, text, _style = read_config(os.path.join(root, rel))
    steps = []
    if uninstall:
        entry = manifest.get(key)
        original = original_text(store, entry) if entry and entry.get("written_sha256") == sha(text) else False
        if original is not False:  # the file is as we left it: its bytes from before install come back
            return [("restore-config", rel, data, text, original)]
        new = stripped_config(data)
        if new == {} and data != {}:
            return [("remove-config", rel, data, text)]  # it held only our hooks
        new_text = edit_text(text, data, new)
        return [("config", rel, data, text, new_text, None)] if new_text != text else []
    legacy = legacy_handlers(data, root) if host.name == "claude" else []
    new = merged_config(data, host, prompt_recall, drop_legacy_of=None if keep_legacy else root)
    new_text = new_file_text(new) if text is None else edit_text(text, data, new)
    if new_text != text:
        steps.append(("config", rel, data, text, new_text, key))
    shown = "; ".join("%s `%s`" % (event, command) for event, command in legacy)
    if legacy and keep_legacy:
        steps.append(("note", rel, "kept the original memory-3layer's hooks (--keep-legacy-hooks): %s. Both "
                      "memory systems now run in Claude Code" % shown))
    elif legacy:
        steps.append(("note", rel, "replaced the original memory-3layer's hooks in %s: %s (the previous file "
                      "is in the backup). Their scripts in .claude/hooks/ and the old memory in .claude/memory/ "
                      "were left in place: bring its facts over with scripts/migrate_legacy_memory.py "
                      "(--dry-run first), then delete them by hand" % (rel, shown)))
    for _e, _gi, _hi, _g, handler in handlers(new):
        if runs_our_hook(handler) and not is_ours(handler):
            steps.append(("note", rel, "kept a handler in %s that runs a memory-3layer run_hook.py but is not a "
                          "command this installer writes: `%s`. Remove it by hand if it duplicates ours"
                          % (rel, handler["command"])))
    if host.name == "codex":
        before = _codex_trust_pairs(data)
        if before - _codex_trust_pairs(new):
            steps.append(("note", rel, "the memory-3layer handlers in %s changed (an upgrade or a move): Codex "
                          "now sees them as modified and skips them until they are trusted again: in the Codex "
                          "TUI run /hooks and trust them" % rel))
    return steps


def apply(root, store, steps):
    """Carry out planned steps under the store lock; returns what was written, one line each."""
    done = []
    if not os.path.isdir(store):
        with st.StoreLock(store):
            st.init_store(store)
        done.append("created %s/ from the template" % os.path.relpath(store, root))
    with st.StoreLock(store):
        manifest, changed = read_manifest(store), False
        stamp = st.utc_now().strftime("%Y%m%dT%H%M%SZ")
        for step in steps:
            kind, rel = step[0], step[1]
            path = os.path.join(root, rel)
            if kind in ("config", "remove-config", "restore-config"):
                backup = _backup(root, store, rel, step[3], stamp, done)
                key = rel.replace(os.sep, "/")
                holds_ours = any(is_ours(h) for _e, _gi, _hi, _g, h in handlers(step[2]))
                entry = manifest_entry(manifest, key, step[3], holds_ours, backup, step[4]) \
                    if kind == "config" and step[5] else None
                changed = changed or key in manifest or entry is not None
                manifest.pop(key, None)
                if entry is not None:
                    manifest[key] = entry
                if kind == "config":
                    st.atomic_write_bytes(path, step[4].encode("utf-8"))
                    done.append("wrote %s" % rel)
                elif kind == "restore-config" and step[4] is not None:
                    st.atomic_write_bytes(path, step[4].encode("utf-8"))
                    done.append("restored %s to its exact bytes from before the install" % rel)
                else:
                    os.unlink(path)
                    _remove_empty_parents(root, path)
                    done.append("removed %s (%s)" % (rel, "it held only memory-3layer hooks" if kind == "remove-config"
                                                     else "it did not exist before the install"))
            elif kind == "note":
                done.append(step[2])
            elif kind == "adopt-skill":
                adopt_skill(path)
                done.append("adopted %s/: a hand-made copy identical to this release (wrote %s)" % (rel, INSTALL_MARKER))
            elif kind == "copy-skill":
                copy_skill(path)
                done.append("copied the skill to %s/" % rel)
            elif kind == "remove-skill":
                shutil.rmtree(path)
                _remove_empty_parents(root, path)
                done.append("removed %s/" % rel)
            elif kind in ("gitattributes", "git-config", "git-unconfig"):
                from . import git_merge
                done.append(git_merge.apply(root, step))
            elif kind == "gitignore":
                current = step[2]
                sep = "" if not current or current.endswith("\n") else "\n"
                st.atomic_write_bytes(path, (current + sep + GITIGNORE_LINE + "\n").encode("utf-8"))
                done.append("added %s to .gitignore" % GITIGNORE_LINE)
        if changed:
            write_manifest(store, manifest)
    return done


def _backup(root, store, rel, old_text, stamp, done):
    """Save a config's current bytes under state/backups/; returns "backups/<name>" (None: no file)."""
    if old_text is None:
        return None
    name = "%s.%s" % (rel.replace(os.sep, "-").lstrip(".-"), stamp)
    backup, n = state_path(store, os.path.join("backups", name)), 1
    while os.path.lexists(backup):
        n += 1
        backup = state_path(store, os.path.join("backups", "%s.%d" % (name, n)))
    st.atomic_write_bytes(backup, old_text.encode("utf-8"))
    done.append("backed up %s to %s" % (rel, os.path.relpath(backup, root)))
    return "backups/" + os.path.basename(backup)


def _remove_empty_parents(root, path):
    """Folders the installer made (.claude/skills, .agents, .codex) go when nothing else is in them."""
    parent = os.path.dirname(path)
    while os.path.abspath(parent) != os.path.abspath(root):
        try:
            os.rmdir(parent)
        except OSError:
            return
        parent = os.path.dirname(parent)


def describe(root, steps):
    """Human lines (and diffs) for --dry-run."""
    lines = []
    for step in steps:
        kind, rel = step[0], step[1]
        if kind == "config":
            lines.append("would write %s:" % rel)
            lines.append(diff_text(rel, step[3], step[4]).rstrip("\n"))
        elif kind == "restore-config":
            lines.append("would %s %s (as it was before the install):" % ("restore" if step[4] is not None
                                                                        else "remove", rel))
            lines.append(diff_text(rel, step[3], step[4]).rstrip("\n"))
        elif kind == "note":
            lines.append("would have: " + step[2])
        elif kind == "adopt-skill":
            lines.append("would adopt %s/ (a hand-made copy identical to this release)" % rel)
        elif kind == "copy-skill":
            lines.append("would copy the skill to %s/" % rel)
        elif kind == "remove-skill":
            lines.append("would remove %s/" % rel)
        elif kind == "remove-config":
            lines.append("would remove %s (it holds only memory-3layer hooks)" % rel)
        elif kind == "gitignore":
            lines.append("would add %s to .gitignore" % GITIGNORE_LINE)
        elif kind in ("gitattributes", "git-config", "git-unconfig"):
            from . import git_merge
            lines.append(git_merge.describe(step))
    return lines
