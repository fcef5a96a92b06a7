"""Review: what in the store may be duplicated, contradicted, stale or broken, each with its
evidence and a proposed action. Reading writes nothing; applying named proposals is one locked step
that never deletes (supersede, or flag needs_review).

Near-copy search is not quadratic: facts are sorted several ways and each is compared with its next
few neighbours in every order (see candidate_pairs), plus facts sharing a rare word. The same words
are a duplicate and the same words but for a negation a conflict; every other pair worded alike,
and the facts blocked by a shared tool, family or concept, go to the judgement of record
(judgement.py, find_meaning_pairs), so conflicts and paraphrases are decided by meaning.
"""
import os

from . import store as st
from .paths import LAYER3_FILE, layer3_path, topic_items_path
from .progress import silent
from .similarity import compare, normalize, ratio

DEFAULT_STALE_DAYS = 180
_STOP = frozenset("a an the this that these those is are was were be been it its of to in on for and or "
                  "with by at as our we use uses used not no never always".split())


def _shape_tokens(norm):
    out = set()
    for word in norm.split():
        if word in _STOP:
            continue
        out.add("#" if any(c.isdigit() for c in word) else word)
    out.discard("#")
    return out


def _proposal_id(kind, ids):
    from .similarity import sha256
    return "P-" + sha256(("%s|%s" % (kind, "|".join(sorted(ids)))).encode("utf-8")).hexdigest()[:10]


def collect(store, topics=None):
    """(facts, problems): every readable item as dicts with topic, and the files that did not read.
    Links and special files anywhere in the store come first, as security problems."""
    from .safefs import scan_tree
    facts = []
    problems = [{"kind": "security", "path": rel, "evidence": "SECURITY: %s; never followed or read" % why,
                 "action": "remove it (git rm it if it is committed); only real files and folders belong in the store"}
                for rel, why in scan_tree(store)]
    try:
        topic_names = st.list_topics(store)
    except st.CorruptFile:
        topic_names = []  # areas/ is a link: reported above
    for topic in topic_names:
        if topics and topic not in topics:
            continue
        path = topic_items_path(store, topic)
        rel = os.path.relpath(path, store)
        try:
            doc, items = st.read_topic(store, topic)
        except st.CorruptFile as exc:
            if exc.security:
                continue  # already a security problem
            problems.append({"kind": "corrupt", "path": rel, "evidence": exc.reason,
                             "action": "fix or restore the file by hand; memory-3layer leaves it as it is"})
            continue
        if doc.get("schema") is None:
            problems.append({"kind": "schema", "path": rel, "evidence": "no schema field (legacy layout)",
                             "action": "the next write to this topic adds it"})
        seen = set()
        for item in items:
            item_id = item.get("id")
            if not isinstance(item_id, str) or not item_id:
                problems.append({"kind": "schema", "path": rel, "evidence": "an item without an id",
                                 "action": "give it an id by hand, or re-record the fact"})
                continue
            if item_id in seen:
                problems.append({"kind": "schema", "path": rel, "evidence": "id %s appears twice" % item_id,
                                 "action": "remove one copy by hand"})
            seen.add(item_id)
            facts.append(dict(item, _topic=topic))
    ids = set(f["id"] for f in facts)
    for fact in facts:
        target = fact.get("superseded_by")
        if target and target not in ids:
            problems.append({"kind": "schema", "path": fact["_topic"], "ids": [fact["id"]],
                             "evidence": "superseded_by %s, which does not exist" % target,
                             "action": "point superseded_by at the replacing item"})
    return facts, problems


WINDOW = 4        # sorted-neighbourhood window: each fact meets the next WINDOW facts in every order
RARE_BLOCK = 50   # a rare word shared by at most this many facts also makes them meet


