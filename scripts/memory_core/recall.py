"""Query recall (load_memory.py --query): the facts that best answer a text, best first.

Two stages. First BM25 over each fact's judgement keys (candidate_keys.fact_keys: a tool by its family or
name, whatever alias spells it; concepts, so "how long do we keep" finds a retention; stemmed words;
Chinese vocabulary phrases and character pairs), read from the topics' dedup indexes
(state/cache/dedup/, derived data) without parsing an items.json while they match their files. Then
the RERANK strongest are read and scored again with their wording: how alike query and fact are
(the Dice coefficient of character trigrams), a tool both name exactly (PG is Postgres, yarn is not
pnpm), a value both give in any unit (half a second is 500 ms) and a query word that names the
fact's topic. Only where no fact shares a key does rapidfuzz find candidates by wording alone. The
weights were set by hand: on our tune queries and LOCOMO's tune samples they barely matter
(references/recall.md).
"""
import math

from . import index, matching
from .candidate_keys import fact_keys
from .key_vocab import word_char as _word_char
from . import store as st

RERANK = 30  # the strongest by keys that are read and scored with their wording (60 until 2026-12-07: the same top 5 on the tune sets)
EXPANDED_WEIGHT = 0.5  # of a key a synonym of a query word brings (data/recall_vocab.json "synonyms")
WEIGHTS = {"keys": 1.0, "likeness": 0.8, "tool": 0.3, "value": 0.3, "topic": 0.2}


def _idf(total, holding):
    return math.log(1.0 + (total - holding + 0.5) / (holding + 0.5))


def _by_keys(topics, keys, include_superseded, expanded=()):
    """({(topic, row): BM25 score over the shared keys}, [(key, {topic: [rows]})]); topics: [(topic,
    JudgementKeys, loader)]. A fact's keys are a set of a few, so BM25's term frequency and length
    terms are 1: a shared key counts its inverse document frequency (EXPANDED_WEIGHT of it for a key
    of expanded, a synonym's). The second value gives a row's shared keys (_shared), asked only for
    the few rows a search returns."""
    total = sum(len(k.active) for _t, k, _l in topics) or 1
    scores, posted = {}, []
    get = scores.get
    for key in set(keys) | set(expanded):
        rows = [(topic, k, k.rows(key)) for topic, k, _l in topics]
        holding = sum(len(r) for _t, _k, r in rows)
        if not holding:
            continue
        weight = _idf(total, holding) * (EXPANDED_WEIGHT if key in expanded and key not in keys else 1.0)
        hit = {}
        for topic, topic_keys, found in rows:
            if not found:
                continue
            active = topic_keys.active
            kept = list(found) if include_superseded else [row for row in found if active[row] == "A"]
            for row in kept:
                scores[(topic, row)] = get((topic, row), 0.0) + weight
            hit[topic] = kept
        posted.append((key, hit))
    return scores, posted


def _shared(posted, topic, row):
    return sorted(key for key, hit in posted if row in hit.get(topic, ()))


def _query_keys(query):
    """The query's judgement keys, less the words it asks with (data/recall_vocab.json: "when",
    "which", 什么, 多久), and for a concept that names a family of tools the family too:
    "which package manager" asks for the fact that names pnpm (the concept is "C:package_manager",
    the fact's key "F:package_manager")."""
    tables = recall_vocab()
    asking = tables.asking
    low = query.lower()
    for word in tables.asking_zh:
        query = query.replace(word, " ")
    keys = [k for k in fact_keys(query, light=True) if k not in asking]
    families = _vocab()["family_names"]
    keys += ["F:" + k[2:] for k in keys if k.startswith("C:") and k[2:] in families and "F:" + k[2:] not in keys]
    expanded = []  # the keys of the other members of a synonym group the query uses
    for group in held_groups(low, tables):
        for word in tables.group(group):
            if not _holds(low, word):
                expanded.extend(k for k in fact_keys(word, light=True) if k not in keys and k not in expanded)
    return keys, expanded


def held_groups(low, tables):
    """The numbers, ascending, of the synonym groups with a word or phrase the lower-case text holds
    (_holds), found by the text's words rather than by looking for each of the groups' words."""
    tokens, word = set(), []
    for ch in low + " ":
        if _word_char(ch):
            word.append(ch)
        elif word:
            tokens.add("".join(word))
            word = []
    held = set()
    for token in tokens:
        held.update(tables.plain(token))
    for first in list(tokens) + [""]:  # "": the phrases with no word character
        for phrase, group in tables.phrases(first):
            if group not in held and _holds(low, phrase):
                held.add(group)
    if not low.isascii():
        for other, group in tables.other():
            if group not in held and other in low:
                held.add(group)
    return sorted(held)


