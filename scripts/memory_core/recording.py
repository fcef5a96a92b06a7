"""The record pipeline: validate, scan for secrets, dedup, then write Layer 1 + Layer 2 (and Layer 3
only when a person confirmed) in one locked step. Every refusal writes nothing."""
import json
import os

from . import index
from . import store as st
from .config import extra_secret_patterns, fact_model_extra, read_config
from .paths import LAYER3_FILE, StoreError, daily_path, layer3_path, topic_error, topic_items_path
from .provenance import content_hash, log_change
from .similarity import fact_id, normalize, without_negations

MAX_FACT_CHARS = 2000
MAX_SOURCE_CHARS = 300
DEFAULT_TOPIC = "general"
CATEGORIES = ("fact", "decision", "convention", "preference")  # the durable surfaces (classify_memory.py)


class Refusal(StoreError):
    """The input was understood and refused (exit 1). details go into the --json output."""

    def __init__(self, message, fix=None, **details):
        StoreError.__init__(self, message, fix=fix, exit_code=1)
        self.details = details


def _control_chars(text):
    return sorted(set("U+%04X" % ord(c) for c in text if ord(c) < 32 and c not in "\t\n\r"))


def validate_text(text, what="fact", limit=MAX_FACT_CHARS):
    """The stripped text, or a StoreError saying what is wrong with it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise StoreError("the %s is not valid UTF-8 text" % what,
                         fix="pass the %s as UTF-8 (check the terminal or file encoding)" % what)
    text = text.strip()
    if not text:
        raise StoreError("the %s is empty" % what, fix="give the %s as non-empty text" % what)
    bad = _control_chars(text)
    if bad:
        raise StoreError("the %s contains control characters (%s)" % (what, ", ".join(bad[:5])),
                         fix="remove control characters; tabs and newlines are fine")
    if len(text) > limit:
        raise Refusal("the %s is %d characters; the limit is %d" % (what, len(text), limit),
                      fix="record one short, reusable fact; keep logs and long notes out of memory",
                      limit=limit, length=len(text))
    return text


def validate_options(topic, category, source):
    problem = topic_error(topic)
    if problem:
        raise StoreError("bad topic: " + problem, fix="use 1-64 characters of a-z, 0-9 and '-', e.g. --topic workflow")
    if category is not None and category not in CATEGORIES:
        raise StoreError("unknown category %r" % category, fix="use one of: " + ", ".join(CATEGORIES))
    source = validate_text(source, "source", MAX_SOURCE_CHARS)
    if "\n" in source:
        raise StoreError("the source is more than one line", fix="give a short source such as user or file:src/app.py")
    return source


def _count(n, noun):
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _rel(root, path):
    return os.path.relpath(path, root)


def record_fact(root, store, fact, topic=DEFAULT_TOPIC, category=None, source="user", inferred=False,
                redact=False, promote=False, confirmed=False, keep_both=False, supersedes=(), anchors=(),
                force_surface=False, dry_run=False, item_id=None):
    """Record one fact. Returns the action summary dict; raises StoreError / Refusal. item_id: the id to
    give it instead of the one derived from its text (an import keeps a free id it was given)."""
    fact = validate_text(fact)
    source = validate_options(topic, category, source)
    if promote and not confirmed:
        raise Refusal("Layer 3 (MEMORY.md) takes only what a person confirmed; nothing was written",
                      fix="add --confirmed only if the user said this is lasting project knowledge")
    if promote and inferred:
        raise Refusal("an inferred fact cannot be promoted to Layer 3; nothing was written",
                      fix="ask the user to confirm it, then record it without --inferred")
    supersedes = list(dict.fromkeys(supersedes or ()))
    result = {"action": "record", "project": root, "store": _rel(root, store), "topic": topic,
              "dry_run": dry_run, "status": None, "id": None, "read": [], "written": [], "skipped": [],
              "notes": []}

    config, notes = read_config(store, strict=True)
    result["notes"].extend(notes)
    fact, source = _screen_secrets(fact, source, redact, config, result)
    extra = extra_secret_patterns(config)
    vocab = fact_model_extra(config)
    category = _classify(fact, config, extra, category, force_surface or None, inferred, result)
    if anchors:
        from .anchors import make_anchors
        anchors = make_anchors(root, store, anchors)
        result["anchors"] = anchors
    item_id = item_id or fact_id(topic, fact)
    result["id"] = item_id

    if dry_run:
        return _plan_and_write(root, store, fact, item_id, topic, category, source, inferred, promote,
                               keep_both, supersedes, result, extra, anchors, write=False, vocab=vocab)
    if not os.path.isdir(store):
        _check_creatable(root, store)
    with st.StoreLock(store):
        day = st.utc_now().strftime("%Y-%m-%d")
        st.preflight(store, [topic_items_path(store, topic), daily_path(store, day), layer3_path(store)])
        created = st.init_store(store)
        if created:
            result["written"].extend(_rel(root, os.path.join(store, c)) for c in created)
            result["notes"].append("created a new store from the template")
        return _plan_and_write(root, store, fact, item_id, topic, category, source, inferred, promote,
                               keep_both, supersedes, result, extra, anchors, write=True, vocab=vocab)


FORCEABLE = ("todo", "procedure", "ephemeral", "speculation")
PERSONAL_KINDS = frozenset(("payment-card", "iban", "national-id", "phone", "email", "home-path"))


def _classify(fact, config, extra, category, force_surface, inferred, result):
    """Refuse what is not a lasting fact (a todo, a how-to, something true only now, a guess) unless
    forced; returns the category to store (the given one, else the classifier's when it names one)."""
    from .classification import ADVICE, gate, load_extra_markers
    verdict = gate(fact, load_extra_markers(config, result["notes"]), extra)
    result["classification"] = verdict
    surface = verdict["surface"]
    looks = verdict.get("looks_like", surface)
    if looks == "speculation" and inferred:
        result["notes"].append("a guess, stored as inferred: it loads marked (inferred) and is never promoted")
    elif looks in FORCEABLE and not verdict.get("refuse"):
        # Not sure enough to refuse: recorded, with what it looks like and how to change it.
        result["notes"].append("recorded, though it reads a little like a %s (signals: %s); if it is one, %s"
                               % (looks, ", ".join(verdict["signals"][:3]) or "sentence shape", ADVICE[looks]))
    elif surface in FORCEABLE:
        if not force_surface:
            raise Refusal("this reads as a %s, not a lasting fact (signals: %s); nothing was written"
                          % (surface, ", ".join(verdict["signals"][:3]) or "sentence shape"),
                          fix="%s; if it really is a lasting fact, record it with --force-surface" % ADVICE[surface],
                          classification=verdict)
        result["notes"].append("recorded although it reads as a %s (--force-surface)" % surface)
        result["decisions"] = ["force-surface"]  # stored on the item, so an export carries it
    if category is None:
        category = surface if surface in CATEGORIES else "fact"
    return category


def _check_creatable(root, store):
    parent = os.path.dirname(store)
    while not os.path.isdir(parent):
        parent = os.path.dirname(parent)
    if not os.access(parent, os.W_OK):
        raise StoreError("cannot create the store %s: %s is not writable; nothing was written"
                         % (store, parent), fix="run in a writable project, or set MEMORY_DIR", path=parent)


def _screen_secrets(fact, source, redact, config, result):
    from .redaction import describe, find_secrets, mask_secrets
    try:
        extra = extra_secret_patterns(config)
        findings = find_secrets(fact, extra)
        source_findings = find_secrets(source, extra)
    except ValueError as exc:
        raise StoreError("config.yaml has a bad secret pattern: %s" % exc,
                         fix="fix secrets.extra_patterns in config.yaml")
    if source_findings:
        raise Refusal("the source contains a secret (%s); nothing was written" % describe(source_findings),
                      fix="give a source without credentials", kinds=[f.kind for f in source_findings])
    if not findings:
        return fact, source
    if not redact:
        kinds = set(f.kind for f in findings)
        what = "a secret" if kinds - PERSONAL_KINDS else (
            "a path inside one person's home folder" if kinds == {"home-path"} else "personal data")
        fixes = []
        if kinds - PERSONAL_KINDS:
            fixes.append("remove the secret and record the rule instead (e.g. 'the key lives in CI secrets')")
        if kinds & (PERSONAL_KINDS - {"home-path"}):
            fixes.append("leave out the personal or payment data (say where it is kept, not what it is)")
        if "home-path" in kinds:
            fixes.append("give the path relative to the project (e.g. scripts/deploy.sh), not from a home folder")
        raise Refusal("the fact contains %s: %s; nothing was written" % (what, describe(findings)),
                      fix="; ".join(fixes) + "; or pass --redact to store a masked text",
                      kinds=[f.kind for f in findings])
    masked, _ = mask_secrets(fact, extra)
    result["redacted"] = [f.kind for f in findings]
    result["notes"].append("redacted before storing: " + describe(findings))
    return masked, source


def _plan_and_write(root, store, fact, item_id, topic, category, source, inferred, promote, keep_both,
                    supersedes, result, extra, anchors, write, vocab=None):
    now = st.utc_now()
    items_path = topic_items_path(store, topic)
    day_path = daily_path(store, now.strftime("%Y-%m-%d"))
    daily_text = st.read_text(day_path)  # CorruptFile refuses the whole record
    memory_path = layer3_path(store)
    memory_md = st.read_text(memory_path) if promote else None
    meant_dup, meant_conflicts = None, []
    if not supersedes:  # with --supersedes, after the ids are checked (below)
        meant_dup, meant_conflicts = _judged(store, fact, topic, supersedes, keep_both, write, extra, vocab)
    if write and not supersedes and not promote and meant_dup is None and not meant_conflicts:
        new_item = _new_item(item_id, fact, category, source, inferred, now, (), anchors, result.get("decisions"))
        grown = _fast_append(root, store, topic, items_path, new_item, now, daily_text, result)
        if grown is not None:
            _mark_clean(store, extra, day_path, grown)
            return result
    doc, items = st.read_topic(store, topic)  # CorruptFile refuses the whole record
    result["read"].append("%s (%s)" % (_rel(root, items_path), _count(len(items), "item")))

    by_id = dict((it.get("id"), it) for it in items)
    existing = by_id.get(item_id)
    replaced = _check_supersedes(supersedes, by_id, item_id, topic)
    if supersedes:
        meant_dup, meant_conflicts = _judged(store, fact, topic, supersedes, keep_both, write, extra, vocab)
    new_item = None
    if existing is not None and existing.get("status", "active") != "active":
        raise Refusal("this exact fact was recorded before as %s and is now %s (superseded by %s); "
                      "nothing was written" % (item_id, existing.get("status"), existing.get("superseded_by")),
                      fix="if the old value is true again, record it reworded (say why) with --supersedes %s"
                          % existing.get("superseded_by"), duplicate_of=item_id)
    if existing is not None and replaced:
        raise Refusal("%s is already an active fact with this text; nothing was written" % item_id,
                      fix="drop --supersedes, or mark the old items in review", duplicate_of=item_id)
    if existing is not None:
        result["status"], result["duplicate_of"] = "duplicate", item_id
        result["skipped"].append("%s: exact duplicate of %s" % (_rel(root, items_path), item_id))
    else:
        dup, conflicts = _same_words(fact, [it for it in items if it.get("id") not in supersedes])
        dup = dup if dup is not None else meant_dup
        conflicts += [c for c in meant_conflicts if c["id"] not in set(it.get("id") for it in conflicts)]
        if dup is not None and replaced:
            raise Refusal("the new fact repeats %s (%r), so it cannot replace %s; nothing was written"
                          % (dup.get("id"), _shown(dup["fact"], extra), ", ".join(supersedes)),
                          fix="supersede with %s's wording changed, or supersede %s itself" % (dup.get("id"), dup.get("id")),
                          duplicate_of=dup.get("id"))
        if dup is not None:
            result["status"], result["duplicate_of"] = "duplicate", dup.get("id")
            where = "" if dup.get("topic") in (None, topic) else " in topic %s" % dup["topic"]
            result["skipped"].append("%s: near-duplicate of %s%s (%r)" % (_rel(root, items_path), dup.get("id"), where,
                                                                          _shown(dup["fact"], extra)))
        elif conflicts and not keep_both:
            first = conflicts[0]
            raise Refusal("the fact conflicts with %s (%r): same subject, different value; nothing was written"
                          % (first.get("id"), _shown(first["fact"], extra)),
                          fix="if the new value replaces the old one, record with --supersedes %s; if both "
                              "are true, record with --keep-both" % first.get("id"),
                          conflict_with=[{"id": c.get("id"), "fact": _shown(c["fact"], extra)} for c in conflicts])
        else:
            if conflicts:
                result["kept_both_with"] = [c.get("id") for c in conflicts]
                result["decisions"] = result.get("decisions", []) + ["keep-both"]
            new_item = _new_item(item_id, fact, category, source, inferred, now, supersedes, anchors,
                                 result.get("decisions"))
            result["status"] = "recorded"

    new_md = None
    if promote:
        new_md = st.promote_text(memory_md or st.FALLBACK_MEMORY_MD, fact,
                                 item_id if existing is None else existing.get("id"), category, now)
        if new_md is None:
            result["skipped"].append("%s: already holds %s" % (_rel(root, memory_path), item_id))
    else:
        result["skipped"].append("%s: not promoted (Layer 3 needs --promote --confirmed)" % LAYER3_FILE)

    if not write:
        result["status"] = "dry-run: would be " + result["status"]
        if new_item is not None:
            result["would_supersede"] = list(supersedes)
            result["would_write"] = [_rel(root, items_path), _rel(root, day_path)]
        if new_md is not None:
            result.setdefault("would_write", []).append(_rel(root, memory_path))
        return result

    if new_item is not None:
        before = dict((old["id"], content_hash(old)) for old in replaced)
        for old in replaced:
            old["status"], old["superseded_by"], old["updated_at"] = "superseded", item_id, new_item["created_at"]
        if replaced:
            result["superseded"] = list(supersedes)
        items.append(new_item)
        st.write_topic(store, topic, doc, items)
        index.refresh_topic(store, topic, items_path, doc, items)
        result["written"].append("%s (+1 item, %d in all)" % (_rel(root, items_path), len(items)))
        st.append_daily(store, now, st.daily_line_text(now, topic, fact, item_id, supersedes),
                        existing=daily_text)
        result["written"].append("%s (+1 line)" % _rel(root, day_path))
        after = dict((it["id"], content_hash(it)) for it in replaced + [new_item])
        before[item_id] = None
        _log(result, store, "supersede" if replaced else ("record-keep-both" if result.get("kept_both_with")
                                                          else "record"), topic, list(after), source, before, after)
    if new_md is not None:
        st.atomic_write_bytes(memory_path, new_md.encode("utf-8"))
        result["written"].append("%s (+1 confirmed line)" % _rel(root, memory_path))
        result["promoted"] = True
        promoted_id = item_id if existing is None else existing.get("id")
        _log(result, store, "promote", LAYER3_FILE, [promoted_id], source,
             {LAYER3_FILE: content_hash(memory_md)}, {LAYER3_FILE: content_hash(new_md)})
    if result["written"]:
        _mark_clean(store, extra, day_path)
    return result


def _judged(store, fact, topic, supersedes, keep_both, write, extra, vocab=None):
    """(duplicate, conflicts) of the fact by meaning across every topic (matching.py, with
    config.yaml's fact_model additions); a conflict refuses the record unless --keep-both."""
    from . import matching
    duplicate, conflicts = matching.matches(store, fact, skip_ids=set(supersedes), write=write, extra=vocab)
    if conflicts and not keep_both:
        first = conflicts[0]
        from .judgement import MAY_REWORD, OPPOSED
        reason = first.get("reason", OPPOSED)
        raise Refusal("the fact conflicts with %s in topic %s (%r): %s; nothing was written"
                      % (first["id"], first["topic"], _shown(first["fact"], extra), reason),
                      fix="%sif the new value replaces the old one, record with %s--supersedes %s; if both are true "
                          "(another scope or subject), record with --keep-both"
                          % ("if it says the same as the stored fact, nothing needs recording; "
                             if reason == MAY_REWORD else "",
                             "" if first["topic"] == topic else "--topic %s " % first["topic"], first["id"]),
                      conflict_with=[dict(c, fact=_shown(c["fact"], extra)) for c in conflicts])
    return duplicate, conflicts


def _shown(text, extra):
    """A stored fact quoted back in a message: the file may have been edited by hand, so it is
    masked and escaped like everything else that leaves."""
    from .rendering import masked_line
    return masked_line(text, extra)


def _log(result, store, operation, topic, ids, source, before, after):
    problem = log_change(store, operation, topic, ids, source, before, after)
    if problem:
        result["notes"].append(problem)


def _mark_clean(store, extra, day_path, grown=None):
    """Let loading skip the secret scan of what this write leaves behind (index.mark_clean)."""
    try:
        index.mark_clean(store, extra, [LAYER3_FILE, os.path.relpath(day_path, store), index.NEWEST_INDEX], grown)
    except OSError:
        pass


def _new_item(item_id, fact, category, source, inferred, now, supersedes, anchors=(), decisions=None):
    stamp = st.iso(now)
    item = {"id": item_id, "fact": fact, "status": "active", "category": category, "source": source,
            "inferred": bool(inferred), "created_at": stamp, "updated_at": stamp, "superseded_by": None,
            "supersedes": list(supersedes), "tags": []}
    if anchors:
        item["anchors"] = list(anchors)
    if decisions:  # what a person decided against the gate: force-surface, keep-both
        item["decisions"] = list(decisions)
    return item


def _fast_append(root, store, topic, items_path, new_item, now, daily_text, result):
    """Append a new, unrelated fact to a large topic without parsing or re-encoding the whole file.

    Used only while the dedup index matches the file's signature (so the file is exactly what the
    last writer produced, in canonical form) and the fact has no same-words match (_same_words) among the
    active items; anything else returns None and the caller takes the full path, which produces the
    same bytes (evals/test_index.py checks that). Appended: {rel: signature before} of what grew
    only by this fact, already scanned clean (index.mark_clean's grown)."""
    sig = index.signature(items_path)
    rows = index.read_dedup_index(store, topic, sig)
    if not rows or not rows.norms:
        return None
    norm = normalize(new_item["fact"])
    if "S" in rows.active:  # superseded items only matter for an exact repeat
        if norm in rows.norms:
            return None
        keep = [i for i, flag in enumerate(rows.active) if flag == "A"]
        position = dict((row, pos) for pos, row in enumerate(keep))
        norms = [rows.norms[i] for i in keep]
        negated = dict((position[row], bare) for row, bare in rows.negated.items() if row in position)
    else:
        norms, negated = rows.norms, rows.negated
    bare = without_negations(norm)  # the same words, or the same but for a negation: see _same_words
    if norm in norms or bare in norms or bare in negated.values():
        return None
    block = json.dumps(new_item, indent=2, sort_keys=True, ensure_ascii=False).replace("\n", "\n    ")
    with open(items_path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        tail_at = max(0, size - 4096)  # the items list closes in the last few hundred bytes
        fh.seek(tail_at)
        tail = fh.read()
        end = tail.rfind(b"\n  ]")
        if size != sig[0] or end < 0:
            return None
        st.atomic_write_bytes(items_path, [st.FileRange(fh.fileno(), 0, tail_at + end),
                                           b",\n    " + block.encode("utf-8") + tail[end:]])
    new_sig = index.signature(items_path)
    grown = {}
    try:
        from .judgement import fact_keys
        index.append_dedup_row(store, topic, new_sig, len(rows.norms) + 1, new_item["id"], norm,
                               without_negations(norm), new_item["fact"], fact_keys(new_item["fact"]),
                               clean=not result.get("redacted"))  # screened clean (_screen_secrets)
        newest = os.path.join(store, index.NEWEST_INDEX)
        before = index.signature(newest)
        if index.add_newest(store, topic, sig, new_sig, new_item) and not result.get("redacted"):
            grown[index.NEWEST_INDEX] = before
    except OSError:
        pass
    day = now.strftime("%Y-%m-%d")
    st.append_daily(store, now, st.daily_line_text(now, topic, new_item["fact"], new_item["id"]),
                    existing=daily_text)
    _log(result, store, "record", topic, [new_item["id"]], new_item["source"], {new_item["id"]: None},
         {new_item["id"]: content_hash(new_item)})
    result["read"].append("%s (%s, via its index)" % (_rel(root, items_path), _count(len(rows.norms), "item")))
    result["written"].append("%s (+1 item, %d in all)" % (_rel(root, items_path), len(rows.norms) + 1))
    result["written"].append("%s (+1 line)" % _rel(root, daily_path(store, day)))
    result["skipped"].append("%s: not promoted (Layer 3 needs --promote --confirmed)" % LAYER3_FILE)
    result["status"] = "recorded"
    return grown


def _check_supersedes(supersedes, by_id, new_id, topic):
    """The active items the new fact replaces; refuses unknown ids, inactive ones and cycles."""
    replaced = []
    for old_id in supersedes:
        old = by_id.get(old_id)
        if old_id == new_id:
            raise Refusal("a fact cannot supersede itself (%s); nothing was written" % old_id,
                          fix="reword the new fact, or drop --supersedes")
        if old is None:
            raise Refusal("--supersedes %s: no such item in topic %s; nothing was written" % (old_id, topic),
                          fix="give an id from areas/topics/%s/items.json (load or review lists them)" % topic)
        if old.get("status", "active") != "active":
            raise Refusal("--supersedes %s: it is already %s (by %s); nothing was written"
                          % (old_id, old.get("status"), old.get("superseded_by")),
                          fix="supersede the current head of that chain instead")
        replaced.append(old)
    return replaced


def _same_words(fact, items):
    """(duplicate item or None, [conflicting items]) among the active items of the topic by their
    words alone: the same words (case, punctuation and spacing aside) are a duplicate, the same words
    but for a negation ("we use tabs" / "we never use tabs") a conflict. Anything less alike is the
    judgement's (matching.py): a wording ratio refused compatible pairs such as "Free tier: 1,000
    calls" / "Pro tier: 100,000 calls" and found no conflict the judgement missed."""
    query = normalize(fact)
    bare = without_negations(query)
    dup, conflicts = None, []
    for it in items:
        if it.get("status", "active") != "active":
            continue
        norm = normalize(it["fact"])
        if norm == query:
            dup = it if dup is None else dup
        elif without_negations(norm) == bare:
            conflicts.append(it)
    return dup, conflicts
