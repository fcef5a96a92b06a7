"""Copy a legacy .claude/memory/ into the store: plan, copy, verify; never overwrite, never delete.

Rules (references/migration.md states them for people):
- Runs only when asked. The legacy folder is only read: nothing in it is edited, moved or deleted.
- Every legacy file gets one status: copied, skipped (identical already / noise / not part of the
  layout), conflict (the target exists and differs), invalid (unreadable, not UTF-8, bad JSON,
  symbolic link, outside the project, bad topic name) or secret (a text file holds a secret).
  Any conflict, invalid or secret stops the whole write: nothing is written, exit 1.
- MEMORY.md and memory/YYYY-MM-DD.md are copied byte for byte (after the secret check);
  areas/topics/<t>/items.json is converted to the current schema (noise items skipped, each
  with its reason).
- A target file is never overwritten. After writing, every written file is read back and checked;
  a failed check removes the files this run created.
"""
import json
import os
import re

from . import store as st
from .paths import (DAILY_DIR, ITEMS_FILE, LAYER3_FILE, LEGACY_DIRNAME, TOPICS_DIR, StoreError,
                    check_no_symlink, is_daily_name, topic_error)
from .progress import silent
from .provenance import content_hash, log_change
from .similarity import fact_id

MIN_FACT_CHARS = 4
STATUSES = ("copied", "skipped", "conflict", "invalid", "secret")
STOP_STATUSES = ("conflict", "invalid", "secret")
_UUID_RE = re.compile(r"^\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$")
_ONE_WORD_RE = re.compile(r"^[\x21-\x7e]+$")  # one ASCII token, no spaces
_ID_STAMP_RE = re.compile(r"(?:^|[-_])(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$")
_INACTIVE = frozenset("archived deleted obsolete inactive deprecated stale outdated expired removed "
                      "retired replaced".split())
_ITEM_FIELDS = ("id", "fact", "status", "category", "source", "inferred", "created_at", "updated_at",
                "superseded_by", "supersedes", "tags")


class VerifyError(Exception):
    """A written file did not read back as planned."""


def _rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


# --- time ---------------------------------------------------------------------------------------

def normalize_time(value):
    """UTC 'YYYY-MM-DDTHH:MM:SSZ' from an ISO string (offset or naive = UTC), 'YYYY-MM-DD HH:MM:SS',
    a date, or epoch seconds / milliseconds; None when it cannot be read."""
    import datetime
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = value / 1000.0 if value > 1e11 else value
            dt = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
            return dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        if not isinstance(value, str) or not value.strip():
            return None
        text = value.strip()
        if text.isdigit():
            return normalize_time(int(text))
        if len(text) == 10:
            text += "T00:00:00"
        if len(text) > 10 and text[10] == " ":
            text = text[:10] + "T" + text[11:]
        return st.iso(st.parse_time(text))
    except (ValueError, OverflowError, OSError):
        return None


def _time_from_id(legacy_id):
    if not isinstance(legacy_id, str):
        return None
    m = _ID_STAMP_RE.search(legacy_id)
    if not m:
        return None
    return normalize_time("%s-%s-%sT%s:%s:%s" % m.groups())


# --- noise and secrets --------------------------------------------------------------------------

def noise_reason(text):
    """Why a legacy fact text is noise, or None when it is worth importing."""
    text = text.strip()
    if not text:
        return "empty"
    if len(text) < MIN_FACT_CHARS:
        return "shorter than %d characters" % MIN_FACT_CHARS
    if _UUID_RE.match(text):
        return "a UUID only"
    if _ONE_WORD_RE.match(text):
        return "a single word, not a fact"
    return None


