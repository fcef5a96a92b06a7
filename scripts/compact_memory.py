#!/usr/bin/env python3
"""Save the minimal recoverable session state (state/session.json) before a compaction.

The PreCompact hook runs this for you on Claude Code and Codex; on other hosts, or to add a
summary, run it by hand. It saves the time, host, trigger, session id, files touched, the last
request (one redacted line) and a count of compactions; never the transcript. The next session
start after a compaction or resume shows it first.

Examples:
  python3 scripts/compact_memory.py --summary "Refactoring the auth middleware; tests still red"
  python3 scripts/compact_memory.py --session-id abc123 --transcript ~/.claude/projects/x/abc123.jsonl
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Exit codes: 0 saved, 1 refused (e.g. corrupt session file), 2 usage error.",
                                formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, else the "
                                         "git top level, else the current folder)")
    p.add_argument("--summary", help="what you were doing, in a sentence or two (secrets are masked)")
    p.add_argument("--session-id", default="manual", help="session to save under (default %(default)s)")
    p.add_argument("--host", default="manual", choices=("claude", "codex", "manual"), help="default %(default)s")
    p.add_argument("--trigger", default="manual", help="why: manual or auto (default %(default)s)")
    p.add_argument("--transcript", help="a host transcript (JSON lines) to take the last request from")
    p.add_argument("--dry-run", action="store_true", help="show what would be saved; write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core import session, store as st
    from memory_core.config import extra_secret_patterns, read_config
    from memory_core.paths import resolve_store
    for flag in ("summary", "session_id", "trigger", "project_dir", "transcript"):
        cli.check_utf8_arg(getattr(args, flag), "--" + flag.replace("_", "-"))
    root, store, _how = resolve_store(args.project_dir)
    config, notes = read_config(store, strict=not args.dry_run)
    patterns = extra_secret_patterns(config)
    request = session.last_user_request(os.path.abspath(args.transcript)) if args.transcript else None
    result = {"ok": True, "action": "compact", "project": root, "dry_run": args.dry_run, "notes": notes,
              "read": [], "written": [], "skipped": [], "session_id": args.session_id}
    rel = os.path.relpath(session.session_path(store), root)
    if args.dry_run:
        result["would_save"] = {"session_id": args.session_id, "trigger": args.trigger, "host": args.host,
                                "last_request": session.one_line(request, session.MAX_REQUEST_CHARS, patterns)
                                if request else None,
                                "summary": session.one_line(args.summary, session.MAX_SUMMARY_CHARS, patterns)
                                if args.summary else None}
        result["skipped"].append("%s: dry run, nothing written" % rel)
    else:
        with st.StoreLock(store):
            st.preflight(store)
            created = st.init_store(store)
            entry = session.save_compaction(store, args.session_id, args.host, args.trigger, st.utc_now(),
                                            last_request=request, summary=args.summary, extra_patterns=patterns)
        result["written"] = [os.path.relpath(os.path.join(store, c), root) for c in created] + [
            "%s (session %s, compaction %d)" % (rel, args.session_id, entry["compactions"])]
        result["state"] = entry
    result["next"] = "the next session start after a compaction or resume shows this state first"
    if args.json:
        cli.print_json(result)
    else:
        cli.print_summary(result)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
