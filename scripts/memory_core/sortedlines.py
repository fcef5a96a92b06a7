"""Binary search over a blob of sorted "key<TAB>value" lines (bytes, one per line, in byte order): the
data files and caches that are read for a handful of keys per process (surface_model.tsv, the
judgement postings, pair_model.tsv) are searched in place instead of being split into a dict at every
start."""


def find(blob, key):
    """The value bytes of key (str) in blob, or None."""
    key = key.encode("utf-8") + b"\t"
    lo, hi = 0, len(blob)  # lo and hi are line starts; the first line >= key starts in [lo, hi]
    while lo < hi:
        mid = (lo + hi) // 2
        start = blob.rfind(b"\n", lo, mid) + 1 or lo
        end = blob.find(b"\n", start)
        end = len(blob) if end < 0 else end
        if blob[start:end] < key:
            lo = end + 1
        else:
            hi = start
    if not blob.startswith(key, lo):
        return None
    end = blob.find(b"\n", lo)
    return blob[lo + len(key):len(blob) if end < 0 else end]


def weights(model, key):
    """The floats on key's line of a model's blob ({"blob", "cache"}), or None; cached per model."""
    cache = model["cache"]
    if key not in cache:
        found = find(model["blob"], key)
        cache[key] = [float(x) for x in found.split(b",")] if found is not None else None
    return cache[key]
