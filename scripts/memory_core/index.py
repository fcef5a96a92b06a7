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
  cache/dedup/<topic>/        one column per file (meta, ids, active, norms, negated, texts,
                              keys), so a record appends a line to each instead of rewriting
                              them; texts and keys let record judge a new fact against every
                              topic by meaning without parsing any items.json
"""
import os

from .paths import STATE_DIR, topic_items_path

CACHE_DIR = os.path.join(STATE_DIR, "cache")
TOPIC_DIR = os.path.join(CACHE_DIR, "layer1")
NEWEST_INDEX = os.path.join(CACHE_DIR, "layer1-newest.tsv")
DEDUP_DIR = os.path.join(CACHE_DIR, "dedup")
LOAD_DEPTH = 64  # newest active facts kept per topic; loading more than this parses the files
NEWEST_HEADER = "memory-3layer layer1-newest v3"
KEYS_VERSION = 6  # of judgement.fact_keys and the vocabulary they read: a dedup index written with other keys is rebuilt
TOPIC_ENTRY_VERSION = 3  # rows: [stamp, id, fact, flags ("i" inferred, "r" needs review), anchors]
CLEAN_INDEX = os.path.join(CACHE_DIR, "clean.tsv")
CLEAN_HEADER = "memory-3layer clean v1"
_ESCAPES = (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"))


def signature(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _stamp(item):
    return str(item.get("updated_at") or item.get("created_at") or "")


def _row(item):
    anchors = item.get("anchors") if isinstance(item.get("anchors"), list) else []
    flags = ("i" if item.get("inferred") else "") + ("r" if item.get("needs_review") else "")
    return [_stamp(item), str(item.get("id") or ""), item["fact"], flags, anchors]


def newest_rows(items, depth=LOAD_DEPTH):
    """(active count, newest active rows [stamp, id, fact, flags, anchors], newest first)."""
    import heapq
    active = [it for it in items if it.get("status", "active") == "active"]
    rows = heapq.nlargest(depth, (_row(it) for it in active), key=lambda r: (r[0], r[1]))
    return len(active), rows


def _write_cache(store, rel, data, append=False):
    """Replace (or append to) a cache file; appending, returns where the data went (the size
    before). No fsync: a cache lost in a crash is rebuilt later, and a torn one fails its signature
    or count check."""
    from . import safefs
    path = os.path.join(store, rel)
    safefs.check(path, store)  # UnsafePath: a linked cache (or state/) is refused, never written through
    if append:
        fd = safefs.open_write(path, os.O_WRONLY | os.O_APPEND, store)
        try:
            at = os.fstat(fd).st_size
            os.write(fd, data)
        finally:
            os.close(fd)
        return at
    safefs.make_dirs(os.path.dirname(path), store)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | safefs.NOFOLLOW | safefs.BINARY, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _read_cache(store, rel):
    """A cache file's text, or None when it is missing, unreadable, or not safe to read."""
    from . import safefs
    try:
        data = safefs.read_bytes(os.path.join(store, rel), base=store)
        return None if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError, safefs.CorruptFile):
        return None


# --- per-topic load entries ---------------------------------------------------------------------

def _topic_rel(topic):
    return os.path.join(TOPIC_DIR, topic + ".json")


def read_topic_entry(store, topic, sig, max_items):
    """The cached newest rows of a topic, or None when missing, stale or too shallow."""
    import json
    text = _read_cache(store, _topic_rel(topic))
    try:
        entry = json.loads(text) if text else None
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
    _write_cache(store, _topic_rel(topic), json.dumps(entry, ensure_ascii=False).encode("utf-8"))


# --- merged newest rows -------------------------------------------------------------------------

def _escape(text):
    for raw, escaped in _ESCAPES:
        text = text.replace(raw, escaped)
    return text


