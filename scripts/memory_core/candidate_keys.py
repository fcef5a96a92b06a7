"""The keys a fact is found by: the words matching.py looks a new fact's candidates up by, in every
topic's dedup index (dedup_index.py), without the fact model's parser. judgement.py re-exports them.
A change here or in fact_vocab.json changes the keys: bump dedup_index.KEYS_VERSION (a test holds
the digests)."""
from . import cjk, vocabulary

# Compiled on first use (_rx): a query keys its text with the light functions below, which give the
# same words without the re module (its import is a few ms of a query's start).
_PATTERNS = {
    "raw": r"[A-Za-z][A-Za-z0-9+#_.-]*[A-Za-z0-9+#]|[A-Za-z]|\d+(?:[.:,]\d+)*[a-zA-Z%]*",
    "digit": r"\d",
    "name_with_digits": r"[a-z]{2,}[a-z-]*\d[a-z0-9]*$",  # glicko-2, grch37, hg38: names, unlike 500ms
    "id_parts": r"[_.-]+",
}
_COMPILED = {}
_PREPARED = {}
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ALNUM = _ASCII_LETTERS | frozenset("0123456789")
_INNER = _ALNUM | frozenset("+#_.-")  # what a word may hold: the pattern's [A-Za-z0-9+#_.-]
_LAST = _ALNUM | frozenset("+#")  # what it may end with: [A-Za-z0-9+#]


def _rx(name):
    found = _COMPILED.get(name)
    if found is None:
        import re
        found = _COMPILED[name] = re.compile(_PATTERNS[name])
    return found


def light_words(low):
    """_rx("raw").findall(low), char by char (alternatives in order, greedy, as sre matches)."""
    out, i, n = [], 0, len(low)
    while i < n:
        ch = low[i]
        if ch in _ASCII_LETTERS:
            j, last = i + 1, None
            while j < n and low[j] in _INNER:
                if low[j] in _LAST:
                    last = j
                j += 1
            end = (last if last is not None else i) + 1
            out.append(low[i:end])
            i = end
        elif ch.isdecimal():
            j = i + 1
            while j < n and low[j].isdecimal():
                j += 1
            while j + 1 < n and low[j] in ".:," and low[j + 1].isdecimal():
                j += 2
                while j < n and low[j].isdecimal():
                    j += 1
            while j < n and (low[j] in _ASCII_LETTERS or low[j] == "%"):
                j += 1
            out.append(low[i:j])
            i = j
        else:
            i += 1
    return out


def _has_digit(word, light):
    return any(ch.isdecimal() for ch in word) if light else _rx("digit").search(word) is not None


def _name_with_digits(word, light):
    """_rx("name_with_digits").match(word), char by char when light."""
    if not light:
        return _rx("name_with_digits").match(word) is not None
    n, p = len(word), 0
    while p < n and "a" <= word[p] <= "z":
        p += 1
    if p < 2:
        return False
    while p < n and ("a" <= word[p] <= "z" or word[p] == "-"):
        p += 1
    if p >= n or not word[p].isdecimal():
        return False
    return all("a" <= ch <= "z" or "0" <= ch <= "9" for ch in word[p + 1:])  # words hold no newline for $


def _id_parts(word, light):
    """_rx("id_parts").split(word), by hand when light."""
    if not light:
        return _rx("id_parts").split(word)
    parts, cur = [], []
    previous_sep = False
    for ch in word:
        if ch in "_.-":
            if not previous_sep:
                parts.append("".join(cur))
                cur = []
            previous_sep = True
        else:
            cur.append(ch)
            previous_sep = False
    parts.append("".join(cur))
    return parts


def _words(v):
    """The judgement's extra vocabulary (predicate words, change markers, ...), prepared once."""
    found = _PREPARED.get(id(v))
    if found is None:
        raw = vocabulary.raw_vocab()
        found = _PREPARED[id(v)] = {
            "noise": frozenset(raw["predicate_words"]) | v["stopwords"],
            "change": tuple(raw["change_markers"]),
            "additive": tuple(raw["additive_markers"]),
            "present": tuple(raw["present_markers"]),
            "spelled": tuple(raw["spelled_numbers"]),
            "frequency": raw["frequency_words"],
            "suffixes": raw["number_suffixes"],
            "id_noise": frozenset(raw["identifier_noise"]) | frozenset(raw["predicate_words"]) | v["stopwords"],
        }
    return found