def _vocab():
    """The vocabulary's lookup table (key_vocab.py), or the whole vocabulary where it is stale."""
    from .key_vocab import key_vocab
    found = key_vocab()
    if found is None:
        from . import vocabulary
        found = vocabulary.vocab()
    return found


def _holds(text, word):
    """Whether lower-case text holds the word or phrase (whole words for ASCII, anywhere for Chinese).
    Unlike facts._find_word, "_" and "-" join words here: "call" is not in "on-call"."""
    at = text.find(word)
    while at >= 0:
        end = at + len(word)
        if not word.isascii() or ((at == 0 or not _word_char(text[at - 1]))
                                  and (end == len(text) or not _word_char(text[end]))):
            return True
        at = text.find(word, at + 1)
    return False


_RECALL_VOCAB = []


class RecallVocab(object):
    """data/recall_vocab.json prepared (key_vocab.recall_tables): the question words' keys (asking),
    the Chinese ones longest first (asking_zh), and the synonym groups found by word: looked up in
    the key table (a few lookups for a query's words), or, where the table is stale, from the file."""

    def __init__(self, table=None, tables=None):
        if table is not None:
            self.asking, self.asking_zh = table["asking"], table["asking_zh"]
            self.plain = lambda word: table["plain"].get(word, ())
            self.phrases = lambda first: table["phrases_by_first"].get(first, ())
            self.other = lambda: table["other"]
            self.group = lambda number: table["group"][str(number)]
        else:
            by_first = {}
            for first, phrase, group in tables["phrases"]:
                by_first.setdefault(first, []).append([phrase, group])
            self.asking, self.asking_zh = frozenset(tables["asking"]), tables["asking_zh"]
            self.plain = lambda word: tables["plain"].get(word, ())
            self.phrases = lambda first: by_first.get(first, ())
            self.other = lambda: tables["other"]
            self.group = tables["groups"].__getitem__


def recall_vocab():
    """The RecallVocab of this process, read once."""
    if not _RECALL_VOCAB:
        from .key_vocab import key_vocab, recall_tables, RECALL_SOURCE
        table = key_vocab()
        if table is not None:
            _RECALL_VOCAB.append(RecallVocab(table=table))
        else:
            from .fastjson import loads
            with open(RECALL_SOURCE, encoding="utf-8") as fh:
                _RECALL_VOCAB.append(RecallVocab(tables=recall_tables(loads(fh.read()))))
    return _RECALL_VOCAB[0]


FUZZY = 20  # candidates found by wording alone (rapidfuzz), where the query shares no key with any fact
FUZZY_SCORER = "token_set_ratio"
# of 100, where no fact shares a key with the query: in the tune queries with no key shared, the
# intended fact scored 24-40 ("which CI": 40); "zebra" scores 13 against any fact of the tests
FUZZY_ALONE = 30


def _by_wording(store, topics, query, include_superseded, cutoff):
    """[(topic, row)] of the FUZZY facts whose normalised wording is likest the query's (typos, words
    too short or too common for a key), by rapidfuzz over the dedup index's normalised texts; [] without
    rapidfuzz. A fact under cutoff (0-100) is left out."""
    try:
        from rapidfuzz import fuzz, process
    except ImportError:
        return []
    from . import dedup_index
    from .similarity import normalize
    where, choices = [], []
    for topic, topic_keys, load in topics:
        count = len(topic_keys.active)
        norms = dedup_index.read_norms(store, topic, count)
        if norms is None:
            read = (load(range(count)) if count else None) or {}
            norms = dict((r, normalize(index.unescape(text))) for r, (_id, text) in read.items())
        else:
            norms = dict(enumerate(norms))
        for row in sorted(norms):
            if include_superseded or topic_keys.active[row] == "A":
                where.append((topic, row))
                choices.append(norms[row])
    found = process.extract(normalize(query), choices, scorer=getattr(fuzz, FUZZY_SCORER), limit=FUZZY, score_cutoff=cutoff)
    return [where[i] for _text, _score, i in found]