def _unescape(text):
    if "\\" not in text:
        return text
    out, i = [], 0
    table = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(table.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _write_newest(store, sigs, active, deep, rows):
    lines = ["%s\t%d\t%d" % (NEWEST_HEADER, active, 1 if deep else 0)]
    lines.extend("S\t%s\t%d\t%d\t%d" % (topic, sig[0], sig[1], sig[2]) for topic, sig in sorted(sigs.items()))
    from .fastjson import dumps
    lines.extend("R\t%s\t%s\t%s\t%s\t%s\t%s" % (stamp, _escape(item_id), topic, flags,
                                              _escape(dumps(anchors)) if anchors else "", _escape(fact))
                 for stamp, item_id, fact, flags, anchors, topic in rows)
    _write_cache(store, NEWEST_INDEX, ("\n".join(lines) + "\n").encode("utf-8"))


def _read_newest(store):
    """(sigs, active, deep, rows) or None."""
    text = _read_cache(store, NEWEST_INDEX)
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
                    anchors = loads(_unescape(anchors))
                rows.append([stamp, _unescape(item_id), _unescape(fact), flags, anchors or [], topic])
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


def rebuild_newest(store):
    """Merge every topic's current entry into the newest index; topics without a current entry
    leave it out of date (so loading parses instead)."""
    import heapq
    from .store import list_topics
    sigs, active, deep, lists = {}, 0, True, []
    for topic in list_topics(store):
        sig = signature(topic_items_path(store, topic))
        entry = read_topic_entry(store, topic, sig, 0)
        if entry is None:
            return
        sigs[topic] = sig
        active += int(entry.get("active", 0))
        deep = deep and int(entry.get("active", 0)) <= LOAD_DEPTH
        lists.append([r + [topic] for r in entry.get("rows", [])])
    merged = heapq.merge(*lists, key=lambda r: (r[0], r[1]), reverse=True)
    _write_newest(store, sigs, active, deep, [r for _n, r in zip(range(LOAD_DEPTH), merged)])


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
    text = _read_cache(store, CLEAN_INDEX)
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


def mark_clean(store, extra_patterns, rels, grown=None):
    """Scan each store-relative file not already marked and mark the clean ones. Writers call this
    after their writes (under the lock), so loading a store they maintain scans nothing. grown:
    {rel: signature before} of the newest rows (NEWEST_INDEX) when a writer only added a fact it
    had scanned clean on its own: a mark they had then carries over unscanned, since loading masks
    those rows fact by fact (loading._mask_facts), so a set of facts each clean is shown as is."""
    from .redaction import find_secrets
    fingerprint = scan_fingerprint(extra_patterns)
    marks = read_clean(store, fingerprint)
    changed = False
    for rel in rels:
        sig = signature(os.path.join(store, rel))
        if sig is None or marks.get(rel) == sig:
            continue
        if rel == NEWEST_INDEX and grown and rel in grown and marks.get(rel) == grown[rel]:
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
        _write_cache(store, CLEAN_INDEX, ("\n".join(lines) + "\n").encode("utf-8"))


# --- dedup columns ------------------------------------------------------------------------------

class DedupRows(object):
    """Every item of a topic as parallel columns: ids, active flags (a string of A/S), normalised
    texts (Lines when read back), {row: text without negations} for the few rows that have a negation word, and (when
    written) the texts as written and their judgement keys (judgement.fact_keys); matching.py reads
    those back through read_judgement_keys and read_judgement_rows."""

    def __init__(self, ids, active, norms, negated, texts=None, keys=None):
        self.ids, self.active, self.norms, self.negated = ids, active, norms, negated
        self.texts, self.keys = texts, keys


_COLUMNS = ("ids", "norms")
_OFFSETS = "%010d %010d\n"  # the offsets column: where each row's line starts in texts and in ids
DEDUP_LAYOUT = 2  # of the dedup columns (2: the offsets column): an index of another layout is rebuilt


def _dedup_rel(topic, name):
    return os.path.join(DEDUP_DIR, topic, name)


def _write_meta(store, topic, sig, count, plain):
    meta = "%d %d %d %d %d %d %d\n" % (sig[0], sig[1], sig[2], count, 1 if plain else 0, KEYS_VERSION, DEDUP_LAYOUT)
    _write_cache(store, _dedup_rel(topic, "meta"), meta.encode("ascii"))


def write_dedup_index(store, topic, sig, rows, plain):
    for name in _COLUMNS:
        column = getattr(rows, name)
        _write_cache(store, _dedup_rel(topic, name), ("".join(v + "\n" for v in column)).encode("utf-8"))
    texts = [(_escape(t) + "\n").encode("utf-8") for t in rows.texts or ()]
    _write_cache(store, _dedup_rel(topic, "texts"), b"".join(texts))
    offsets, text_at, id_at = [], 0, 0
    for text, item_id in zip(texts, rows.ids):
        offsets.append(_OFFSETS % (text_at, id_at))
        text_at, id_at = text_at + len(text), id_at + len(item_id.encode("utf-8")) + 1
    _write_cache(store, _dedup_rel(topic, "offsets"), "".join(offsets).encode("ascii"))
    keys_bytes = "".join(" %s \n" % " ".join(k) for k in rows.keys or ()).encode("utf-8")
    _write_cache(store, _dedup_rel(topic, "keys"), keys_bytes)
    _write_cache(store, _dedup_rel(topic, "postings"), _postings(rows.keys or (), len(keys_bytes)))
    _write_cache(store, _dedup_rel(topic, "active"), rows.active.encode("ascii"))
    _write_cache(store, _dedup_rel(topic, "negated"),
                 "".join("%d\t%s\n" % pair for pair in sorted(rows.negated.items())).encode("utf-8"))
    _write_meta(store, topic, sig, len(rows.ids), plain)


def append_dedup_row(store, topic, new_sig, count, item_id, norm, bare, text, keys):
    """After a fast append: one line per column, then the meta that vouches for them."""
    id_at = _write_cache(store, _dedup_rel(topic, "ids"), (item_id + "\n").encode("utf-8"), append=True)
    _write_cache(store, _dedup_rel(topic, "norms"), (norm + "\n").encode("utf-8"), append=True)
    text_at = _write_cache(store, _dedup_rel(topic, "texts"), (_escape(text) + "\n").encode("utf-8"), append=True)
    _write_cache(store, _dedup_rel(topic, "offsets"), (_OFFSETS % (text_at, id_at)).encode("ascii"), append=True)
    _write_cache(store, _dedup_rel(topic, "keys"), (" %s \n" % " ".join(keys)).encode("utf-8"), append=True)
    _write_cache(store, _dedup_rel(topic, "active"), b"A", append=True)
    if bare != norm:
        _write_cache(store, _dedup_rel(topic, "negated"), ("%d\t%s\n" % (count - 1, bare)).encode("utf-8"),
                     append=True)
    _write_meta(store, topic, new_sig, count, True)


def _read_lines(store, topic, name):
    text = _read_cache(store, _dedup_rel(topic, name))
    if text is None or (text and not text.endswith("\n")):
        return None  # missing, or torn by a crash mid-append
    return text.split("\n")[:-1]


class Lines(object):
    """A cache column as its text: len() counts and `in` searches the text itself, and the lines
    are split only when indexed (a 10,000-row column is split in ~2 ms; a record only asks whether
    its normalised text is there)."""

    def __init__(self, text):
        self.text, self.count, self._lines = text, text.count("\n"), None

    def __len__(self):
        return self.count

    def __contains__(self, line):
        return self.text.startswith(line + "\n") or ("\n%s\n" % line) in self.text

    def __getitem__(self, row):
        if self._lines is None:
            self._lines = self.text.split("\n")[:-1]
        return self._lines[row]


def _current_meta(store, topic, sig):
    """(count, plain) from the topic's dedup meta when it was computed from the file with this
    signature and with the current keys; else None (missing, torn, stale, or older keys)."""
    if sig is None:
        return None
    meta = _read_cache(store, _dedup_rel(topic, "meta"))
    try:
        size, mtime, ino, count, plain, keys_version, layout = (int(v) for v in meta.split())
    except (AttributeError, ValueError):
        return None
    current = [size, mtime, ino] == sig and keys_version == KEYS_VERSION and layout == DEDUP_LAYOUT
    return (count, plain) if current else None


def _plain_count(store, topic, sig):
    """The row count the topic's dedup meta vouches for, when it is current (_current_meta) and the
    file is plain; else None."""
    meta = _current_meta(store, topic, sig)
    return meta[0] if meta and meta[1] else None


def read_dedup_index(store, topic, sig):
    """DedupRows of the topic (without ids, which a fast append does not need: it compares normalised
    texts) when the index matches the file, its columns are complete, and the file is plain (only
    items/schema/topic at the top, so a new item can be spliced in); else None."""
    count = _plain_count(store, topic, sig)
    if count is None:
        return None
    active = _read_cache(store, _dedup_rel(topic, "active"))
    norms = _read_cache(store, _dedup_rel(topic, "norms"))
    norms = Lines(norms) if norms is not None and (not norms or norms.endswith("\n")) else None
    negated_lines = _read_lines(store, topic, "negated")
    if active is None or norms is None or negated_lines is None or len(active) != count \
            or len(norms) != count:
        return None
    try:
        negated = dict((int(row), bare) for row, bare in (line.split("\t", 1) for line in negated_lines))
    except ValueError:
        return None
    if any(row >= count for row in negated):
        return None
    return DedupRows(None, active, norms, negated)


def _postings(keys, keys_bytes):
    """The sorted inverted index of a topic's keys: a header "rows bytes" (rows and bytes of the
    keys file it covers), then "key<TAB>row,row,..." lines in byte order, for binary search."""
    rows_of = {}
    for row, row_keys in enumerate(keys):
        for key in row_keys:
            rows_of.setdefault(key, []).append(row)
    lines = sorted(("%s\t%s" % (k, ",".join(map(str, r)))).encode("utf-8") for k, r in rows_of.items())
    return ("%d %d\n" % (len(keys), keys_bytes)).encode("ascii") + b"\n".join(lines)


class Rows(object):
    """The rows holding a key: counted at once, parsed only when iterated (a key in hundreds of rows
    is dropped as common, and its row numbers never needed)."""

    def __init__(self, posted, appended):
        self.posted, self.appended = posted, appended  # the postings' "1,5,9" bytes or b""; [rows]

    def __len__(self):
        return (self.posted.count(b",") + 1 if self.posted else 0) + len(self.appended)

    def __iter__(self):
        if self.posted:
            for row in self.posted.split(b","):
                yield int(row)
        for row in self.appended:
            yield row


class JudgementKeys(object):
    """What matching needs of one topic: active flags, the postings snapshot and the keys lines
    appended since (the tail), searched line by line."""

    def __init__(self, active, postings, snapshot_rows, tail):
        self.active, self.postings, self.snapshot_rows, self.tail = active, postings, snapshot_rows, tail

    def rows(self, key):
        """Rows of the key: the postings snapshot's, by binary search, then the tail's."""
        from .sortedlines import find
        posted = (find(self.postings, key) or b"") if self.postings is not None else b""
        needle = " %s " % key
        return Rows(posted, [self.snapshot_rows + i for i, line in enumerate(self.tail) if needle in line])


def read_judgement_keys(store, topic, sig):
    """JudgementKeys of the topic when its index matches the file, else None. Texts and ids are
    read only for the rows a search finds (read_judgement_rows)."""
    from . import safefs
    count = _plain_count(store, topic, sig)
    if count is None:
        return None
    active = _read_cache(store, _dedup_rel(topic, "active"))
    if active is None or len(active) != count:
        return None
    try:
        blob = safefs.read_bytes(os.path.join(store, _dedup_rel(topic, "postings")), base=store)
        head, _sep, blob = (blob or b"").partition(b"\n")
        snapshot_rows, snapshot_bytes = (int(v) for v in head.split())
    except (OSError, ValueError, safefs.CorruptFile):
        blob, snapshot_rows, snapshot_bytes = None, 0, 0
    try:  # only the keys lines appended since the snapshot (and the newline before them)
        tail = safefs.read_bytes(os.path.join(store, _dedup_rel(topic, "keys")), base=store,
                                 offset=max(0, snapshot_bytes - 1))
        tail = tail.decode("utf-8") if tail is not None else None
    except (OSError, UnicodeDecodeError, safefs.CorruptFile):
        return None
    if tail is None or snapshot_bytes and not tail.startswith("\n") or tail and not tail.endswith("\n"):
        return None  # missing, torn, or a postings file from another keys file
    tail = tail[1:].split("\n")[:-1] if snapshot_bytes else tail.split("\n")[:-1]
    if snapshot_rows + len(tail) != count:
        return None
    return JudgementKeys(active, blob, snapshot_rows, tail)


def read_judgement_rows(store, topic, count, rows):
    """{row: (id, text escaped as stored: index.unescape gives it back)} of some rows of a topic
    whose keys were just read, found through the offsets column, so no column is read whole (a
    10,000-row topic's texts cost ~5 ms to read and split); None when a column is missing or torn."""
    from . import safefs
    rows = sorted(set(rows))
    width = len(_OFFSETS % (0, 0))
    try:
        found = safefs.read_ranges(os.path.join(store, _dedup_rel(topic, "offsets")),
                                   [(width * row, 2 * width) for row in rows], base=store)
        if found is None or found[0] != width * count:
            return None
        spans = []  # (text start, text end, id start, id end) of each row; end None: the file's end
        for blob in found[1]:
            here = [int(v) for v in blob[:width].split()]
            after = [int(v) for v in blob[width:].split()] if len(blob) > width else [None, None]
            spans.append((here[0], after[0], here[1], after[1]))
        columns = []
        for name, first in (("texts", 0), ("ids", 2)):
            ranges = []  # each line with the byte before it, a newline unless at the start: a torn column shows
            for span in spans:
                at = max(0, span[first] - 1)
                ranges.append((at, None if span[first + 1] is None else span[first + 1] - at))
            read = safefs.read_ranges(os.path.join(store, _dedup_rel(topic, name)), ranges, base=store)
            if read is None:
                return None
            lines = []
            for span, chunk in zip(spans, read[1]):
                if span[first]:
                    if chunk[:1] != b"\n":
                        return None
                    chunk = chunk[1:]
                if not chunk.endswith(b"\n") or b"\n" in chunk[:-1]:
                    return None
                lines.append(chunk[:-1].decode("utf-8"))
            columns.append(lines)
    except (OSError, ValueError, IndexError, UnicodeDecodeError, safefs.CorruptFile):
        return None
    return dict((row, (item_id, text)) for row, text, item_id in zip(rows, columns[0], columns[1]))


unescape, escape = _unescape, _escape


# --- writers' entry points ----------------------------------------------------------------------

def _previous_keys(store, topic):
    """{(id, text): keys} from the topic's last index, whatever file it was computed from, so a
    rewrite of a large topic computes keys only for the facts that changed."""
    ids, texts = _read_lines(store, topic, "ids"), _read_lines(store, topic, "texts")
    keys = _read_lines(store, topic, "keys")
    if not ids or texts is None or keys is None or not len(ids) == len(texts) == len(keys):
        return {}
    return dict(((i, t), k.split()) for i, t, k in zip(ids, texts, keys))


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
            known = _previous_keys(store, topic)
            for row, it in enumerate(items):
                norm = normalize(it["fact"])
                dedup.ids.append(it["id"])
                dedup.norms.append(norm)
                dedup.texts.append(it["fact"])
                found = known.get((it["id"], _escape(it["fact"])))
                dedup.keys.append(found if found is not None else fact_keys(it["fact"]))
                bare = without_negations(norm)
                if bare != norm:
                    dedup.negated[row] = bare
            dedup.active = "".join("A" if it.get("status", "active") == "active" else "S" for it in items)
        write_dedup_index(store, topic, sig, dedup, plain)
        if merge:
            rebuild_newest(store)
    except OSError:
        pass  # a cache that cannot be written only costs speed


def add_newest(store, topic, old_sig, new_sig, item):
    """After a fast append: put the new item at the head of the topic's entry and of the merged
    rows, where those were current; a stale one stays stale (loading then parses). True when the
    merged rows were rewritten with it."""
    row = _row(item)
    entry = read_topic_entry(store, topic, old_sig, 0)
    if entry is None:
        return False
    entry["rows"] = sorted([row] + entry.get("rows", []), key=lambda r: (r[0], r[1]), reverse=True)[:LOAD_DEPTH]
    entry["active"] = entry.get("active", 0) + 1
    entry["sig"] = new_sig
    _write_topic_entry(store, topic, entry)
    found = _read_newest(store)
    if found is None or found[0].get(topic) != old_sig:
        return False
    sigs, active, deep, rows = found
    sigs[topic] = new_sig
    rows = sorted([row + [topic]] + rows, key=lambda r: (r[0], r[1]), reverse=True)[:LOAD_DEPTH]
    _write_newest(store, sigs, active + 1, deep and entry["active"] <= LOAD_DEPTH, rows)
    return True


def refresh_all(store, extra_patterns=(), daily_days=7):
    """Rebuild the indexes of every readable topic whose index is missing or stale, and the clean
    marks of MEMORY.md, the newest daily files and the merged rows; returns the topics refreshed.
    Corrupt topics are left alone (loading reports them). Call under the lock."""
    from .store import CorruptFile, list_topics, read_topic
    done = []
    for topic in list_topics(store):
        path = topic_items_path(store, topic)
        sig = signature(path)
        if read_topic_entry(store, topic, sig, 0) is not None and _current_meta(store, topic, sig):
            continue
        try:
            doc, items = read_topic(store, topic)
        except CorruptFile:
            continue
        refresh_topic(store, topic, path, doc, items, merge=False)
        done.append(topic)
    try:
        rebuild_newest(store)
        from .paths import DAILY_DIR, LAYER3_FILE
        from .store import list_daily_files
        mark_clean(store, extra_patterns, [LAYER3_FILE, NEWEST_INDEX] +
                   [os.path.join(DAILY_DIR, name) for name in list_daily_files(store)[:daily_days]])
    except OSError:
        pass
    return done
