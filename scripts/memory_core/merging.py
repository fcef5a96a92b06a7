"""Three-way merge of a topic's items.json, by id and field by field (scripts/merge_memory.py, the
git merge driver; issue 11).

Items of both sides are kept (a fact is never lost to a merge). For an id both sides hold, each field
takes the side that changed it; where both changed it differently:
  status        "superseded" wins over "active"
  tags, anchors, supersedes     the union
  created_at    the earlier;  updated_at  the later
  needs_review  both reasons
  anything else the value of the side with the later updated_at, and the item is flagged
                needs_review with the field and both values
When both sides superseded the same fact with different new facts, or each side added a fact the
judgement reads as contradicting one the other added, every fact stays active and each is flagged
needs_review naming the other, and lists it in merge_rivals: review reports the pair as a conflict,
load marks both [needs review], and applying review's proposal clears the flags.
Unknown fields and top-level keys are kept. The result is the same whichever side is "ours" (no rule
prefers a side; ties go to the larger canonical JSON), with items in canonical order: created_at,
then id. So merging A into B and B into A gives byte-identical files.
"""
import json
import os

LISTS = ("tags", "anchors", "supersedes", "merge_rivals")
MAX_JUDGED_PAIRS = 2000  # pairs of added facts judged in one merge (~1 ms each)
_MISSING = object()


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def merge_docs(base, ours, theirs):
    """The merged document ({"items": [...], ...}) of three parsed items.json documents (base may
    be {} when both sides added the file)."""
    out = {}
    for key in sorted(set(base) | set(ours) | set(theirs)):
        if key == "items":
            continue
        value = _merge_value(base.get(key, _MISSING), ours.get(key, _MISSING), theirs.get(key, _MISSING),
                             lambda o, t: max(o, t, key=canonical))
        if value is not _MISSING:
            out[key] = value
    out["items"] = merge_items(_items(base), _items(ours), _items(theirs))
    return out


def _items(doc):
    items = doc.get("items") if isinstance(doc, dict) else None
    return [it for it in items if isinstance(it, dict)] if isinstance(items, list) else []


def _by_id(items):
    """{id: item}, and the items without a usable id (kept as they are)."""
    found, loose = {}, []
    for it in items:
        item_id = it.get("id")
        if isinstance(item_id, str) and item_id and item_id not in found:
            found[item_id] = it
        else:
            loose.append(it)
    return found, loose


def merge_items(base, ours, theirs):
    """The merged items, in canonical order."""
    b, _ = _by_id(base)
    o, o_loose = _by_id(ours)
    t, t_loose = _by_id(theirs)
    merged, competing = {}, []
    for item_id in set(o) | set(t):
        if item_id not in t:
            merged[item_id] = dict(o[item_id])
        elif item_id not in o:
            merged[item_id] = dict(t[item_id])
        else:
            merged[item_id] = merge_item(b.get(item_id, {}), o[item_id], t[item_id])
            by_o, by_t = o[item_id].get("superseded_by"), t[item_id].get("superseded_by")
            if by_o and by_t and by_o != by_t and by_o != b.get(item_id, {}).get("superseded_by") \
                    and by_t != b.get(item_id, {}).get("superseded_by"):
                competing.append((item_id, by_o, by_t))
    added_o = [i for i in o if i not in b and i not in t]
    added_t = [i for i in t if i not in b and i not in o]
    for one, other in conflicting_additions([merged[i] for i in added_o], [merged[i] for i in added_t]):
        for new, rival in ((one, other), (other, one)):  # facts new on each branch that contradict
            reason = ("merge: may conflict with %s (%s), recorded on the other branch"
                      % (rival["id"], _quote(rival)))
            new["needs_review"] = _reasons(new.get("needs_review"), reason)
            new["merge_rivals"] = _union(new.get("merge_rivals"), [rival["id"]])
    for old, one, other in competing:  # both branches replaced the same fact: a person decides
        for new, rival in ((one, other), (other, one)):
            if new in merged:
                reason = ("merge: both branches superseded %s (%s); this fact and %s (%s) may conflict"
                          % (old, _quote(merged[old]), rival, _quote(merged.get(rival, {}))))
                merged[new]["needs_review"] = _reasons(merged[new].get("needs_review"), reason)
                merged[new]["merge_rivals"] = _union(merged[new].get("merge_rivals"), [rival])
    loose = {}
    for it in o_loose + t_loose:
        loose.setdefault(canonical(it), it)
    items = list(merged.values()) + [loose[k] for k in sorted(loose)]
    return sorted(items, key=lambda it: (str(it.get("created_at") or ""), str(it.get("id") or ""), canonical(it)))


