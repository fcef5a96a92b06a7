"""Binary search over a blob of sorted "key<TAB>value" lines (bytes, one per line, in byte order): the
data files and caches that are read for a handful of keys per process (surface_model.tsv, the
judgement postings, pair_model.tsv) are searched in place instead of being split into a dict at every
start."""


def map_file(path):
    """(header line, blob, where its sorted lines start) of a data file that is a header line and
    then sorted lines: the file mapped, so only the pages a binary search touches are read (reading
    a 1.6-1.8 MB model cost 1-2 ms at each start), or read whole where it cannot be mapped."""
    with open(path, "rb") as fh:
        try:
            import mmap
            blob = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (ImportError, OSError, ValueError):  # no mmap, or an empty file
            blob = fh.read()
    end = blob.find(b"\n")
    if end < 0:
        raise ValueError("%s has no header line" % path)
    return blob[:end], blob, end + 1


def find(blob, key, first=0):
    """The value bytes of key (str) in blob (bytes or a mapped file; its lines from first on), or None."""
    key = key.encode("utf-8") + b"\t"
    lo, hi = first, len(blob)  # lo and hi are line starts; the first line >= key starts in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        start = blob.rfind(b"\n", lo, mid) + 1 or lo
        end = blob.find(b"\n", start)
        end = len(blob) if end < 0 else end
        if blob[start:end] < key:
            lo = end + 1
        else:
            hi = start
    if blob[lo:lo + len(key)] != key:  # a mapped file has no startswith
        return None
    end = blob.find(b"\n", lo)
    return blob[lo + len(key):len(blob) if end < 0 else end]


def weights(model, key):
    """The floats on key's line of a model's blob ({"blob", "cache"}, and "start" where its lines
    start), or None; cached per model."""
    cache = model["cache"]
    if key not in cache:
        found = find(model["blob"], key, model.get("start", 0))
        cache[key] = [float(x) for x in found.split(b",")] if found is not None else None
    return cache[key]
