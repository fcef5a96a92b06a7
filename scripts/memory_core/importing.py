"""record_memory.py --import FILE.jsonl: many facts through the one gate of record_fact.

Every line is recorded by recording.record_fact (secrets, personal data, surface, conflicts,
duplicates) into a scratch copy of the store (state/import-<pid>-<hex>/), in file order, so a line
is judged against the store and every earlier line of the file. Nothing reaches the store until
every line is through: then, under the store lock and only if the store did not change meanwhile,
the topic and daily files the scratch changed are written atomically and its changelog events
appended. A refused line stops the whole import (nothing written) unless skip_refused, which
drops the refused lines (and the history lines that depended on them) and imports the rest.
Rules for people: references/transfer.md.
"""
import json
import os
import re

from . import safefs
from . import store as st
from .paths import DAILY_DIR, STATE_DIR, TOPICS_DIR, StoreError
from .progress import silent
from .recording import CATEGORIES, DEFAULT_TOPIC, PERSONAL_KINDS, Refusal, record_fact
from .similarity import normalize

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_LINE_BYTES = 64 * 1024
OUR_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}-[0-9a-f]{12}\Z")
KNOWN_CATEGORIES = CATEGORIES + ("architecture", "pitfall", "procedure", "todo")  # older files hold these
DECISIONS = ("keep-both", "force-surface")
LINKS = frozenset(("id", "fact", "topic", "status", "superseded_by", "supersedes", "decisions"))
_FIELDS = []


def field_map():
    """The roles of data/import_fields.json: {role: [field names, first wins]}."""
    if not _FIELDS:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "import_fields.json")
        with open(path, "rb") as fh:
            _FIELDS.append(json.loads(fh.read().decode("utf-8")))
    return _FIELDS[0]


def read_lines(path):
    """[(line number, bytes)] of the non-blank lines of FILE ('-': standard input)."""
    import sys
    try:
        data = (sys.stdin.buffer.read(MAX_FILE_BYTES + 1) if path == "-"
                else safefs.read_regular(os.path.abspath(path), MAX_FILE_BYTES + 1))
    except OSError as exc:
        raise StoreError("cannot read %s: %s" % (path, exc.strerror or exc), fix="give an existing JSONL file")
    if data is None:
        raise StoreError("%s does not exist" % path, fix="give the path of a JSONL export")
    if len(data) > MAX_FILE_BYTES:
        raise Refusal("%s is over %d MB; nothing was read further or written" % (path, MAX_FILE_BYTES >> 20),
                      fix="split the file and import the parts one after the other")
    return [(n, raw) for n, raw in enumerate(data.split(b"\n"), 1) if raw.strip()]


def _slug(value):
    slug = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:64].strip("-")
    return slug or None


def _first(obj, role, accept):
    for name in field_map()[role]:
        value = obj.get(name)
        if isinstance(value, list):
            value = next((v for v in value if isinstance(v, str) and v.strip()), None)
        if value is not None and accept(value):
            return value
    return None


def _stamp(value):
    try:
        return st.iso(st.parse_time(value)) if isinstance(value, str) else None
    except ValueError:
        return None


