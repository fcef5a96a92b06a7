"""Wiring the merge driver (merge_memory.py) into a git repository: two attribute lines in the
project's .gitattributes, which git commits and every clone shares, and the driver's command in the
repository's local config, which git never clones (references/merging.md).

The installer adds both when the project is in a git repository (install_hooks.py --no-git-merge
leaves them out), uninstall removes exactly them, and check_memory_3layer.py reports a clone whose
attributes name the driver while its config lacks it, with the one command that registers it.
"""
import os
import subprocess

from .paths import _walk_up

DRIVER = "memory-3layer"
HEAD = "# memory-3layer: merge the memory store by fact id (references/merging.md)"
DRIVER_NAME = "memory-3layer: merge items.json by fact id"


def repo_top(root):
    """The work tree root of the git repository holding root (a linked worktree's too), or None."""
    return _walk_up(os.path.abspath(root), ".git")


def attribute_lines(root, store):
    rel = os.path.relpath(store, root).replace(os.sep, "/")
    return [HEAD, "%s/areas/topics/*/items.json merge=%s" % (rel, DRIVER), "%s/memory/*.md merge=union" % rel]


def driver_command(top, skill_dir):
    """The driver's command: the project's copy of merge_memory.py by its path from the work tree
    root, where git runs drivers, so the same line serves every worktree holding the copy."""
    script = os.path.relpath(os.path.join(skill_dir, "scripts", "merge_memory.py"), top).replace(os.sep, "/")
    return "python3 %s %%O %%A %%B %%P" % script


def run_git(top, *args):
    """git's CompletedProcess in the repository at top, or None when git cannot be run."""
    try:
        return subprocess.run(["git", "-C", top] + list(args), capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None


def registered(top):
    """The driver's command in the repository's config, "" when absent, None when git cannot tell."""
    proc = run_git(top, "config", "--get", "merge.%s.driver" % DRIVER)
    if proc is None or proc.returncode not in (0, 1):  # no git, or not a repository git can read
        return None
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def _read(path):
    from . import store as st
    return st.read_text(path) or ""


def plan(root, store, skill_dir, uninstall):
    """Steps (as install.plan's) for .gitattributes and the local git config; [] outside git."""
    top = repo_top(root)
    if top is None:
        return []
    steps, path = [], os.path.join(root, ".gitattributes")
    current = _read(path)
    ours = attribute_lines(root, store)
    lines = current.split("\n")
    if uninstall:
        kept = [line for line in lines if line not in ours]
        if kept != lines:
            text = "\n".join(kept)
            steps.append(("gitattributes", ".gitattributes", current, "" if not text.strip() else text))
        if registered(top):
            steps.append(("git-unconfig", top))
        return steps
    missing = [line for line in ours if line not in lines]
    if missing:
        sep = "" if not current or current.endswith("\n") else "\n"
        steps.append(("gitattributes", ".gitattributes", current, current + sep + "\n".join(missing) + "\n"))
    command = driver_command(top, skill_dir)
    if registered(top) not in (command, None):
        steps.append(("git-config", top, command))
    return steps


def apply(root, step):
    """Carry out one step; returns the line that says what was done."""
    from . import store as st
    kind = step[0]
    if kind == "gitattributes":
        path = os.path.join(root, ".gitattributes")
        if step[3]:
            st.atomic_write_bytes(path, step[3].encode("utf-8"))
            return "wrote the merge driver's lines into .gitattributes"
        os.unlink(path)
        return "removed .gitattributes (it held only memory-3layer's lines)"
    top = step[1]
    if kind == "git-config":
        for key, value in (("name", DRIVER_NAME), ("driver", step[2])):
            proc = run_git(top, "config", "--local", "merge.%s.%s" % (DRIVER, key), value)
            if proc is None or proc.returncode != 0:
                return ("could not register the merge driver (git config failed); by hand: %s"
                        % register_command(step[2]))
        return "registered the merge driver in %s's git config: %s" % (top, step[2])
    run_git(top, "config", "--local", "--remove-section", "merge.%s" % DRIVER)
    return "removed the merge driver from %s's git config" % top


def describe(step):
    if step[0] == "gitattributes":
        return "would write .gitattributes (the merge driver's lines)" if step[3] else "would remove .gitattributes"
    if step[0] == "git-config":
        return "would register the merge driver in the repository's git config: %s" % step[2]
    return "would remove the merge driver from the repository's git config"


def register_command(command):
    return "git config merge.%s.driver '%s'" % (DRIVER, command)


def unregistered(root, store):
    """(the attribute line naming the driver, a command that registers it) when .gitattributes routes
    the store's files to the driver and this clone's config does not define it; else None."""
    top = repo_top(root)
    if top is None:
        return None
    line = attribute_lines(root, store)[1]
    if line not in _read(os.path.join(root, ".gitattributes")).split("\n"):
        return None
    if registered(top) != "":
        return None  # registered, or git cannot tell
    from .install import HOSTS
    for host in ("claude", "codex"):
        skill = os.path.join(root, HOSTS[host].skill_dir)
        if os.path.isdir(skill):
            return line, register_command(driver_command(top, skill))
    return line, register_command("python3 <skill>/scripts/merge_memory.py %O %A %B %P")
