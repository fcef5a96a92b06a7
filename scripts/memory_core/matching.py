"""A new fact's duplicates and conflicts among the active facts of every topic, judged by meaning
(judgement.py), not by wording.

Candidates come from the judgement keys in each topic's dedup index (state/cache/dedup/<topic>/
keys: one " key key " line per row), searched as text, so no items.json is parsed while the index
matches its file. A key found in more than COMMON_KEY rows of the store says little and is dropped.
A stale or missing index is rebuilt from the file by a writer (under the store lock), and computed
in memory without being written on a dry run. Up to candidate_keys.MAX_CANDIDATES candidates,
strongest first, are compared verbatim, and the strongest candidate_keys.MAX_JUDGED are parsed and
judged by the pair model (the fact a new one contradicts or repeats is nearly always the strongest).
"""
from . import candidate_keys, index
from . import store as st
from .paths import topic_items_path

COMMON_KEY = 300
TIE_BREAK = 50  # candidates tied on key strength are ordered by wording likeness, this many at most


def topic_keys(store, topic, write):
    """(index.JudgementKeys, rows loader) of a topic, or None when it cannot be read. The loader
    gives {row: (id, text escaped as stored)} of the rows asked for, or None."""
    path = topic_items_path(store, topic)
    found = index.read_judgement_keys(store, topic, index.signature(path))
    if found is None:
        try:
            doc, items = st.read_topic(store, topic)
        except st.StoreError:
            return None  # check and review report the file; record reads it when it writes there
        if write:
            index.refresh_topic(store, topic, path, doc, items, merge=False)
            found = index.read_judgement_keys(store, topic, index.signature(path))
        if found is None:  # a dry run, or an index that cannot be written: computed in memory
            active = "".join("A" if it.get("status", "active") == "active" else "S" for it in items)
            tail = [" %s " % " ".join(candidate_keys.fact_keys(it.get("fact", ""))) for it in items]
            return (index.JudgementKeys(active, None, 0, tail),
                    lambda rows: dict((r, (items[r].get("id"), index.escape(items[r].get("fact", "")))) for r in rows))
    return found, lambda rows: index.read_judgement_rows(store, topic, len(found.active), rows)


def candidates(store, text, skip_ids=(), write=True):
    """[(strength, topic, id, text)] of the active facts sharing the strongest keys with text."""
    keys = candidate_keys.fact_keys(text)
    if not keys:
        return []
    topics = []
    for topic in st.list_topics(store):
        found = topic_keys(store, topic, write)
        if found is not None:
            topics.append((topic,) + found)
    hits = dict((k, [(t, keys_of.rows(k)) for t, keys_of, _l in topics]) for k in keys)
    common = set(k for k, per_topic in hits.items() if sum(len(rows) for _t, rows in per_topic) > COMMON_KEY)
    ranked = []  # (strength, topic, row): texts are read only for the topics of the strongest
    for topic, keys_of, _load in topics:
        per_row = {}
        for key, per_topic in hits.items():
            if key in common:
                continue
            for t, rows in per_topic:
                if t == topic:
                    for row in rows:
                        per_row.setdefault(row, []).append(key)
        ranked.extend((strength, topic, row) for strength, row in
                      ((candidate_keys.score(keys_hit), row) for row, keys_hit in per_row.items())
                      if strength >= candidate_keys.MIN_SCORE and keys_of.active[row] == "A")
    ranked.sort(key=lambda c: (-c[0], c[1], c[2]))  # strongest first, then by topic, oldest first
    loaders = dict((topic, load_rows) for topic, _k, load_rows in topics)

    def enough(strength):  # and past the tie at the top that the wording likeness orders
        return len(found) >= candidate_keys.MAX_CANDIDATES and (len(found) >= TIE_BREAK or strength < found[0][0])
    found, start = [], 0
    while start < len(ranked) and not enough(ranked[start][0]):
        chunk = ranked[start:start + TIE_BREAK]  # the rows that may be needed, read topic by topic
        start += len(chunk)
        read = dict((topic, loaders[topic]([r for _s, t, r in chunk if t == topic]))
                    for topic in set(t for _s, t, _r in chunk))
        for strength, topic, row in chunk:
            if enough(strength):
                break
            got = read[topic].get(row) if read[topic] is not None else None
            if got is not None and got[0] not in skip_ids:
                found.append((strength, topic, got[0], index.unescape(got[1])))
    if len(found) > 1 and found[0][0] == found[1][0]:  # a tie at the top: the likelier subject first
        from .similarity import normalize, ratio
        norm = normalize(text)
        top = [c for c in found[:TIE_BREAK] if c[0] == found[0][0]]
        top.sort(key=lambda c: -ratio(norm, normalize(c[3])))
        found[:len(top)] = top
    return found[:candidate_keys.MAX_CANDIDATES]


def matches(store, text, skip_ids=(), write=True, extra=None):
    """(duplicate or None, [conflicts]) as {"id", "topic", "fact", "confidence"} dicts, strongest
    first; text is the new fact."""
    found_candidates = candidates(store, text, skip_ids, write)
    for _s, topic, item_id, old_text in found_candidates:
        if old_text == text:  # known verbatim: a duplicate, whatever else it conflicts with (those
            return {"id": item_id, "topic": topic, "fact": old_text, "confidence": 1.0}, []  # are the store's)
    if not found_candidates:
        return None, []
    from . import judgement  # the parser and the pair model, only once there is something to judge
    from .facts import parse
    new = parse(text, extra)
    duplicate, conflicts = None, []
    for _strength, topic, item_id, old_text in found_candidates[:candidate_keys.MAX_JUDGED]:
        old = parse(old_text, extra)
        verdict, probs = judgement.judge(old, new, extra)
        if verdict is None:
            continue
        found = {"id": item_id, "topic": topic, "fact": old_text}
        if probs:
            found["confidence"] = judgement.confidence(probs)
        if verdict == "conflict":
            found["reason"] = judgement.conflict_reason(old, new, extra)
            conflicts.append(found)
        elif duplicate is None or found.get("confidence", 0) > duplicate.get("confidence", 0):
            duplicate = found
    conflicts.sort(key=lambda c: -c.get("confidence", 0))
    return duplicate, conflicts
