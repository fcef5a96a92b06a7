"""Installing the skill into a project and wiring host hooks, without touching anything not ours.

Ownership is explicit (as pre-commit does it): a copied skill folder carries INSTALL_MARKER, and a
hook handler is ours when its command runs `skills/memory-3layer/hooks/run_hook.py`. Configs are
merged, never overwritten: foreign hooks and keys keep their values and order, invalid JSON is
refused untouched, the previous file is backed up under the store's state/, re-running changes
nothing, and uninstall removes exactly our handlers and our copied skill.
"""
import difflib
import filecmp
import json
import os
import shutil

from . import __version__
from . import store as st
from .paths import StoreError, state_path

SKILL_NAME = "memory-3layer"
INSTALL_MARKER = ".installed-by-memory-3layer"
COPIED = ("SKILL.md", "LICENSE", "scripts", "hooks", "references", ".memory-3layer-template")
RUN_HOOK_TAIL = "skills/%s/hooks/run_hook.py" % SKILL_NAME
GITIGNORE_LINE = ".memory-3layer/state/"
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (event, matcher or None, timeout seconds)
EVENTS = (("SessionStart", "startup|resume|clear|compact", 30), ("PostToolUse", None, 10),
          ("PreCompact", "manual|auto", 30))
# opt-in (--with-prompt-recall): the facts relevant to each prompt; kept by a later install, removed by uninstall
PROMPT_RECALL = ("UserPromptSubmit --prompt-recall", None, 10)


class Host(object):
    def __init__(self, name, skill_dir, config, command):
        self.name, self.skill_dir, self.config, self.command = name, skill_dir, config, command


def _claude_command(event):
    # Claude Code sets CLAUDE_PROJECT_DIR for every hook, whatever the session's cwd.
    return 'python3 "$CLAUDE_PROJECT_DIR/.claude/skills/%s/hooks/run_hook.py" %s --host claude' % (SKILL_NAME, event)


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


def is_ours(handler):
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) \
        and RUN_HOOK_TAIL in handler["command"]


def our_groups(host, prompt_recall=False):
    groups = []
    for event, matcher, timeout in EVENTS + ((PROMPT_RECALL,) if prompt_recall else ()):
        group = {}
        if matcher:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": host.command(event), "timeout": timeout}]
        groups.append((event.split(" ")[0], group))
    return groups


# --- config files ------------------------------------------------------------------------------

