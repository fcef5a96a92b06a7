"""Fact identity and wording likeness.

Two texts are alike when their Indel ratio, 200 * LCS / (len a + len b), is at least 90:
rapidfuzz's fuzz.ratio. ratio() computes the same number in pure Python with an exact bit-parallel
LCS, which a few pairs (record's tie-break, the judgement's features) pay less for than rapidfuzz's
~20 ms import; review, which compares many pairs, uses rapidfuzz when it is installed and the same
pure-Python code otherwise (slower: the reported degraded mode).
"""
import unicodedata

NEAR_DUPLICATE_SCORE = 90.0
_WORD = r"[^\W_]+(?:[.'][^\W_]+)*"  # compiled on first use (_rx): a query normalises with light_words
# Words that never change what a fact says; dropped before comparing content.
_STOPWORDS = frozenset("a an the this that these those is are was were be been it its of to in on for "
                       "and or with by at as our we project repo repository".split())
_NEGATIONS = frozenset("not no never don't doesn't isn't aren't won't can't cannot without "
                       "不 不要 不能 没有 禁止 别".split())
_RX = []


def _rx():
    if not _RX:
        import re
        _RX.append((re.compile(_WORD, re.UNICODE), re.compile(r"\d")))
    return _RX[0]

try:  # the builtin module: hashlib would first load OpenSSL, ~5 ms per run for one digest
    from _sha256 import sha256  # Python <= 3.11
except ImportError:
    try:
        from _sha2 import sha256  # Python >= 3.12
    except ImportError:
        from hashlib import sha256

_RAPIDFUZZ = []  # [module pair or None] once looked up


def _rapidfuzz():
    if not _RAPIDFUZZ:
        try:
            from rapidfuzz import fuzz, process
            _RAPIDFUZZ.append((fuzz, process))
        except ImportError:  # degraded mode: reported by check
            _RAPIDFUZZ.append(None)
    return _RAPIDFUZZ[0]


def fast_ratio():
    """rapidfuzz's ratio when installed (same numbers as ratio(), in C), else ratio()."""
    rapid = _rapidfuzz()
    return rapid[0].ratio if rapid is not None else ratio


def rapidfuzz_installed():
    """Whether rapidfuzz can be imported, without importing it."""
    import importlib.util
    return importlib.util.find_spec("rapidfuzz") is not None


def normalize(text, light=False):
    """Case-folded, NFKC, punctuation-free, single-spaced text: what makes two facts 'the same'.
    light: the same, char by char without the re module (a query's few texts)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(light_words(text) if light else _rx()[0].findall(text))


def light_words(text):
    """What the _WORD pattern finds: runs of letters and digits ([^\\W_] is str.isalnum), joined by a
    single "." or "'" between two of them."""
    out, i, n = [], 0, len(text)
    while i < n:
        if not text[i].isalnum():
            i += 1
            continue
        j = i + 1
        while True:
            while j < n and text[j].isalnum():
                j += 1
            if j + 1 < n and text[j] in ".'" and text[j + 1].isalnum():
                j += 2
                continue
            break
        out.append(text[i:j])
        i = j
    return out


def fact_id(topic, text):
    """Stable id from topic + normalised text, so one fact recorded on two branches has one id."""
    digest = sha256(("%s\n%s" % (topic, normalize(text))).encode("utf-8")).hexdigest()
    return "%s-%s" % (topic, digest[:12])


_UNITS = frozenset("ms s sec secs m min mins h hr hrs d kb mb gb tb px em rem pt k x rps qps".split())


def content_tokens(norm):
    """The words that carry meaning, lightly stemmed, for telling a duplicate from a conflict. A
    number and its unit count as one value ("700 ms" is "700ms")."""
    words = norm.split()
    out = set()
    for i, word in enumerate(words):
        if word in _STOPWORDS:
            continue
        if word in _UNITS and i and words[i - 1].replace(".", "", 1).isdigit():
            continue  # joined to the number before it
        if word.replace(".", "", 1).isdigit() and i + 1 < len(words) and words[i + 1] in _UNITS:
            word += words[i + 1]
        elif len(word) > 3 and word.endswith("s") and not _rx()[1].search(word):
            word = word[:-1]
        out.add(word)
    return out


def compare(norm_a, norm_b, fast_ratio=None, bare_a=None, bare_b=None):
    """'duplicate', 'conflict' (same shape, different values or polarity) or None. fast_ratio: an
    equivalent scorer to use (rapidfuzz's, when comparing many pairs); bare_a/bare_b: the texts'
    without_negations(), when the caller has them already."""
    if norm_a == norm_b:
        return "duplicate"
    if (bare_a if bare_a is not None else without_negations(norm_a)) == \
            (bare_b if bare_b is not None else without_negations(norm_b)):
        return "conflict"
    la, lb = len(norm_a), len(norm_b)
    if min(la, lb) < NEAR_DUPLICATE_SCORE / (200.0 - NEAR_DUPLICATE_SCORE) * max(la, lb):
        return None  # too different in length to reach the score
    if (fast_ratio or ratio)(norm_a, norm_b) < NEAR_DUPLICATE_SCORE:
        return None
    return "duplicate" if content_tokens(norm_a) == content_tokens(norm_b) else "conflict"


def lcs_length(a, b):
    """Length of the longest common subsequence, bit-parallel (Allison-Dix / Hyyrö): one pass over
    b with integer bit operations, so an 80-character pair costs microseconds in pure Python."""
    if len(a) < len(b):
        a, b = b, a
    masks = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for ch in b:
        u = v & masks.get(ch, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def ratio(a, b):
    """Indel similarity 0-100, equal to rapidfuzz.fuzz.ratio(a, b)."""
    total = len(a) + len(b)
    return 100.0 if total == 0 else 200.0 * lcs_length(a, b) / total


def without_negations(norm):
    """The normalised text with negation words removed: equal for a claim and its opposite."""
    return " ".join(w for w in norm.split() if w not in _NEGATIONS)
