#!/usr/bin/env python3
"""Export project memory's Layer 1 facts as JSONL (to import elsewhere) or Markdown (to read).

Examples:
  python3 scripts/export_memory.py > memory.jsonl                       # active facts, one JSON object a line
  python3 scripts/export_memory.py --all --output memory.jsonl          # superseded facts and their links too
  python3 scripts/export_memory.py --format markdown --output memory.md
  python3 scripts/record_memory.py --project-dir ../other --import memory.jsonl   # and back in
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Reads only: nothing inside the store is written. A fact holding a secret or personal data "
               "refuses the export (exit 1) naming it, unless --redact. Topic files that do not read are "
               "skipped and named (exit 1). Exit codes: 0 done, 1 refused or files skipped, 2 usage or "
               "environment error. Format and import: references/transfer.md.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, "
                                         "else the git top level, else the current folder)")
    p.add_argument("--format", choices=("jsonl", "markdown"), default="jsonl",
                   help="jsonl: one fact a line, every stored field plus its topic; markdown: a page for "
                        "people (default %(default)s)")
    p.add_argument("--output", metavar="FILE", help="write to FILE (atomically; outside the store) instead "
                                                    "of standard output")
    p.add_argument("--force", action="store_true", help="with --output: replace FILE if it exists")
    p.add_argument("--all", action="store_true", help="also export superseded facts, with their links")
    p.add_argument("--topics", help="comma-separated topics to export (default: all)")
    p.add_argument("--redact", action="store_true",
                   help="export a fact holding a secret with the value masked, instead of refusing")
    p.add_argument("--json", action="store_true", help="print one JSON object (the facts inside it "
                                                       "when there is no --output)")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core import progress, transfer
    from memory_core.config import extra_secret_patterns, read_config
    from memory_core.paths import resolve_store
    from memory_core.store import iso, utc_now
    for flag in ("project_dir", "output", "topics"):
        cli.check_utf8_arg(getattr(args, flag), "--" + flag.replace("_", "-"))
    root, store, _how = resolve_store(args.project_dir)
    topics = [t.strip() for t in (args.topics or "").split(",") if t.strip()] or None
    config, notes = read_config(store)
    records, skipped, more = transfer.collect(store, args.all, topics, args.redact, extra_secret_patterns(config),
                                              progress.reporter(quiet=args.json))
    data = (transfer.as_jsonl(records) if args.format == "jsonl"
            else transfer.as_markdown(records, args.all, iso(utc_now())))
    result = {"ok": True, "action": "export", "format": args.format, "project": root,
              "facts": len(records), "topics": len(set(r["topic"] for r in records)),
              "superseded": sum(1 for r in records if r.get("status", "active") != "active"),
              "read": ["%d fact(s) from %s" % (len(records), os.path.relpath(store, root))], "written": [],
              "skipped": ["%s: %s" % pair for pair in skipped], "notes": notes + more}
    if args.output:
        target = transfer.write_output(store, args.output, data, args.force)
        result["written"].append("%s (%d fact(s), %s)" % (target, len(records), args.format))
        result["next"] = cli.command_hint("record_memory.py", "--project-dir", "OTHER_PROJECT", "--import", target) \
            if args.format == "jsonl" else "read %s" % target
        if args.json:
            cli.print_json(result)
        else:
            cli.print_summary(result)
    elif args.json:
        result["export"] = records if args.format == "jsonl" else data
        cli.print_json(result)
    else:
        sys.stdout.write(data)
        for key in ("skipped", "notes"):  # standard output holds the export itself
            for entry in result[key]:
                sys.stderr.write("%-8s %s\n" % (key + ":", entry))
    return 1 if skipped else 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