def _strings(value):
    """Every string inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            for s in _strings(v):
                yield s
    elif isinstance(value, list):
        for v in value:
            for s in _strings(v):
                yield s


def _line_of(raw, needle, default=1):
    at = raw.find(needle) if needle else -1
    return raw.count("\n", 0, at) + 1 if at >= 0 else default


def _item_secrets(item, raw, extra):
    """[(kind, line in the legacy file)] of the secrets in any string of the item."""
    from .redaction import find_secrets
    found = []
    for s in _strings(item):
        for f in find_secrets(s, extra):
            found.append((f.kind, _line_of(raw, s[f.start:f.end])))
    return found


def _describe(found):
    return ", ".join("%s at line %d" % pair for pair in found)


# --- conversion ---------------------------------------------------------------------------------

def _legacy_items(doc):
    """(top-level keys to keep, item list) of a legacy items.json, or raise ValueError."""
    if isinstance(doc, list):
        return {}, doc
    if isinstance(doc, dict):
        for key in ("items", "facts"):
            if isinstance(doc.get(key), list):
                keep = dict((k, v) for k, v in doc.items() if k not in ("items", "facts", "schema", "topic"))
                return keep, doc[key]
    raise ValueError("expected a JSON array of items or an object with an \"items\" list")


def convert_topic(topic, raw, rel_source, redact, extra):
    """Convert the text of a legacy items.json. Returns (bytes or None, report dict, item ids):
    report holds legacy/imported counts, skipped items with reasons, redactions."""
    doc = json.loads(raw[1:] if raw.startswith("\ufeff") else raw)  # a BOM is not an error here
    keep, legacy = _legacy_items(doc)
    source = "migrated:" + rel_source
    report = {"legacy": len(legacy), "imported": 0, "skipped": [], "redacted": []}
    converted, id_map, seen = [], {}, set()
    for index, entry in enumerate(legacy):
        old = dict(entry) if isinstance(entry, dict) else {"fact": entry}
        legacy_id = old.get("id")
        ref = {"index": index}
        if legacy_id is not None:
            ref["legacy_id"] = legacy_id
        text = old.get("fact")
        if not isinstance(text, str):
            what = "no fact text" if isinstance(entry, dict) else "not a fact (%s)" % type(entry).__name__
            report["skipped"].append(dict(ref, reason=what))
            continue
        reason = noise_reason(text)
        if reason:
            report["skipped"].append(dict(ref, reason=reason))
            continue
        secrets = _item_secrets(old, raw, extra)
        if secrets and not redact:
            report["skipped"].append(dict(ref, reason="secret: " + _describe(secrets)))
            continue
        if secrets:
            from .transfer import masked_value
            old = masked_value(old, extra)
            report["redacted"].append(dict(ref, secrets=_describe(secrets)))
        item = _convert_item(topic, old, source)
        if item["id"] in seen:
            report["skipped"].append(dict(ref, reason="duplicate of %s" % item["id"]))
            continue
        seen.add(item["id"])
        if isinstance(legacy_id, str):
            id_map[legacy_id] = item["id"]
        converted.append(item)
    for item in converted:  # links between legacy ids now point at the new ids
        if isinstance(item.get("superseded_by"), str):
            item["superseded_by"] = id_map.get(item["superseded_by"], item["superseded_by"])
        item["supersedes"] = [id_map.get(s, s) if isinstance(s, str) else s for s in item["supersedes"]]
    report["imported"] = len(converted)
    if not converted:
        return None, report, []
    return st.dump_items(topic, keep, converted), report, [it["id"] for it in converted]


def _convert_item(topic, old, source):
    fact = old["fact"].strip()
    item = dict((k, v) for k, v in old.items() if k not in _ITEM_FIELDS)  # unknown fields kept
    item["id"] = fact_id(topic, fact)
    item["fact"] = fact
    legacy_id = old.get("id")
    if legacy_id is not None and legacy_id != item["id"]:
        item["legacy_id"] = legacy_id
    if old.get("source") not in (None, source):
        item["legacy_source"] = old.get("source")
    status = old.get("status")
    if status in ("active", "superseded"):
        item["status"] = status
    else:
        word = str(status).strip().lower() if status is not None else ""
        item["status"] = "superseded" if word in _INACTIVE else "active"
        if status is not None:
            item["legacy_status"] = status
    created = (normalize_time(old.get("created_at")) or normalize_time(old.get("timestamp"))
               or _time_from_id(legacy_id))
    if old.get("created_at") is not None and normalize_time(old.get("created_at")) is None:
        item["legacy_created_at"] = old.get("created_at")
    item["created_at"] = created
    item["updated_at"] = normalize_time(old.get("updated_at")) or created
    category = old.get("category")
    item["category"] = category if isinstance(category, str) and category else "fact"
    item["source"] = source
    item["inferred"] = bool(old.get("inferred")) if isinstance(old.get("inferred"), bool) else False
    sb = old.get("superseded_by")
    item["superseded_by"] = sb if isinstance(sb, str) and sb else None
    sup = old.get("supersedes")
    item["supersedes"] = list(sup) if isinstance(sup, list) else ([sup] if isinstance(sup, str) and sup else [])
    tags = old.get("tags")
    item["tags"] = list(tags) if isinstance(tags, list) else []
    return item


# --- planning -----------------------------------------------------------------------------------

def resolve_source(root, store, source=None):
    """Absolute legacy folder: inside the project, through no link, not the store itself."""
    rel = source or LEGACY_DIRNAME
    path = os.path.normpath(os.path.join(root, rel))
    inside = os.path.relpath(path, root)
    if inside == "." or inside == os.pardir or inside.startswith(os.pardir + os.sep):
        raise StoreError("--source %s resolves to %s, which is not inside the project %s" % (rel, path, root),
                         fix="give a legacy folder inside the project, such as .claude/memory", path=path)
    cur = root
    for part in inside.split(os.sep):
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            raise StoreError("%s is a symbolic link; migration never follows links" % cur,
                             fix="point --source at the real folder inside the project", path=cur)
    for a, b in ((path, store), (store, path)):
        r = os.path.relpath(a, b)
        if r == "." or not (r == os.pardir or r.startswith(os.pardir + os.sep)):
            raise StoreError("--source %s overlaps the store %s" % (path, store),
                             fix="give the legacy folder, not the store (or a folder holding it)", path=path)
    return path


def _read_source(path):
    """(text, None) or (None, reason) for a legacy file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return None, "unreadable: %s" % (exc.strerror or exc)
    if b"\x00" in data:
        return None, "binary content (NUL bytes)"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, "not UTF-8 (byte %d)" % exc.start