def parse_line(number, raw, default_topic, default_source):
    """An entry dict for one line, or raises Refusal (kind malformed / no-text / link)."""
    def refuse(kind, message, fix):
        raise Refusal("line %d: %s" % (number, message), fix=fix, kind=kind)
    if len(raw) > MAX_LINE_BYTES:
        refuse("too-long", "over %d KB" % (MAX_LINE_BYTES >> 10), "one fact a line, at most 2,000 characters")
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        refuse("malformed", "not valid JSON (%s)" % str(exc)[:80], "give one JSON object a line (JSONL)")
    if not isinstance(obj, dict):
        refuse("malformed", "a JSON %s, not an object" % type(obj).__name__, "give one JSON object a line")
    ours = all(isinstance(obj.get(k), str) for k in ("fact", "id", "topic")) and "status" in obj
    text = obj["fact"] if ours else _first(obj, "text", lambda v: isinstance(v, str) and v.strip())
    if not isinstance(text, str) or not text.strip():
        refuse("no-text", "no fact text (looked for: %s)" % ", ".join(field_map()["text"]),
               "name the text with one of those fields (references/transfer.md)")
    entry = {"line": number, "text": text, "ours": ours, "notes": [], "overlay": {}, "status": "active",
             "supersedes": [], "superseded_by": None, "given_id": None, "decisions": []}
    links, decisions = obj.get("supersedes") or [], obj.get("decisions") or []  # read on every line
    if not isinstance(links, list) or not all(isinstance(s, str) for s in links):
        refuse("malformed", "supersedes is not a list of ids", "give supersedes as a list of ids")
    if not isinstance(decisions, list) or set(d for d in decisions if isinstance(d, str)) - set(DECISIONS):
        refuse("malformed", "decisions is not a list of %s" % " and ".join(DECISIONS), 'e.g. "decisions": ["keep-both"]')
    entry.update(supersedes=list(dict.fromkeys(links)), decisions=[d for d in DECISIONS if d in decisions])
    if ours:
        status = obj.get("status") or "active"
        if status not in ("active", "superseded"):
            refuse("malformed", "unknown status %r" % status, "use active or superseded")
        if status == "superseded" and not isinstance(obj.get("superseded_by"), str):
            refuse("link", "superseded, but superseded_by names no fact", "give the id of the fact that replaced it")
        entry.update(topic=obj["topic"], status=status,
                     superseded_by=obj.get("superseded_by") if status != "active" else None,
                     given_id=obj["id"] if OUR_ID.match(obj["id"]) else None,
                     source=obj["source"] if isinstance(obj.get("source"), str) else default_source,
                     inferred=obj.get("inferred") is True,
                     category=obj.get("category") if obj.get("category") in CATEGORIES else None)
        overlay = dict((k, v) for k, v in obj.items() if k not in LINKS and k not in ("source", "inferred"))
        for key in ("created_at", "updated_at"):
            if key in overlay and _stamp(overlay[key]) is None:
                entry["notes"].append("%s %r is not a time; the import time is kept" % (key, overlay.pop(key)))
            elif key in overlay:
                overlay[key] = _stamp(overlay[key])  # UTC, whole seconds, as the store writes times
        if entry["given_id"] is None:
            entry["notes"].append("its id %r is not a memory-3layer id; a new id was made from the text" % obj["id"][:40])
        if "tags" in overlay and not (isinstance(overlay["tags"], list) and all(isinstance(t, str) for t in overlay["tags"])):
            entry["notes"].append("tags is not a list of strings; left out")
            overlay.pop("tags")
        entry["overlay"] = overlay
        return entry
    topic = _first(obj, "topic", lambda v: isinstance(v, str) and v.strip() and v not in CATEGORIES)
    category = _first(obj, "category", lambda v: v in CATEGORIES)
    source = _first(obj, "source", lambda v: isinstance(v, str) and v.strip())
    entry.update(topic=_slug(topic) if topic else default_topic, category=category,
                 source=source or default_source, inferred=obj.get("inferred") is True)
    created = _first(obj, "created_at", lambda v: _stamp(v) is not None)
    if created:
        entry["overlay"]["created_at"] = _stamp(created)
    tags = next((obj[n] for n in field_map()["tags"] if isinstance(obj.get(n), list)), None)
    if tags and all(isinstance(t, str) for t in tags):
        entry["overlay"]["tags"] = list(tags)
    if isinstance(obj.get("id"), (str, int)):
        entry["notes"].append("its id %r is another tool's; a new id was made from the text" % str(obj["id"])[:40])
    return entry


LINE_FIXES = {  # the fix for a refused line says what to put on the line, not which flag to pass
    "conflict": 'if both are true, add "decisions": ["keep-both"] to the line; if it replaces the stored fact, '
                'add "supersedes": ["%s"] (same topic); or leave the line out',
    "surface": 'keep todos, how-tos and guesses out of memory; if it really is a lasting fact, add '
               '"decisions": ["force-surface"] to the line',
    "secret": "remove the secret from the line (say where it is kept, not what it is), or import with --redact",
    "personal-data": "leave the personal data out of the line, or import with --redact",
}