def conflicting_additions(ours, theirs):
    """[(a, b)] of facts added on each side (active, sharing a tool, family or concept) that the
    judgement (judgement.py, as record judges a new fact) reads as a conflict; the older of a pair
    is judged as the old value, so the answer does not depend on the side. [] when the judgement
    cannot be loaded: the merge itself never fails for it."""
    ours = [it for it in ours if it.get("status", "active") == "active" and isinstance(it.get("fact"), str)]
    theirs = [it for it in theirs if it.get("status", "active") == "active" and isinstance(it.get("fact"), str)]
    if not ours or not theirs:
        return []
    try:
        from . import facts, judgement
        strong = dict((id(it), set(k for k in judgement.fact_keys(it["fact"]) if k.startswith(judgement.STRONG)))
                      for it in ours + theirs)

        def order(it):
            return (str(it.get("created_at") or ""), str(it["id"]))
        pairs = sorted((tuple(sorted((a, b), key=order)) for a in ours for b in theirs
                        if strong[id(a)] & strong[id(b)]), key=lambda p: (order(p[0]), order(p[1])))
        found = []
        for older, newer in pairs[:MAX_JUDGED_PAIRS]:  # in one order whichever side is ours; review finds the rest
            if judgement.judge(facts.parse(older["fact"]), facts.parse(newer["fact"]))[0] == "conflict":
                found.append((older, newer))
        return found
    except Exception:  # noqa: BLE001 (a merge must not fail because the judgement could not run)
        return []


def merge_item(base, ours, theirs):
    """One item both sides hold, field by field (the rules in this module's docstring)."""
    later = _later(ours, theirs)
    out, review = {}, []
    for key in sorted(set(base) | set(ours) | set(theirs)):
        if key == "needs_review":
            continue
        o, t, bv = ours.get(key, _MISSING), theirs.get(key, _MISSING), base.get(key, _MISSING)
        if o == t or t == bv:
            value = o
        elif o == bv:
            value = t
        elif key == "status" and "superseded" in (o, t):
            value = "superseded"
        elif key in LISTS:
            value = _union(o, t)
        elif key == "created_at" and isinstance(o, str) and isinstance(t, str):
            value = min(o, t)
        elif key == "updated_at" and isinstance(o, str) and isinstance(t, str):
            value = max(o, t)
        else:
            value = o if later is ours else t
            if key != "superseded_by":  # competing supersedes are flagged on the new facts
                review.append("merge: both branches changed %s (kept %s, the other had %s)"
                              % (key, _short(value), _short(t if value is o else o)))
        if value is not _MISSING:
            out[key] = value
    reasons = _merge_value(base.get("needs_review", _MISSING), ours.get("needs_review", _MISSING),
                           theirs.get("needs_review", _MISSING), _reasons)
    for reason in review:
        reasons = _reasons(None if reasons is _MISSING else reasons, reason)
    if reasons is not _MISSING and reasons:
        out["needs_review"] = reasons
    return out


def _merge_value(base, ours, theirs, both):
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    if ours is _MISSING or theirs is _MISSING:
        return theirs if ours is _MISSING else ours
    return both(ours, theirs)


def _later(ours, theirs):
    """The side with the later updated_at; on a tie, the larger canonical JSON (so no side wins
    for being ours)."""
    key_o = (str(ours.get("updated_at") or ""), canonical(ours))
    key_t = (str(theirs.get("updated_at") or ""), canonical(theirs))
    return ours if key_o >= key_t else theirs


def _union(one, other):
    values = {}
    for side in (one, other):
        for value in side if isinstance(side, list) else ():
            values.setdefault(canonical(value), value)
    return [values[k] for k in sorted(values)]


