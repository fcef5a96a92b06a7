"""Derived indexes in state/cache/ that keep loading and recording fast on large stores.

They are disposable and never the source of truth. Each index carries the signature (size,
mtime_ns, inode) of the items.json it was computed from, and is used only while the file still has
that signature; after a hand edit, a git checkout or a crash the file itself is parsed instead.
Only writers refresh them, under the store lock; load_memory.py never writes.

  cache/layer1/<topic>.json   newest active rows of one topic (JSON)
  cache/layer1-newest.tsv     newest active rows of all topics merged, with every topic's
                              signature: what a plain load reads (tab-separated, no json import)
  cache/clean.tsv             files (and the merged rows) already scanned and found free of
                              secrets, by signature, so loading need not scan them again
  cache/dedup/<topic>/        one column per file, so a record appends a line to each instead
                              of rewriting them, and judges a new fact against every topic by
                              meaning without parsing any items.json (dedup_index.py)
"""
import os

from .cache_files import CACHE_DIR, escape, read_cache, signature, unescape, write_cache
from .dedup_index import (  # noqa: F401 (index.X: the dedup columns' entry points, as callers know them)
    DEDUP_DIR, DEDUP_LAYOUT, KEYS_VERSION, DedupRows, JudgementKeys, Lines, Rows, current_meta, previous_clean,
    previous_keys, append_dedup_row, read_clean_flags, read_dedup_index, read_judgement_keys, read_judgement_rows,
    write_dedup_index)
from .paths import topic_items_path

TOPIC_DIR = os.path.join(CACHE_DIR, "layer1")
NEWEST_INDEX = os.path.join(CACHE_DIR, "layer1-newest.tsv")
LOAD_DEPTH = 64  # newest active facts kept per topic; loading more than this parses the files
POOL_EXTRA = 64  # and as many older decisions or conventions, and anchored facts, for ranking (ranking.py)
COVER_DEPTH = 3  # and in the merged rows, the newest facts of every topic (coverage)
NEWEST_HEADER = "memory-3layer layer1-newest v5"
# rows: [stamp, id, fact, flags ("i" inferred, "r" needs review, "d" decision, "c" convention), anchors]
TOPIC_ENTRY_VERSION = 5
CLEAN_INDEX = os.path.join(CACHE_DIR, "clean.tsv")
CLEAN_HEADER = "memory-3layer clean v1"


def _stamp(item):
    return str(item.get("updated_at") or item.get("created_at") or "")


def _row(item):
    anchors = item.get("anchors") if isinstance(item.get("anchors"), list) else []
    flags = ("i" if item.get("inferred") else "") + ("r" if item.get("needs_review") else "") + \
        {"decision": "d", "convention": "c"}.get(item.get("category"), "")
    return [_stamp(item), str(item.get("id") or ""), item["fact"], flags, anchors]


def pooled(rows, depth=LOAD_DEPTH):
    """Of rows sorted newest first: the depth newest, the COVER_DEPTH newest of every topic (rows
    merged from several topics name theirs last), up to POOL_EXTRA older decisions and conventions,
    and up to POOL_EXTRA older anchored facts (their own allowance, so that many newer decisions
    cannot push out a fact whose file was just edited): what ranking may lift however old."""
    out, per_topic, important, anchored = [], {}, 0, 0
    for position, row in enumerate(rows):
        topic = row[5] if len(row) > 5 else None
        per_topic[topic] = per_topic.get(topic, 0) + 1
        if position < depth or per_topic[topic] <= COVER_DEPTH:
            out.append(row)
        elif row[4] and anchored < POOL_EXTRA:
            out.append(row)
            anchored += 1
        elif important < POOL_EXTRA and ("d" in row[3] or "c" in row[3]):
            out.append(row)
            important += 1
    return out


