"""The clean read: where the fact model reads both facts of a pair plainly, the contract decides
(references/fact-model.md, section 2): the same subject and scope with another value, choice or
version is a conflict, with the same one a duplicate, whatever the pair model says."""
from .facts import _stem


def _slot(fact, v):
    """((kind, what), value, family) of a fact that states one thing: one value of one dimension and
    no tool, one member of one exclusive family and no value, or one version of one tool; else None."""
    if fact.values:
        if fact.entities or len(fact.values) != 1:
            return None
        dim, value = next(iter(fact.values))
        return ("value", dim), value, None
    if len(fact.entities) != 1:
        return None
    entity = next(iter(fact.entities))
    if fact.versions.get(entity):
        return ("version", entity), fact.versions[entity], None
    family = v["family_of"].get(entity)
    return (("family", family), entity, family) if family else None


def _marks(values, v):
    """The value tokens a clean read must find the same on both sides: numbered names (p95, Core0,
    task_5ms) other than tools, and frequency words (每天 / 每周 change what a count means)."""
    return set(t for t in values if t[0].isalpha() and v["phrases"].get(t, ("",))[0] != "entity")


def read(a, b, v, values_a, values_b):
    """"conflict", "duplicate" or "": the contract itself where the fact model reads both facts
    plainly: the same subject words (but generic words and the slot family's own words: "Our package
    manager is pnpm" / "We use yarn"), the same scope, nothing negated, and one slot each of one kind.
    Another value, choice or version is a conflict, the same one a duplicate. The model read "The data
    warehouse is Snowflake." / "Our data warehouse is BigQuery." at 0.68 and "Rate limit is 100
    requests per minute." / "... 10 requests per second." at 0.07, under its thresholds. It is made
    for 112 of the 14,942 tune pairs, every one right (59 conflicts, 53 paraphrases); in the tune
    stores, each new fact against every stored fact, 25 conflicts and 2 duplicates, all right.
    values_a, values_b: each side's value tokens (judgement's "values": words with digits, and
    "every<seconds>" for a frequency word)."""
    if a.negated or b.negated or a.dropped or b.dropped or not a.polarity or not b.polarity or a.scope != b.scope:
        return ""
    slot_a, slot_b = _slot(a, v), _slot(b, v)
    if not slot_a or not slot_b or slot_a[0] != slot_b[0] or _marks(values_a, v) != _marks(values_b, v):
        return ""
    drop = _slot_words(v, slot_a[2])
    subject_a = set(t for t in a.subject if t not in drop)
    if subject_a != set(t for t in b.subject if t not in drop) or not subject_a and slot_a[0][0] == "value":
        return ""  # another thing, or values with nothing said of what they measure
    x, y = slot_a[1], slot_b[1]
    if x == y:
        return "duplicate"
    if slot_a[0][0] == "value" and not isinstance(x, str) and x > 0 and y > 0 and max(x, y) / min(x, y) < 1.05:
        return ""  # 7 years / 84 months: a unit table's rounding, not another value
    return "conflict"


_SLOT_WORDS = {}


def _slot_words(v, family):
    """Generic words, number words and the words that name a family (its name's words and its context
    words: "branch", "merge" for branches): a fact that names the family says no more than one that
    names only its member ("Our package manager is pnpm" / "We use yarn")."""
    found = _SLOT_WORDS.get((id(v), family))
    if found is None:
        name = family or ""
        context = tuple(v["family_context"].get(family, ())) + tuple(name.split("_")) + (name.replace("_", " "),)
        stems = frozenset(_stem(w) for w in context) | frozenset(_stem(w + "s") for w in context)  # package(s)
        found = _SLOT_WORDS[(id(v), family)] = (v["generic"] | frozenset(context) | stems
                                                | frozenset(v["number_words"]))  # "one week": the value's words
    return found
