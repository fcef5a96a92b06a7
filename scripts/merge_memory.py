#!/usr/bin/env python3
"""Merge a memory-3layer topic file (items.json) three ways, by id and field by field: the git merge driver.

Git runs it as `merge_memory.py %O %A %B %P` (base, ours, theirs, the path in the repository) and
takes what it leaves in %A. Items of both sides are kept; a field both sides changed follows the
rules in references/merging.md (superseded wins, lists are unioned, a competing supersede is flagged
needs_review). The result does not depend on which side is ours. Exit 0 when merged; 1 when a side
is not valid JSON (then %A is left as it was and git reports a conflict); 2 on a usage error.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=cli.help_formatter(),
                                epilog="Exit codes: 0 merged, 1 a side cannot be merged (named on stderr), "
                                       "2 usage error.")
    p.add_argument("base", help="the common ancestor's file (%%O; empty when both sides added the file)")
    p.add_argument("ours", help="this side's file (%%A): the merged result is written here")
    p.add_argument("theirs", help="the other side's file (%%B)")
    p.add_argument("path", nargs="?", default="", help="the file's path in the repository (%%P), for messages")
    return p


def read_doc(path, what, name):
    """The parsed document of one side; {} for an empty base. ValueError names the side and the fix."""
    with open(path, "rb") as fh:
        data = fh.read()
    if what == "base" and not data.strip():
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError("%s: %s side is not valid JSON (%s)" % (name, what, exc))
    if isinstance(doc, list):
        doc = {"items": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("items", []), list):
        raise ValueError("%s: %s side is not an items.json (an object with an \"items\" list)" % (name, what))
    return doc


def main(argv=None):
    args = build_parser().parse_args(argv)
    from memory_core import merging
    from memory_core import store as st
    name = args.path or args.ours
    try:
        base = read_doc(args.base, "base", name)
    except ValueError as exc:
        sys.stderr.write("merge_memory: %s; merged as if both sides added the file\n" % exc)
        base = {}
    try:
        ours, theirs = read_doc(args.ours, "our", name), read_doc(args.theirs, "their", name)
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