def _target_bytes(path):
    if os.path.islink(path):
        return "link"
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except OSError:
        return "unreadable"


def plan(root, store, source_dir, redact=False, extra=(), progress=silent):
    """Report entries, one per legacy file, sorted by path. Entries that will be written carry
    private keys _data (bytes), _target (absolute) and _ids (topic files). progress: a factory
    (total, label) -> Progress (progress.py)."""
    entries, found = [], []
    for folder, dirs, files in os.walk(source_dir):
        dirs.sort()
        for name in sorted(dirs):
            full = os.path.join(folder, name)
            if os.path.islink(full):
                entries.append(_invalid_link(root, full))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        found.extend(os.path.join(folder, name) for name in sorted(files))
    bar = progress(len(found), "migrate: legacy files")
    for full in found:
        bar.step()
        entries.append(_plan_file(root, store, source_dir, full, redact, extra))
    bar.done()
    entries.sort(key=lambda e: e["path"])
    return entries


def _invalid_link(root, full):
    target = os.path.realpath(full)
    rel = os.path.relpath(target, os.path.realpath(root))
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)
    reason = "symbolic link%s; links are never followed" % (" to a path outside the project" if outside else "")
    return {"path": _rel(root, full), "kind": "link", "target": None, "status": "invalid", "reason": reason}


def _plan_file(root, store, source_dir, full, redact, extra):
    rel_source = _rel(root, full)
    if os.path.islink(full):
        return _invalid_link(root, full)
    inner = os.path.relpath(full, source_dir)
    parts = inner.split(os.sep)
    entry = {"path": rel_source, "target": None}
    if parts == [LAYER3_FILE]:
        entry["kind"] = "layer3"
    elif len(parts) == 2 and parts[0] == DAILY_DIR and is_daily_name(parts[1]):
        entry["kind"] = "daily"
    elif (len(parts) == 4 and os.sep.join(parts[:2]) == TOPICS_DIR and parts[3] == ITEMS_FILE):
        entry["kind"] = "topic"
        entry["topic"] = parts[2]
    else:
        entry.update(kind="other", status="skipped", reason="not part of the legacy layout; left in place")
        return entry
    target = os.path.join(store, inner)
    entry["target"] = _rel(root, target)
    try:
        check_no_symlink(store, inner)
    except StoreError:
        entry.update(status="invalid", reason="target %s goes through a symbolic link" % entry["target"])
        return entry
    if entry["kind"] == "topic":
        problem = topic_error(parts[2])
        if problem:
            entry.update(status="invalid", reason="bad topic name: %s; rename the legacy folder" % problem)
            return entry
    text, problem = _read_source(full)
    if problem:
        entry.update(status="invalid", reason=problem)
        return entry
    if entry["kind"] == "topic":
        return _plan_topic(entry, text, target, redact, extra)
    return _plan_text(entry, text, target, redact, extra)


