#!/usr/bin/env python3
"""Install memory-3layer into a project and wire it into Claude Code and/or Codex hooks.

Examples:
  python3 hooks/install_hooks.py --project-dir ~/src/app --platform claude
  python3 hooks/install_hooks.py --project-dir ~/src/app --platform both --dry-run
  python3 hooks/install_hooks.py --project-dir ~/src/app --platform codex --uninstall
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))

from memory_core import cli  # noqa: E402

CODEX_TRUST_STEPS = [
    "Codex runs project hooks only when trusted twice, and skips them silently otherwise:",
    "  1. trust the project: start `codex` in it and accept the trust prompt (or `codex exec --trust ...`);",
    "  2. trust the hooks: in the Codex TUI run /hooks and trust the three memory-3layer hooks",
    "     (again after any edit to .codex/hooks.json, which makes them 'modified').",
    "This installer never edits $CODEX_HOME; check_memory_3layer.py reads whether the hooks are trusted.",
]


def build_parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[1],
        epilog="Merges, never overwrites: foreign hooks and keys stay as they were, invalid JSON is "
               "refused untouched, the previous config is backed up under .memory-3layer/state/backups/, "
               "and re-running changes nothing. Exit codes: 0 done, 1 refused, 2 usage error.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", required=True,
                   help="the project to install into; a subfolder resolves to the nearest store up to its "
                        "git top level, else that top level (the output says which root and why)")
    p.add_argument("--platform", required=True, choices=("claude", "codex", "both", "manual"),
                   help="which host configs to write; manual writes none")
    p.add_argument("--uninstall", action="store_true", help="remove our hook entries and our copied skill")
    p.add_argument("--with-prompt-recall", action="store_true",
                   help="also add a UserPromptSubmit hook that gives the facts most relevant to each prompt "
                        "(at most 2,000 characters, each fact once a session; the prompt is never stored)")
    p.add_argument("--no-git-merge", action="store_true",
                   help="in a git repository, do not wire the memory's merge driver (.gitattributes lines and the "
                        "repository's git config; references/merging.md)")
    p.add_argument("--keep-legacy-hooks", action="store_true",
                   help="leave the original memory-3layer's Claude hooks (.claude/hooks/memory_loader.py, ...) "
                        "wired; by default they are replaced by ours (with a backup, their files untouched)")
    p.add_argument("--dry-run", action="store_true", help="print the changes; write nothing")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def next_steps(root, platform, uninstall):
    if uninstall:
        return ["the store .memory-3layer/ and its backups were left in place"]
    steps = []
    if platform in ("claude", "both"):
        steps.append("Claude Code: start a new session in %s; SessionStart then loads the memory" % root)
    if platform in ("codex", "both"):
        steps.extend(CODEX_TRUST_STEPS)
    if platform == "manual":
        skill = os.path.join(root, ".agents", "skills", "memory-3layer", "scripts")
        steps.append("no host config was written: nothing runs automatically. By hand:")
        steps.append("  load:   python3 %s --project-dir %s" % (os.path.join(skill, "load_memory.py"), root))
        steps.append("  record: python3 %s --project-dir %s --fact TEXT --topic TOPIC"
                     % (os.path.join(skill, "record_memory.py"), root))
    steps.append("verify: after a session starts, python3 %s --project-dir %s (configured is not running "
                 "until it says verified)" % (os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                          "scripts", "check_memory_3layer.py"), root))
    return steps


def main():
    args = build_parser().parse_args()
    from memory_core import install
    from memory_core.paths import resolve_store
    root, store, how = resolve_store(cli.check_utf8_arg(args.project_dir, "--project-dir"))
    why = "project root: %s (%s)" % (root, "as given" if how == "--project-dir" else how)
    steps = install.plan(root, args.platform, args.uninstall, args.with_prompt_recall,
                         git_merge=not args.no_git_merge, store=store, keep_legacy=args.keep_legacy_hooks)
    changed = any(step[0] != "note" for step in steps)  # a note alone (a kept look-alike) changes nothing
    if args.dry_run:
        lines = install.describe(root, steps) or ["nothing to change"]
        written = []
    elif changed:
        written = lines = install.apply(root, store, steps)
    else:
        written = lines = [step[2] for step in steps] + [
            "nothing to change: already %s" % ("uninstalled" if args.uninstall else "installed")]
    result = {"ok": True, "action": "uninstall" if args.uninstall else "install", "platform": args.platform,
              "project": root, "project_root": why, "dry_run": args.dry_run,
              "changes": lines if args.dry_run else written,
              "changed": changed, "next": next_steps(root, args.platform, args.uninstall),
              "runtime_status": "not verified: configured is not running; start a session, then run "
                                "check_memory_3layer.py"}
    if args.json:
        cli.print_json(result)
    else:
        for line in [why] + lines:
            print(line)
        for line in result["next"]:
            print("next: " + line if not line.startswith(" ") else "      " + line)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
