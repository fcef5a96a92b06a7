"""Judgement of two facts: "conflict" (one subject and scope, another value, choice or claim),
"duplicate" (the same claim reworded) or None (both can stand).

The fact model (facts.parse) reads each fact; pair_features() turns two parsed facts into numbers
(subject overlap, what differs on each side, values, versions, exclusive choices, negation, change
words, text likeness); a multinomial logistic regression, trained by
evals/tools/train_pair_model.py on our own tune pairs and tune project stores, turns them into
probabilities (gradient-boosted trees, pair_trees.py, judge again the pairs it rates related), and
decide() turns those into a verdict; where the fact model reads both facts plainly (clean_read.py),
the contract decides instead. Its weights and thresholds are data/pair_model.tsv.
Deterministic pure Python; without the file, judge() falls back to facts.relate(). fact_keys()
(candidate_keys.py) gives the words matching.py finds candidates by.
"""
import functools
import math
import re

from . import cjk, mentions, vocabulary  # the parser (facts.py) is imported only to judge: fact_keys needs none of it
from .candidate_keys import (  # noqa: F401 (judgement.X: how callers know the keys' entry points)
    MAX_CANDIDATES, MAX_JUDGED, MIN_SCORE, STRONG, STRONG_TIE, _rx, _words, fact_keys, score, stem)

LABELS = ("compatible", "conflict", "paraphrase")
_MODEL = []
_CAPS = re.compile(r"(?<![\w.])([A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z]*)(?![\w])")
_NUM = re.compile(r"(?<![\w.])(?:v(?=\d))?\$?(\d+(?:,\d{3})*(?:\.\d+)?)\s*(k|m|万|千)?(?!\d)", re.I)
_VERSION_V = re.compile(r"^v(?=\d)")  # "v1.13" is the version 1.13
_SIDES = {}  # (text, vocabulary id) -> one side of pair_features


_END = r"([a-z0-9][\w.+#-]*|%s{2})" % cjk.NON_ASCII_WORD  # a name, or two Chinese characters (_directions)


@functools.lru_cache(maxsize=1)  # built on the first judged pair, not on record's key path (3 ms)
def _direction_patterns():
    """(source, target, arrow) patterns of the direction markers ("from X", "to Y", "X -> Y")."""
    markers = vocabulary.raw_vocab()["direction_markers"]

    def one_of(words):
        return "|".join(re.escape(x) for x in sorted(words, key=len, reverse=True))
    marker = r"(?:(?<![a-z0-9])(?:%s)(?![a-z0-9])\s*(?:the\s+|a\s+|an\s+)?)"  # a whole word, then an article
    return (re.compile(marker % one_of(markers["source"]) + _END),
            re.compile(marker % one_of(markers["target"]) + _END),
            re.compile(r"([a-z0-9][\w.+#]*)\s*(?:%s)\s*" % one_of(markers["arrow"]) + _END))


def _directions(text):
    """The (source, target) pairs a fact states: "from Shopify to NetSuite", "从 A 同步到 B", "A -> B".
    An end is a name or two Chinese characters; two other non-ASCII letters after a marker (kana,
    accented Latin) end nothing there (the range's own pattern would cost 1 ms a compile)."""
    source, target, arrow = _direction_patterns()
    found = set(m.groups() for m in arrow.finditer(text) if _end_ok(m.group(2)))
    sources = set(m.group(1) for m in source.finditer(text) if _end_ok(m.group(1)))
    if len(sources) == 1:
        start = next(iter(sources))
        found.update((start, m.group(1)) for m in target.finditer(text) if _end_ok(m.group(1)))
    return set((s, d) for s, d in found if s != d)


def _end_ok(end):
    """A name, or two Chinese characters (the patterns take any two non-ASCII letters)."""
    return end[0] < "\x80" or all(cjk.is_cjk(ch) for ch in end)


def _content(text, noise):
    """The text's words in order, stemmed; None where a word is noise or holds a digit."""
    out = []
    for word in _rx("raw").findall(text):
        word = word.lower()
        out.append(None if word in noise or any(c.isdigit() for c in word) else stem(word))
    return out


def _value_tokens(text, frequency):
    toks = set(_VERSION_V.sub("", w.lower().strip(".,")) for w in _rx("raw").findall(text) if any(c.isdigit() for c in w))
    toks.update("clock" + m.group() for m in re.finditer(r"\d{1,2}:\d{2}", text))
    low = text.lower()
    toks.update("every%d" % seconds for word, seconds in frequency.items() if word in low)
    return toks