def newest_rows(items, depth=LOAD_DEPTH):
    """(active count, rows [stamp, id, fact, flags, anchors] newest first: pooled()). Only the
    pooled items are made rows: a topic of 100,000 facts is sorted by its keys alone."""
    keyed = []
    for n, it in enumerate(items):  # a plain loop: the 100,000 items of a big topic are read here
        if it.get("status", "active") != "active":
            continue
        stamp, item_id = it.get("updated_at") or it.get("created_at") or "", it.get("id") or ""
        keyed.append((stamp if stamp.__class__ is str else str(stamp),
                      item_id if item_id.__class__ is str else str(item_id), -n))
    keyed.sort(reverse=True)  # newest first; -n: of equal (stamp, id), the earlier item first, as a stable sort
    rows = []
    important, anchored = 0, 0
    for position, (_stamp_, _id, n) in enumerate(keyed):
        n = -n
        it = items[n]
        if position < max(depth, COVER_DEPTH):
            rows.append(_row(it))
        elif it.get("anchors") and isinstance(it.get("anchors"), list) and anchored < POOL_EXTRA:
            rows.append(_row(it))
            anchored += 1
        elif important < POOL_EXTRA and it.get("category") in ("decision", "convention"):
            rows.append(_row(it))
            important += 1
        elif anchored >= POOL_EXTRA and important >= POOL_EXTRA:
            break
    return len(keyed), rows


# --- per-topic load entries ---------------------------------------------------------------------

def _topic_rel(topic):
    return os.path.join(TOPIC_DIR, topic + ".json")


def read_topic_entry(store, topic, sig, max_items):
    """The cached newest rows of a topic, or None when missing, stale or too shallow."""
    from .fastjson import loads  # the json package would import re
    text = read_cache(store, _topic_rel(topic))
    try:
        entry = loads(text) if text else None
    except ValueError:
        return None
    if not isinstance(entry, dict) or sig is None or entry.get("sig") != sig \
            or entry.get("v") != TOPIC_ENTRY_VERSION:
        return None
    if max_items > LOAD_DEPTH and entry.get("active", 0) > LOAD_DEPTH:
        return None
    return entry


def _write_topic_entry(store, topic, entry):
    import json
    entry["v"] = TOPIC_ENTRY_VERSION
    write_cache(store, _topic_rel(topic), json.dumps(entry, ensure_ascii=False).encode("utf-8"))


# --- merged newest rows -------------------------------------------------------------------------

def _write_newest(store, sigs, active, deep, rows):
    lines = ["%s\t%d\t%d" % (NEWEST_HEADER, active, 1 if deep else 0)]
    lines.extend("S\t%s\t%d\t%d\t%d" % (topic, sig[0], sig[1], sig[2]) for topic, sig in sorted(sigs.items()))
    from .fastjson import dumps
    lines.extend("R\t%s\t%s\t%s\t%s\t%s\t%s" % (stamp, escape(item_id), topic, flags,
                                              escape(dumps(anchors)) if anchors else "", escape(fact))
                 for stamp, item_id, fact, flags, anchors, topic in rows)
    write_cache(store, NEWEST_INDEX, ("\n".join(lines) + "\n").encode("utf-8"))


def _read_newest(store):
    """(sigs, active, deep, rows) or None."""
    text = read_cache(store, NEWEST_INDEX)
    if not text or not text.startswith(NEWEST_HEADER + "\t"):
        return None
    try:
        lines = text.split("\n")
        _h, active, deep = lines[0].split("\t")
        sigs, rows = {}, []
        for line in lines[1:]:
            if line.startswith("R\t"):
                _r, stamp, item_id, topic, flags, anchors, fact = line.split("\t", 6)
                if anchors:
                    from .fastjson import loads
                    anchors = loads(unescape(anchors))
                rows.append([stamp, unescape(item_id), unescape(fact), flags, anchors or [], topic])
            elif line.startswith("S\t"):
                _s, topic, size, mtime, ino = line.split("\t")
                sigs[topic] = [int(size), int(mtime), int(ino)]
        return sigs, int(active), deep == "1", rows
    except ValueError:
        return None


def read_newest(store, current_sigs, max_items):
    """(active count, rows [stamp, id, fact, flags, anchors, topic] newest first) across all topics when
    the merged index matches every topic file exactly; else None."""
    found = _read_newest(store)
    if found is None:
        return None
    sigs, active, deep, rows = found
    if sigs != current_sigs or (max_items > LOAD_DEPTH and not deep):
        return None
    return active, rows