def candidate_pairs(active):
    """Pairs (i, j) worth comparing, in O(n log n): the facts are sorted several ways (by text, by
    text reversed, by shape with numbers masked, by sorted words) and each meets its next WINDOW
    neighbours in every order, so near-copies and same-shape conflicts end up adjacent; facts that
    share a rare word (in at most RARE_BLOCK facts) meet too."""
    n = len(active)
    shapes = [_shape_tokens(f["_norm"]) for f in active]
    masked = [" ".join("#" if any(c.isdigit() for c in w) else w for w in f["_norm"].split()) for f in active]
    orders = (
        lambda i: active[i]["_norm"],
        lambda i: active[i]["_norm"][::-1],
        masked.__getitem__,
        lambda i: " ".join(sorted(shapes[i])),
    )
    pairs = set()
    for key in orders:
        ranked = sorted(range(n), key=key)
        for pos, a in enumerate(ranked):
            for b in ranked[pos + 1:pos + 1 + WINDOW]:
                pairs.add((a, b) if a < b else (b, a))
    df = {}
    for tokens in shapes:
        for token in tokens:
            df[token] = df.get(token, 0) + 1
    blocks = {}
    for index, tokens in enumerate(shapes):
        for token in tokens:
            if 1 < df[token] <= RARE_BLOCK:
                blocks.setdefault(token, []).append(index)
    for members in blocks.values():
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1:]:
                pairs.add((a, b))
    return pairs


def find_pairs(active, progress=silent):
    """(findings, alike): duplicates in the same words and claims flipped by a negation alone, and
    the other pairs worded at least 90% alike, which are the judgement's to decide (a tier or
    region swapped is another scope, not another value: find_meaning_pairs)."""
    from .similarity import fast_ratio
    scorer = fast_ratio()
    found, alike = [], []
    pairs = sorted(candidate_pairs(active))
    bar = progress(len(pairs), "review: comparing pairs")
    for a, b in pairs:
        bar.step()
        fa, fb = active[a], active[b]
        verdict = compare(fa["_norm"], fb["_norm"], scorer, fa["_bare"], fb["_bare"])
        if verdict is None:
            continue
        if verdict == "conflict" and fa["_bare"] != fb["_bare"]:
            alike.append((a, b))
            continue
        older, newer = sorted((fa, fb), key=lambda f: (str(f.get("created_at") or ""), f["id"]))
        same_topic = fa["_topic"] == fb["_topic"]
        found.append({
            "kind": "duplicate" if verdict == "duplicate" else "conflict",
            "ids": [older["id"], newer["id"]],
            "evidence": "%s %.0f%% alike%s: %r / %r" % (
                "same fact," if verdict == "duplicate" else "same claim negated,",
                ratio(fa["_norm"], fb["_norm"]), "" if same_topic else " (topics %s, %s)" % (older["_topic"], newer["_topic"]),
                older["fact"], newer["fact"]),
            "action": {"op": "supersede", "old": older["id"], "new": newer["id"],
                       "why": "the newer one replaces the older" if verdict == "conflict"
                       else "keep one copy; the older is kept as superseded"},
        })
    bar.done()
    return found, alike


MEANING_BLOCK = 40  # facts sharing a tool, family or concept are judged pairwise when they are this few


def find_merge_rivals(facts):
    """Conflicts a merge left for a person (merging.py): two active facts that each superseded the
    same fact on their own branch, flagged needs_review and naming each other in merge_rivals. The
    proposal keeps the newer; applying it clears both flags."""
    by_id = dict((f["id"], f) for f in facts if f.get("status", "active") == "active")
    found, seen = [], set()
    for fact in sorted(by_id.values(), key=lambda f: (str(f.get("created_at") or ""), f["id"])):
        rivals = fact.get("merge_rivals") if isinstance(fact.get("merge_rivals"), list) else []
        for rival_id in rivals:
            rival = by_id.get(rival_id) if isinstance(rival_id, str) else None
            if rival is None or frozenset((fact["id"], rival_id)) in seen:
                continue
            seen.add(frozenset((fact["id"], rival_id)))
            older, newer = sorted((fact, rival), key=lambda f: (str(f.get("created_at") or ""), f["id"]))
            found.append({"kind": "conflict", "ids": [older["id"], newer["id"]],
                          "evidence": "two branches each superseded the same fact, a merge kept both: %r / %r"
                                      % (older["fact"], newer["fact"]),
                          "action": {"op": "supersede", "old": older["id"], "new": newer["id"],
                                     "why": "keep the newer of the two; say --supersedes the other way by hand "
                                            "to keep the older", "clear": [newer["id"]]}})
    return found


