"""The vocabulary a single text's judgement keys need (candidate_keys.fact_keys with light=True),
read by lookup from data/fact_keys.tsv instead of preparing all of data/fact_vocab.json (and, for a
query, data/recall_vocab.json prepared).

Preparing the whole vocabulary costs a process ~7 ms (parse, then 5,800 phrases and their reach);
a query needs a few dozen lookups. data/fact_keys.tsv holds the same tables as sorted lines searched
in place (sortedlines.py), and names the size and CRC-32 of the two files it was built from: when
either changed since, it is not used (the files are), so a stale table never gives other keys.
Built by `python3 evals/tools/build_fact_keys.py`; evals/test_fact_model.py checks it is current and
that both ways give the same keys.

  p:<phrase>      <kind>\\t<value>   a vocabulary phrase (vocabulary.vocab()["phrases"])
  r:<word>        <n>               how many words a phrase starting with the word can have, when > 1
  f:<tool>        <family>          the exclusive family of a tool
  ~:<name>        <JSON list>       cjk_phrases (longest first), stopwords, noise, id_noise,
                                    family_names, number_words, cn_digits, cn_multipliers
  ~:asking, ~:asking_zh, ~:other     recall_vocab.json's question words (keys), Chinese ones,
                                    and its non-ASCII synonyms [[word, group]] (recall_tables)
  s:<word>        <group,...>       the synonym groups a plain ASCII word is in
  h:<first word>  <JSON [[phrase, group]]>  the synonym phrases starting with that word
  g:<number>      <JSON list>       a synonym group's words
"""
import os

from . import sortedlines

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SOURCE = os.path.join(DATA, "fact_vocab.json")
RECALL_SOURCE = os.path.join(DATA, "recall_vocab.json")
TABLE = os.path.join(DATA, "fact_keys.tsv")
HEADER = "memory-3layer fact-keys v2 source="
_LOADED = []


def source_digest(paths=(SOURCE, RECALL_SOURCE)):
    """The size and CRC-32 of fact_vocab.json and recall_vocab.json: binascii is built in, a digest
    through hashlib or similarity.py would cost a query more than the lookups it saves."""
    import binascii
    out = []
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()
        out.append("%d-%08x" % (len(data), binascii.crc32(data) & 0xFFFFFFFF))
    return "+".join(out)


def word_char(ch):
    """A character of a word, as a query's synonyms are matched (recall._holds): "_" and "-" join
    words, so "call" is not in "on-call"."""
    return ch.isalnum() or ch in "_-"


def recall_tables(raw):
    """What a query reads of recall_vocab.json, prepared: the question words' keys, the Chinese ones
    longest first, the synonym groups, and the groups' words by how a query is checked for them:
    a plain ASCII word by the query's words (a dict), a phrase once its first word is there, a
    Chinese word only in a query with a non-ASCII character (recall.held_groups)."""
    from .candidate_keys import stem
    groups = [[w.lower() for w in group] for group in raw["synonyms"]]
    plain, phrases, other = {}, [], []
    for number, group in enumerate(groups):
        for word in group:
            if not word.isascii():
                other.append([word, number])
            elif word and all(word_char(ch) for ch in word):
                plain.setdefault(word, []).append(number)
            else:
                first = _first_run(word)
                phrases.append([first, word, number])
    return {"asking": sorted(set("W:" + stem(w) for w in raw["question_words"])),
            "asking_zh": sorted(raw["question_words_zh"], key=lambda w: (-len(w), w)),
            "groups": groups, "plain": plain, "phrases": phrases, "other": other}


def _first_run(word):
    """The first run of word characters (letters, digits, "_" and "-") of a phrase, or ""."""
    start = None
    for i, ch in enumerate(word):
        if word_char(ch):
            if start is None:
                start = i
        elif start is not None:
            return word[start:i]
    return word[start:] if start is not None else ""


