#!/usr/bin/env python3
"""Record one reusable project fact into memory-3layer (Layer 1 + today's Layer 2 line).

Examples:
  python3 scripts/record_memory.py --fact "This project uses pnpm, never npm" --topic workflow
  echo "Deploys go through the staging branch" | python3 scripts/record_memory.py --fact - --topic deploy
  python3 scripts/record_memory.py --fact "API errors use RFC 7807" --category convention --promote --confirmed
  python3 scripts/record_memory.py --import memory.jsonl --dry-run   # many facts (export_memory.py's JSONL)
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
    p.add_argument("--fact", help="the fact, at most %d characters; '-' reads it from "
                                  "standard input" % MAX_FACT_CHARS)
    p.add_argument("--import", dest="import_file", metavar="FILE.jsonl",
                   help="record every line of a JSONL export ('-': standard input) through the same checks; "
                        "nothing is written if a line is refused (references/transfer.md)")
    p.add_argument("--skip-refused", action="store_true", help="with --import: write the other lines anyway")
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
    parser = build_parser()
    args = parser.parse_args()
    if (args.fact is None) == (args.import_file is None):
        parser.error("give one of --fact TEXT or --import FILE.jsonl")
    if args.import_file is not None:
        return import_lines(parser, args)
    if args.skip_refused:
        parser.error("--skip-refused goes with --import")
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


def import_lines(parser, args):
    """--import: the core is memory_core/importing.py; a line's decisions travel on the line itself."""
    used = [f for f in ("category", "force_surface", "inferred", "supersedes", "keep_both", "anchor", "promote",
                        "confirmed") if getattr(args, f)]
    if used:
        parser.error("--%s cannot go with --import: each line carries its own (references/transfer.md)"
                     % used[0].replace("_", "-"))
    from memory_core import importing, progress
    for flag in ("project_dir", "topic", "source", "import_file"):
        cli.check_utf8_arg(getattr(args, flag), "--" + flag.replace("_file", "").replace("_", "-"))
    root, store, _how = resolve_store(args.project_dir)
    result = importing.import_file(root, store, args.import_file, args.topic,
                                   None if args.source == "user" else args.source, args.redact,
                                   args.skip_refused, args.dry_run, progress.reporter(quiet=args.json))
    result["next"] = (cli.command_hint("load_memory.py", "--project-dir", root) + "   # what a new session sees"
                      if result["ok"] else "fix or remove the refused lines (or add --skip-refused), then import again")
    if args.json:
        cli.print_json(result)
    else:
        for o in result["lines"]:
            what = {"recorded": "recorded %s" % o.get("id"), "duplicate": "duplicate of %s" % o.get("duplicate_of"),
                    "refused": "refused (%s): %s" % (o.get("kind"), o.get("reason"))}[o["outcome"]]
            print("line %d: %s" % (o["line"], what))
            if o["outcome"] == "refused" and o.get("fix"):
                print("        fix: %s" % o["fix"])
        print("status:  " + result["status"])
        cli.print_summary(dict(result, skipped=[]))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(cli.run(main))
