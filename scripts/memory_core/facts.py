"""The fact model: each fact is read into a subject, a scope, a polarity and values, so that two
facts are judged by what they say, not by how alike their wording is.

  subject   concept tokens ("timeout", "ttl", "indent") and the other content words, lightly
            stemmed; Chinese text adds character pairs
  scope     environment, platform and component words, and paths ("prod", "ios", "前端", "web/")
  entities  tools and products by canonical name (Postgres, PG and PostgreSQL are one), grouped in
            families of mutually exclusive choices (pnpm / yarn / npm)
  negated   entities the fact says are no longer used ("we dropped Spark", "没上 Kafka")
  values    quantities in base units by dimension (500 ms = half a second = 0.5 s; 7 天 = 一周),
            percentages, money, plain counts, and versions per entity

relate(a, b) is "conflict" (same subject and scope, another value or choice, or the opposite
claim), "duplicate" (same subject, scope and value) or None (compatible). The vocabularies are
data/fact_vocab.json; users extend aliases, families and concepts in config.yaml (fact_model).
Deterministic, stdlib only.
"""
import re
import unicodedata

from . import cjk
from .vocabulary import raw_vocab, vocab  # noqa: F401 (facts.vocab: the fact model's vocabulary)

# Negations that follow what they negate ("Spark was dropped", "Kafka 下线了").
_AFTER_NEGATIONS = frozenset(("removed", "replaced", "deprecated", "decommissioned", "dropped", "retired",
                              "下线", "弃用", "去掉", "停用", "废弃"))
_WORD = re.compile(r"[a-z0-9][a-z0-9.+#/_-]*[a-z0-9+#/]|[a-z0-9]|[$%¥]")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?(?:e-?\d+)?)(?:\s*(?:-\s*)?([a-z%%$¥µ/]+|%s{1,3}))?" % cjk.NON_ASCII_WORD)
_CN_NUMBER = re.compile(r"(百分之)?([零〇一二两三四五六七八九十百千万亿半]+)(个)?((?:(?![零〇一二两三四五六七八九十百千万亿半])%s){0,3})" % cjk.NON_ASCII_WORD)
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+){1,3})(?!\w|\.\w)")  # "PX4 v1.13." ends a sentence


class Fact(object):
    __slots__ = ("text", "subject", "scope", "entities", "negated", "values", "versions", "polarity", "dropped")

    def __repr__(self):
        return ("Fact(subject=%s, scope=%s, entities=%s, negated=%s, values=%s, versions=%s, polarity=%s, "
                "dropped=%s)" % (sorted(self.subject), sorted(self.scope), sorted(self.entities), sorted(self.negated),
                                 sorted(self.values), sorted(self.versions.items()), self.polarity,
                                 sorted(self.dropped)))