def _names(text, known):
    """CamelCase and all-caps names and `code` spans that the vocabulary does not know."""
    out = set(m.group(1).lower() for m in _CAPS.finditer(text))
    out.update(m.group(1).lower() for m in re.finditer(r"`([^`]+)`", text))
    return out - known


def _numbers(text, suffixes):
    out = set()
    for m in _NUM.finditer(text):
        value = float(m.group(1).replace(",", ""))
        if m.group(2):
            value *= suffixes[m.group(2).lower()]
        out.add(round(value, 6))
    return out


def _swapped_modifier(sa, sb):
    """Words both texts share whose preceding content word differs and appears only on its side
    (access tokens / refresh tokens): the sign of two things of one kind."""
    wa, wb = set(x for x in sa if x), set(x for x in sb if x)
    prev_a = dict((sa[i], sa[i - 1]) for i in range(1, len(sa)) if sa[i] and sa[i - 1])
    prev_b = dict((sb[i], sb[i - 1]) for i in range(1, len(sb)) if sb[i] and sb[i - 1])
    return sum(1 for w in set(prev_a) & set(prev_b)
               if prev_a[w] != prev_b[w] and prev_a[w] not in wb and prev_b[w] not in wa)


def _swapped_cjk(ra, rb):
    """The same for Chinese: a shared character pair after different pairs."""
    before_a = dict((ra[i:i + 2], ra[max(0, i - 2):i]) for i in range(2, len(ra) - 1))
    before_b = dict((rb[i:i + 2], rb[max(0, i - 2):i]) for i in range(2, len(rb) - 1))
    return sum(1 for g in set(before_a) & set(before_b)
               if before_a[g] and before_b[g] and before_a[g] != before_b[g]
               and before_a[g] not in rb and before_b[g] not in ra)


_LEADING_SCOPE = re.compile(r"^\s*(?:in|for|on|inside|within|under)\s+([^,;:]{2,60})[,;:]", re.I)
_VERBS = frozenset(("is", "are", "was", "were", "has", "have", "uses", "use", "runs", "run", "calls", "owns",
                    "needs", "takes", "lives", "goes", "gets", "sends", "returns", "crashes", "fails", "drops",
                    "renders", "prefers", "writes", "reads", "keeps", "stores", "holds", "must", "should",
                    "can", "cannot", "will", "may", "listens", "expires", "expire", "times", "caches",
                    "targets", "supports", "requires", "allows", "lasts", "defaults", "follows", "moved",
                    "switched", "migrated", "stopped", "dropped", "now", "no", "not", "never", "come", "comes",
                    "build", "builds", "built", "ship", "ships", "shipped", "rotate", "rotates"))


def _lead(text, noise):
    """(leading scope words, subject words): the content words of a leading "In X," phrase, and
    those before the first verb of the rest (the sentence's subject, roughly)."""
    scope = set()
    m = _LEADING_SCOPE.match(text)
    if m:
        scope = set(w for w in _content(m.group(1), noise) if w)
        text = text[m.end():]
    subject = []
    for word in _rx("raw").findall(text):
        low = word.lower()
        if low in _VERBS:
            break
        if low not in noise and not any(c.isdigit() for c in low):
            subject.append(stem(low))
    return scope, set(subject)


def _has_marker(text, markers):
    """Whether the text has one of the markers: words that say something changed ("now", "switched",
    改成) or that it adds to what is known ("also", 另外). English markers match whole words (a
    compiled pattern per marker cost ~10 ms at each start), Chinese ones anywhere."""
    low = text.lower()
    padded = " %s " % " ".join(re.findall(r"[a-z']+", low))
    return any((" %s " % m in padded) if m.isascii() else (m in low) for m in markers)


def _skeleton(content, fact, v):
    """What a fact is about with its values taken out: content words, concepts, scope, the tools
    outside any family, and the families of the others."""
    sk = set(w for w in content if w and w not in v["phrases"] and w not in v["generic"])
    sk.update("C:" + c for c in fact.subject if c in v["concepts"])
    sk.update("S:" + s for s in fact.scope)
    for e in fact.entities:
        family = v["family_of"].get(e)
        sk.add("F:" + family if family else "E:" + e)
    return sk


