"""A topic's dedup index, state/cache/dedup/<topic>/: one column per file, so a record appends a
line to each instead of rewriting them, and record judges a new fact against every topic by meaning
without parsing any items.json.

  meta       the topic file's signature, row count, plain flag, keys' version and columns' layout
  ids, norms, active, negated   what an exact or near repeat is found by (the fast append)
  texts, keys, postings, offsets   what matching.py finds and reads candidates by
  clean      the secret detector's fingerprint, then a flag per row: "C" its text was scanned and
             found clean, "?" not, so a query shows clean facts without loading the detector
"""
import os

from .cache_files import CACHE_DIR, escape, read_cache, write_cache

DEDUP_DIR = os.path.join(CACHE_DIR, "dedup")
KEYS_VERSION = 8  # of judgement.fact_keys and the vocabulary they read: a dedup index written with other keys is rebuilt


class DedupRows(object):
    """Every item of a topic as parallel columns: ids, active flags (a string of A/S), normalised
    texts (Lines when read back), {row: text without negations} for the few rows that have a
    negation word, and (when written) the texts as written and their judgement keys
    (judgement.fact_keys); matching.py reads those back through read_judgement_keys and
    read_judgement_rows."""

    def __init__(self, ids, active, norms, negated, texts=None, keys=None, clean=None):
        self.ids, self.active, self.norms, self.negated = ids, active, norms, negated
        self.texts, self.keys, self.clean = texts, keys, clean  # clean: (fingerprint, "C?" flags)


_OFFSETS = "%010d %010d\n"  # the offsets column: where each row's line starts in texts and in ids
DEDUP_LAYOUT = 3  # of the dedup columns (2: the offsets column; 3: the clean flags): an index of another layout is rebuilt


def _dedup_rel(topic, name):
    return os.path.join(DEDUP_DIR, topic, name)


def _write_meta(store, topic, sig, count, plain):
    meta = "%d %d %d %d %d %d %d\n" % (sig[0], sig[1], sig[2], count, 1 if plain else 0, KEYS_VERSION, DEDUP_LAYOUT)
    write_cache(store, _dedup_rel(topic, "meta"), meta.encode("ascii"))


def write_dedup_index(store, topic, sig, rows, plain):
    ids = [(item_id + "\n").encode("utf-8") for item_id in rows.ids]
    texts = [(escape(t) + "\n").encode("utf-8") for t in rows.texts or ()]
    write_cache(store, _dedup_rel(topic, "ids"), b"".join(ids))
    write_cache(store, _dedup_rel(topic, "norms"), ("".join(v + "\n" for v in rows.norms)).encode("utf-8"))
    write_cache(store, _dedup_rel(topic, "texts"), b"".join(texts))
    offsets, text_at, id_at = [], 0, 0
    for text, item_id in zip(texts, ids):
        offsets.append(_OFFSETS % (text_at, id_at))
        text_at, id_at = text_at + len(text), id_at + len(item_id)
    write_cache(store, _dedup_rel(topic, "offsets"), "".join(offsets).encode("ascii"))
    keys_bytes = "".join(" %s \n" % " ".join(k) for k in rows.keys or ()).encode("utf-8")
    write_cache(store, _dedup_rel(topic, "keys"), keys_bytes)
    write_cache(store, _dedup_rel(topic, "postings"), _postings(rows.keys or (), len(keys_bytes)))
    write_cache(store, _dedup_rel(topic, "active"), rows.active.encode("ascii"))
    write_cache(store, _dedup_rel(topic, "negated"),
                 "".join("%d\t%s\n" % pair for pair in sorted(rows.negated.items())).encode("utf-8"))
    fingerprint, flags = rows.clean or ("none", "?" * len(rows.ids))
    write_cache(store, _dedup_rel(topic, "clean"), ("%s\n%s" % (fingerprint, flags)).encode("ascii"))
    _write_meta(store, topic, sig, len(rows.ids), plain)


def append_dedup_row(store, topic, new_sig, count, item_id, norm, bare, text, keys, clean=False):
    """After a fast append: one line per column, then the meta that vouches for them. clean: the
    text was scanned by the detector and found clean (the recorder's screen)."""
    id_at = write_cache(store, _dedup_rel(topic, "ids"), (item_id + "\n").encode("utf-8"), append=True)
    write_cache(store, _dedup_rel(topic, "norms"), (norm + "\n").encode("utf-8"), append=True)
    text_at = write_cache(store, _dedup_rel(topic, "texts"), (escape(text) + "\n").encode("utf-8"), append=True)
    write_cache(store, _dedup_rel(topic, "offsets"), (_OFFSETS % (text_at, id_at)).encode("ascii"), append=True)
    write_cache(store, _dedup_rel(topic, "keys"), (" %s \n" % " ".join(keys)).encode("utf-8"), append=True)
    write_cache(store, _dedup_rel(topic, "active"), b"A", append=True)
    write_cache(store, _dedup_rel(topic, "clean"), b"C" if clean else b"?", append=True)
    if bare != norm:
        write_cache(store, _dedup_rel(topic, "negated"), ("%d\t%s\n" % (count - 1, bare)).encode("utf-8"),
                     append=True)
    _write_meta(store, topic, new_sig, count, True)


def _read_column(store, topic, name):
    """A column's text, or None when it is missing or torn by a crash mid-append."""
    text = read_cache(store, _dedup_rel(topic, name))
    return None if text is None or (text and not text.endswith("\n")) else text