# ASCII punctuation (and "_") to spaces: the likeness's normalisation, in C (str.translate); close to
# similarity.normalize, which splits on every non-alphanumeric character, at a fifth of its cost
_SPACES = dict((ord(ch), " ") for ch in "".join(chr(c) for c in range(128)) if not ch.isalnum())


def _trigrams(text):
    """The character trigrams of a wording; the rerank's likeness of two is the Dice coefficient of
    theirs (_dice: a typo or a plural changes a few, Chinese text shares its characters' runs). Pure
    Python, a few microseconds: the query path imports no rapidfuzz when the query shares a key (on
    the tune queries and LOCOMO's tune samples, rapidfuzz's token-set ratio here gave top-5 0.947
    and R@10 0.654; this, 0.947 and 0.652 with rapidfuzz's candidates only where no key is shared;
    references/recall.md)."""
    import unicodedata
    text = " %s " % " ".join(unicodedata.normalize("NFKC", text).casefold().translate(_SPACES).split())
    return frozenset(text[i:i + 3] for i in range(len(text) - 2))


def _dice(a, b):
    return 2.0 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def _may_name_a_tool_or_value(query, keys):
    """Whether the fact model's parser could find a tool or a value in the query: it names a tool
    (an "E:" or "F:" key), or holds a digit, a number word or a Chinese numeral. Else the parser,
    its module and its expressions are not loaded."""
    if any(k.startswith(("E:", "F:")) for k in keys) or any(ch.isdigit() for ch in query):
        return True
    v = _vocab()
    return (any(w in v["number_words"] for w in query.lower().replace("-", " ").split())
            or any(ch in v["cn_digits"] or ch in v["cn_multipliers"] for ch in query))


def _same_value(values_a, values_b):
    return any(da == db and abs(va - vb) <= 0.01 * max(abs(va), abs(vb), 1e-9)
               for da, va in values_a for db, vb in values_b)


def search(store, query, limit=5, include_superseded=False, write=False):
    """[{"id", "fact", "topic", "score", "status"}] best first (at most limit): the active facts (and
    the superseded ones with include_superseded) that share a key with the query. Reads the dedup
    indexes; a stale one is computed in memory, and written only when write (a writer's call). The
    dedup folder is checked once for the search, not at each of its ~180 reads (safefs.trusted_below)."""
    import os
    from . import safefs
    with safefs.trusted_below(store, os.path.join(store, index.DEDUP_DIR)):
        return _search(store, query, limit, include_superseded, write)


def _search(store, query, limit, include_superseded, write):
    keys, expanded = _query_keys(query)
    if not (keys or expanded) or limit <= 0:
        return []
    from .paths import topic_items_path
    from .recall_index import topic_views
    sigs = dict((topic, index.signature(topic_items_path(store, topic))) for topic in st.list_topics(store))
    views = topic_views(store, sigs)  # the topics the store's recall index holds as they are
    topics = []
    for topic in sorted(sigs):
        found = (views[topic], views[topic].load) if topic in views else matching.topic_keys(store, topic, write)
        if found is not None:
            topics.append((topic,) + found)
    scores, shared = _by_keys(topics, keys, include_superseded, expanded)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    strongest = ranked[:RERANK]
    if not scores:  # nothing shares a key: a typo, or words too short or common for one
        strongest = [(k, 0.0) for k in _by_wording(store, topics, query, include_superseded, FUZZY_ALONE)]
    if not strongest:
        return []
    top = strongest[0][1] or 1.0
    loaders = dict((t, (k, load)) for t, k, load in topics)
    if views:  # the strongest rows of every topic the recall index holds, in one read
        merged = next(iter(views.values())).merged
        merged.prefetch([views[t].first + r for (t, r), _s in strongest if t in views])
    texts = {}
    for topic in sorted(set(t for (t, _r), _s in strongest)):
        read = loaders[topic][1]([r for (t, r), _s in strongest if t == topic]) or {}
        for row, (item_id, escaped) in read.items():
            texts[(topic, row)] = (item_id, index.unescape(escaped))
    query_grams = _trigrams(query)
    parsed_query = None
    if _may_name_a_tool_or_value(query, keys):
        from . import facts
        parsed_query = facts.parse(query)
    parse = parsed_query is not None and (parsed_query.entities or parsed_query.values)  # only when it matters
    query_words = set(w.lower() for w in query.replace("-", " ").split())
    found = []
    for (topic, row), by_keys in strongest:
        if (topic, row) not in texts:
            continue
        item_id, text = texts[(topic, row)]
        parsed = facts.parse(text) if parse else None
        score = (WEIGHTS["keys"] * by_keys / top + WEIGHTS["likeness"] * _dice(query_grams, _trigrams(text))
                 + WEIGHTS["topic"] * (topic in query_words))
        if parsed is not None:
            score += (WEIGHTS["tool"] * bool(set(parsed_query.entities) & set(parsed.entities))
                      + WEIGHTS["value"] * _same_value(parsed_query.values, parsed.values))
        active = loaders[topic][0].active[row] == "A"
        found.append({"id": item_id, "fact": text, "topic": topic, "score": round(score, 4),
                      "status": "active" if active else "superseded",
                      "keys": _shared(shared, topic, row), "by_keys": by_keys, "_row": row})
    found.sort(key=lambda f: (-f["score"], f["topic"], f["id"]))
    found = found[:limit]
    _mark_clean_results(store, found, loaders)
    return found


