#!/usr/bin/env python3
"""Check memory-3layer in a project: where things are, then three statuses kept apart.

  locate          project root and how it was found, host, store, legacy .claude/memory/, writable
  artifact_status the skill package (SKILL.md front matter, required files, sources compile) and the
                  store files (items.json parse and schema, secrets, orphan superseded_by)
  adapter_status  our hooks in .claude/settings.json / .codex/hooks.json, their scripts, Codex trust
                  (read-only from $CODEX_HOME/config.toml, default ~/.codex)
  runtime_status  per host and event: verified only by an ok line in .memory-3layer/state/hook-runs.jsonl
                  that carries the host's own evidence of the run (else: manual run)

Reads only; never writes anything.

Examples:
  python3 scripts/check_memory_3layer.py
  python3 scripts/check_memory_3layer.py --project-dir ~/src/app --json
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1].rsplit("\n\nExamples:", 1)[0] + "\n\n"
               "Configured is never reported as running: a hook is 'verified' only when the store's hook-runs log "
               "has an ok run of it. Exit codes: 0 healthy, 1 findings (each with its next step), 2 usage or "
               "environment error.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root (default: nearest folder with .memory-3layer/, "
                                         "else the git top level, else the current folder)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def main():
    args = build_parser().parse_args()
    from memory_core import status
    report = status.build_report(cli.check_utf8_arg(args.project_dir, "--project-dir"))
    if args.json:
        cli.print_json(report)
    else:
        sys.stdout.write("\n".join(status.render(report)) + "\n")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(cli.run(main))