def find_meaning_pairs(active, known_pairs=(), vocab=None, alike=(), progress=silent):
    """Conflicts and duplicates judged by meaning (judgement.py, as record judges a new fact),
    blocked by a shared tool, family or concept: only facts in one block of at most MEANING_BLOCK
    are paired, so the work is linear in the store for a bounded block size; alike: more (i, j)
    pairs to judge (worded alike, find_pairs). The older fact of a pair is read as the old value."""
    from . import facts, judgement
    blocks = {}
    for index, fact in enumerate(active):
        for key in judgement.fact_keys(fact["fact"], vocab):
            if key.startswith(judgement.STRONG):
                blocks.setdefault(key, []).append(index)
    order = sorted(range(len(active)), key=lambda i: (str(active[i].get("created_at") or ""), active[i]["id"]))
    rank = dict((i, r) for r, i in enumerate(order))
    pairs = set()
    for members in blocks.values():
        if 1 < len(members) <= MEANING_BLOCK:
            for pos, a in enumerate(members):
                for b in members[pos + 1:]:
                    pairs.add((a, b) if rank[a] < rank[b] else (b, a))
    pairs.update((a, b) if rank[a] < rank[b] else (b, a) for a, b in alike)
    parsed, found, seen = {}, [], set(frozenset(p) for p in known_pairs)
    bar = progress(len(pairs), "review: judging pairs")
    for old_i, new_i in sorted(pairs, key=lambda p: (rank[p[1]], rank[p[0]])):
        bar.step()
        older, newer = active[old_i], active[new_i]
        if frozenset((older["id"], newer["id"])) in seen:
            continue
        for i in (old_i, new_i):
            if i not in parsed:
                parsed[i] = facts.parse(active[i]["fact"], vocab)
        verdict, probs = judgement.judge(parsed[old_i], parsed[new_i], vocab)
        if verdict is None:
            continue
        confidence = judgement.confidence(probs)
        topics = "" if older["_topic"] == newer["_topic"] else " (topics %s, %s)" % (older["_topic"], newer["_topic"])
        found.append({
            "kind": verdict, "ids": [older["id"], newer["id"]],
            "evidence": "%s by meaning%s%s: %r / %r" % (
                "same claim reworded" if verdict == "duplicate"
                else judgement.conflict_reason(parsed[old_i], parsed[new_i], vocab),
                "" if confidence is None else " (confidence %.2f)" % confidence, topics, older["fact"], newer["fact"]),
            "action": {"op": "supersede", "old": older["id"], "new": newer["id"],
                       "why": "the newer one replaces the older" if verdict == "conflict"
                       else "keep one copy; the older is kept as superseded"},
        })
    bar.done()
    return found


def find_stale(root, store, active, stale_days, now_epoch):
    from .anchors import stale_anchors
    memory_md = ""
    try:
        memory_md = st.read_text(layer3_path(store)) or ""
    except st.CorruptFile:
        pass
    found = []
    for fact in active:
        changed = stale_anchors(root, fact.get("anchors"))
        if changed:
            found.append({"kind": "stale-anchor", "ids": [fact["id"]],
                          "evidence": "anchored file %s" % ", ".join("%s %s" % (p, s) for p, s in changed),
                          "action": {"op": "needs_review", "id": fact["id"],
                                     "why": "the code it describes changed; check the fact, then supersede it"}})
            continue
        created = st.epoch_seconds(str(fact.get("created_at") or ""))
        confirmed = ("<!-- id: %s " % fact["id"]) in memory_md
        if created is not None and not confirmed and now_epoch - created > stale_days * 86400:
            found.append({"kind": "stale-age", "ids": [fact["id"]],
                          "evidence": "recorded %s, %d days ago, never confirmed%s" % (
                              fact.get("created_at"), (now_epoch - created) // 86400,
                              " (inferred)" if fact.get("inferred") else ""),
                          "action": {"op": "needs_review", "id": fact["id"],
                                     "why": "confirm it (promote) or supersede it"}})
    return found