_STEMS = {}
STEM_CACHE = 65536  # review stems the same words thousands of times


def stem(word):
    """A light stemmer that makes rotation/rotate/rotates one word (cached: a dict, not
    functools.lru_cache, whose import a query would pay)."""
    found = _STEMS.get(word)
    if found is None:
        found = _stem(word)
        if len(_STEMS) < STEM_CACHE:
            _STEMS[word] = found
    return found


def _stem(word):
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ings") and len(word) >= 7:
        word = word[:-1]  # ratings / rating, settings / setting: one word (then -ing goes below)
    for suffix, instead in (("ations", "at"), ("ation", "at"), ("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""),
                            ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)] + instead
            break
    for suffix in ("ate", "at", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def fact_keys(text, extra=None, light=False):
    """The words a fact is found by, without parsing it fully: "F:family" for a tool in an
    exclusive family (so pnpm finds yarn), "E:tool" for others, "C:concept", and "W:word" for the
    other content words of three letters or more; Chinese text adds its vocabulary phrases (a Chinese
    scope word such as 生产 counts as "C:" too) and "J:" character pairs. light: the vocabulary is
    looked up in data/fact_keys.tsv (key_vocab.py), the same keys for a process that keys one or two
    texts (a query) without preparing all of it."""
    v = None
    if light and not extra:
        from .key_vocab import key_vocab
        v = key_vocab()
    if v is None:
        v = vocabulary.vocab(extra)
        w = _words(v)
    else:
        w = v.words
    low = text.lower()
    keys, words = set(), light_words(low) if light else _rx("raw").findall(low)
    i = 0
    reach = v["reach"]
    while i < len(words):
        for n in range(min(reach.get(words[i], 1), len(words) - i), 0, -1):
            hit = v["phrases"].get(" ".join(words[i:i + n]) if n > 1 else words[i])
            if hit:
                break
        else:
            n, hit = 1, None
        found = _vocabulary_key(hit, v)
        if found:
            keys.add(found)
        elif n == 1:
            keys.update(_word_keys(words[i], v, w, light))
        i += n
    for run in cjk.light_runs(low) if light else cjk.findall(low):
        for phrase in v["cjk_phrases"]:
            if phrase in run:
                hit = v["phrases"][phrase]
                keys.add(_vocabulary_key(hit, v) or "C:" + hit[1])
                run = run.replace(phrase, " ")
        for part in run.split():
            part = "".join(ch for ch in part if ch not in v["stopwords"])
            keys.update("J:" + part[k:k + 2] for k in range(len(part) - 1))
    return sorted(k.replace(" ", "_") for k in keys)  # "C:batch size" is one key: keys lines split on spaces


def _word_keys(word, v, w, light=False):
    """The keys of one word outside the vocabulary's phrases: "W:" and the word stemmed, and the
    keys of an identifier's parts (max_party_size finds "Parties can have up to six players";
    session_idle_timeout finds the concept timeout). Parts such as max or yaml tie nothing."""
    out = set()
    if len(word) >= 3 and word not in w["noise"] and (not _has_digit(word, light) or _name_with_digits(word, light)):
        out.add("W:" + stem(word))
    if "_" not in word and "." not in word.strip("."):
        return out
    for part in _id_parts(word, light):
        if len(part) < 3 or part in w["id_noise"] or _has_digit(part, light):
            continue
        out.add(_vocabulary_key(v["phrases"].get(part), v) or "W:" + stem(part))
    return out


def _vocabulary_key(hit, v):
    """The key of a vocabulary phrase (kind, value): "F:family" or "E:tool" for a tool, "C:concept"
    for a concept, None for anything else (a scope word, or no phrase)."""
    if hit and hit[0] == "entity":
        family = v["family_of"].get(hit[1])
        return "F:" + family if family else "E:" + hit[1]
    return "C:" + hit[1] if hit and hit[0] == "concept" else None


STRONG = ("F:", "E:", "C:")
MIN_SCORE, MAX_CANDIDATES = 1, 12  # one shared key makes a candidate: only the strongest is judged
STRONG_TIE = 3  # a shared tool, family or concept, or three words; a weaker tie needs thresholds["weak"]
MAX_JUDGED = 1  # the model judges the strongest candidate: it is the fact a new one targets 9 times in 10


def score(shared_keys):
    """How strongly shared keys tie two facts: 3 for a tool, family or concept, 1 for a word."""
    return sum(3 if k.startswith(STRONG) else 1 for k in shared_keys)