@functools.lru_cache(maxsize=1)  # built on the first judged pair, not on record's key path (1 ms)
def _shape_patterns():
    """(setting, labelled, since) patterns. A fact written as a setting: a dotted, snake_case,
    kebab-case or ALL_CAPS name (or a name in a code span) with "=" or ":" and a value, a --flag with
    a number, or a code span holding an assignment or a name and its value ("`brotli_comp_level 11;`").
    Such a line states one setting, so next to a fact about the same thing it mostly gives another
    value or the same one (section 2 of fact-model.md). A note written "label: value" or "a - b" (a
    dash between spaces). "since v2", "since 2024": what holds from then on."""
    return (re.compile(
        r"(?:^|[\s`(\[])(?:--)?(?:[A-Za-z][\w-]*[_.][\w.-]*|[A-Z][A-Z0-9_]{2,}|[a-z]+(?:-[a-z]+)+|`[A-Za-z_][\w.-]*`?)"
        r"\s*(?:=|:)\s*[^\s]"
        r"|(?:^|[\s`])--?[a-z][\w-]+[ =]\S*\d"
        r"|`[^`]*(?:=|: )[^`]*`"
        r"|`[A-Za-z_][\w.-]*[_.][\w.-]*\s+[^`\s][^`]*`"),
        re.compile(r"^\s*[\w`][^:\uff1a\n]{0,40}[:\uff1a]\s+\S|\s[\u2014\u2013-]\s"),
        re.compile(r"\bsince v?\d", re.I))


def _is_setting(text):
    """Whether the fact is written as a setting (`retries: 3`, SCAN_WORKERS=32): _shape_patterns."""
    return bool(_shape_patterns()[0].search(text))


def _shapes(text, w):
    """How an English fact is written, for the model ("sh:" features): it says what holds now
    ("as of", "since v2"), it has a semicolon, it is a "label: value" note, it gives a number in words."""
    _setting, labelled, since = _shape_patterns()
    found = set()
    if _has_marker(text, w["present"]) or since.search(text):
        found.add("now")
    if ";" in text or "\uff1b" in text:
        found.add("semi")
    if labelled.search(text):
        found.add("label")
    if _has_marker(text, w["spelled"]):
        found.add("numword")
    return found


_SPLIT = re.compile(r"[\s_\-./:=,;()`'\"]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]*")


def _tokens(fact, v, noise, chinese):
    """The fact's words for the model's sparse features: identifiers split (session_idle_timeout,
    minSdkVersion), vocabulary words as their entity or concept, others stemmed; its tools, their
    families, scopes, concepts and value dimensions; Chinese characters and character pairs."""
    out = set()
    units = v["units"]
    for raw in _SPLIT.split(fact.text):
        if raw.lower().lstrip("0123456789.") in units:
            continue  # 1GiB, 45m, ms: the value's dimension is a "V:" token
        parts = _CAMEL.findall(raw) if re.search(r"[a-z][A-Z]", raw) else [raw]
        for word in (x.lower() for part in parts for x in _WORD.findall(part)):
            if word in noise or word in units or len(word) < 2:
                continue
            hit = v["phrases"].get(word)
            out.add(hit[0][0].upper() + ":" + hit[1] if hit else stem(word))
    out.update("E:" + e for e in fact.entities)
    out.update("F:" + v["family_of"][e] for e in fact.entities if e in v["family_of"])
    out.update("S:" + s for s in fact.scope)
    out.update("C:" + c for c in fact.subject if c in v["concepts"])
    out.update("V:" + d for d, _x in fact.values)
    out.update("z:" + chinese[i:i + 2] for i in range(len(chinese) - 1))
    out.update("c:" + ch for ch in chinese)
    return out


