#!/usr/bin/env python3
"""Migrate a legacy .claude/memory/ into the memory-3layer store: copy and verify, never overwrite, never delete.

Examples:
  python3 scripts/migrate_legacy_memory.py --project-dir . --dry-run     # the full report, nothing written
  python3 scripts/migrate_legacy_memory.py --project-dir .               # copy what is safe to copy
  python3 scripts/migrate_legacy_memory.py --project-dir . --redact      # migrate secrets masked
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402
from memory_core.paths import LEGACY_DIRNAME, resolve_store  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Each legacy file is reported as copied, skipped, conflict, invalid or secret. Any conflict, "
               "invalid file or unmasked secret in a text file stops the run before anything is written. "
               "MEMORY.md and daily files are copied as text; items.json files are converted to the current "
               "schema, noise items skipped with their reason. The legacy folder is never changed. "
               "Exit codes: 0 done or nothing to do, 1 stopped (conflict, invalid, secret, failed "
               "verification), 2 usage or environment error. Rules: references/migration.md.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, "
                                         "else the git top level, else the current folder)")
    p.add_argument("--source", default=LEGACY_DIRNAME,
                   help="legacy folder, relative to the project (default %(default)s)")
    p.add_argument("--dry-run", action="store_true", help="print the full report; write nothing")
    p.add_argument("--redact", action="store_true",
                   help="migrate secrets masked ([redacted:<kind>]) instead of skipping the item or stopping")
    p.add_argument("--json", action="store_true", help="print one JSON object with the per-file report")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core.migration import migrate
    for flag in ("project_dir", "source"):
        cli.check_utf8_arg(getattr(args, flag), "--" + flag.replace("_", "-"))
    root, store, _how = resolve_store(args.project_dir)
    from memory_core.progress import reporter
    result = migrate(root, store, source=args.source, dry_run=args.dry_run, redact=args.redact,
                     progress=reporter(quiet=args.json))
    script = "migrate_legacy_memory.py"
    if not result["ok"]:
        result["next"] = ("resolve each conflict/invalid/secret file listed (merge or move the target by hand, "
                          "fix or remove the legacy file, or use --redact for secrets), then re-run: "
                          + cli.command_hint(script, "--project-dir", root, "--dry-run"))
    elif args.dry_run and result["counts"]["copied"]:
        result["next"] = cli.command_hint(script, "--project-dir", root) + "   # write it"
    else:
        result["next"] = cli.command_hint("load_memory.py", "--project-dir", root) + "   # what a new session sees"
    if args.json:
        cli.print_json(result)
    else:
        for entry in result["files"]:
            line = "%-8s %s" % (entry["status"], entry["path"])
            if entry.get("target") and entry["status"] == "copied":
                line += " -> " + entry["target"]
            if entry.get("reason"):
                line += "  (%s)" % entry["reason"]
            items = entry.get("items")
            if items:
                line += "  [%d of %d items%s]" % (items["imported"], items["legacy"],
                                                  ", %d skipped" % len(items["skipped"]) if items["skipped"] else "")
            print(line)
            for skipped in (items or {}).get("skipped", ()):
                print("           item %d%s skipped: %s" % (skipped["index"], " (%s)" % skipped["legacy_id"]
                                                          if "legacy_id" in skipped else "", skipped["reason"]))
        print("status:  " + result["status"])
        print("read:    %d legacy files from %s" % (len(result["files"]), result["source"]))
        for entry in result["written"]:
            print("written: " + entry)
        if not result["written"]:
            print("written: nothing")
        counts = result["counts"]
        print("skipped: %d  conflict: %d  invalid: %d  secret: %d" % (
            counts["skipped"], counts["conflict"], counts["invalid"], counts["secret"]))
        for note in result["notes"]:
            print("notes:   " + note)
        print("next:    " + result["next"])
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(cli.run(main))