def refusal_kind(exc):
    """A short kind for a refused line: secret, personal-data, surface, conflict, ..."""
    details = getattr(exc, "details", {}) or {}
    if details.get("kind"):
        return details["kind"]
    if details.get("kinds"):
        return "personal-data" if set(details["kinds"]) <= PERSONAL_KINDS else "secret"
    for key, kind in (("conflict_with", "conflict"), ("classification", "surface"), ("limit", "too-long"),
                      ("duplicate_of", "repeat")):
        if key in details:
            return kind
    return "invalid" if getattr(exc, "exit_code", 1) == 2 else "refused"


class Scratch(object):
    """A copy of the store's topic files, config and recent daily files in state/, for the gate to
    write into; originals keeps what each copied file held (None: absent) to see what changed."""

    def __init__(self, store):
        self.store, self.made = store, []
        for folder in (store, os.path.join(store, STATE_DIR)):
            if not os.path.isdir(folder):
                self.made.append(folder)
        safefs.make_dirs(os.path.join(store, STATE_DIR), store)
        self.path = os.path.join(store, STATE_DIR, "import-%d-%s" % (os.getpid(), os.urandom(4).hex()))
        os.mkdir(self.path, 0o700)
        try:
            self._copy(store)
        except BaseException:  # a linked topic file, a full disk: no scratch is left behind
            self.remove()
            raise

    def _copy(self, store):
        self.topics = sorted(st.list_topics(store))
        self.originals = {}
        now = st.epoch_seconds(st.iso(st.utc_now()))
        import time
        days = [time.strftime("%Y-%m-%d", time.gmtime(now + d * 86400)) for d in (-1, 0, 1)]
        rels = [os.path.join(TOPICS_DIR, t, "items.json") for t in self.topics] + ["config.yaml"] + [
            os.path.join(DAILY_DIR, day + ".md") for day in days]
        for rel in rels:
            data = safefs.read_bytes(os.path.join(store, rel))  # UnsafePath: a link is refused, named
            self.originals[rel] = data
            if data is not None:
                safefs.make_dirs(os.path.dirname(os.path.join(self.path, rel)), self.path)
                with open(os.path.join(self.path, rel), "wb") as fh:
                    fh.write(data)

    def real(self, text):
        """A message about a scratch file, told about the store's own file."""
        return text.replace(self.path, self.store) if isinstance(text, str) else text

    def changes(self):
        """[(store-relative path, new bytes)] of the topic and daily files the gate changed."""
        out = []
        for topic in sorted(st.list_topics(self.path)):
            out.append(os.path.join(TOPICS_DIR, topic, "items.json"))
        out += [os.path.join(DAILY_DIR, n) for n in st.list_daily_files(self.path)]
        changed = []
        for rel in out:
            data = safefs.read_bytes(os.path.join(self.path, rel))
            if data != self.originals.get(rel):
                changed.append((rel, data))
        return changed

    def check_unchanged(self, changes):
        """Under the store lock: refuse when another writer changed the store since the copy (the
        gate's verdicts were against the copy)."""
        moved = sorted(set(st.list_topics(self.store)) ^ set(self.topics))
        for rel in list(self.originals) + [rel for rel, _ in changes if rel not in self.originals]:
            if safefs.read_bytes(os.path.join(self.store, rel)) != self.originals.get(rel):
                moved.append(rel)
        if moved:
            raise StoreError("the store changed while importing (%s); nothing was written" % ", ".join(moved[:3]),
                             fix="run the import again: every line is judged against the store as it is now",
                             exit_code=1)

    def changelog(self):
        from .provenance import CHANGELOG_FILE
        return safefs.read_bytes(os.path.join(self.path, STATE_DIR, CHANGELOG_FILE)) or b""

    def remove(self):
        import shutil
        shutil.rmtree(self.path, ignore_errors=True)
        for folder in reversed(self.made):  # a dry run in a project without a store leaves none
            try:
                os.rmdir(folder)
            except OSError:
                pass


def _items_by_id(store):
    """{id: [topic, status, normalised text, recorded from a history line]} of every item the store's
    topics hold (the import adds its own as it goes)."""
    known = {}
    for topic in st.list_topics(store):
        try:
            _doc, items = st.read_topic(store, topic)
        except st.CorruptFile:
            continue  # the gate names it if a line needs it
        for it in items:
            if isinstance(it.get("id"), str):
                known[it["id"]] = [topic, it.get("status", "active"), normalize(it["fact"]), False]
    return known


