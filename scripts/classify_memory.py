#!/usr/bin/env python3
"""Say which surface a candidate memory item belongs to (fact, decision, preference, convention,
todo, procedure, ephemeral, speculation, secret), with a topic, a confidence and the signals. Reads only.

Examples:
  python3 scripts/classify_memory.py --text "We decided to use pnpm workspaces"
  python3 scripts/classify_memory.py --text "可能是连接池太小" --json
  printf '{"text": "TODO: add retries"}\\n' | python3 scripts/classify_memory.py --stdin
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memory_core import cli  # noqa: E402
from memory_core.paths import StoreError  # noqa: E402


def build_parser():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Deterministic rules and markers (English and Chinese), no model, no network. Extra "
               "markers: config.yaml classifier: {markers: {todo: [\"backlog item\"], ...}}. --stdin "
               "reads JSON lines {\"text\": ...} and answers one JSON line each; a bad line gets "
               "{\"error\": ...}. Exit codes: 0 done, 2 usage error. See references/classification.md.",
        formatter_class=cli.help_formatter())
    p.add_argument("--project-dir", help="project root whose config.yaml may add markers (default: nearest "
                                         "folder with .memory-3layer/, else the git top level, else the "
                                         "current folder)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="the text to classify")
    source.add_argument("--stdin", action="store_true",
                        help="read JSON lines {\"text\": ...} from standard input; answer one JSON "
                             "line each")
    p.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    return p


def _settings(project_dir):
    """(extra markers, extra secret patterns, notes) from the store's config.yaml, if any."""
    from memory_core.classification import load_extra_markers
    from memory_core.config import extra_secret_patterns, read_config
    from memory_core.paths import resolve_store
    _root, store, _how = resolve_store(project_dir)
    config, notes = read_config(store)
    return load_extra_markers(config, notes), extra_secret_patterns(config), notes


def _one(text, markers, patterns):
    """The gate's verdict (the rules and the learned model): the surface, and whether record would
    refuse it ("refuse") and what it looks like ("looks_like")."""
    from memory_core.classification import gate
    try:
        return gate(text, markers, patterns)
    except ValueError as exc:
        if "secret pattern" in str(exc):
            raise StoreError("config.yaml has a bad secret pattern: %s" % exc,
                             fix="fix secrets.extra_patterns")
        raise


def _stream(markers, patterns):
    """One answer per input line, flushed at once, so a caller may keep the pipe open."""
    for number, raw in enumerate(iter(sys.stdin.buffer.readline, b""), 1):
        if not raw.strip():
            continue
        item = None
        try:
            item = json.loads(raw.decode("utf-8"))
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise ValueError('expected an object with a "text" string')
            answer = _one(item["text"], markers, patterns)
        except ValueError as exc:  # not UTF-8, bad JSON, no text, empty text: say so and go on
            answer = {"error": "line %d: %s" % (number, exc), "line": number}
        if isinstance(item, dict) and "id" in item:
            answer["id"] = item["id"]  # the caller's own id, echoed so answers can be matched
        sys.stdout.write(json.dumps(answer, ensure_ascii=False, sort_keys=True) + "\n")
        sys.stdout.flush()


def main():
    args = build_parser().parse_args()
    cli.check_utf8_arg(args.project_dir, "--project-dir")
    text = cli.check_utf8_arg(args.text, "--text")
    if text is not None and not text.strip():
        raise StoreError("--text is empty: nothing to classify", fix="pass the text to classify")
    markers, patterns, notes = _settings(args.project_dir)
    for note in notes:
        sys.stderr.write("note: %s\n" % note)
    if args.stdin:
        _stream(markers, patterns)
        return 0
    result = _one(text, markers, patterns)
    if args.json:
        cli.print_json(dict(result, ok=True))
    else:
        print("%s  [topic %s, confidence %.2f]  %s" % (result["surface"], result["topic"],
                                                       result["confidence"], result["reason"]))
    return 0


if __name__ == "__main__":
    sys.exit(cli.run(main))
