#!/usr/bin/env python3
"""Print the project memory a new session should start with: Layer 3, then Layer 2, then Layer 1,
active facts only, under one character budget. Reads only; never writes.

Examples:
  python3 scripts/load_memory.py
  python3 scripts/load_memory.py --max-chars 4000 --topics workflow,deploy
  python3 scripts/load_memory.py --json
  python3 scripts/load_memory.py --query "which package manager do we use" --limit 5
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402
from memory_core.paths import resolve_store  # noqa: E402


QUICK = {"--project-dir": str, "--max-chars": int, "--max-items": int, "--daily-days": int, "--topics": str,
         "--format": str, "--json": bool, "--query": str, "--limit": int, "--all": bool}


def build_parser():
    import argparse
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Defaults come from MEMORY_MAX_CHARS (9000), MEMORY_MAX_ITEMS (60), MEMORY_DAILY_DAYS (3: the "
               "newest daily files) and MEMORY_TOPICS, then config.yaml. Unreadable files are skipped, "
               "reported and left untouched; secrets found in files are masked in the output.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, "
                                         "else the git top level, else the current folder)")
    p.add_argument("--max-chars", type=int, help="budget for the whole output, report included")
    p.add_argument("--max-items", type=int, help="most Layer 1 facts to include")
    p.add_argument("--daily-days", type=int, help="how many of the newest daily files to read")
    p.add_argument("--topics", help="comma-separated Layer 1 topics to include (default: all)")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: the context as a session sees it; json: the selected entries by layer")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: the context plus the report (counts, skipped files)")
    p.add_argument("--query", help="print the facts that best answer this text instead, best first "
                                   "(with --json: {\"results\": [{\"id\", \"fact\", \"topic\", \"score\"}]})")
    p.add_argument("--limit", type=int, default=None, help="with --query: most facts to print (default 5)")
    p.add_argument("--all", action="store_true", help="with --query: superseded facts too, each with the fact "
                                                      "that replaced it")
    return p


def main():
    args = cli.quick_args(sys.argv[1:], QUICK)
    if args is None or args.format not in (None, "text", "json"):
        args = build_parser().parse_args()
    args.format = args.format or "text"
    from memory_core.config import extra_secret_patterns, load_settings, read_config
    cli.check_utf8_arg(args.topics, "--topics")
    root, store, how = resolve_store(args.project_dir)
    config, notes = read_config(store)
    settings = load_settings(config, {"max_chars": args.max_chars, "max_items": args.max_items,
                                      "daily_days": args.daily_days, "topics": args.topics})
    try:
        patterns = extra_secret_patterns(config)
        if args.query is not None:
            return _query(args, store, patterns)
        from memory_core.loading import load_context
        text, report = load_context(root, store, settings, extra_patterns=patterns,
                                    structured=(args.format == "json"), notes=notes)
    except ValueError as exc:
        from memory_core.paths import StoreError
        raise StoreError("config.yaml has a bad secret pattern: %s" % exc, fix="fix secrets.extra_patterns")
    report["project"], report["found_by"] = root, how
    if args.json:
        cli.print_json({"ok": True, "action": "load", "context": text, "report": report})
    elif args.format == "json":
        cli.print_json(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


def _query(args, store, patterns):
    from memory_core.recall import answer
    cli.check_utf8_arg(args.query, "--query")
    results, text = answer(store, args.query, 5 if args.limit is None else args.limit, args.all, patterns)
    if args.json:
        cli.print_json({"ok": True, "action": "query", "results": results})
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