def _target_unusable(entry, existing):
    """Mark the entry invalid when its target is a link or unreadable; True then."""
    if existing not in ("link", "unreadable"):
        return False
    entry.update(status="invalid", reason="target %s is %s" % (
        entry["target"], "a symbolic link" if existing == "link" else "unreadable"))
    return True


def _plan_text(entry, text, target, redact, extra):
    from .redaction import mask_secrets
    masked, findings = mask_secrets(text, extra)
    data, plain = text.encode("utf-8"), masked.encode("utf-8")
    existing = _target_bytes(target)
    if _target_unusable(entry, existing):
        return entry
    if existing is not None:
        if existing in (data, plain):
            entry.update(status="skipped", reason="identical already")
        elif _lines_in(existing, text) or _lines_in(existing, masked):
            entry.update(status="skipped", reason="already merged (every line of it is in the target)")
        else:
            entry.update(status="conflict", reason="target exists and differs")
        return entry
    if findings and not redact:
        entry.update(status="secret", reason="holds a secret: %s" % _describe([(f.kind, f.line) for f in findings]),
                     secrets=[{"kind": f.kind, "line": f.line} for f in findings])
        return entry
    if findings:
        entry["redacted"] = [{"kind": f.kind, "line": f.line} for f in findings]
    entry.update(status="copied", _data=plain, _target=target)
    return entry


def _plan_topic(entry, text, target, redact, extra):
    from .redaction import find_secrets
    try:
        data, items_report, ids = convert_topic(entry["topic"], text, entry["path"], redact, extra)
    except ValueError as exc:
        is_json_error = type(exc).__name__ == "JSONDecodeError"  # json's own ValueError subclass
        entry.update(status="invalid", reason="invalid JSON (%s)" % exc if is_json_error else str(exc))
        return entry
    entry["items"] = items_report
    masked = None
    if not redact and any(s["reason"].startswith("secret:") for s in items_report["skipped"]):
        masked = convert_topic(entry["topic"], text, entry["path"], True, extra)[0]
    existing = _target_bytes(target)
    if _target_unusable(entry, existing):
        return entry
    if existing is not None:
        if existing in (data, masked):
            entry.update(status="skipped", reason="identical already")
        elif data is not None and _holds_ids(existing, target, ids):
            entry.update(status="skipped", reason="already holds every item (by id)")
        else:
            entry.update(status="conflict", reason="target exists and differs")
        return entry
    if data is None:
        entry.update(status="skipped", reason="no importable items")
        return entry
    left = find_secrets(data.decode("utf-8"), extra)  # safety net: top-level keys, escapes
    if left:
        entry.update(status="secret", reason="holds a secret outside its items: %s"
                     % _describe([(f.kind, f.line) for f in left]))
        return entry
    entry.update(status="copied", _data=data, _target=target, _ids=ids)
    return entry


def _lines_in(existing, text):
    """Whether every non-blank line of text (stripped) is a line of the existing target."""
    try:
        have = set(line.strip() for line in existing.decode("utf-8").splitlines())
    except UnicodeDecodeError:
        return False
    want = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(want) and all(line in have for line in want)


def _holds_ids(existing, target, ids):
    try:
        _doc, items = st.parse_items(existing.decode("utf-8"), target)
    except (UnicodeDecodeError, StoreError):
        return False
    have = set(it.get("id") for it in items)
    return all(i in have for i in ids)


# --- writing ------------------------------------------------------------------------------------

def verify(entries):
    """Read back every written file; raise VerifyError naming the first that does not match."""
    for e in entries:
        with open(e["_target"], "rb") as fh:
            data = fh.read()
        if data != e["_data"]:
            raise VerifyError("%s does not read back as written" % e["target"])
        if e["kind"] == "topic":
            _doc, items = st.parse_items(data.decode("utf-8"), e["_target"])
            if len(items) != e["items"]["imported"] or [it["id"] for it in items] != e["_ids"]:
                raise VerifyError("%s holds %d items, expected %d" % (e["target"], len(items),
                                                                     e["items"]["imported"]))