def rebuild_newest(store, entries=None):
    """Merge every topic's current entry into the newest index; topics without a current entry
    leave it out of date (so loading parses instead). entries: {topic: entry} just written."""
    import heapq
    from .store import list_topics
    sigs, active, deep, lists = {}, 0, True, []
    for topic in list_topics(store):
        sig = signature(topic_items_path(store, topic))
        entry = (entries or {}).get(topic)
        if entry is None or entry["sig"] != sig:
            entry = read_topic_entry(store, topic, sig, 0)
        if entry is None:
            return
        sigs[topic] = sig
        active += int(entry.get("active", 0))
        deep = deep and int(entry.get("active", 0)) <= LOAD_DEPTH
        lists.append([r + [topic] for r in entry.get("rows", [])])
    merged = list(heapq.merge(*lists, key=lambda r: (r[0], r[1]), reverse=True))
    _write_newest(store, sigs, active, deep, pooled(merged))


# --- clean marks -------------------------------------------------------------------------------

# Every file whose change can change what the detector finds: a new rule voids every clean mark.
DETECTOR_FILES = ("redaction.py", "credentials.py", "credential_formats.py", "personal_data.py", "national_ids.py",
                  "text_normalise.py", os.path.join("data", "provider_tokens.json"),
                  os.path.join("data", "credential_words.json"), os.path.join("data", "personal_data.json"),
                  os.path.join("data", "bip39_english.json"))


def scan_fingerprint(extra_patterns=()):
    """What a clean mark depends on besides the file: the detector's own source (a new rule voids
    every mark) and the user's extra patterns."""
    import binascii
    here = os.path.dirname(os.path.abspath(__file__))
    parts = []
    for name in DETECTOR_FILES:
        try:
            st = os.stat(os.path.join(here, name))
            parts.append("%d.%d" % (st.st_size, st.st_mtime_ns))
        except OSError:
            parts.append("unknown")
    detector = "%08x" % (binascii.crc32("|".join(parts).encode("ascii")) & 0xFFFFFFFF)
    patterns = repr([tuple(p) for p in extra_patterns]).encode("utf-8")
    return "%s.%08x" % (detector, binascii.crc32(patterns) & 0xFFFFFFFF)


def read_clean(store, fingerprint):
    """{store-relative path: signature} of what was scanned clean under this fingerprint."""
    text = read_cache(store, CLEAN_INDEX)
    if not text or text.split("\n", 1)[0] != "%s\t%s" % (CLEAN_HEADER, fingerprint):
        return {}
    marks = {}
    for line in text.split("\n")[1:]:
        parts = line.split("\t")
        if len(parts) == 4:
            try:
                marks[parts[0]] = [int(parts[1]), int(parts[2]), int(parts[3])]
            except ValueError:
                continue
    return marks


def is_clean(marks, store, rel):
    sig = marks.get(rel)
    return sig is not None and sig == signature(os.path.join(store, rel))


def _text_to_scan(store, rel):
    if rel == NEWEST_INDEX:  # the facts themselves, not their tab-escaped form
        found = _read_newest(store)
        return None if found is None else "\n".join(r[2] for r in found[3])
    from .store import CorruptFile, read_text
    try:
        return read_text(os.path.join(store, rel))
    except CorruptFile:
        return None