def _read_lines(store, topic, name):
    text = _read_column(store, topic, name)
    return None if text is None else text.split("\n")[:-1]


def read_norms(store, topic, count):
    """The topic's normalised texts, one per row, when the column holds count rows; else None."""
    lines = _read_lines(store, topic, "norms")
    return lines if lines is not None and len(lines) == count else None


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


def current_meta(store, topic, sig):
    """(count, plain) from the topic's dedup meta when it was computed from the file with this
    signature and with the current keys; else None (missing, torn, stale, or older keys)."""
    if sig is None:
        return None
    meta = read_cache(store, _dedup_rel(topic, "meta"))
    try:
        size, mtime, ino, count, plain, keys_version, layout = (int(v) for v in meta.split())
    except (AttributeError, ValueError):
        return None
    current = [size, mtime, ino] == sig and keys_version == KEYS_VERSION and layout == DEDUP_LAYOUT
    return (count, plain) if current else None


def _plain_count(store, topic, sig):
    """The row count the topic's dedup meta vouches for, when it is current (current_meta) and the
    file is plain; else None."""
    meta = current_meta(store, topic, sig)
    return meta[0] if meta and meta[1] else None


def read_dedup_index(store, topic, sig):
    """DedupRows of the topic (without ids, which a fast append does not need: it compares normalised
    texts) when the index matches the file, its columns are complete, and the file is plain (only
    items/schema/topic at the top, so a new item can be spliced in); else None."""
    count = _plain_count(store, topic, sig)
    if count is None:
        return None
    active = read_cache(store, _dedup_rel(topic, "active"))
    norms = _read_column(store, topic, "norms")
    norms = None if norms is None else Lines(norms)
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

    def __init__(self, active, postings, snapshot_rows, tail, current=False):
        self.active, self.postings, self.snapshot_rows, self.tail = active, postings, snapshot_rows, tail
        self.current = current  # read from an index its meta vouches for (not computed in memory)

    def clean_flags(self, store, topic, fingerprint):
        """The topic's clean flags under this detector fingerprint; None for keys computed in memory
        (their file changed since its index: nothing vouches for them)."""
        return read_clean_flags(store, topic, len(self.active), fingerprint) if self.current else None

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
    active = read_cache(store, _dedup_rel(topic, "active"))
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
    return JudgementKeys(active, blob, snapshot_rows, tail, current=True)


def read_judgement_rows(store, topic, count, rows):
    """{row: (id, text escaped as stored: cache_files.unescape gives it back)} of some rows of a topic
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
        texts, ids = [], []  # (start, end) of each row's line in each column; end None: the file's end
        for blob in found[1]:
            here = [int(v) for v in blob[:width].split()]
            after = [int(v) for v in blob[width:].split()] if len(blob) > width else [None, None]
            texts.append((here[0], after[0]))
            ids.append((here[1], after[1]))
        texts, ids = _lines_at(store, topic, "texts", texts), _lines_at(store, topic, "ids", ids)
    except (OSError, ValueError, IndexError, UnicodeDecodeError, safefs.CorruptFile):
        return None
    return None if texts is None or ids is None else dict(zip(rows, zip(ids, texts)))


def _lines_at(store, topic, name, spans):
    """The lines of a column at [(start, end or None)], each read with the byte before it, which must
    be a newline unless it starts the file, and ending in one: a torn or foreign column gives None."""
    from . import safefs
    ranges = [(max(0, a - 1), None if b is None else b - max(0, a - 1)) for a, b in spans]
    read = safefs.read_ranges(os.path.join(store, _dedup_rel(topic, name)), ranges, base=store)
    if read is None:
        return None
    lines = []
    for (start, _end), chunk in zip(spans, read[1]):
        if start:
            if chunk[:1] != b"\n":
                return None
            chunk = chunk[1:]
        if not chunk.endswith(b"\n") or b"\n" in chunk[:-1]:
            return None
        lines.append(chunk[:-1].decode("utf-8"))
    return lines


def read_clean_flags(store, topic, count, fingerprint):
    """The topic's clean flags ("C" or "?" per row) when they were set under this detector
    fingerprint and hold count rows; else None."""
    text = read_cache(store, _dedup_rel(topic, "clean"))
    head, _sep, flags = (text or "").partition("\n")
    return flags if text and head == fingerprint and len(flags) == count else None


def previous_clean(store, topic, fingerprint):
    """{(id, text escaped as stored)} of the rows of the topic's last index found clean under this
    fingerprint, whatever file it was computed from: a rewrite scans only the texts that changed."""
    ids, texts = _read_lines(store, topic, "ids"), _read_lines(store, topic, "texts")
    flags = read_clean_flags(store, topic, len(ids or ()), fingerprint)
    if not ids or texts is None or flags is None or len(texts) != len(ids):
        return set()
    return set((i, t) for i, t, f in zip(ids, texts, flags) if f == "C")


def previous_keys(store, topic):
    """{(id, text): keys} from the topic's last index, whatever file it was computed from, so a
    rewrite of a large topic computes keys only for the facts that changed."""
    ids, texts = _read_lines(store, topic, "ids"), _read_lines(store, topic, "texts")
    keys = _read_lines(store, topic, "keys")
    if not ids or texts is None or keys is None or not len(ids) == len(texts) == len(keys):
        return {}
    return dict(((i, t), k.split()) for i, t, k in zip(ids, texts, keys))