def _side(fact, v, w):
    """What pair_features needs of one fact, computed once per text in a process (record judges
    one new fact against several, review each fact against several)."""
    key = (fact.text, id(v))
    found = _SIDES.get(key)
    if found is not None:
        return found
    from . import facts
    from .similarity import normalize
    text = fact.text
    seq = _content(text, w["noise"])
    values = _value_tokens(text, w["frequency"])
    chinese = "".join(cjk.findall(text))
    about = facts.about(fact, v)
    about.update(fact.entities)
    found = {"seq": seq, "words": set(x for x in seq if x), "values": values,
             "tags": set(t for t in values if re.search(r"[a-z]", t)), "names": _names(text, v["spellings"].keys()),
             "mentions": mentions.names(text), "ascii_words": mentions.words(text),
             "cjk": chinese, "cjk_pairs": set(chinese[i:i + 2] for i in range(len(chinese) - 1)),
             "numbers": _numbers(text, w["suffixes"]), "skeleton": _skeleton(seq, fact, v),
             "lead": _lead(text, w["noise"]), "change": _has_marker(text, w["change"]), "norm": normalize(text),
             "additive": _has_marker(text, w["additive"]), "setting": _is_setting(text),
             "shapes": _shapes(text, w),
             "about": about, "families": facts.families(fact, v), "dims": facts.dims(fact),
             "ids": set(t for t in about if "_" in t or "-" in t.strip("-")),
             "toks": _tokens(fact, v, w["noise"], chinese), "keys": set(fact_keys(text)),
             "aligned": _aligned_words(text.lower()),
             "directions": _directions(text.lower()),
             "stems": facts.word_stems(text) | set(chinese[i:i + 2] for i in range(len(chinese) - 1))}
    if len(_SIDES) > 200000:
        _SIDES.clear()
    _SIDES[key] = found
    return found


def _base_features(a, b, v, sa, sb):
    ta, tb = sa["about"], sb["about"]
    shared, union, small = len(ta & tb), len(ta | tb) or 1, min(len(ta), len(tb)) or 1
    fam_a, fam_b = sa["families"], sb["families"]
    family_clash = family_same = 0
    for family in set(fam_a) & set(fam_b):
        pa, pb = fam_a[family] - a.negated, fam_b[family] - b.negated
        family_clash = family_clash or int(bool(pa and pb and pa.isdisjoint(pb)))
        family_same = family_same or int(bool(pa & pb))
    both = a.entities & b.entities
    dims_a, dims_b = sa["dims"], sb["dims"]
    shared_dims = set(dims_a) & set(dims_b)
    values_differ = int(any(dims_a[d].isdisjoint(dims_b[d]) for d in shared_dims))
    ids_a, ids_b = sa["ids"], sb["ids"]
    from .similarity import ratio
    return [
        1.0, shared / float(small), shared / float(union), min(len(ta ^ tb), 8) / 8.0, min(shared, 5) / 5.0,
        int(bool(a.scope and b.scope and a.scope.isdisjoint(b.scope))), int(bool(a.scope) != bool(b.scope)),
        family_clash, family_same, int(any((e in a.negated) != (e in b.negated) for e in both)),
        int(a.polarity != b.polarity),
        int(any(a.versions.get(e) and b.versions.get(e) and a.versions[e] != b.versions[e] for e in both)),
        int(any(a.versions.get(e) and a.versions.get(e) == b.versions.get(e) for e in both)),
        values_differ, int(bool(shared_dims) and not values_differ), int(bool(dims_a) != bool(dims_b)),
        int(bool(both)), int(a.entities == b.entities and bool(a.entities)),
        int(bool(ids_a and ids_b and ids_a.isdisjoint(ids_b))), int(bool(sa["cjk"] or sb["cjk"])),
        ratio(sa["norm"], sb["norm"]) / 100.0, int(bool(a.subject & b.subject & v["concepts"])),
    ]


def pair_features(a, b, extra=None):
    """{feature: value} describing how two parsed facts relate (a: the older, b: the newer)."""
    return analyse(a, b, extra)[0]


def analyse(a, b, extra=None):
    """({feature: value}, {signal: value}) of two parsed facts. Features: the dense numbers
    ("x0".."x63"), the overlap of the two token sets, one "d:" feature per token only one side
    has (what differs is what tells a new value, d:F:database, from a new scope, d:android), how
    strongly the keys tie the two ("ks:"), and the shape of the word-by-word alignment ("al:")."""
    v = vocabulary.vocab(extra)
    w = _words(v)
    sa, sb = _side(a, v, w), _side(b, v, w)
    dense, signals = _dense(a, b, v, sa, sb)
    features = dict(("x%d" % i, x) for i, x in enumerate(dense) if x)
    ta, tb = sa["toks"], sb["toks"]
    shared = len(ta & tb)
    features["jac"] = shared / float(len(ta | tb) or 1)
    features["cov"] = shared / float(min(len(ta), len(tb)) or 1)
    for token in ta ^ tb:
        features["d:" + token] = 1.0
    if not (sa["cjk"] or sb["cjk"]):  # English pairs only: in Chinese they did worse in cross-validation
        for shape in sa["shapes"] | sb["shapes"]:
            side = "ab" if shape in sa["shapes"] and shape in sb["shapes"] else "a" if shape in sa["shapes"] else "b"
            features["sh:%s:%s" % (shape, side)] = 1.0
    tie = score(sa["keys"] & sb["keys"])  # how strongly the keys record finds candidates by tie them
    features["ks:" + ("0" if not tie else str(tie) if tie <= 2 else "3-5" if tie <= 5 else "6+")] = 1.0
    signals["tie"] = tie
    common, places = _differing(sa["aligned"], sb["aligned"])
    for name in _alignment(sa["aligned"], sb["aligned"], common, places):
        features[name] = 1.0
    signals["swap"] = _swapped_value(sa["aligned"], sb["aligned"], common, places, signals)
    from . import clean_read  # beside the parser, which finding candidates never loads
    signals["clean"] = clean_read.read(a, b, v, sa["values"], sb["values"])
    # the same two ends in the other direction: orders sync from Shopify to NetSuite, or back
    signals["reversed"] = int(any((d, s) in sb["directions"] for s, d in sa["directions"]))
    return features, signals


