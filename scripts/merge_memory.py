#!/usr/bin/env python3
"""Merge a memory-3layer topic file (items.json) three ways, by id and field by field: the git merge driver.

Git runs it as `merge_memory.py %O %A %B %P` (base, ours, theirs, the path in the repository) and
takes what it leaves in %A. Items of both sides are kept; a field both sides changed follows the
rules in references/merging.md (superseded wins, lists are unioned, a competing supersede is flagged
needs_review). The result does not depend on which side is ours. Exit 0 when merged; 1 when a side
is not valid JSON (then %A is left as it was and git reports a conflict); 2 on a usage error.

  merge_memory.py --resolve [--project-dir P]   after a merge made without the driver: resolve the
                                                store's conflicted files from git's stages, git add them
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=cli.help_formatter(),
                                epilog="Exit codes: 0 merged, 1 a side cannot be merged (named on stderr), "
                                       "2 usage error.")
    p.add_argument("base", nargs="?", help="the common ancestor's file (%%O; empty when both sides added the file)")
    p.add_argument("ours", nargs="?", help="this side's file (%%A): the merged result is written here")
    p.add_argument("theirs", nargs="?", help="the other side's file (%%B)")
    p.add_argument("path", nargs="?", default="", help="the file's path in the repository (%%P), for messages")
    p.add_argument("--resolve", action="store_true",
                   help="resolve the store's files a merge left conflicted (from git's stages 1-3) and stage them")
    p.add_argument("--project-dir", help="with --resolve: the repository (default: the current folder's)")
    return p


def resolve(project_dir):
    from memory_core import merging
    from memory_core.paths import resolve_store
    root, store, _how = resolve_store(project_dir or os.getcwd(), env=os.environ)
    try:
        done, left = merging.resolve(root, os.path.relpath(store, root))
    except (RuntimeError, OSError) as exc:
        sys.stderr.write("merge_memory: cannot read the merge's state in %s (%s); run it inside the "
                         "repository that is being merged.\n" % (root, exc))
        return 2
    for path, what in sorted(done.items()):
        print("%s: %s" % (path, what))
    if left:
        print("still conflicted: %s. Resolve them by hand, `git add` them, then `git commit`." % ", ".join(left))
        return 1
    print("every store file is resolved and staged%s; `git commit` completes the merge."
          % ("" if done else " (none was conflicted)"))
    return 0


def read_side(path, side, name):
    from memory_core.merging import parse_side
    with open(path, "rb") as fh:
        return parse_side(fh.read(), side, name)


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resolve:
        return resolve(args.project_dir)
    if not (args.base and args.ours and args.theirs):
        parser.error("give BASE OURS THEIRS (as git passes %O %A %B), or --resolve")
    from memory_core import merging
    from memory_core import store as st
    name = args.path or args.ours
    try:
        base = read_side(args.base, "base", name)
    except ValueError as exc:
        sys.stderr.write("merge_memory: %s; merged as if both sides added the file\n" % exc)
        base = {}
    try:
        ours, theirs = read_side(args.ours, "our", name), read_side(args.theirs, "their", name)
    except (ValueError, OSError) as exc:
        sys.stderr.write("merge_memory: %s. Nothing was merged: fix that side's file (or take the other with "
                         "`git checkout --ours/--theirs -- %s`), then `git add` it.\n" % (exc, name))
        return 1
    merged = merging.merge_docs(base, ours, theirs)
    topic = merged.get("topic") if isinstance(merged.get("topic"), str) else \
        os.path.basename(os.path.dirname(args.path)) if args.path else ""
    items = merged.pop("items")
    data = st.dump_items(topic, merged, items)
    tmp = args.ours + ".merge-memory.tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, args.ours)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