def mark_clean(store, extra_patterns, rels, grown=None, scanned=None):
    """Scan each store-relative file not already marked and mark the clean ones. Writers call this
    after their writes (under the lock), so loading a store they maintain scans nothing. grown:
    {rel: signature before} of the newest rows (NEWEST_INDEX) when a writer only added a fact it
    had scanned clean on its own: a mark they had then carries over unscanned, since loading masks
    those rows fact by fact (loading._mask_facts), so a set of facts each clean is shown as is.
    scanned: {rel: signature} a load scanned whole and found clean under this fingerprint, marked
    without a second scan while the file keeps that signature."""
    from .redaction import find_secrets
    fingerprint = scan_fingerprint(extra_patterns)
    marks = read_clean(store, fingerprint)
    changed = False
    for rel in rels:
        sig = signature(os.path.join(store, rel))
        if sig is None or marks.get(rel) == sig:
            continue
        if rel == NEWEST_INDEX and grown and grown.get(rel) is not None and marks.get(rel) == grown[rel]:
            marks[rel], changed = sig, True
            continue
        if scanned and scanned.get(rel) == sig:
            marks[rel], changed = sig, True
            continue
        text = _text_to_scan(store, rel)
        marks.pop(rel, None)
        if text is not None and not find_secrets(text, extra_patterns) \
                and sig == signature(os.path.join(store, rel)):
            marks[rel] = sig
        changed = True
    if changed:
        lines = ["%s\t%s" % (CLEAN_HEADER, fingerprint)]
        lines.extend("%s\t%d\t%d\t%d" % (rel, sig[0], sig[1], sig[2]) for rel, sig in sorted(marks.items())
                     if os.path.exists(os.path.join(store, rel)))
        write_cache(store, CLEAN_INDEX, ("\n".join(lines) + "\n").encode("utf-8"))


# --- writers' entry points ----------------------------------------------------------------------

def refresh_topic(store, topic, path, doc, items, merge=True):
    """Rebuild a topic's indexes from its parsed content (after a full write, or to warm a store).
    Call under the store lock."""
    from .judgement import fact_keys
    from .similarity import normalize, without_negations
    try:
        sig = signature(path)
        count, rows = newest_rows(items)
        _write_topic_entry(store, topic, {"sig": sig, "active": count, "rows": rows})
        plain = set(doc) <= {"items", "schema", "topic"} and all(
            isinstance(it.get("id"), str) and it["id"] and not set(it["id"]) & set("\t\n\r") for it in items)
        dedup = DedupRows([], "", [], {}, [], [])
        if plain:
            known = previous_keys(store, topic)
            for row, it in enumerate(items):
                norm = normalize(it["fact"])
                dedup.ids.append(it["id"])
                dedup.norms.append(norm)
                dedup.texts.append(it["fact"])
                found = known.get((it["id"], escape(it["fact"])))
                dedup.keys.append(found if found is not None else fact_keys(it["fact"]))
                bare = without_negations(norm)
                if bare != norm:
                    dedup.negated[row] = bare
            dedup.active = "".join("A" if it.get("status", "active") == "active" else "S" for it in items)
            dedup.clean = clean_flags(store, topic, dedup.ids, dedup.texts)
        write_dedup_index(store, topic, sig, dedup, plain)
        if merge:
            rebuild_newest(store)
    except OSError:
        pass  # a cache that cannot be written only costs speed


def reflag_topic(store, topic, count):
    """Scan a topic's texts (its dedup columns) again and write its clean flags: after the detector
    changed. True when written."""
    from .dedup_index import _dedup_rel, _read_lines
    ids, texts = _read_lines(store, topic, "ids"), _read_lines(store, topic, "texts")
    if ids is None or texts is None or not len(ids) == len(texts) == count:
        return False
    fingerprint, flags = clean_flags(store, topic, ids, [unescape(t) for t in texts])
    write_cache(store, _dedup_rel(topic, "clean"), ("%s\n%s" % (fingerprint, flags)).encode("ascii"))
    return True


def clean_flags(store, topic, ids, texts):
    """(detector fingerprint, a "C" or "?" per row): the rows the topic's last index found clean
    under this detector keep their flag, the others are scanned now, joined in one call (the user's
    extra patterns are not part of it: with any, a query masks every result)."""
    from .redaction import find_secrets
    fingerprint = scan_fingerprint(())
    known = previous_clean(store, topic, fingerprint)
    flags = ["C" if (i, escape(t)) in known else None for i, t in zip(ids, texts)]
    todo = [row for row, flag in enumerate(flags) if flag is None]
    starts, pos = [], 0
    for row in todo:
        starts.append(pos)
        pos += len(texts[row]) + 3
    found = find_secrets("\n\n\n".join(texts[row] for row in todo), ()) if todo else []
    hit = set()
    import bisect
    for f in found:
        first = bisect.bisect_right(starts, f.start) - 1
        last = bisect.bisect_right(starts, max(f.start, f.end - 1)) - 1
        hit.update(todo[k] for k in range(max(first, 0), last + 1))
    for row in todo:
        flags[row] = "?" if row in hit else "C"
    return fingerprint, "".join(flags)