def _same_words(norm_a, norm_b, text_ratio):
    """Whether two facts say it in the same words: the same normalised text, or a wording at least
    90% alike (Indel) with the same content words ("This project uses pnpm for installs" / "The
    project uses pnpm for installs!"). The model reads such a near copy as a changed value."""
    if norm_a == norm_b:
        return 1
    from .similarity import NEAR_DUPLICATE_SCORE, content_tokens
    return int(text_ratio * 100.0 >= NEAR_DUPLICATE_SCORE and content_tokens(norm_a) == content_tokens(norm_b))


def _swapped_value(wa, wb, common, places, signals):
    """Whether b is a's sentence with one value swapped and nothing else: one place differs, by at
    most three words a side, and there it differs by a number only ("Gateway timeout is 3 s" / "...
    5 s") or by two members of one exclusive family ("We use pnpm." / "We use yarn.") with no number
    anywhere (the WeCom bot / the DingTalk bot "may send 20 messages a minute": there the member is
    the subject, and the same limit is no conflict)."""
    if len(places) != 1 or common < 2:
        return 0
    x, y = places[0]
    if not x or not y or len(x) > 3 or len(y) > 3:
        return 0
    if _numbers_only(x, y):
        return 1
    digits = any(t[0].isdigit() for t in wa) or any(t[0].isdigit() for t in wb)
    return int(bool(signals["family_clash"]) and not digits)


ALIGN_WORDS = 150  # the table is words x words: a fact is a sentence, a long paste is cut
_ALIGN = re.compile(r"[a-z_][a-z0-9_+#.-]*|\d+(?:[.,:/]\d+)*[a-z%%]*|(%s)" % cjk.NON_ASCII_WORD)


def _aligned_words(low):
    """The words the alignment compares: names, numbers, and each Chinese character."""
    return [m.group() for m in _ALIGN.finditer(low) if m.group(1) is None or cjk.is_cjk(m.group(1))][:ALIGN_WORDS]


def _differing(wa, wb):
    """(common words, [(words of a, words of b)] of each place the two differ): a longest common
    subsequence, by a small table (facts are short; no difflib import on record's path)."""
    n, m = len(wa), len(wb)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if wa[i] == wb[j] else max(below[j], row[j + 1])
    places, i, j, start = [], 0, 0, (0, 0)
    while i < n or j < m:
        if i < n and j < m and wa[i] == wb[j]:
            if start != (i, j):
                places.append((wa[start[0]:i], wb[start[1]:j]))
            i, j = i + 1, j + 1
            start = (i, j)
        elif j < m and (i == n or table[i][j + 1] >= table[i + 1][j]):
            j += 1
        else:
            i += 1
    if start != (n, m):
        places.append((wa[start[0]:], wb[start[1]:]))
    return table[0][0], places


def _numbers_only(x, y):
    return all(t[0].isdigit() for t in x + y)


def _alignment(wa, wb, common, places):
    """Features of the two texts aligned word by word (Chinese by character; common and places from
    _differing): how alike they are, and how many places differ by a number only, by other words, or
    by words one side adds. One number changed in the same sentence is a new value; a word changed
    as well is often a new scope."""
    numbers = words = added = 0
    for x, y in places:
        if x and y and _numbers_only(x, y):
            numbers += 1
        elif x and y:
            words += 1
        else:
            added += 1
    ratio = 2.0 * common / ((len(wa) + len(wb)) or 1)
    band = "h" if ratio >= 0.8 else "m" if ratio >= 0.6 else "l"
    shape = "%s|n%d|w%d" % (band, min(numbers, 2), min(words, 2))
    return ["al:" + band, "al:" + shape, "al:%s|a%d" % (shape, min(added, 2))]