def read_config(path):
    """(parsed object, raw text or None, indent). Refuses anything we could not merge safely."""
    from .safefs import read_bytes
    raw = read_bytes(path, 16 * 1024 * 1024)  # UnsafePath (exit 2) for a linked config: never written through
    if raw is None:
        return {}, None, 2
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise StoreError("%s is not valid JSON (%s); nothing was written" % (path, exc),
                         fix="fix the file by hand (or move it away), then run the installer again",
                         exit_code=1, path=path)
    if not isinstance(data, dict):
        raise StoreError("%s holds a JSON %s, not an object; nothing was written" % (path, type(data).__name__),
                         fix="make the top level a JSON object, then run the installer again", exit_code=1, path=path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise StoreError("%s has a \"hooks\" value this installer cannot merge into; nothing was written" % path,
                         fix="\"hooks\" must map event names to lists of matcher groups", exit_code=1, path=path)
    return data, text, _indent_of(text)


def _indent_of(text):
    for line in text.split("\n")[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return "\t" if line[0] == "\t" else len(line) - len(stripped)
    return 2


def merged_config(data, host, prompt_recall=False):
    """A copy of data with our groups added (once); foreign content keeps its order."""
    out = json.loads(json.dumps(data))
    hooks = out.setdefault("hooks", {})
    for event, group in our_groups(host, prompt_recall):
        groups = hooks.setdefault(event, [])
        wanted = group["hooks"][0]
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks") or [] if is_ours(h)]
        if present == [wanted] and any(g == group for g in groups):
            continue
        _strip_ours(groups)  # an older or edited handler of ours is replaced, not duplicated
        groups.append(group)
    return out


def _strip_ours(groups):
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = [h for h in group["hooks"] if not is_ours(h)]
        if len(kept) != len(group["hooks"]):
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)


def stripped_config(data):
    """A copy of data without our handlers; containers left empty by that removal are dropped."""
    out = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        before = len(hooks[event])
        _strip_ours(hooks[event])
        if before and not hooks[event]:
            del hooks[event]
    if not hooks and "hooks" in data and data["hooks"]:
        del out["hooks"]
    return out


def dump_config(data, indent):
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def diff_text(path, old_text, new_text):
    return "".join(difflib.unified_diff((old_text or "").splitlines(True), new_text.splitlines(True),
                                        "a/" + path, "b/" + path))


# --- the skill folder --------------------------------------------------------------------------

def _marker_path(folder):
    return os.path.join(folder, INSTALL_MARKER)


def check_skill_target(target):
    """Refuse a folder of our name that this installer did not make."""
    if os.path.islink(target):
        raise StoreError("%s is a symbolic link; refusing to replace it" % target,
                         fix="remove the link or install by hand", exit_code=1, path=target)
    if os.path.exists(target) and not os.path.isfile(_marker_path(target)):
        raise StoreError("cowardly refusing to replace %s: it was not installed by memory-3layer's installer "
                         "(no %s inside)" % (target, INSTALL_MARKER),
                         fix="move that folder away (or delete it if it is an old manual copy), then run "
                             "the installer again", exit_code=1, path=target)


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
    with open(os.path.join(staging, ".gitignore"), "w") as fh:  # the copy is committed; byte-code is not
        fh.write("__pycache__/\n*.pyc\n")
    with open(_marker_path(staging), "w") as fh:
        json.dump({"name": SKILL_NAME, "version": __version__, "installed_by": "hooks/install_hooks.py"}, fh)
        fh.write("\n")
    old = None
    if os.path.exists(target):
        old = os.path.join(parent, ".%s.old-%d" % (SKILL_NAME, os.getpid()))
        os.rename(target, old)
    os.rename(staging, target)
    if old:
        shutil.rmtree(old, ignore_errors=True)


# --- the whole job -----------------------------------------------------------------------------

def plan(root, platform, uninstall, prompt_recall=False, git_merge=True, store=None):
    """What to do, as a list of steps; nothing is written. Raises StoreError on a refusal. git_merge:
    in a git repository, wire the merge driver too (git_merge.py)."""
    hosts = [HOSTS[p] for p in (("claude", "codex") if platform == "both" else (platform,)) if p in HOSTS]
    steps = []
    for host in hosts:
        target = os.path.join(root, host.skill_dir)
        config_path = os.path.join(root, host.config)
        data, text, indent = read_config(config_path)
        new = stripped_config(data) if uninstall else merged_config(data, host, prompt_recall)
        if uninstall and new == {} and data != {}:
            steps.append(("remove-config", host.config, data, text))  # it held only our hooks
        elif new != data or (text is None and not uninstall):
            steps.append(("config", host.config, data, text, dump_config(new, indent)))
        if uninstall:
            if os.path.exists(target):
                check_skill_target(target)
                steps.append(("remove-skill", host.skill_dir))
        else:
            check_skill_target(target)
            if os.path.abspath(target) != SOURCE_ROOT and not skill_up_to_date(target):
                steps.append(("copy-skill", host.skill_dir))
    if platform == "manual" and not uninstall:
        target = os.path.join(root, MANUAL_SKILL_DIR)
        check_skill_target(target)
        if os.path.abspath(target) != SOURCE_ROOT and not skill_up_to_date(target):
            steps.append(("copy-skill", MANUAL_SKILL_DIR))
    if not uninstall:
        gitignore = os.path.join(root, ".gitignore")
        current = st.read_text(gitignore) or ""
        if GITIGNORE_LINE not in [l.strip() for l in current.split("\n")]:
            steps.append(("gitignore", ".gitignore", current))
    if git_merge:
        from . import git_merge as gm
        skill = MANUAL_SKILL_DIR if platform == "manual" else hosts[0].skill_dir
        steps.extend(gm.plan(root, store or os.path.join(root, ".memory-3layer"), os.path.join(root, skill), uninstall))
    return steps


def apply(root, store, steps):
    """Carry out planned steps under the store lock; returns what was written, one line each."""
    done = []
    if not os.path.isdir(store):
        with st.StoreLock(store):
            st.init_store(store)
        done.append("created %s/ from the template" % os.path.relpath(store, root))
    with st.StoreLock(store):
        stamp = st.utc_now().strftime("%Y%m%dT%H%M%SZ")
        for step in steps:
            kind, rel = step[0], step[1]
            path = os.path.join(root, rel)
            if kind in ("config", "remove-config"):
                old_text = step[3]
                if old_text is not None:
                    name = "%s.%s" % (rel.replace(os.sep, "-").lstrip(".-"), stamp)
                    backup = state_path(store, os.path.join("backups", name))
                    n = 1
                    while os.path.exists(backup):
                        n += 1
                        backup = state_path(store, os.path.join("backups", "%s.%d" % (name, n)))
                    st.atomic_write_bytes(backup, old_text.encode("utf-8"))
                    done.append("backed up %s to %s" % (rel, os.path.relpath(backup, root)))
                if kind == "config":
                    st.atomic_write_bytes(path, step[4].encode("utf-8"))
                    done.append("wrote %s" % rel)
                else:
                    os.unlink(path)
                    _remove_empty_parents(root, path)
                    done.append("removed %s (it held only memory-3layer hooks)" % rel)
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
    return done


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
