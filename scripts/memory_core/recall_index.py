"""One recall index for the whole store (state/cache/recall/), so a query reads a few files instead
of four per topic (a 31-topic store: ~180 reads, most of a query's time after its imports).

It is a merge of the topics' dedup indexes (dedup_index.py), made by writers in refresh_all (the
SessionStart hook's detached rebuild, or a warm-up) and never on a record's path. Each topic's part
holds while its items.json keeps the signature the merge saw; a topic changed since (a record, a
pull) is read from its own dedup index by the query, the others from here.

  meta      header (layout, keys' version, the detector's fingerprint), then a line per topic:
            topic, the items.json signature, its row count and its first global row
  active    A or S per global row;  clean  C or ? per global row (dedup_index clean flags)
  postings  "key<TAB>row,row,..." in byte order, global rows ascending (sortedlines.find)
  rows      "id<TAB>text" per global row (cache_files.escape);  offsets  where each line starts
"""
import bisect
import os

from .cache_files import CACHE_DIR, escape, read_cache, signature, unescape, write_cache

RECALL_DIR = os.path.join(CACHE_DIR, "recall")
LAYOUT = 1
_WIDTH = 11  # "%010d\n": each row's line start in rows


def _rel(name):
    return os.path.join(RECALL_DIR, name)


def build(store):
    """Merge every topic's current dedup index into the recall index; a topic whose dedup index is
    not current leaves the merge without it (the query reads that topic on its own). Call under
    the store lock. Returns the topics merged."""
    from . import dedup_index
    from .index import scan_fingerprint
    from .paths import topic_items_path
    from .store import list_topics
    fingerprint = scan_fingerprint(())
    meta, active, clean, lines, rows_of = [], [], [], [], {}
    for topic in list_topics(store):
        sig = signature(topic_items_path(store, topic))
        count = dedup_index._plain_count(store, topic, sig)
        keys = dedup_index._read_lines(store, topic, "keys")
        ids = dedup_index._read_lines(store, topic, "ids")
        texts = dedup_index._read_lines(store, topic, "texts")
        flags = read_cache(store, dedup_index._dedup_rel(topic, "active"))
        cleans = dedup_index.read_clean_flags(store, topic, count or 0, fingerprint)
        if count is None or None in (keys, ids, texts, flags) or not len(keys) == len(ids) == len(texts) == \
                len(flags) == count:
            continue
        first = len(lines)
        meta.append("%s\t%d\t%d\t%d\t%d\t%d" % (topic, sig[0], sig[1], sig[2], count, first))
        active.append(flags)
        clean.append(cleans if cleans is not None else "?" * count)
        for row, (item_id, text, line) in enumerate(zip(ids, texts, keys)):
            lines.append("%s\t%s" % (escape(item_id), text))
            for key in line.split():
                rows_of.setdefault(key, []).append(first + row)
    body = [(line + "\n").encode("utf-8") for line in lines]
    offsets, at = [], 0
    for line in body:
        offsets.append("%010d\n" % at)
        at += len(line)
    postings = sorted(("%s\t%s" % (k, ",".join(map(str, r)))).encode("utf-8") for k, r in rows_of.items())
    write_cache(store, _rel("rows"), b"".join(body))
    write_cache(store, _rel("offsets"), "".join(offsets).encode("ascii"))
    write_cache(store, _rel("postings"), b"\n".join(postings) + b"\n")
    write_cache(store, _rel("active"), "".join(active).encode("ascii"))
    write_cache(store, _rel("clean"), "".join(clean).encode("ascii"))
    from .dedup_index import KEYS_VERSION
    head = "memory-3layer recall %d %d %s %d" % (LAYOUT, KEYS_VERSION, fingerprint, len(lines))
    write_cache(store, _rel("meta"), ("\n".join([head] + meta) + "\n").encode("utf-8"))  # last: it vouches
    return [m.split("\t", 1)[0] for m in meta]


def is_current(store, topics_sigs):
    """Whether the recall index covers exactly these topics at these signatures ({topic: sig}), with
    clean flags of the detector as it is now."""
    from .index import scan_fingerprint
    found = _read_meta(store)
    return found is not None and dict((t, p[0]) for t, p in found[1].items()) == topics_sigs \
        and found[2] == scan_fingerprint(())