def _dense(a, b, v, sa, sb):
    """(dense features, {signal: value}) of two parsed facts."""
    base = _base_features(a, b, v, sa, sb)
    wa, wb = sa["words"], sb["words"]
    ua, ub = wa - wb, wb - wa
    va, vb = sa["values"], sb["values"]
    ca, cb = sa["names"], sb["names"]
    ja, jb = sa["cjk"], sb["cjk"]
    pairs_a, pairs_b = sa["cjk_pairs"], sb["cjk_pairs"]
    cjk_overlap = len(pairs_a & pairs_b) / float(min(len(pairs_a), len(pairs_b))) if pairs_a and pairs_b else 0.0
    swapped, swapped_cjk = _swapped_modifier(sa["seq"], sb["seq"]), _swapped_cjk(ja, jb)
    na, nb = sa["numbers"], sb["numbers"]
    ka, kb = sa["skeleton"], sb["skeleton"]
    skel = len(ka & kb) / float(len(ka | kb) or 1)
    skel_nested = int(bool(ka and kb and (ka <= kb or kb <= ka)))
    tags_a, tags_b = sa["tags"], sb["tags"]
    tags_differ = int(bool(tags_a and tags_b and tags_a.isdisjoint(tags_b)))
    numbers_differ = int(bool(na and nb and na.isdisjoint(nb)))
    values_differ = int(bool(numbers_differ or base[13] or tags_differ))
    names_differ = int(bool(ca and cb and ca.isdisjoint(cb)))
    (scope_a, lead_a), (scope_b, lead_b) = sa["lead"], sb["lead"]
    lead_disjoint = int(bool(lead_a and lead_b and lead_a.isdisjoint(lead_b)))
    lead_overlap = len(lead_a & lead_b) / float(min(len(lead_a), len(lead_b))) if lead_a and lead_b else 0.0
    scope_phrase_differ = int(bool(scope_a and scope_b and scope_a != scope_b))
    # the newer fact takes back a word the older one states ("We replaced grid A* ..."), or the reverse
    retracts = int(bool((b.dropped - a.dropped) & sa["stems"]))
    restores = int(bool((a.dropped - b.dropped) & sb["stems"]))
    differences = base[7] + base[13] + tags_differ + names_differ + int(swapped > 0) + int(swapped_cjk > 0) \
        + lead_disjoint + scope_phrase_differ
    signals = {"family_clash": base[7], "negation_flip": base[9], "versions_differ": base[11],
               "dims_differ": base[13], "dims_same": base[14], "scope_disjoint": base[5], "text_ratio": base[20],
               "numbers_differ": numbers_differ, "tags_differ": tags_differ, "names_differ": names_differ,
               "swapped": swapped + swapped_cjk, "skeleton": skel, "differences": differences,
               "one_sided_tags": int(bool(tags_a) != bool(tags_b)), "cjk_overlap": cjk_overlap,
               "values_differ": values_differ, "lead_disjoint": lead_disjoint,
               "scope_phrase_differ": scope_phrase_differ, "unique_words": len(ua) + len(ub),
               "polarity_flip": base[10], "same_text": _same_words(sa["norm"], sb["norm"], base[20]), "change": int(sb["change"]),
               "retracts": retracts,
               "mentions_differ": mentions.differ(sa["mentions"], sa["ascii_words"], sb["mentions"], sb["ascii_words"])}
    return base + [
        min(len(ua), 4) / 4.0, min(len(ub), 4) / 4.0, min(len(ua), len(ub), 3) / 3.0,
        len(wa & wb) / float(min(len(wa), len(wb))) if wa and wb else 0.0,
        min(swapped, 2) / 2.0, min(swapped_cjk, 3) / 3.0,
        int(bool(va and vb and va.isdisjoint(vb))), int(bool(va and vb and not va.isdisjoint(vb))),
        int(bool(va) != bool(vb)), names_differ, int(bool(ca & cb)),
        int(sb["change"]), int(sa["change"]),
        cjk_overlap, int(bool(ja) != bool(jb)),
        numbers_differ, int(bool(na and nb and na == nb)), skel, skel_nested, values_differ * skel,
        values_differ * skel_nested, int(differences >= 2), base[7] * base[13], tags_differ,
        int(skel == 1.0), int(skel == 1.0) * (1 - values_differ),
        lead_disjoint, lead_overlap, scope_phrase_differ, int(bool(scope_a) != bool(scope_b)),
        # one subject named by an identifier both carry (QJ-P1, im-gateway), and Chinese overlap
        # with a value or a choice that differs: how Chinese conflicts show
        int(bool(tags_a & tags_b)), int(bool(sa["ids"] & sb["ids"])),
        values_differ * cjk_overlap, base[7] * cjk_overlap, base[9] * cjk_overlap, retracts, restores,
        # the newer fact says it adds to what is known ("also", "another", 另外): a new attribute, not a new value
        int(sb["additive"]), int(sa["additive"]),
        # either is written as a setting (`retries: 3`): another value or the same, seldom a neighbour
        int(sb["setting"]), int(sa["setting"]), int(sa["setting"] and sb["setting"]),
    ], signals