def _in_order(entries):
    """The entries, each after the lines its supersedes names (the old fact must be there for the
    gate to supersede it); otherwise in file order. A cycle is cut where it closes."""
    by_id = dict((e["given_id"], e) for e in entries if e["given_id"])
    placed, out = set(), []
    for first in entries:
        stack = [(first, iter(first["supersedes"]))]
        seen = set([first["line"]])
        while stack:
            entry, olds = stack[-1]
            old = next((by_id[o] for o in olds if o in by_id and by_id[o]["line"] not in placed
                        and by_id[o]["line"] not in seen), None)
            if old is not None:
                seen.add(old["line"])
                stack.append((old, iter(old["supersedes"])))
                continue
            stack.pop()
            if entry["line"] not in placed:
                placed.add(entry["line"])
                out.append(entry)
    return out


def _refused(entry_or_line, exc, scratch=None):
    line = entry_or_line["line"] if isinstance(entry_or_line, dict) else entry_or_line
    real = scratch.real if scratch else (lambda t: t)
    return {"line": line, "outcome": "refused", "kind": refusal_kind(exc), "reason": real(exc.message),
            "fix": real(exc.fix)}


def _one(root, scratch, e, known, idmap, line_of, redact):
    """The outcome of one entry through record_fact in the scratch store."""
    given, notes = e["given_id"], list(e["notes"])
    base = {"line": e["line"], "topic": e["topic"], "notes": notes}
    if given and given in known and known[given][2] == normalize(e["text"]):
        idmap[given] = given
        return dict(base, outcome="duplicate", id=given, duplicate_of=given)
    if e["status"] == "superseded" and e["superseded_by"] not in line_of and e["superseded_by"] not in known:
        return dict(base, outcome="refused", kind="link", reason="line %d: superseded by %s, which is neither in "
                    "this file nor in the store" % (e["line"], e["superseded_by"]),
                    fix="export with --all so the fact that replaced it comes too")
    supersedes = []
    for old in e["supersedes"]:
        target = idmap.get(old, old if old in known else None)
        if old in line_of and old not in idmap:
            notes.append("supersedes %s (line %d), which was not imported: that link is left out" % (old, line_of[old]))
        elif target is None:
            notes.append("supersedes %s, which is neither in this file nor in the store: that link is left out" % old)
        elif known[target][1] == "active" and known[target][0] == e["topic"]:
            supersedes.append(target)
    item_id = given if given and given not in known else None
    if given and item_id is None:
        notes.append("id %s is taken by another fact; a new id was made from the text" % given)
    try:
        result = record_fact(root, scratch.path, e["text"], topic=e["topic"], category=e["category"],
                             source=e["source"], inferred=e["inferred"], redact=redact,
                             keep_both="keep-both" in e["decisions"] or e["status"] == "superseded",
                             supersedes=supersedes, force_surface="force-surface" in e["decisions"], item_id=item_id)
    except st.CorruptFile as exc:  # the store's own file: the whole import stops
        raise StoreError(scratch.real(exc.message), fix=scratch.real(exc.fix), exit_code=exc.exit_code,
                         path=scratch.real(exc.path))
    except StoreError as exc:  # Refusal, and what record refuses as invalid (topic, control characters)
        dup = (getattr(exc, "details", {}) or {}).get("duplicate_of")
        if supersedes and dup in known and known[dup][1] == "active" and all(known[s][3] for s in supersedes):
            # It repeats a fact the store holds and would replace only history of this file:
            # a duplicate, and that fact takes over the history (_fix_up).
            if given:
                idmap[given] = dup
            return dict(base, outcome="duplicate", id=dup, duplicate_of=dup)
        out = _refused(e, exc, scratch)
        out["reason"] = "line %d: %s" % (e["line"], out["reason"].replace("; nothing was written", ""))
        if out["kind"] in LINE_FIXES:
            first = ((getattr(exc, "details", {}) or {}).get("conflict_with") or [{}])[0].get("id")
            out["fix"] = LINE_FIXES[out["kind"]].replace("%s", first or "ID")
        return dict(base, **out)
    notes.extend(n for n in result.get("notes", ()) if not n.startswith("created a new store"))
    if result["status"] == "duplicate":
        if given:
            idmap[given] = result["duplicate_of"]
        return dict(base, outcome="duplicate", id=result["duplicate_of"], duplicate_of=result["duplicate_of"])
    known[result["id"]] = [e["topic"], "active", normalize(e["text"]), e["status"] == "superseded"]
    for old in result.get("superseded", ()):
        known[old][1] = "superseded"
    if given:
        idmap[given] = result["id"]
    return dict(base, outcome="recorded", id=result["id"], superseded=result.get("superseded", []),
                kept_both_with=result.get("kept_both_with", []))