GIT_HISTORY_NOTE = ("git history still holds the value: rotate the credential, and rewrite history if it was "
                    "pushed (git filter-repo --replace-text, or BFG Repo-Cleaner)")


def find_secrets_in_store(store, facts, extra_patterns=(), progress=silent):
    """Secret and personal-data findings in every layer: file, line and kind, never the value. Each
    proposes a redaction: the value masked in place, where it is."""
    from .redaction import find_secrets
    from .paths import DAILY_DIR
    found = []
    bar = progress(len(facts), "review: scanning for secrets")
    for fact in facts:
        bar.step()
        hits = find_secrets(fact.get("fact", ""), extra_patterns)
        if hits:
            found.append({"kind": "secret", "ids": [fact["id"]],
                          "evidence": "%s item %s (%s): %s" % (
                              os.path.relpath(topic_items_path(store, fact["_topic"]), store).replace(os.sep, "/"),
                              fact["id"], fact.get("status", "active"), _kinds(hits)),
                          "action": {"op": "redact", "topic": fact["_topic"], "id": fact["id"]}})
    bar.done()
    try:
        days = st.list_daily_files(store)
    except st.CorruptFile:
        days = []
    for rel in [LAYER3_FILE] + [DAILY_DIR + "/" + name for name in days]:
        try:
            text = st.read_text(os.path.join(store, rel))
        except st.CorruptFile:
            continue  # reported as a file problem
        hits = find_secrets(text or "", extra_patterns)
        if hits:
            found.append({"kind": "secret", "ids": [rel],
                          "evidence": "%s: %s" % (rel, _kinds(hits, lines=True)),
                          "action": {"op": "redact", "file": rel}})
    return found


def _kinds(hits, lines=False):
    if lines:
        return ", ".join("%s at line %d" % (f.kind, f.line) for f in hits[:10])
    return ", ".join(sorted(set(f.kind for f in hits)))


def run_review(root, store, topics=None, stale_days=DEFAULT_STALE_DAYS, include_superseded=False,
               extra_patterns=(), vocab=None, progress=silent):
    """The review's report; progress: a factory (total, label) -> Progress (progress.py) for long stores."""
    import time
    facts, problems = collect(store, topics)
    active = [f for f in facts if f.get("status", "active") == "active" and not f.get("needs_review")]
    from .similarity import without_negations
    for fact in active:
        fact["_norm"] = normalize(fact["fact"])
        fact["_bare"] = without_negations(fact["_norm"])
    pairs, alike = find_pairs(active, progress)
    pairs = find_merge_rivals(facts) + pairs
    findings = (find_secrets_in_store(store, facts, extra_patterns, progress) + pairs
                + find_meaning_pairs(active, [f["ids"] for f in pairs], vocab, alike, progress)
                + find_stale(root, store, active, stale_days, int(time.time())))
    from .rendering import masked_line
    for finding in findings:
        finding["proposal"] = _proposal_id(finding["kind"], finding["ids"])
        finding["evidence"] = masked_line(finding["evidence"], extra_patterns)  # fact texts are quoted there
    for problem in problems:
        problem["evidence"] = masked_line(problem["evidence"], extra_patterns)
    report = {"facts": len(facts), "active": sum(1 for f in facts if f.get("status", "active") == "active"),
              "superseded": sum(1 for f in facts if f.get("status") == "superseded"),
              "needs_review": [f["id"] for f in facts if f.get("needs_review")],
              "findings": findings, "problems": problems}
    if any(f["kind"] == "secret" for f in findings):
        report["git_history"] = GIT_HISTORY_NOTE
    if include_superseded:
        report["superseded_items"] = [{"id": f["id"], "fact": masked_line(f["fact"], extra_patterns),
                                       "superseded_by": f.get("superseded_by"), "topic": f["_topic"]}
                                      for f in facts if f.get("status") == "superseded"]
    return report