def _stem(word):
    for suffix in ("ations", "ation", "ings", "ing", "ers", "er", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def _cn_value(digits, v):
    """一万 10000, 两千五 2500, 十二 12, 半 0.5, 三十 30."""
    if digits == "半":
        return 0.5
    total, section, number = 0, 0, 0
    for ch in digits:
        if ch in v["cn_digits"]:
            number = v["cn_digits"][ch]
        elif ch in v["cn_multipliers"]:
            mult = v["cn_multipliers"][ch]
            if mult >= 10000:
                total = (total + section + number) * mult
                section = number = 0
            else:
                section += (number or 1) * mult
                number = 0
    return total + section + number


def _not_a_unit(han, size, number):
    """Whether the first size characters of a run of Chinese after a number are no unit there:
    2023 年我们, 6 月底, 1 日起 are dates (3 年内, 5 年以上 are spans); 3 分区, 4 块盘 count things;
    8 周岁 is an age, 2 周末 weekends."""
    unit, after = han[:size], han[size]
    if unit in ("年", "月", "日"):
        return after not in "内后以之" or number >= 100
    return unit in ("分", "块") or unit == "周" and after in "岁末"


def _han_quantity(number, han, v, dates=False):
    """(quantity, characters it takes) of a number and the Chinese after it: the longest start of han
    that is a unit, or (None, len(han)). dates: a shorter start that _not_a_unit rejects is none."""
    for size in range(len(han), 0, -1):
        if dates and size < len(han) and _not_a_unit(han, size, number):
            continue
        q = _quantity(number, han[:size], v)
        if q:
            return q, size
    return None, len(han)


def _unit_of(m):
    """(unit, end) of a _NUMBER match: letters, or up to three Chinese characters (the pattern's
    wider class cut to them; nothing counts when it starts with none)."""
    unit = m.group(2)
    if unit is None or unit[0] in "abcdefghijklmnopqrstuvwxyz%$¥µ/":
        return unit, m.end()
    han = cjk.prefix(unit, cjk.HAN)
    return (han, m.start(2) + len(han)) if han else (None, m.end(1))


def _quantity(number, unit, v):
    """(dimension, value in base units) of a number and the unit word after it."""
    unit = (unit or "").strip().lower()
    if unit in v["units"]:
        dim, factor = v["units"][unit]
        return dim, round(number * factor, 9)
    for name, factor in v["rate_units"].items():
        if unit == name or unit == name.lstrip("/"):
            return "rate", round(number * factor, 9)
    return None


def parse(text, extra=None):
    """Fact of text (English, Chinese or both)."""
    v = vocab(extra)
    fact = Fact()
    fact.text = text
    norm = unicodedata.normalize("NFKC", text)
    low = norm.lower()
    entities, negated, scope, subject, values, versions = set(), set(), set(), set(), set(), {}
    consumed = []  # spans of low that vocabulary matched
    # Case-sensitive short names first ("Go", "PG", "RN"), then the longest phrase at each word.
    for m in re.finditer(r"(?<![A-Za-z0-9])(%s)(?![A-Za-z0-9])" % "|".join(map(re.escape, v["case_sensitive"])), norm):
        entities.add(v["case_sensitive"][m.group(1)])
        consumed.append(m.span())
    words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(low)]
    i = 0
    while i < len(words):
        for n in range(min(v["reach"].get(words[i][0], 1), len(words) - i), 0, -1):
            phrase = " ".join(w for w, _s, _e in words[i:i + n])
            hit = v["phrases"].get(phrase) or (v["phrases"].get(phrase.rstrip(".")) if n == 1 else None)
            if hit:
                kind, value = hit
                {"entity": entities, "concept": subject, "scope": scope}[kind].add(value)
                consumed.append((words[i][1], words[i + n - 1][2]))
                i += n
                break
        else:
            i += 1
    for chunk in cjk.findall(low):
        for phrase in v["cjk_phrases"]:
            at = chunk.find(phrase)
            while at >= 0:
                kind, value = v["phrases"][phrase]
                {"entity": entities, "concept": subject, "scope": scope}[kind].add(value)
                chunk = chunk[:at] + " " * len(phrase) + chunk[at + len(phrase):]
                at = chunk.find(phrase)
        for part in chunk.split():
            part = "".join(ch for ch in part if ch not in v["stopwords"])
            subject.update(part[k:k + 2] for k in range(max(1, len(part) - 1)) if part[k:k + 2])
    # Families that need their context word: "main" is a branch only in a sentence about branches.
    for entity in list(entities):
        family = v["family_of"].get(entity)
        if family in v["family_context"] and not any(w in low for w in v["family_context"][family]):
            entities.discard(entity)
    for m in re.finditer(r"(?<![\w/])([a-z0-9_.-]+/)(?![\w])", low):  # web/, api/, ops/: a path scope
        scope.add(m.group(1))
    # Values: numbers with units, rates, Chinese numerals, number words, versions of entities.
    for m in _NUMBER.finditer(low):
        number = float(m.group(1).replace(",", ""))
        unit, end = _unit_of(m)
        q = _quantity(number, unit, v)
        if q is None and unit and cjk.is_cjk(unit[0]):  # 7 天后过期: the unit is 天, not 天后过
            q, size = _han_quantity(number, unit, v, dates=True)
            end -= len(unit) - size
        tail = low[end:end + 20]
        rate = re.match(r"\s*(?:requests?\s+|次\s*)?(per second|per minute|per hour|/s|/sec|/min|/h)\b", tail)
        if rate:
            q = ("rate", round(number * v["rate_units"][rate.group(1)], 9))
        before = low[max(0, m.start() - 6):m.start()]
        for name in ("每秒", "每分钟", "每小时"):
            if name in before:
                q = ("rate", round(number * v["rate_units"][name], 9))
        values.add(q or ("n", number))
    for m in _CN_NUMBER.finditer(low):
        number = _cn_value(m.group(2), v)
        if not number:
            continue  # 万元 after an Arabic number: the unit, read above
        if m.group(1):
            values.add(("percent", number))
            continue
        q = _han_quantity(number, cjk.prefix(m.group(4), cjk.HAN), v)[0]
        if q:
            values.add(q)
        elif m.group(2) not in ("一", "半"):
            values.add(("n", number))
    plain = [w for w, _s, _e in words]
    for phrase, start, size in _phrases_in(plain, v["number_words"], 5):  # "half a second", "three projects"
        number = v["number_words"][phrase]
        if phrase in ("a", "an") and start and plain[start - 1] in ("half", "quarter"):
            continue  # "half a second" is half, not one
        after = plain[start + size:start + size + 2]
        if after[:1] in (["a"], ["an"]):
            after = after[1:] + plain[start + size + 2:start + size + 3]
        q = _quantity(number, after[0], v) if after else None
        if q:
            values.add(q)
        elif phrase not in ("a", "an") and number >= 2 and after:
            values.add(("n", number))
    for entity in entities:  # "Node 20", "PostgreSQL 16", "Python 3.11", "iOS 16"
        spellings = v["spellings"].get(entity, [entity])
        for spelling in spellings:
            m = re.search(r"(?<![a-z0-9])%s\s*(?:version\s*|版本\s*|v)?(\d+(?:\.\d+)*)" % re.escape(spelling), low)
            if m:
                versions[entity] = m.group(1)
                values = set(x for x in values if not (x[0] == "n" and "%g" % x[1] == m.group(1)))
                break
    for m in _VERSION.finditer(low):
        version = m.group(1)  # its major part, or all of it, read as a plain count is no count
        values = set(x for x in values if not (x[0] == "n" and ("%g" % x[1]) in (version, version.split(".")[0])))
        values.add(("version", version))
    # Polarity: a negation anywhere flips the claim; an entity named right after a negation (or
    # before "was removed") is negated, and one after "switched to" is asserted.
    polarity = True
    hits = [(words[i][1], words[i + n - 1][2], phrase) for phrase, i, n in _phrases_in(plain, v["negation_set"], 3)]
    for marker in v["cjk_negations"]:
        at = low.find(marker)
        while at >= 0:
            hits.append((at, at + len(marker), marker))
            at = low.find(marker, at + len(marker))
    dropped = set()
    for m_start, m_end, marker in hits:
        polarity = False
        dropped.update(_dropped_words(low, words, m_start, m_end, marker in _AFTER_NEGATIONS, v))
        window = low[m_end:m_end + 30]
        back = low[max(0, m_start - 30):m_start]
        for entity in entities:
            for s in v["spellings"].get(entity, [entity]):
                at = _find_word(window, s)
                if 0 <= at < 20 or (marker in _AFTER_NEGATIONS and _find_word(back, s) >= 0):
                    negated.add(entity)
                    break
    for marker in v["replacements"]:
        at = low.find(marker)
        if at >= 0:
            after = low[at + len(marker):at + len(marker) + 40]
            places = []
            for e in entities:
                hits = [_find_word(after, s) for s in v["spellings"].get(e, [e])]
                hits = [h for h in hits if h >= 0]
                if hits:
                    places.append((min(hits), e))
            named = [min(places)[1]] if places else []  # the choice named right after "moved to"
            if named:
                family = v["family_of"].get(named[0])
                negated.update(e for e in entities if e not in named and v["family_of"].get(e) == family and family)
                negated.difference_update(named)
    # The subject: concepts plus the content words nothing else claimed.
    covered = [False] * len(low)
    for s, e in consumed:
        for k in range(s, min(e, len(low))):
            covered[k] = True
    for w, s, e in words:
        if any(covered[s:e]) or w in v["stopwords"] or any(c.isdigit() for c in w) or w in v["units"]:
            continue
        if w in v["negations"] or len(w) < 2:
            continue
        subject.add(_stem(w))
    fact.subject, fact.scope, fact.entities, fact.negated = frozenset(subject), frozenset(scope), frozenset(entities), frozenset(negated)
    fact.values, fact.versions, fact.polarity = frozenset(values), versions, polarity
    if any(w in v["switch_words"] for w, _s, _e in words):
        dropped.update(_switched_from(low, words, v))
    fact.dropped = frozenset(dropped)
    return fact


