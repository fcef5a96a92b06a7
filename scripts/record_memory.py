#!/usr/bin/env python3
"""Record one reusable project fact into memory-3layer (Layer 1 + today's Layer 2 line).

Examples:
  python scripts/record_memory.py --fact "This project uses pnpm, never npm" --topic workflow
  echo "Deploys go through the staging branch" | python scripts/record_memory.py --fact - --topic deploy
  python scripts/record_memory.py --fact "API errors use RFC 7807" --category convention --promote --confirmed
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402
from memory_core.paths import resolve_store  # noqa: E402


def build_parser():
    from memory_core.recording import CATEGORIES, DEFAULT_TOPIC, MAX_FACT_CHARS
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Secrets are refused (exit 1) unless --redact; a near-duplicate is skipped and reported; "
               "a fact that contradicts a recorded one is refused until you say --supersedes ID or "
               "--keep-both. Exit codes: 0 done, 1 refused, 2 usage or environment error.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, "
                                         "else the git top level, else the current folder)")
    p.add_argument("--fact", required=True, help="the fact, at most %d characters; '-' reads it from "
                                                 "standard input" % MAX_FACT_CHARS)
    p.add_argument("--topic", default=DEFAULT_TOPIC, help="Layer 1 topic: a-z, 0-9, '-' (default %(default)s)")
    p.add_argument("--category", choices=CATEGORIES,
                   help="kind of fact (default: what classify_memory.py says, else fact)")
    p.add_argument("--force-surface", action="store_true",
                   help="record it although the classifier reads a todo, procedure, ephemeral status or "
                        "speculation (which are refused by default)")
    p.add_argument("--source", default="user", help="where it comes from: user, file:<path>, ... (default %(default)s)")
    p.add_argument("--inferred", action="store_true", help="the agent inferred it; nobody confirmed it")
    p.add_argument("--redact", action="store_true", help="store a masked text instead of refusing a secret")
    p.add_argument("--supersedes", action="append", default=[], metavar="ID",
                   help="the new fact replaces this item (kept, marked superseded); repeatable")
    p.add_argument("--keep-both", action="store_true", help="record although it conflicts with an active fact")
    p.add_argument("--anchor", action="append", default=[], metavar="PATH",
                   help="a file the fact is about (repeatable): its content hash is stored, and the fact "
                        "shows as [stale?] once the file changes or goes")
    p.add_argument("--promote", action="store_true", help="also add it to Layer 3 (MEMORY.md); needs --confirmed")
    p.add_argument("--confirmed", action="store_true", help="a person confirmed this fact for Layer 3")
    p.add_argument("--dry-run", action="store_true", help="show what would be written; write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core.recording import record_fact
    from memory_core.recording import MAX_FACT_CHARS
    fact = cli.read_stdin_text("the fact", MAX_FACT_CHARS * 4) if args.fact == "-" else cli.check_utf8_arg(args.fact, "--fact")
    for flag in ("project_dir", "topic", "source"):
        cli.check_utf8_arg(getattr(args, flag), "--" + flag.replace("_", "-"))
    root, store, _how = resolve_store(args.project_dir)
    result = record_fact(root, store, fact, topic=args.topic, category=args.category, source=args.source,
                         inferred=args.inferred, redact=args.redact, promote=args.promote,
                         confirmed=args.confirmed, keep_both=args.keep_both, supersedes=args.supersedes,
                         anchors=[cli.check_utf8_arg(a, "--anchor") for a in args.anchor],
                         force_surface=args.force_surface, dry_run=args.dry_run)
    result["ok"] = True
    result["next"] = cli.command_hint("load_memory.py", "--project-dir", root) + "   # what a new session sees"
    if args.json:
        cli.print_json(result)
    else:
        what = {"recorded": "recorded", "duplicate": "already known"}.get(result["status"], result["status"])
        print("%s: %s  [topic %s]" % (what, result.get("duplicate_of") or result["id"], args.topic))
        cli.print_summary(result)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