def _mark_clean_results(store, found, loaders):
    """Each result gets "clean": its text was scanned and found clean under the current detector
    (the topic's index vouches for it: dedup_index clean flags). render() then need not load the
    detector. A topic computed in memory (a hand edit, a pull) vouches for nothing."""
    fingerprint = index.scan_fingerprint(()) if found else None
    flags = {}
    for f in found:
        if f["topic"] not in flags:
            flags[f["topic"]] = loaders[f["topic"]][0].clean_flags(store, f["topic"], fingerprint)
        row = f.pop("_row")
        f["clean"] = flags[f["topic"]] is not None and flags[f["topic"]][row] == "C"


def _replacements(store, found):
    """Each superseded result gets "superseded_by": {"id", "fact"} of the fact that replaced it (its
    id alone when that fact cannot be found), read from the topics' files."""
    wanted = [f for f in found if f["status"] == "superseded"]
    if not wanted:
        return
    items = {}
    for topic in st.list_topics(store):
        try:
            items.update((it.get("id"), it) for it in st.read_topic(store, topic)[1])
        except st.StoreError:
            continue
    for f in wanted:
        by = (items.get(f["id"]) or {}).get("superseded_by")
        if by:
            f["superseded_by"] = {"id": by, "fact": (items.get(by) or {}).get("fact")}


def answer(store, query, limit, include_superseded=False, extra_patterns=()):
    """(results, text): search() masked (a secret in a fact is never shown) with the replacements of
    superseded facts, and the same as one fenced data block, a line per result."""
    found = search(store, query, limit, include_superseded)
    _replacements(store, found)
    text = render(found, extra_patterns)
    for f in found:
        del f["keys"], f["by_keys"], f["clean"]
    return found, text


def render(found, extra_patterns=(), what="for the query", limit=None):
    """The results masked (in place: a secret in a fact is never shown) as one fenced data block, a
    line per result; with limit, as many whole lines as fit in limit characters. Where every result
    is "clean" (search: scanned clean by a writer) and the user has no extra patterns, the detector
    is not loaded."""
    from .rendering import DATA_NOTE, FENCE_CLOSE, FENCE_OPEN, escape_controls, one_line
    masked = 0
    if extra_patterns or not all(f.get("clean") and not f.get("superseded_by") for f in found):
        from .redaction import mask_secrets
        for f in found:
            for holder in (f, f.get("superseded_by") or {}):
                if holder.get("fact"):
                    holder["fact"], hits = mask_secrets(holder["fact"], extra_patterns)
                    masked += len(hits)
    lines = []
    for f in found:
        line = "- [%s] (%s, %.3f) %s" % (f["id"], f["topic"], f["score"], f["fact"])
        if f["status"] == "superseded":
            by = f.get("superseded_by") or {}
            line += " [superseded by %s%s]" % (by.get("id") or "?", ": " + by["fact"] if by.get("fact") else "")
        lines.append(escape_controls(one_line(line)))
    tail = [FENCE_CLOSE] + (["[memory-3layer] masked %d secret(s) found in facts." % masked] if masked else [])

    def block(lines_):
        head = "# Project memory recall (memory-3layer): %d fact(s) %s, best first" % (len(lines_), what)
        body = lines_ or ["(no fact shares a word, tool or concept with the query)"]
        return "\n".join([head, DATA_NOTE, FENCE_OPEN] + body + tail)
    while limit and lines and len(block(lines)) > limit:
        lines.pop()
    return block(lines)