_PASSIVE = frozenset(("was", "were", "is", "are", "been", "has", "have", "got", "gets", "now", "all", "be"))
_CLAUSE_END = re.compile(r"[;,.()]|\s(?:with|by|to|for|in|on|because|since|as|and|but|so)\s")
_FROM_TO = re.compile(r"\bfrom\s+(.{1,40}?)\s+(?:to|with|for)\s")
_CJK_LEAD = "再用使了掉的把将个"


def _dropped_words(low, words, start, end, after, v):
    """The words a negation at low[start:end] retracts, stemmed as the subject is: the first two
    content words after it up to the clause's end ("replaced grid A* with ..." -> grid), and for
    one that follows what it negates, the last two before it ("the magnetometer was removed").
    Chinese: the first two characters after it (弃用旧网关 -> 旧网). A newer fact that retracts a
    word the older one asserts takes it back, whatever the tool."""
    clause = _CLAUSE_END.search(low, end)
    limit = min(end + 30, clause.start() if clause else len(low))
    stop, negations = v["stopwords"], v["negation_set"]

    def content(w):
        return w not in stop and w not in negations and w not in _PASSIVE and not w[0].isdigit()

    out = [_stem(w) for w, s, _e in words if end <= s < limit and content(w)][:2]
    if after:
        opened = max(low.rfind(c, 0, start) for c in ";,.(")
        back = [w for w, s, e in words if max(start - 30, opened) < s and e <= start and content(w)]
        out.extend(_stem(w) for w in back[-2:])
    run = cjk.run_at(low, end).lstrip(_CJK_LEAD)
    if len(run) >= 2:
        out.append(run[:2])
    return out


