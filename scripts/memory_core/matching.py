"""A new fact's duplicates and conflicts among the active facts of every topic, judged by meaning
(judgement.py), not by wording.

Candidates come from the judgement keys in each topic's dedup index (state/cache/dedup/<topic>/
keys: one " key key " line per row), searched as text, so no items.json is parsed while the index
matches its file. A stale or missing index is rebuilt from the file by a writer (under the store
lock) and read without being written on a dry run. The strongest MAX_CANDIDATES candidates are
parsed and judged; the rest are not looked at.
"""
from . import facts, index, judgement
from . import store as st
from .paths import topic_items_path


def _rows(store, topic, write):
    path = topic_items_path(store, topic)
    rows = index.read_judgement_rows(store, topic, index.signature(path))
    if rows is not None:
        return rows
    try:
        doc, items = st.read_topic(store, topic)
    except st.StoreError:
        return None  # check and review report the file; record reads it when it writes there
    if write:
        index.refresh_topic(store, topic, path, doc, items, merge=False)
        rows = index.read_judgement_rows(store, topic, index.signature(path))
        if rows is not None:
            return rows
    keys = "".join(" %s \n" % " ".join(judgement.fact_keys(it.get("fact", ""))) for it in items)
    return index.DedupRows([it.get("id") for it in items],
                           "".join("A" if it.get("status", "active") == "active" else "S" for it in items),
                           None, {}, [index._escape(it.get("fact", "")) for it in items], keys)


def candidates(store, text, skip_ids=(), write=True):
    """[(score, topic, id, text)] of the active facts sharing the strongest keys with text."""
    keys = judgement.fact_keys(text)
    found = []
    for topic in st.list_topics(store):
        rows = _rows(store, topic, write)
        if rows is None:
            continue
        blob, shared = rows.keys, {}
        for key in keys:
            needle = " %s " % key
            at = blob.find(needle)
            while at >= 0:
                shared.setdefault(at, []).append(key)
                at = blob.find(needle, at + 1)
        row, last, per_row = 0, 0, {}
        for at in sorted(shared):
            row += blob.count("\n", last, at)
            last = at
            per_row.setdefault(row, []).extend(shared[at])
        for row, hits in per_row.items():
            strength = judgement.score(hits)
            if strength >= judgement.MIN_SCORE and rows.active[row] == "A" and rows.ids[row] not in skip_ids:
                found.append((strength, topic, rows.ids[row], index.row_text(rows, row)))
    found.sort(key=lambda c: (-c[0], c[1], c[2]))
    return found[:judgement.MAX_CANDIDATES]


def matches(store, text, skip_ids=(), write=True, extra=None):
    """(duplicate or None, [conflicts]) as {"id", "topic", "fact", "confidence"} dicts, strongest
    first; text is the new fact."""
    new = facts.parse(text, extra)
    duplicate, conflicts = None, []
    for _strength, topic, item_id, old_text in candidates(store, text, skip_ids, write):
        if old_text == text:
            continue  # the exact repeat is record's own check
        verdict, probs = judgement.judge(facts.parse(old_text, extra), new, extra)
        if verdict is None:
            continue
        found = {"id": item_id, "topic": topic, "fact": old_text}
        if probs:
            found["confidence"] = round(probs["conflict" if verdict == "conflict" else "paraphrase"], 3)
        if verdict == "conflict":
            conflicts.append(found)
        elif duplicate is None or found.get("confidence", 0) > duplicate.get("confidence", 0):
            duplicate = found
    conflicts.sort(key=lambda c: -c.get("confidence", 0))
    return duplicate, conflicts
