"""The vocabulary of the fact model and the judgement (data/fact_vocab.json), prepared once per
process with the user's config.yaml additions. Apart from facts.py so that finding a new fact's
candidates (judgement.fact_keys) needs neither the fact model's parser nor its regular expressions:
a record with no candidate never loads them."""

_VOCAB = {}


class _Spellings(dict):
    """entity -> its spellings, longest first, then in order ("openapi" and "swagger" tie on
    length, and a set's order changes with the string hash seed, which once changed a version's
    tool from run to run). Each entity's are sorted when first asked for (get): a fact names a few
    entities, the vocabulary thousands (sorting them all cost 4 ms a process)."""

    def get(self, entity, default=None):
        found = dict.get(self, entity)
        if found is None:
            return default
        if type(found) is list:
            found = self[entity] = tuple(sorted(set([entity] + found), key=lambda s: (-len(s), s)))
        return found


class _Prepared(dict):
    """The prepared vocabulary; "spellings" (every entity's spellings) is built on first use, since
    finding candidates (judgement.fact_keys) never needs it."""

    def __missing__(self, key):
        if key != "spellings":
            raise KeyError(key)
        spellings = _Spellings()
        for phrase, (kind, value) in self["phrases"].items():
            if kind == "entity":
                dict.setdefault(spellings, value, []).append(phrase)
        self["spellings"] = spellings
        return spellings


def _reach(phrases):
    reach = {}
    for phrase in phrases:
        if " " in phrase and phrase.isascii():
            words = phrase.split(" ")
            if len(words) > reach.get(words[0], 1):
                reach[words[0]] = len(words)
    return reach


def raw_vocab():
    """fact_vocab.json as read (without the user's additions)."""
    vocab()
    return _VOCAB["raw"]


def vocab(extra=None):
    """The prepared vocabulary (once per process), with the user's config.yaml additions."""
    key = repr(extra) if extra else ""
    found = _VOCAB.get(key)
    if found is not None:
        return found
    import os
    from .fastjson import loads
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "fact_vocab.json")
    with open(path, encoding="utf-8") as fh:
        raw = loads(fh.read())
    _VOCAB.setdefault("raw", dict(raw))  # judgement.py reads only keys config.yaml cannot extend
    for section in ("aliases", "families", "concepts"):
        for name, words in ((extra or {}).get(section) or {}).items():
            if isinstance(words, list):
                raw[section].setdefault(str(name).lower(), []).extend(str(w).lower() for w in words)
    phrases = {}  # lower-case phrase -> (kind, value)
    for canon, spellings in raw["aliases"].items():
        for spelling in [canon] + list(spellings):
            phrases[spelling.lower()] = ("entity", canon)
    for families_canon in raw["families"].values():
        for canon in families_canon:
            phrases.setdefault(canon, ("entity", canon))
    for concept, words in raw["concepts"].items():
        for w in [concept] + list(words):
            phrases.setdefault(w.lower(), ("concept", concept))
    for group in raw["scopes"].values():
        for label, words in group.items():
            for w in words:
                phrases.setdefault(w.lower(), ("scope", label))
    family_of = {}
    for family, members in raw["families"].items():
        for member in members:
            family_of[member] = family
    v = _Prepared({
        "phrases": phrases,
        # how many words a phrase starting with this word can have: a word that starts none is
        # looked up alone, not joined with the words after it
        "reach": _reach(phrases),
        "cjk_phrases": sorted((p for p in phrases if not p.isascii()), key=len, reverse=True),
        "family_of": family_of,
        "family_context": dict((f, tuple(ws)) for f, ws in raw["family_context"].items()),
        "case_sensitive": raw["case_sensitive_aliases"],
        "negations": tuple(sorted(raw["negations"], key=len, reverse=True)),
        # looked up word by word (a regex alternation of them costs ~10 ms to compile per process)
        "negation_set": frozenset(m for m in raw["negations"] if m.isascii()),
        "cjk_negations": tuple(m for m in raw["negations"] if not m.isascii()),
        "replacements": tuple(sorted(raw["replacement_markers"], key=len, reverse=True)),
        "switch_words": frozenset(raw["switch_words"]),
        "units": dict((u.lower(), (dim, factor)) for dim, table in raw["units"].items() for u, factor in table.items()),
        "rate_units": raw["rate_units"],
        "number_words": raw["number_words"],
        "cn_digits": raw["cn_digits"],
        "cn_multipliers": raw["cn_multipliers"],
        "stopwords": frozenset(raw["stopwords"]),
        "generic": frozenset(raw["generic_words"]),
        "family_names": frozenset(raw["families"]),
        "families_members": dict((f, tuple(m)) for f, m in raw["families"].items()),
        "concept_words": dict((c, [c] + [w.lower() for w in ws]) for c, ws in raw["concepts"].items()),
        "concepts": frozenset(raw["concepts"]),
    })
    _VOCAB[key] = v
    return v