def add_newest(store, topic, old_sig, new_sig, item):
    """After a fast append: put the new item at the head of the topic's entry and of the merged
    rows, where those were current; a stale one stays stale (loading then parses). True when the
    merged rows were rewritten with it."""
    row = _row(item)
    entry = read_topic_entry(store, topic, old_sig, 0)
    if entry is None:
        return False
    entry["rows"] = pooled(sorted([row] + entry.get("rows", []), key=lambda r: (r[0], r[1]), reverse=True))
    entry["active"] = entry.get("active", 0) + 1
    entry["sig"] = new_sig
    _write_topic_entry(store, topic, entry)
    found = _read_newest(store)
    if found is None or found[0].get(topic) != old_sig:
        return False
    sigs, active, deep, rows = found
    sigs[topic] = new_sig
    rows = pooled(sorted([row + [topic]] + rows, key=lambda r: (r[0], r[1]), reverse=True))
    _write_newest(store, sigs, active + 1, deep and entry["active"] <= LOAD_DEPTH, rows)
    return True


def save_parsed(store, parsed, extra_patterns=(), daily_days=7):
    """After a load that parsed topic files or scanned Markdown files (a fresh clone, a pull): save
    what it computed, where a file still has the signature it was read with: the topics' load
    entries, the merged rows, and clean marks for what it scanned clean (loading.load_context's
    parsed). The judgement keys (dedup/) are left to writers, who rebuild a stale column when they
    judge against it: a SessionStart does not pay for them. Call under the lock."""
    entries = {}
    for topic, (sig, count, rows) in sorted(parsed.get("topics", {}).items()):
        if sig is not None and signature(topic_items_path(store, topic)) == sig:
            entries[topic] = {"sig": sig, "active": count, "rows": rows}
            _write_topic_entry(store, topic, entries[topic])
    _refresh_merged(store, extra_patterns, daily_days, entries, parsed.get("clean", {}))


def _refresh_merged(store, extra_patterns, daily_days, entries=None, scanned=None):
    try:
        rebuild_newest(store, entries)
        from .paths import DAILY_DIR, LAYER3_FILE
        from .store import list_daily_files
        mark_clean(store, extra_patterns, [LAYER3_FILE, NEWEST_INDEX] +
                   [os.path.join(DAILY_DIR, name) for name in list_daily_files(store)[:daily_days]], scanned=scanned)
    except OSError:
        pass


def refresh_all(store, extra_patterns=(), daily_days=7):
    """Rebuild the indexes of every readable topic whose index is missing or stale, the clean marks
    of MEMORY.md, the newest daily files and the merged rows, and the store's recall index
    (recall_index.py) when it does not match every topic; returns the topics refreshed.
    Corrupt topics are left alone (loading reports them). Call under the lock."""
    from .store import CorruptFile, list_topics, read_topic
    done = []
    for topic in list_topics(store):
        path = topic_items_path(store, topic)
        sig = signature(path)
        if read_topic_entry(store, topic, sig, 0) is not None and current_meta(store, topic, sig):
            continue
        try:
            doc, items = read_topic(store, topic)
        except CorruptFile:
            continue
        refresh_topic(store, topic, path, doc, items, merge=False)
        done.append(topic)
    _refresh_merged(store, extra_patterns, daily_days)
    try:
        fingerprint, reflagged = scan_fingerprint(()), False
        for topic in list_topics(store):  # clean flags of another detector (an upgrade): scanned again
            meta = current_meta(store, topic, signature(topic_items_path(store, topic)))  # (rows, plain)
            if meta and meta[1] and read_clean_flags(store, topic, meta[0], fingerprint) is None:
                reflagged = reflag_topic(store, topic, meta[0]) or reflagged
        from . import recall_index
        sigs = dict((topic, signature(topic_items_path(store, topic))) for topic in list_topics(store))
        if done or reflagged or not recall_index.is_current(store, sigs):
            recall_index.build(store)
    except OSError:
        pass
    return done