def load():
    """The shipped model, once per process, or None. data/pair_model.tsv is a JSON header line
    ({"labels", "thresholds": {lang: {"related", "plain", "weak", "duplicate"}}}, and "related_value",
    "related_choice", "related_other", "related_mention" for a language with a bar per kind) and then one
    sorted line per feature, "lang|feature<TAB>w,w,w" (one weight per label), found by binary search
    as needed."""
    if not _MODEL:
        import os
        from .fastjson import loads
        from .sortedlines import map_file
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pair_model.tsv")
        try:
            head, blob, start = map_file(path)  # mapped: only the lines looked up are read
            header = loads(head.decode("utf-8"))
            if tuple(header["labels"]) != LABELS:
                raise ValueError("labels")
            _MODEL.append({"thresholds": header["thresholds"], "blob": blob, "start": start, "cache": {}})
        except (OSError, ValueError, KeyError, TypeError):
            _MODEL.append(None)
    return _MODEL[0]


def probabilities(features, model, lang):
    """{label: probability} of a pair's features under the model's weights for lang."""
    from .sortedlines import weights
    scores = [0.0] * len(LABELS)
    for name, x in features.items():
        row = weights(model, lang + "|" + name)
        if row is not None:
            for k, w in enumerate(row):
                scores[k] += w * x
    return dict(zip(LABELS, softmax(scores)))


def softmax(scores):
    """Probabilities from one score per label (the trainer uses it too)."""
    top = max(scores)
    exp = [math.exp(s - top) for s in scores]
    total = sum(exp)
    return [e / total for e in exp]


def language(a, b):
    """"zh" when either text has Chinese in it, else "en": each has its own weights and thresholds."""
    return "zh" if cjk.search(a.text) or cjk.search(b.text) else "en"


def judge(a, b, extra=None, model=None):
    """("conflict" | "duplicate" | None, {label: probability} or None) for two parsed facts, a the
    older. Without a shipped model, facts.relate() decides."""
    model = model or load()
    if model is None:
        from .facts import relate
        return relate(a, b, extra)[0], None
    features, signals = analyse(a, b, extra)
    lang = language(a, b)
    from .pair_trees import refine
    probs = refine(features, lang, probabilities(features, model, lang))
    return decide(probs, signals, model["thresholds"][lang]), probs


def confidence(probs):
    """How sure the model is that two facts speak of one thing (a conflict or a duplicate)."""
    return None if probs is None else round(1.0 - probs["compatible"], 3)


