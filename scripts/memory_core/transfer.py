"""Export: Layer 1 facts out of the store as JSONL (one fact a line, every stored field plus its
topic; what import_memory reads back) or as Markdown for people. Reads only; never writes inside the
store. Rules for people: references/transfer.md.

Secrets: a stored text the detector flags (a hand edit, a file from before the detector knew the
kind) is never written out raw. The export is refused naming each fact and the kinds found, unless
redact, which writes the value masked ([redacted:<kind>]) and keeps the id.
"""
import json
import os

from . import store as st
from .paths import StoreError, topic_items_path
from .progress import silent

FORMATS = ("jsonl", "markdown")


def strings_of(value, field=""):
    """(field path, text) of every string inside an item's value (nested lists and objects too)."""
    if isinstance(value, str):
        yield field, value
    elif isinstance(value, dict):
        for key in sorted(value):
            for pair in strings_of(value[key], "%s.%s" % (field, key) if field else str(key)):
                yield pair
    elif isinstance(value, list):
        for i, v in enumerate(value):
            for pair in strings_of(v, "%s[%d]" % (field, i)):
                yield pair


def secret_fields(value, extra=()):
    """{field: sorted kinds} of the strings in value that hold a secret or personal data."""
    from .redaction import find_secrets
    found = {}
    for field, text in strings_of(value):
        kinds = set(f.kind for f in find_secrets(text, extra))
        if kinds:
            found[field] = sorted(kinds)
    return found


def masked_value(value, extra=()):
    """value with every string masked (mask_secrets), the structure kept."""
    from .redaction import mask_secrets
    if isinstance(value, str):
        return mask_secrets(value, extra)[0]
    if isinstance(value, dict):
        return dict((k, masked_value(v, extra)) for k, v in value.items())
    if isinstance(value, list):
        return [masked_value(v, extra) for v in value]
    return value


def collect(store, include_superseded=False, topics=None, redact=False, extra=(), progress=silent):
    """(records, skipped, notes): the facts to export, each the stored item plus "topic", topics by
    name and items in file order; skipped: [(path, reason)] of topic files that did not read.
    Refusal (exit 1) when a fact holds a secret and not redact."""
    from .recording import Refusal
    names = sorted(st.list_topics(store))
    if topics:
        unknown = sorted(set(topics) - set(names))
        if unknown:
            raise StoreError("no such topic: %s" % ", ".join(unknown), fix="use topics the store has: %s"
                             % (", ".join(names) or "(none yet)"), exit_code=1)
        names = [t for t in names if t in topics]
    records, skipped, leaks, masked = [], [], [], 0
    bar = progress(len(names), "export: topics")
    for topic in names:
        bar.step()
        try:
            _doc, items = st.read_topic(store, topic)
        except st.CorruptFile as exc:  # UnsafePath too: a link is never followed
            skipped.append((os.path.relpath(topic_items_path(store, topic), store), exc.reason))
            continue
        for item in items:
            if item.get("status", "active") != "active" and not include_superseded:
                continue
            record = dict(item, topic=topic)
            found = secret_fields(record, extra)
            if found and not redact:
                leaks.append("%s (%s)" % (item.get("id"), "; ".join(
                    "%s: %s" % (field, ", ".join(kinds)) for field, kinds in sorted(found.items()))))
            elif found:
                record = masked_value(record, extra)
                masked += 1
            records.append(record)
    bar.done()
    if leaks:
        raise Refusal("%d fact(s) hold a secret or personal data: %s%s; nothing was exported"
                      % (len(leaks), ", ".join(leaks[:10]), " and %d more" % (len(leaks) - 10) if len(leaks) > 10 else ""),
                      fix="mask them in the store (review_memory.py proposes it), or export with --redact to "
                          "write the values masked", facts=leaks)
    notes = ["%d fact(s) exported with secret values masked (--redact); their ids are kept" % masked] if masked else []
    return records, skipped, notes


def as_jsonl(records):
    return "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in records)


def as_markdown(records, include_superseded, now):
    """A page for people: one section per topic, each fact a bullet with its id and metadata."""
    from .rendering import escape_controls
    topics = sorted(set(r["topic"] for r in records))
    out = ["# memory-3layer export", "",
           "Exported %s: %d fact(s) in %d topic(s)%s. For reading; `export_memory.py --format jsonl` "
           "writes what `record_memory.py --import` reads back." % (
               now, len(records), len(topics), ", superseded ones included" if include_superseded else ""), ""]
    for topic in topics:
        out += ["## %s" % topic, ""]
        for r in (r for r in records if r["topic"] == topic):
            lines = [escape_controls(line) for line in str(r.get("fact", "")).splitlines()] or [""]
            old = r.get("status", "active") != "active"
            first = "~~%s~~" % lines[0] if old and lines[0] else lines[0]
            out.append("- " + first)
            out.extend("  " + line for line in lines[1:])
            meta = ["id `%s`" % r.get("id"), str(r.get("category") or "fact"), "source %s" % escape_controls(
                str(r.get("source") or "?")), str(r.get("created_at") or "")[:10]]
            if r.get("inferred"):
                meta.append("inferred")
            if old:
                meta.append("%s by %s" % (r.get("status"), r.get("superseded_by")))
            if r.get("supersedes"):
                meta.append("supersedes %s" % ", ".join(str(s) for s in r["supersedes"]))
            if r.get("decisions"):
                meta.append("recorded with %s" % ", ".join("--%s" % d for d in r["decisions"]))
            out.append("  (%s)" % "; ".join(m for m in meta if m))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def write_output(store, path, data, force=False):
    """Write the export to path atomically: never inside the store, never over an existing file
    unless force. Returns the absolute path."""
    from .recording import Refusal
    target = os.path.abspath(os.path.expanduser(path))  # relative to the current folder, as a shell's > is
    real_store = os.path.realpath(store)
    real = os.path.realpath(target)
    if real == real_store or real.startswith(real_store + os.sep):
        raise StoreError("--output %s is inside the store %s; an export never writes there" % (path, store),
                         fix="write the export outside .memory-3layer/, e.g. --output memory-export.jsonl")
    if os.path.isdir(real):
        raise StoreError("--output %s is a folder" % path, fix="name a file, e.g. %s" % os.path.join(path, "memory.jsonl"))
    if os.path.lexists(target) and not force:
        raise Refusal("--output %s exists; nothing was written" % path,
                      fix="choose another file name, or add --force to replace it", path=target)
    folder = os.path.dirname(target)
    if os.path.isdir(folder) and not os.access(folder, os.W_OK):
        raise StoreError("cannot write %s: the folder %s is not writable" % (target, folder),
                         fix="choose a writable place for --output")
    st.atomic_write_bytes(target, data.encode("utf-8"))
    return target