def _switched_from(low, words, v):
    """Words a change "from X to Y" leaves behind: X's first two content words."""
    out = []
    for m in _FROM_TO.finditer(low):
        inner = [w for w, s, _e in words if m.start(1) <= s < m.end(1) and w not in v["stopwords"]
                 and not w[0].isdigit()]
        out.extend(_stem(w) for w in inner[:2])
    return out


def word_stems(text):
    """The text's words stemmed as a subject's are (what a retracted word is looked up in)."""
    low = unicodedata.normalize("NFKC", text).lower()
    return set(_stem(w) for w in _WORD.findall(low))


def _phrases_in(plain, table, longest):
    """(phrase, start, word count) of each phrase of table in the word list, longest match first,
    not overlapping."""
    found, i = [], 0
    while i < len(plain):
        for n in range(min(longest, len(plain) - i), 0, -1):
            phrase = " ".join(plain[i:i + n])
            if phrase in table:
                found.append((phrase, i, n))
                i += n
                break
        else:
            i += 1
    return found


def _find_word(text, word):
    if not word.isascii():
        return text.find(word)
    m = re.search(r"(?<![a-z0-9])%s(?![a-z0-9])" % re.escape(word), text)
    return m.start() if m else -1


def about(fact, v, drop_family=None):
    """The words a fact is about: subject and scope, and the entities outside drop_family."""
    tokens = set(t for t in fact.subject if t not in v["generic"]) | set(fact.scope)
    tokens.update(e for e in fact.entities if v["family_of"].get(e) != drop_family or drop_family is None and False)
    return tokens


