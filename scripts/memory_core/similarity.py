"""Fact identity and near-duplicate detection.

rapidfuzz is used when importable; difflib otherwise (slower, reported as degraded mode). Both
compare normalised texts with a 0-100 ratio.
"""
import re
import unicodedata

NEAR_DUPLICATE_SCORE = 90.0
_WORD_RE = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*", re.UNICODE)
# Words that never change what a fact says; dropped before comparing content.
_STOPWORDS = frozenset("a an the this that these those is are was were be been it its of to in on for "
                       "and or with by at as our we project repo repository".split())
_NEGATIONS = frozenset("not no never don't doesn't isn't aren't won't can't cannot without "
                       "不 不要 不能 没有 禁止 别".split())
_VALUE_RE = re.compile(r"\d")

try:  # the builtin module: hashlib would first load OpenSSL, ~5 ms per run for one digest
    from _sha256 import sha256  # Python <= 3.11
except ImportError:
    try:
        from _sha2 import sha256  # Python >= 3.12
    except ImportError:
        from hashlib import sha256

try:
    from rapidfuzz import fuzz as _fuzz, process as _process
    BACKEND = "rapidfuzz"
except ImportError:  # degraded mode: reported by check and by --json summaries
    _fuzz = _process = None
    BACKEND = "difflib"


def normalize(text):
    """Case-folded, NFKC, punctuation-free, single-spaced text: what makes two facts 'the same'."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_WORD_RE.findall(text))


def fact_id(topic, text):
    """Stable id from topic + normalised text, so one fact recorded on two branches has one id."""
    digest = sha256(("%s\n%s" % (topic, normalize(text))).encode("utf-8")).hexdigest()
    return "%s-%s" % (topic, digest[:12])


def content_tokens(norm):
    """The words that carry meaning, lightly stemmed, for telling a duplicate from a conflict."""
    out = set()
    for word in norm.split():
        if word in _STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not _VALUE_RE.search(word):
            word = word[:-1]
        out.add(word)
    return out


def compare(norm_a, norm_b):
    """'duplicate', 'conflict' (same shape, different values or polarity) or None."""
    if norm_a == norm_b:
        return "duplicate"
    if without_negations(norm_a) == without_negations(norm_b):
        return "conflict"
    if ratio(norm_a, norm_b) < NEAR_DUPLICATE_SCORE:
        return None
    return "duplicate" if content_tokens(norm_a) == content_tokens(norm_b) else "conflict"


def ratio(a, b):
    if _fuzz is not None:
        return _fuzz.ratio(a, b)
    import difflib
    return 100.0 * difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def without_negations(norm):
    """The normalised text with negation words removed: equal for a claim and its opposite."""
    return " ".join(w for w in norm.split() if w not in _NEGATIONS)


def near_candidates(query, choices, negated=None, limit=5):
    """Indexes of choices (normalised texts) whose ratio to query is >= NEAR_DUPLICATE_SCORE, best
    first, plus those equal to it once negations are removed ("we use tabs" / "we never use tabs":
    too far apart for the ratio, yet one claim flipped). negated: {index: without_negations(choice)}
    for the choices that hold a negation word, when the caller has it precomputed."""
    found = []
    if _process is not None:
        for _choice, score, index in _process.extract(query, choices, scorer=_fuzz.ratio,
                                                      score_cutoff=NEAR_DUPLICATE_SCORE, limit=limit):
            found.append((score, index))
    else:
        import difflib
        cutoff = NEAR_DUPLICATE_SCORE / 100.0
        matcher = difflib.SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(query)
        qlen = len(query)
        for index, choice in enumerate(choices):
            total = qlen + len(choice)
            if not total or 2.0 * min(qlen, len(choice)) / total < cutoff:
                continue
            matcher.set_seq1(choice)
            if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
                score = 100.0 * matcher.ratio()
                if score >= NEAR_DUPLICATE_SCORE:
                    found.append((score, index))
        found.sort(key=lambda pair: -pair[0])
        found = found[:limit]
    bare = without_negations(query)
    seen = set(i for _s, i in found)
    if negated is None:
        hits = [i for i, c in enumerate(choices) if without_negations(c) == bare]
    else:  # a choice without negation words is its own negation-free text
        hits = [i for i, b in negated.items() if b == bare]
        if bare != query and bare in choices:
            hits.extend(i for i, c in enumerate(choices) if c == bare)
    found.extend((0.0, i) for i in hits if i not in seen and choices[i] != query)
    return [index for _score, index in found]
