"""Derived indexes in state/cache/ that keep loading and recording fast on large stores.

They are disposable and never the source of truth. Each entry carries the signature (size, mtime_ns,
inode) of the items.json it was computed from, and is used only while the file still has that
signature; after a hand edit, a git checkout or a crash the file itself is parsed instead. Only
writers refresh entries, under the store lock; loading never writes.
"""
import json
import os

from .paths import STATE_DIR

CACHE_DIR = os.path.join(STATE_DIR, "cache")
LOAD_INDEX = os.path.join(CACHE_DIR, "layer1-topics.json")    # per topic: newest active rows
NEWEST_INDEX = os.path.join(CACHE_DIR, "layer1-newest.json")  # all topics merged, for a plain load
DEDUP_DIR = os.path.join(CACHE_DIR, "dedup")
LOAD_DEPTH = 64  # newest active facts kept per topic; loading more than this parses the file


def signature(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stamp(item):
    return str(item.get("updated_at") or item.get("created_at") or "")


def newest_rows(items, depth=LOAD_DEPTH):
    """(active count, newest active rows [stamp, id, fact, inferred], newest first)."""
    active = [it for it in items if it.get("status", "active") == "active"]
    rows = sorted(([_stamp(it), str(it.get("id") or ""), it["fact"], bool(it.get("inferred"))]
                   for it in active), reverse=True)
    return len(active), rows[:depth]


def _write_cache(store, rel, data):
    """Replace a cache file atomically. No fsync: a cache lost in a crash is only rebuilt later."""
    path = os.path.join(store, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def read_load_index(store):
    try:
        with open(os.path.join(store, LOAD_INDEX), "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
        return data["topics"] if isinstance(data.get("topics"), dict) else {}
    except (OSError, ValueError, AttributeError, KeyError):
        return {}


def load_entry(index, topic, sig, max_items):
    """The cached newest rows of a topic, or None when the entry is missing, stale or too shallow."""
    entry = index.get(topic)
    if not isinstance(entry, dict) or entry.get("sig") != sig or sig is None:
        return None
    if max_items > LOAD_DEPTH and entry.get("active", 0) > LOAD_DEPTH:
        return None
    return entry


def refresh_topic(store, topic, path, doc, items):
    """Rebuild a topic's indexes from its parsed content (after a full write, or to warm a store).
    Call under the store lock."""
    from .similarity import normalize, without_negations
    plain = set(doc) <= {"items", "schema", "topic"} and all(
        isinstance(it.get("id"), str) and it["id"] and not set(it["id"]) & set("\t\n\r") for it in items)
    rows = DedupRows([], "", [], [])
    if plain:
        for it in items:
            norm = normalize(it["fact"])
            rows.ids.append(it["id"])
            rows.norms.append(norm)
            rows.bares.append(sparse_bare(norm, without_negations(norm)))
        rows.active = "".join("A" if it.get("status", "active") == "active" else "S" for it in items)
    update_indexes(store, topic, path, items, rows, plain)


def refresh_all(store):
    """Rebuild the indexes of every readable topic whose index is missing or stale; returns the
    topics refreshed. Corrupt topics are left alone (loading reports them). Call under the lock."""
    from .store import CorruptFile, list_topics, read_topic
    from .paths import topic_items_path
    current = read_load_index(store)
    done = []
    for topic in list_topics(store):
        path = topic_items_path(store, topic)
        entry = current.get(topic)
        if isinstance(entry, dict) and entry.get("sig") == signature(path) and \
                read_dedup_index(store, topic, entry.get("sig")) is not None:
            continue
        try:
            doc, items = read_topic(store, topic)
        except CorruptFile:
            continue
        refresh_topic(store, topic, path, doc, items)
        done.append(topic)
    return done


def update_indexes(store, topic, path, items, rows, plain):
    """After a full write to a topic: refresh its load entry and its dedup index. Call under the
    lock. rows: DedupRows of the items when the file is plain (else empty)."""
    sig = signature(path)
    try:
        index = read_load_index(store)
        count, newest = newest_rows(items)
        index[topic] = {"sig": sig, "active": count, "rows": newest}
        save_load_index(store, index)
        write_dedup_index(store, topic, sig, rows, plain)
    except OSError:
        pass  # a cache that cannot be written only costs speed


def save_load_index(store, index):
    """Write the per-topic entries and the merged newest rows of all topics."""
    import heapq
    from .paths import topic_items_path
    index = dict((t, e) for t, e in index.items() if os.path.exists(topic_items_path(store, t)))
    _write_cache(store, LOAD_INDEX, json.dumps({"topics": index}, ensure_ascii=False,
                                               separators=(",", ":")).encode("utf-8"))
    valid = dict((t, e) for t, e in index.items() if isinstance(e, dict) and isinstance(e.get("rows"), list))
    merged = heapq.merge(*[[r + [t] for r in e["rows"]] for t, e in sorted(valid.items())], reverse=True)
    newest = {"sigs": dict((t, e.get("sig")) for t, e in valid.items()),
              "active": sum(int(e.get("active", 0)) for e in valid.values()),
              "deep": all(int(e.get("active", 0)) <= LOAD_DEPTH for e in valid.values()),
              "rows": [r for _n, r in zip(range(LOAD_DEPTH), merged)]}
    _write_cache(store, NEWEST_INDEX, json.dumps(newest, ensure_ascii=False,
                                                 separators=(",", ":")).encode("utf-8"))


def read_newest(store, current_sigs, max_items):
    """(active count, newest rows [stamp, id, fact, inferred, topic]) across all topics when the
    merged index matches every topic file exactly; else None."""
    try:
        with open(os.path.join(store, NEWEST_INDEX), "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
        if data["sigs"] != current_sigs:
            return None
        if max_items > LOAD_DEPTH and not data["deep"]:
            return None
        return int(data["active"]), data["rows"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def add_newest(store, topic, old_sig, new_sig, item):
    """After a fast append: put the new item at the head of the topic's load entry, if that entry
    was current; a stale entry stays stale (the loader then parses the file)."""
    index = read_load_index(store)
    entry = index.get(topic)
    if not isinstance(entry, dict) or entry.get("sig") != old_sig:
        return
    row = [_stamp(item), item["id"], item["fact"], bool(item.get("inferred"))]
    entry["rows"] = sorted([row] + entry.get("rows", []), reverse=True)[:LOAD_DEPTH]
    entry["active"] = entry.get("active", 0) + 1
    entry["sig"] = new_sig
    save_load_index(store, index)


def sparse_bare(norm, bare):
    """The negation-free text as stored: empty when equal to the text itself (most facts)."""
    return "" if bare == norm else bare


class DedupRows(object):
    """Every item of a topic as four parallel columns: id, active flag, normalised text, and that
    text without negations (empty when the same, see sparse_bare). Stored column by column so reading 10,000 rows is a few str.split calls."""

    def __init__(self, ids, active, norms, bares):
        self.ids, self.active, self.norms, self.bares = ids, active, norms, bares

    def append(self, item_id, norm, bare):
        self.ids.append(item_id)
        self.active += "A"
        self.norms.append(norm)
        self.bares.append(bare)


def write_dedup_index(store, topic, sig, rows, plain):
    head = json.dumps({"sig": sig, "plain": plain, "n": len(rows.ids)})
    parts = [head, rows.active] + rows.ids + rows.norms + rows.bares
    _write_cache(store, os.path.join(DEDUP_DIR, topic + ".txt"), ("\n".join(parts) + "\n").encode("utf-8"))


def read_dedup_index(store, topic, sig):
    """DedupRows of the topic when the index matches the file and the file is plain (only
    items/schema/topic at the top, so a new item can be spliced in); else None."""
    if sig is None:
        return None
    try:
        with open(os.path.join(store, DEDUP_DIR, topic + ".txt"), "rb") as fh:
            lines = fh.read().decode("utf-8").split("\n")
        meta = json.loads(lines[0])
        n = int(meta["n"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if meta.get("sig") != sig or not meta.get("plain") or len(lines) != 3 * n + 3 or len(lines[1]) != n:
        return None
    return DedupRows(lines[2:2 + n], lines[1], lines[2 + n:2 + 2 * n], lines[2 + 2 * n:2 + 3 * n])