def _read_meta(store):
    """(total rows, {topic: (signature, count, first row)}) or None."""
    from .dedup_index import KEYS_VERSION
    text = read_cache(store, _rel("meta"))
    if not text:
        return None
    lines = text.split("\n")
    head = lines[0].split(" ")
    if len(head) != 6 or head[:2] != ["memory-3layer", "recall"] or head[2] != str(LAYOUT) \
            or head[3] != str(KEYS_VERSION):
        return None
    topics = {}
    try:
        for line in lines[1:]:
            if line:
                topic, size, mtime, ino, count, first = line.split("\t")
                topics[topic] = ([int(size), int(mtime), int(ino)], int(count), int(first))
        return int(head[5]), topics, head[4]
    except ValueError:
        return None


class Merged(object):
    """The recall index as read by a query: postings searched in place, rows read on demand."""

    def __init__(self, store, total, fingerprint, postings, active, clean):
        self.store, self.total, self.fingerprint = store, total, fingerprint
        self.postings, self.active, self.clean = postings, active, clean
        self.found = {}  # key -> [global rows]
        self.texts = {}  # global row -> (id, text escaped), read by prefetch()

    def rows(self, key):
        if key not in self.found:
            from .sortedlines import find
            posted = find(self.postings, key)
            self.found[key] = [int(r) for r in posted.split(b",")] if posted else []
        return self.found[key]

    def prefetch(self, rows):
        """Read these global rows at once (two reads for all the topics a search asks about)."""
        read = self.read(rows)
        if read is not None:
            self.texts.update(read)

    def read(self, rows):
        """{global row: (id, text escaped)} or None when a file is missing or torn."""
        from . import safefs
        if all(r in self.texts for r in rows):
            return dict((r, self.texts[r]) for r in rows)
        rows = sorted(set(rows))
        try:
            found = safefs.read_ranges(os.path.join(self.store, _rel("offsets")),
                                       [(_WIDTH * r, 2 * _WIDTH) for r in rows], base=self.store)
            if found is None or found[0] != _WIDTH * self.total:
                return None
            spans = []
            for blob in found[1]:
                start = int(blob[:_WIDTH])
                end = int(blob[_WIDTH:2 * _WIDTH]) if len(blob) > _WIDTH else None
                spans.append((start, None if end is None else end - start))
            read = safefs.read_ranges(os.path.join(self.store, _rel("rows")), spans, base=self.store)
            if read is None:
                return None
            out = {}
            for row, chunk in zip(rows, read[1]):
                line = chunk.decode("utf-8")
                if not line.endswith("\n") or "\n" in line[:-1] or "\t" not in line:
                    return None
                item_id, text = line[:-1].split("\t", 1)
                out[row] = (unescape(item_id), text)
            return out
        except (OSError, ValueError, UnicodeDecodeError, safefs.CorruptFile):
            return None


class TopicView(object):
    """One topic's part of the recall index, with the interface of dedup_index.JudgementKeys (rows,
    active, current, clean_flags) and a loader of its rows (local row numbers)."""
    current = True

    def __init__(self, merged, count, first):
        self.merged, self.count, self.first = merged, count, first
        self.active = merged.active[first:first + count]
        self.clean = merged.clean[first:first + count]

    def clean_flags(self, store, topic, fingerprint):
        """This part's clean flags, when the index was made under this detector fingerprint."""
        return self.clean if self.merged.fingerprint == fingerprint else None

    def rows(self, key):
        found = self.merged.rows(key)
        lo = bisect.bisect_left(found, self.first)
        hi = bisect.bisect_left(found, self.first + self.count)
        return [r - self.first for r in found[lo:hi]]

    def load(self, rows):
        read = self.merged.read([self.first + r for r in rows])
        return None if read is None else dict((r - self.first, v) for r, v in read.items())


def topic_views(store, sigs):
    """{topic: TopicView} of the topics whose part of the recall index matches their file ({topic:
    signature}); {} when there is no usable index."""
    found = _read_meta(store)
    if found is None:
        return {}
    total, topics, fingerprint = found
    from . import safefs
    active, clean = read_cache(store, _rel("active")), read_cache(store, _rel("clean"))
    try:
        postings = safefs.read_bytes(os.path.join(store, _rel("postings")), base=store)
    except (OSError, safefs.CorruptFile):
        postings = None
    if not postings or active is None or clean is None or len(active) != total or len(clean) != total:
        return {}
    merged = Merged(store, total, fingerprint, postings, active, clean)
    return dict((topic, TopicView(merged, count, first)) for topic, (sig, count, first) in topics.items()
                if sigs.get(topic) == sig)