def _reasons(one, other):
    """Both needs_review reasons, once each, in a stable order ("; " between them)."""
    parts = []
    for reason in (one, other):
        if reason is True or (reason and not isinstance(reason, str)):
            reason = "flagged"
        for part in (reason or "").split("; "):
            if part and part not in parts:
                parts.append(part)
    return "; ".join(sorted(parts))


def _quote(item):
    return '"%s"' % _short(item.get("fact") or "?", 120).strip('"')


def _short(value, limit=80):
    text = value if isinstance(value, str) else canonical(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


# --- after the fact: a merge made without the driver (merge_memory.py --resolve) -----------------

def _git(root, *args):
    from .git_merge import run_git
    proc = run_git(root, *args)
    if proc is None:
        raise RuntimeError("git could not be run")
    return proc


def conflicted(root):
    """{path: {stage: blob id}} of the unmerged paths of the repository at root (git ls-files -u)."""
    proc = _git(root, "ls-files", "-u", "-z")
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr or b"git ls-files failed").decode("utf-8", "replace").strip())
    found = {}
    for entry in proc.stdout.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            _mode, blob, stage = meta.split()
            found.setdefault(path.decode("utf-8"), {})[int(stage)] = blob.decode("ascii")
    return found


def _blob(root, blob):
    if blob is None:
        return b""
    proc = _git(root, "cat-file", "blob", blob)
    if proc.returncode != 0:
        raise RuntimeError("git cat-file %s failed" % blob)
    return proc.stdout


def union_lines(base, ours, theirs):
    """git's union merge of two texts: our lines, then theirs that we lack (a daily trail; its next
    write puts it back in time order)."""
    mine = ours.decode("utf-8").splitlines()
    seen = set(mine)
    extra = [line for line in theirs.decode("utf-8").splitlines() if line not in seen]
    return ("\n".join(mine + extra) + "\n").encode("utf-8")


def resolve(root, store_rel):
    """Resolve every conflicted file of the store from git's stages (1 base, 2 ours, 3 theirs; no
    stage 1 counts as an empty base) and stage it. ({path: "merged" or a reason it was left}, [paths of
    the store still conflicted])."""
    from . import store as st
    prefix = store_rel.replace(os.sep, "/").rstrip("/") + "/"
    done, left = {}, []
    for path, stages in sorted(conflicted(root).items()):
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix):]
        full = os.path.join(root, *path.split("/"))
        base, ours, theirs = (_blob(root, stages.get(n)) for n in (1, 2, 3))
        parts = rel.split("/")
        if len(parts) == 4 and parts[:2] == ["areas", "topics"] and parts[3] == "items.json":
            try:
                docs = [parse_base(base, path)] + [parse_side(data, side, path)
                                                   for data, side in ((ours, "our"), (theirs, "their"))]
            except ValueError as exc:
                done[path] = str(exc)
                left.append(path)
                continue
            merged = merge_docs(*docs)
            items = merged.pop("items")
            topic = merged.get("topic") if isinstance(merged.get("topic"), str) else parts[2]
            data = st.dump_items(topic, merged, items)
        elif len(parts) == 2 and parts[0] == "memory" and parts[1].endswith(".md"):
            data = union_lines(base, ours, theirs)
        else:
            done[path] = "left for a person: not a file this command merges (MEMORY.md merges as text)"
            left.append(path)
            continue
        st.atomic_write_bytes(full, data)
        if _git(root, "add", "--", path).returncode != 0:
            done[path] = "merged, but git add failed"
            left.append(path)
            continue
        done[path] = "merged"
    return done, left


def parse_side(data, side, name):
    """The parsed items.json of one side of a merge (bytes); {} for an empty base. ValueError, naming
    the file and the side, when it is not an items file."""
    if side == "base" and not data.strip():
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError("%s: %s side is not valid JSON (%s)" % (name, side, exc))
    if isinstance(doc, list):
        doc = {"items": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("items", []), list):
        raise ValueError("%s: %s side is not an items.json (an object with an \"items\" list)" % (name, side))
    return doc


def parse_base(data, name):
    """The base side; one that does not parse counts as empty (both sides are merged as added)."""
    try:
        return parse_side(data, "base", name)
    except ValueError:
        return {}