def _write(root, store, todo, result):
    created_files, created_dirs = [], []
    try:
        for e in todo:
            folder = os.path.dirname(e["_target"])
            missing = []
            while not os.path.isdir(folder):
                missing.append(folder)
                folder = os.path.dirname(folder)
            created_dirs.extend(reversed(missing))
            if os.path.lexists(e["_target"]):  # appeared since planning: never overwrite
                raise VerifyError("%s appeared while migrating; it was not overwritten" % e["target"])
            st.atomic_write_bytes(e["_target"], e["_data"])
            created_files.append(e["_target"])
        for rel in st.init_store(store):
            created_files.append(os.path.join(store, rel))
        verify(todo)
    except (VerifyError, StoreError, OSError) as exc:
        for path in created_files:
            try:
                os.unlink(path)
            except OSError:
                pass
        for folder in sorted(created_dirs, key=len, reverse=True):
            try:
                os.rmdir(folder)
            except OSError:
                pass
        if isinstance(exc, StoreError):
            message, code = exc.message, exc.exit_code
        elif isinstance(exc, OSError):
            message, code = "%s: %s" % (exc.filename or "the store", exc.strerror or exc), 2
        else:
            message, code = str(exc), 1
        raise StoreError("migration failed and was rolled back (%d files removed): %s" % (len(created_files), message),
                         fix="fix the cause and re-run; the legacy folder is untouched", exit_code=code)
    return created_files


def migrate(root, store, source=None, dry_run=False, redact=False, progress=silent):
    """Plan and, unless dry_run or stopped, write. Returns the result dict (ok, status, files, ...)."""
    from .config import extra_secret_patterns, read_config
    source_dir = resolve_source(root, store, source)
    result = {"action": "migrate", "project": root, "store": _rel(root, store), "dry_run": dry_run,
              "redact": redact, "source": _rel(root, source_dir), "files": [], "read": [], "written": [],
              "skipped": [], "notes": []}
    if not os.path.isdir(source_dir):
        result.update(ok=True, status="nothing to do", counts=dict((s, 0) for s in STATUSES))
        result["notes"].append("no legacy folder at %s" % result["source"])
        return result
    config, notes = read_config(store, strict=True)
    result["notes"].extend(notes)
    extra = extra_secret_patterns(config)
    entries = plan(root, store, source_dir, redact, extra, progress)
    if not dry_run and not any(e["status"] in STOP_STATUSES for e in entries) \
            and any(e["status"] == "copied" for e in entries):
        with st.StoreLock(store):
            st.preflight(store)
            entries = plan(root, store, source_dir, redact, extra, progress)  # again, under the lock
            if not any(e["status"] in STOP_STATUSES for e in entries):
                todo = [e for e in entries if e["status"] == "copied"]
                created = _write(root, store, todo, result)
                result["written"].extend(_rel(root, p) for p in created)
                for e in todo:
                    if e["kind"] == "topic":
                        items = json.loads(bytes(e["_data"]).decode("utf-8"))["items"]
                        problem = log_change(store, "migrate", e["topic"], e["_ids"], "migrated:" + e["path"],
                                             dict((i, None) for i in e["_ids"]),
                                             dict((it["id"], content_hash(it)) for it in items))
                        if problem:
                            result["notes"].append(problem)
    _finish(result, entries, dry_run)
    return result


def _finish(result, entries, dry_run):
    counts = dict((s, 0) for s in STATUSES)
    for e in entries:
        counts[e["status"]] += 1
        result["read"].append(e["path"])
        if e["status"] != "copied":
            result["skipped"].append("%s: %s (%s)" % (e["path"], e["status"], e.get("reason")))
        public = dict((k, v) for k, v in e.items() if not k.startswith("_"))
        result["files"].append(public)
    result["counts"] = counts
    stopped = any(counts[s] for s in STOP_STATUSES)
    result["ok"] = not stopped
    if stopped:
        result["status"] = "stopped: nothing written"
    elif not counts["copied"]:
        result["status"] = "nothing to do"
    else:
        result["status"] = "dry-run: would copy %d files" % counts["copied"] if dry_run else "migrated"
    if dry_run and not stopped:
        result["would_write"] = [e["target"] for e in entries if e["status"] == "copied"]