def _fix_up(scratch, entries, outcomes, idmap, known):
    """What the gate does not write: the stored fields the export carried (times, tags, anchors,
    unknown keys, its decisions) and history's links where its successor was already known."""
    updates, links = {}, {}
    for e in entries:
        o = outcomes[e["line"]]
        if o["outcome"] != "recorded":
            continue
        update = dict(e["overlay"])
        if e["ours"]:
            update["decisions"] = e["decisions"] or None  # the export's, not what this gate needed
        if e["status"] == "superseded" and known[o["id"]][1] == "active":
            old_by = e["superseded_by"]
            by = idmap.get(old_by, old_by if old_by in known else None)
            if by is not None:
                update.update(status="superseded", superseded_by=by)
                links.setdefault(by, []).append(o["id"])
                known[o["id"]][1] = "superseded"
        updates[o["id"]] = update
    topics = sorted(set(known[i][0] for i in list(updates) + list(links) if i in known))
    if not topics:
        return
    from .provenance import content_hash, log_change
    now = st.utc_now()
    with st.StoreLock(scratch.path):
        for topic in topics:
            doc, items = st.read_topic(scratch.path, topic)
            for it in items:
                for key, value in updates.get(it.get("id"), {}).items():
                    if value is None:
                        it.pop(key, None)
                    else:
                        it[key] = value
                if it.get("id") in links:
                    before = content_hash(it)
                    it["supersedes"] = list(dict.fromkeys(list(it.get("supersedes") or []) + links[it["id"]]))
                    # The trail names what it superseded, so loading leaves the old value's line out.
                    st.append_daily(scratch.path, now, st.daily_line_text(now, topic, it["fact"], it["id"],
                                                                          links[it["id"]]))
                    log_change(scratch.path, "supersede", topic, [it["id"]] + links[it["id"]], "import",
                               {it["id"]: before}, {it["id"]: content_hash(it)})
            st.write_topic(scratch.path, topic, doc, items)


def _dependents(entries, outcomes):
    """{line: successor's line} of history lines whose successor line was refused (closure)."""
    line_of = dict((e["given_id"], e["line"]) for e in entries if e["given_id"])
    refused = set(line for line, o in outcomes.items() if o["outcome"] == "refused")
    out, grew = {}, True
    while grew:
        grew = False
        for e in entries:
            by_line = line_of.get(e["superseded_by"]) if e["status"] == "superseded" else None
            if by_line in refused and e["line"] not in refused:
                refused.add(e["line"])
                out[e["line"]] = by_line
                grew = True
    return out


def _commit(store, scratch, result):
    """Write what the scratch changed into the store: one locked step, after checking that nobody
    wrote the store meanwhile."""
    from . import index
    from .provenance import CHANGELOG_FILE
    from .paths import state_path
    changes = scratch.changes()
    if not changes:
        return
    with st.StoreLock(store):
        scratch.check_unchanged(changes)
        st.preflight(store, [os.path.join(store, rel) for rel, _ in changes])
        created = st.init_store(store)
        result["written"].extend(os.path.join(result["store"], c) for c in created)
        for rel, data in changes:
            path = os.path.join(store, rel)
            st.atomic_write_bytes(path, data)
            result["written"].append(os.path.join(result["store"], rel))
            if rel.startswith(TOPICS_DIR + os.sep):
                doc, items = st.parse_items(data.decode("utf-8"), path)
                index.refresh_topic(store, rel.split(os.sep)[2], path, doc, items)
        log = scratch.changelog()
        if log:
            safefs.append_line(state_path(store, CHANGELOG_FILE), log)
            result["written"].append(os.path.join(result["store"], STATE_DIR, CHANGELOG_FILE))