def decide(probs, signals, thresholds):
    """"conflict", "duplicate" or None. thresholds: {"related", "plain", "weak", "duplicate"} of the
    pair's language. The same text is a duplicate, the same sentence with one value swapped
    (signals["swap"]) a conflict, and a clean read (signals["clean"]) what it says, whatever the
    model says. Two facts are about one thing when
    1 - P(compatible) reaches "related" where something stands against something (opposed(); a
    language may have its own bar per kind of opposition, "related_value", "related_choice",
    "related_other": opposition()), or the higher "plain" where nothing does (a pair that only adds
    a detail looks just as related; "related_mention" instead where the language has it and each
    fact mentions a name the other lacks), and at least "weak" when their keys tie
    them by less than STRONG_TIE (a word or two, no tool or concept). Such a pair is a duplicate
    when the paraphrase share of that reaches "duplicate" and no value, choice, version or negation
    differs, and at most MAX_DUPLICATE_WORDS words are only on one side; otherwise a conflict: a
    false conflict is refused with its reason and kept by --keep-both, a false duplicate would lose
    a fact silently."""
    if signals["same_text"]:
        return "duplicate"  # the same words, whatever the model's arithmetic says
    if signals["swap"]:
        return "conflict"  # the same sentence with one value or exclusive choice swapped
    if signals["clean"]:
        return signals["clean"]  # one thing, one slot each: the contract decides (clean_read.py)
    related = 1.0 - probs["compatible"]
    needed = bar(thresholds, opposition(signals))
    if signals["tie"] < STRONG_TIE:
        needed = max(needed, thresholds["weak"])
    if related < needed:
        return None
    differs = (signals["unique_words"] or signals["differences"] or signals["values_differ"]
               or signals["negation_flip"] or signals["polarity_flip"] or signals["versions_differ"]
               or signals["one_sided_tags"] or signals["cjk_overlap"] < 1.0 and signals["cjk_overlap"] > 0
               or signals["reversed"])
    if not differs:
        return "duplicate"  # nothing tells them apart: a conflict needs something that differs
    hard = (signals["dims_differ"] or signals["family_clash"] or signals["negation_flip"]
            or signals["polarity_flip"] or signals["versions_differ"] or signals["reversed"])
    share = probs["paraphrase"] / ((probs["paraphrase"] + probs["conflict"]) or 1.0)
    skip = share >= thresholds["duplicate"] and not hard and signals["unique_words"] <= MAX_DUPLICATE_WORDS
    return "duplicate" if skip else "conflict"


# A skip loses the new wording, so the model alone may not skip two sentences that share a frame but
# differ in many words: "Component harbor raven routes teal through jetty ..." and "Component acorn
# sierra routes vine through upland ..." (10 words on one side only) read as a paraphrase to it.
# Such a pair is refused as "may say the same" instead (still caught, never silently lost). With 6,
# two such sentences sharing 4 of their 7 words were still skipped; of the English tune paraphrases
# the model skips, 184 of 400 have at most 4 such words, and the others are refused instead.
MAX_DUPLICATE_WORDS = 4
OPPOSED = "same subject and scope, another value or claim"
MAY_REWORD = "same subject, nothing opposed: it may say the same as the stored fact"


def conflict_reason(a, b, extra=None):
    """What a conflict verdict rests on, in words: a value or claim that differs, or (when nothing
    is opposed and the pair was only judged one subject) a fact that may say the same again."""
    return OPPOSED if opposed(analyse(a, b, extra)[1]) else MAY_REWORD


KINDS = (None, "value", "choice", "other", "mention")  # what opposition() returns


def bar(thresholds, kind):
    """The related value a pair of that kind of opposition needs: the kind's own "related_<kind>"
    where the language has one, else "related" where something is opposed and "plain" where nothing
    is (None, or only "mention")."""
    fallback = thresholds["plain"] if kind in (None, "mention") else thresholds["related"]
    return fallback if kind is None else thresholds.get("related_" + kind, fallback)


def opposition(signals):
    """What stands against what, for the thresholds: "value" (a value or number differs), "choice"
    (an exclusive choice, a name or an identifier differs), "other" (a negation, a version, a change
    word, a word taken back, a direction reversed); where nothing is (opposed() is false), "mention"
    when each fact mentions a name the other does not (mentions.py: "uses Provider" / "is
    Riverpod"), else None. The model need not rate each kind on one scale: in cross-validation
    English refuses more conflicts with a bar per kind (references/fact-model.md, "A bar per kind of
    opposition")."""
    if not opposed(signals):
        return "mention" if signals.get("mentions_differ") else None
    if signals["dims_differ"] or signals["numbers_differ"]:
        return "value"
    if signals["family_clash"] or signals["names_differ"] or signals["tags_differ"]:
        return "choice"
    return "other"


def opposed(signals):
    """Whether something stands against something: a value, choice, version, name or identifier
    that differs, a negation, a direction reversed, or the newer fact saying it changed. A pair about
    one thing with none of these adds a detail (SQLite / SQLite encrypted with SQLCipher): no conflict."""
    return bool(signals["dims_differ"] or signals["family_clash"] or signals["negation_flip"]
                or signals["polarity_flip"] or signals["versions_differ"] or signals["numbers_differ"]
                or signals["tags_differ"] or signals["names_differ"] or signals["change"] or signals["retracts"]
                or signals["reversed"])