def apply_proposals(root, store, proposal_ids, source="review", extra_patterns=(), vocab=None, topics=None,
                    stale_days=DEFAULT_STALE_DAYS):
    """Apply the named proposals of a fresh review (with the options the preview had: topics,
    stale_days) in one locked step; returns what changed."""
    from .provenance import content_hash, log_change
    with st.StoreLock(store):
        st.preflight(store)
        report = run_review(root, store, topics, stale_days, extra_patterns=extra_patterns, vocab=vocab)
        by_id = dict((f["proposal"], f) for f in report["findings"])
        missing = [p for p in proposal_ids if p not in by_id]
        if missing:
            raise st.StoreError("no such proposal in the current review: %s; nothing was changed" % ", ".join(missing),
                                fix="run review_memory.py again and use the ids it prints", exit_code=1)
        changes = {}  # topic -> {id: (field updates)}
        applied = []
        for pid in proposal_ids:
            action = by_id[pid]["action"]
            if action["op"] == "redact":
                if "file" in action:
                    applied.append(_redact_file(store, action["file"], source, extra_patterns))
                else:
                    changes.setdefault(action["id"], {})["_redact"] = True
            elif action["op"] == "supersede":
                changes.setdefault(action["old"], {}).update(
                    {"status": "superseded", "superseded_by": action["new"]})
                for kept in action.get("clear") or ():  # a person decided a merge's conflict
                    changes.setdefault(kept, {})["_clear_review"] = True
            else:
                changes.setdefault(action["id"], {}).update({"needs_review": action["why"]})
        stamp = st.iso(st.utc_now())
        for topic in st.list_topics(store):
            doc, items = st.read_topic(store, topic)
            touched = [it for it in items if it.get("id") in changes]
            if not touched:
                continue
            before = dict((it["id"], content_hash(it)) for it in touched)
            for item in touched:
                update = dict(changes[item["id"]])
                if update.pop("_redact", False):  # the value is masked in place; the id is an identity, it stays
                    from .redaction import mask_secrets
                    update["fact"] = mask_secrets(item["fact"], extra_patterns)[0]
                if update.pop("_clear_review", False):
                    item.pop("needs_review", None)
                    item.pop("merge_rivals", None)
                item.update(update)
                item["updated_at"] = stamp
            path = st.write_topic(store, topic, doc, items)
            from . import index
            index.refresh_topic(store, topic, path, doc, items)
            after = dict((it["id"], content_hash(it)) for it in touched)
            for item in touched:
                applied.append("%s: %s" % (item["id"], ", ".join(
                    "value masked in place" if k == "_redact" else "review flag cleared" if k == "_clear_review"
                    else "%s=%s" % (k, v)
                    for k, v in sorted(changes[item["id"]].items()))))
            redacted = sorted(i for i in before if changes[i].get("_redact"))
            if redacted:
                log_change(store, "redact", topic, redacted, source,
                           dict((i, before[i]) for i in redacted), dict((i, after[i]) for i in redacted))
            others = sorted(i for i in before if set(changes[i]) - {"_redact"})
            if others:
                log_change(store, "review-apply", topic, others, source,
                           dict((i, before[i]) for i in others), dict((i, after[i]) for i in others))
        return applied


def _redact_file(store, rel, source, extra_patterns):
    """Mask the values in a Markdown layer file in place: the one exception to the append-only
    trail, because the alternative is keeping a secret."""
    from .provenance import content_hash, log_change
    from .redaction import mask_secrets
    path = os.path.join(store, rel)
    text = st.read_text(path) or ""
    masked, found = mask_secrets(text, extra_patterns)
    st.atomic_write_bytes(path, masked.encode("utf-8"))
    log_change(store, "redact", rel, [rel], source, {rel: content_hash(text)}, {rel: content_hash(masked)})
    return "%s: %d value(s) masked in place (%s)" % (rel, len(found), _kinds(found))