def import_file(root, store, path, default_topic=DEFAULT_TOPIC, default_source=None, redact=False,
                skip_refused=False, dry_run=False, progress=silent):
    """Import a JSONL file; returns the result with one outcome per line (recorded, duplicate,
    refused with kind and reason). Writes only when no line is refused, or skip_refused."""
    from .config import extra_secret_patterns, read_config
    from .transfer import masked_value, secret_fields
    default_source = default_source or "import:" + ("stdin" if path == "-" else os.path.basename(path))
    outcomes, entries = {}, []
    for number, raw in read_lines(path):
        try:
            entries.append(parse_line(number, raw, default_topic, default_source))
        except Refusal as exc:
            outcomes[number] = _refused(number, exc)
    config, notes = read_config(store, strict=True)
    extra = extra_secret_patterns(config)
    for e in list(entries):  # fields the gate does not read: screened here, as the fact is there
        found = secret_fields(e["overlay"], extra)
        if found and redact:
            e["overlay"] = masked_value(e["overlay"], extra)
            e["notes"].append("redacted before storing: %s" % ", ".join(sorted(found)))
        elif found:
            kinds = set(k for ks in found.values() for k in ks)
            outcomes[e["line"]] = {"line": e["line"], "outcome": "refused",
                                   "kind": "personal-data" if kinds <= PERSONAL_KINDS else "secret",
                                   "reason": "line %d: field %s holds %s" % (e["line"], ", ".join(sorted(found)),
                                                                            ", ".join(sorted(kinds))),
                                   "fix": "remove the value from the line, or import with --redact"}
            entries.remove(e)
    result = {"action": "import", "project": root, "store": os.path.relpath(store, root), "file": path,
              "dry_run": dry_run, "read": ["%s (%d line(s))" % (path, len(entries) + len(outcomes))],
              "written": [], "skipped": [], "notes": notes}
    todo = entries
    while True:
        scratch = Scratch(store)
        try:
            run = {}
            known, idmap = _items_by_id(scratch.path), {}
            line_of = dict((e["given_id"], e["line"]) for e in todo if e["given_id"])
            bar = progress(len(todo), "import: lines")
            for e in _in_order(todo):
                bar.step()
                run[e["line"]] = _one(root, scratch, e, known, idmap, line_of, redact)
            bar.done()
            _fix_up(scratch, todo, run, idmap, known)
            lost = _dependents(todo, run)
            for line, by_line in lost.items():
                run[line] = {"line": line, "outcome": "refused", "kind": "link", "topic": run[line].get("topic"),
                             "reason": "line %d: the fact that replaced it (line %d) was refused" % (line, by_line),
                             "fix": "fix line %d, then import again" % by_line}
            refused = [line for line, o in run.items() if o["outcome"] == "refused"]
            if refused and skip_refused and lost:  # history whose successor is gone: import the rest again
                outcomes.update((line, run[line]) for line in refused)
                todo = [e for e in todo if e["line"] not in outcomes]
                continue
            outcomes.update(run)
            blocked = any(o["outcome"] == "refused" for o in outcomes.values()) and not skip_refused
            if not blocked and not dry_run:
                _commit(store, scratch, result)
        finally:
            scratch.remove()
        break
    return _finish(result, outcomes, blocked, skip_refused)


def _finish(result, outcomes, blocked, skip_refused):
    lines = [outcomes[n] for n in sorted(outcomes)]
    counts = dict((k, sum(1 for o in lines if o["outcome"] == k)) for k in ("recorded", "duplicate", "refused"))
    result.update(lines=lines, counts=counts, ok=not blocked)
    for o in lines:
        if o["outcome"] == "refused":
            result["skipped"].append("line %d (%s): %s" % (o["line"], o["kind"], o["reason"]))
    if blocked:
        result["status"] = "refused: %d line(s) refused, nothing was written" % counts["refused"]
    elif result["dry_run"]:
        result["status"] = "dry-run: would record %d, %d duplicate(s), %d refused" % (
            counts["recorded"], counts["duplicate"], counts["refused"])
    else:
        result["status"] = "imported: %d recorded, %d duplicate(s), %d refused%s" % (
            counts["recorded"], counts["duplicate"], counts["refused"], " (skipped)" if skip_refused and
            counts["refused"] else "")
    return result
