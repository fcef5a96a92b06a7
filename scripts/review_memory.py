#!/usr/bin/env python3
"""Review project memory: duplicates, conflicts, stale facts and broken files, each with its
evidence and a proposed action. Reads only, unless you apply named proposals with --confirm.

Examples:
  python3 scripts/review_memory.py
  python3 scripts/review_memory.py --apply P-1a2b3c4d5e            # show what it would change
  python3 scripts/review_memory.py --apply P-1a2b3c4d5e --confirm  # change it (never deletes)
  python3 scripts/review_memory.py --history api-81695b328165
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    from memory_core.review import DEFAULT_STALE_DAYS
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Exit codes: 0 nothing to review (or applied), 1 findings or refused, "
                                       "2 usage error.", formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, else the "
                                         "git top level, else the current folder)")
    p.add_argument("--topics", help="comma-separated topics to review (default: all)")
    p.add_argument("--stale-days", type=int, default=DEFAULT_STALE_DAYS,
                   help="unconfirmed facts older than this are stale (default %(default)s)")
    p.add_argument("--superseded", action="store_true", help="also list superseded items")
    p.add_argument("--history", metavar="ID", help="how an item came to be (state/changelog.jsonl)")
    p.add_argument("--apply", nargs="+", metavar="PROPOSAL", help="proposal ids to apply")
    p.add_argument("--confirm", action="store_true", help="with --apply: really change the files")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core import review
    from memory_core.paths import resolve_store
    root, store, _how = resolve_store(cli.check_utf8_arg(args.project_dir, "--project-dir"))
    topics = [t.strip() for t in (args.topics or "").split(",") if t.strip()] or None
    if args.history:
        from memory_core.provenance import history
        events = history(store, args.history)
        if args.json:
            cli.print_json({"ok": True, "id": args.history, "history": events})
        else:
            for e in events or [{"time": "-", "op": "no logged change", "topic": "", "source": ""}]:
                print("%s  %-16s %s %s" % (e["time"], e["op"], e.get("topic", ""), e.get("source", "")))
        return 0
    from memory_core.config import extra_secret_patterns, fact_model_extra, read_config
    config, notes = read_config(store, strict=bool(args.apply and args.confirm))
    patterns = extra_secret_patterns(config)
    if args.apply and args.confirm:
        applied = review.apply_proposals(root, store, args.apply, extra_patterns=patterns,
                                         vocab=fact_model_extra(config), topics=topics, stale_days=args.stale_days)
        result = {"ok": True, "action": "review-apply", "written": applied, "next": "run review again"}
        if any("masked in place" in line for line in applied):
            result["git_history"] = review.GIT_HISTORY_NOTE
        if args.json:
            cli.print_json(result)
        else:
            for line in applied:
                print("changed: " + line)
            if result.get("git_history"):
                print("note:    " + result["git_history"])
        return 0
    from memory_core.progress import reporter
    report = review.run_review(root, store, topics, args.stale_days, args.superseded, extra_patterns=patterns,
                               vocab=fact_model_extra(config), progress=reporter(quiet=args.json))
    report["notes"] = notes
    findings = report["findings"]
    if args.apply:  # without --confirm: show what would change
        known = set(f["proposal"] for f in findings)
        missing = [pid for pid in args.apply if pid not in known]
        if missing:
            from memory_core.paths import StoreError
            raise StoreError("no such proposal in the current review: %s" % ", ".join(missing),
                             fix="run review_memory.py again and use the ids it prints", exit_code=1)
        chosen = [f for f in findings if f["proposal"] in args.apply]
        report = dict(report, would_apply=chosen, written=[])
        findings = chosen
    if args.json:
        cli.print_json(dict(report, ok=True, action="review", written=[]))
    else:
        print("%d facts (%d active, %d superseded); %d findings, %d file problems; nothing was written"
              % (report["facts"], report["active"], report["superseded"], len(report["findings"]),
                 len(report["problems"])))
        for f in findings:
            print("%s  %-12s %s\n    evidence: %s\n    proposal: %s" % (
                f["proposal"], f["kind"], ", ".join(f["ids"]), f["evidence"], _describe(f["action"])))
        for p in report["problems"]:
            print("problem  %-8s %s: %s (%s)" % (p["kind"], p["path"], p["evidence"], p["action"]))
        for line in notes + ([report["git_history"]] if report.get("git_history") else []):
            print("note:    " + line)
        if findings and not args.apply:
            print("next: review_memory.py --apply PROPOSAL [...] to see a change, add --confirm to make it")
    return 1 if report["findings"] or report["problems"] else 0


def _describe(action):
    if action["op"] == "redact":
        return "mask the value in place in %s (the id stays)" % (action.get("file") or "item " + action["id"])
    if action["op"] == "supersede":
        return "supersede %s with %s (%s)" % (action["old"], action["new"], action["why"])
    return "flag %s needs_review (%s)" % (action["id"], action["why"])


if __name__ == "__main__":
    sys.exit(cli.run(main))