def table_lines(v, words, recall_raw):
    """The table's bytes for a prepared vocabulary v, candidate_keys._words(v) and the parsed
    recall_vocab.json."""
    import json
    recall = recall_tables(recall_raw)
    lines = ["~:%s\t%s" % (name, json.dumps(recall[name], ensure_ascii=False))
             for name in ("asking", "asking_zh", "other")]
    lines.extend("s:%s\t%s" % (word, ",".join(map(str, groups))) for word, groups in recall["plain"].items())
    by_first = {}
    for first, phrase, group in recall["phrases"]:
        by_first.setdefault(first, []).append([phrase, group])
    lines.extend("h:%s\t%s" % (first, json.dumps(found, ensure_ascii=False)) for first, found in by_first.items())
    lines.extend("g:%d\t%s" % (n, json.dumps(group, ensure_ascii=False)) for n, group in enumerate(recall["groups"]))
    for phrase, (kind, value) in v["phrases"].items():
        lines.append("p:%s\t%s\t%s" % (phrase, kind, value))
    lines.extend("r:%s\t%d" % (word, n) for word, n in v["reach"].items() if n > 1)
    lines.extend("f:%s\t%s" % (tool, family) for tool, family in v["family_of"].items())
    for name, values in (("cjk_phrases", list(v["cjk_phrases"])), ("stopwords", sorted(v["stopwords"])),
                         ("noise", sorted(words["noise"])), ("id_noise", sorted(words["id_noise"])),
                         ("family_names", sorted(v["family_names"])), ("number_words", sorted(v["number_words"])),
                         ("cn_digits", sorted(v["cn_digits"])), ("cn_multipliers", sorted(v["cn_multipliers"]))):
        lines.append("~:%s\t%s" % (name, json.dumps(values, ensure_ascii=False)))
    if any("\n" in line or line.count("\t") > 2 for line in lines):
        raise ValueError("a phrase holds a tab or a newline")
    body = sorted(line.encode("utf-8") for line in lines)
    return b"\n".join(body) + b"\n"


class _Lookup(object):
    """A mapping read from the table by key prefix, each key found once per process."""

    def __init__(self, blob, start, prefix, convert):
        self.blob, self.start, self.prefix, self.convert, self.cache = blob, start, prefix, convert, {}

    def get(self, key, default=None):
        if key not in self.cache:
            found = sortedlines.find(self.blob, self.prefix + key, self.start)
            self.cache[key] = None if found is None else self.convert(found.decode("utf-8"))
        found = self.cache[key]
        return default if found is None else found

    def __getitem__(self, key):
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found


class KeyVocab(object):
    """What fact_keys reads of the vocabulary (v["phrases"], v["reach"], v["family_of"],
    v["cjk_phrases"], v["stopwords"], and words: candidate_keys._words' noise and id_noise), and what
    a query reads besides (v["family_names"], v["number_words"], v["cn_digits"], v["cn_multipliers"],
    for membership)."""

    LISTS = ("cjk_phrases", "stopwords", "family_names", "number_words", "cn_digits", "cn_multipliers", "asking",
             "asking_zh", "other")

    def __init__(self, blob, start):
        self.raw = {}  # name -> the list's JSON bytes, found now (a table missing one is not used)
        for name in self.LISTS + ("noise", "id_noise"):
            self.raw[name] = sortedlines.find(blob, "~:" + name, start)
            if self.raw[name] is None:
                raise ValueError("%s has no list %s" % (TABLE, name))
        def json_value(text):
            from .fastjson import loads
            return loads(text)
        self.tables = {
            "phrases": _Lookup(blob, start, "p:", lambda s: tuple(s.split("\t", 1))),
            "reach": _Lookup(blob, start, "r:", int),
            "family_of": _Lookup(blob, start, "f:", str),
            # recall_vocab.json's synonym groups (recall.held_groups): by plain word, by a phrase's
            # first word, and each group's words by its number
            "plain": _Lookup(blob, start, "s:", lambda s: [int(n) for n in s.split(",")]),
            "phrases_by_first": _Lookup(blob, start, "h:", json_value),
            "group": _Lookup(blob, start, "g:", json_value),
        }
        self.words = {"noise": frozenset(self._listed("noise")), "id_noise": frozenset(self._listed("id_noise"))}

    def _listed(self, name):
        from .fastjson import loads  # the json package would import re
        return loads(self.raw[name].decode("utf-8"))

    def __getitem__(self, key):
        """A table, its list decoded on first use (an English query needs no Chinese phrases)."""
        if key not in self.tables and key in self.LISTS:
            found = self._listed(key)
            self.tables[key] = found if key in ("cjk_phrases", "asking_zh", "other") else frozenset(found)
        return self.tables[key]


def key_vocab():
    """The KeyVocab of data/fact_keys.tsv (once per process), or None when the table is missing,
    unreadable or built from another fact_vocab.json."""
    if not _LOADED:
        found = None
        try:
            header, blob, start = sortedlines.map_file(TABLE)
            if header.decode("ascii", "replace") == HEADER + source_digest():
                found = KeyVocab(blob, start)
        except (OSError, ValueError, AttributeError):
            found = None
        _LOADED.append(found)
    return _LOADED[0]