OVERLAP, MAX_DIFF, DIFF_SHARE = 0.5, 2, 0.7  # tuned on the tune half of the pair set only


def same_subject(a, b, v, drop_family=None):
    """Whether two facts speak of one thing: they share a word, and differ in few of them (the API
    port and the metrics port differ in one of three words: two things)."""
    ta, tb = about(a, v, drop_family), about(b, v, drop_family)
    if drop_family is not None:
        ta.update(e for e in a.entities if v["family_of"].get(e) != drop_family)
        tb.update(e for e in b.entities if v["family_of"].get(e) != drop_family)
    if not ta or not tb:
        return True  # one is only its values or its choice ("pnpm", "超时 800ms"): the other's subject
    if ta.isdisjoint(tb):
        return False
    ids_a = set(t for t in ta if "_" in t or "-" in t.strip("-"))
    ids_b = set(t for t in tb if "_" in t or "-" in t.strip("-"))
    if ids_a and ids_b and ids_a.isdisjoint(ids_b):
        return False  # new_checkout vs new_search, orders-consumer vs payments-consumer
    shared = len(ta & tb)
    return shared / float(min(len(ta), len(tb))) >= OVERLAP and len(ta ^ tb) <= max(MAX_DIFF, DIFF_SHARE * len(ta | tb))


def dims(fact):
    """{dimension: set of values} of a fact."""
    out = {}
    for dim, value in fact.values:
        out.setdefault(dim, set()).add(value)
    return out


def families(fact, v):
    """{family: set of its members the fact names}."""
    fams = {}
    for entity in fact.entities:
        family = v["family_of"].get(entity)
        if family:
            fams.setdefault(family, set()).add(entity)
    return fams


def relate(a, b, extra=None):
    """("conflict" | "duplicate" | None, reason) for two parsed facts."""
    v = vocab(extra)
    if a.scope and b.scope and a.scope.isdisjoint(b.scope):
        return None, "different scope"
    dims_a, dims_b = dims(a), dims(b)
    shared = set(dims_a) & set(dims_b)
    values_differ = [d for d in shared if dims_a[d].isdisjoint(dims_b[d])]
    # Mutually exclusive choices: another member of one family, or the same one negated.
    fam_a, fam_b = families(a, v), families(b, v)
    for family in set(fam_a) & set(fam_b):
        pos_a, pos_b = fam_a[family] - a.negated, fam_b[family] - b.negated
        if pos_a and pos_b and pos_a.isdisjoint(pos_b) and not values_differ \
                and same_subject(a, b, v, drop_family=family):
            return "conflict", "%s: %s vs %s" % (family, "/".join(sorted(pos_a)), "/".join(sorted(pos_b)))
    subject = same_subject(a, b, v)
    both = a.entities & b.entities
    for entity in both:
        if (entity in a.negated) != (entity in b.negated) and (subject or len(a.entities | b.entities) <= 2):
            return "conflict", "%s asserted in one, negated in the other" % entity
    if not subject:
        return None, "different subject"
    for entity in both:
        va, vb = a.versions.get(entity), b.versions.get(entity)
        if va and vb and va != vb:
            return "conflict", "%s %s vs %s" % (entity, va, vb)
    if values_differ:
        d = values_differ[0]
        return "conflict", "%s: %s vs %s" % (d, sorted(dims_a[d]), sorted(dims_b[d]))
    if not a.entities and not b.entities and a.polarity != b.polarity:
        return "conflict", "a claim and its negation"
    if a.entities == b.entities and a.negated == b.negated and a.polarity == b.polarity or \
            (a.entities == b.entities and a.negated == b.negated and shared):
        return "duplicate", "same subject, scope and value"
    return None, "related, not the same claim"
