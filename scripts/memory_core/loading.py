"""The budgeted loader: Layer 3 -> Layer 2 -> Layer 1, active items only, under one character budget
that covers the whole output, closing report included. Loading never writes.

Fairness: the budget is split max-min fair between the layers (a layer that needs less than an equal
share gives the rest to the others), so a long daily file cannot push every Layer 1 fact out. What a
layer leaves unused goes back to the pool, in layer order.
"""
import os

from . import index
from . import store as st
from .paths import DAILY_DIR, LAYER3_FILE, TOPICS_DIR, layer3_path, topic_items_path
from .rendering import DATA_NOTE, FENCE_CLOSE, FENCE_OPEN, bullet, escape_controls, heading, one_line

LINE_MAX = 400          # one entry never eats a layer: longer lines are cut with an ellipsis
REPORT_RESERVE = 700    # room kept for the closing report
PREAMBLE_MAX = 2000     # session state shown first after compact/resume


class Entry(object):
    __slots__ = ("text", "group", "order", "source", "clean", "ids", "brief")

    def __init__(self, text, group, order, source, clean=False, ids=frozenset(), brief=None):
        self.text, self.group, self.order, self.source = text, group, order, source
        self.clean = clean  # its file was scanned free of secrets by a writer (index.mark_clean)
        self.ids = ids  # the fact it shows: no fact is shown twice in one load
        self.brief = brief  # a trail line's note when its fact is shown elsewhere: the supersede, ids only


def _without_comments(text):
    """Text minus <!-- ... --> comments (an unclosed one is kept as text), without `re`, whose
    import would cost every SessionStart ~7 ms."""
    if "<!--" not in text:
        return text
    out, pos = [], 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:
            out.append(text[start:])
            return "".join(out)
        pos = end + 3


def _clip(text):
    """One display line: joined, control characters escaped, cut. Always after masking, so a cut
    never leaves the prefix of a secret behind."""
    text = escape_controls(one_line(text))
    return text if len(text) <= LINE_MAX else text[:LINE_MAX - 1] + "\u2026"


class _Scan(object):
    """What one load scans with: clean marks, the user's patterns, and what it found."""

    def __init__(self, store, skipped, marks, extra_patterns, masked):
        self.store, self.skipped, self.marks, self.extra, self.masked = store, skipped, marks, extra_patterns, masked
        self.scanned = False  # some text had no clean mark: the hook then refreshes the marks
        self.parsed = {}  # {topic: (signature, active count, pooled rows)} of the topic files parsed
        self.found_clean = {}  # {store-relative path: signature} of the files this load scanned clean
        self.sigs = {}  # {topic: signature} of every topic's items.json, as this load found them


def skip(skipped, store, rel, exc):
    """Name a file that was not read: for a link or special file, the path that is one."""
    entry = {"path": rel.replace(os.sep, "/"), "reason": exc.reason}
    if exc.security:
        entry["security"] = True
        where = os.path.relpath(exc.path or rel, store).replace(os.sep, "/")
        if where != entry["path"]:
            entry["reason"] = "%s %s" % (where, exc.reason)
    skipped.append(entry)


def _file_text(scan, rel, path):
    """A Markdown layer file's text, masked as a whole (a pasted key block spans lines) unless a
    writer marked it clean; None when absent or unreadable (then named in skipped)."""
    sig = index.signature(path)
    try:
        text = st.read_text(path)
    except st.CorruptFile as exc:
        skip(scan.skipped, scan.store, rel, exc)
        return None
    if text and not index.is_clean(scan.marks, scan.store, rel.replace("/", os.sep)):
        from .redaction import mask_secrets
        scan.scanned = True
        text, found = mask_secrets(text, scan.extra)
        scan.masked.extend("%s: %s" % (rel, f.kind) for f in found)
        if not found and sig is not None:
            scan.found_clean[rel.replace("/", os.sep)] = sig
    return text


def _layer3_entries(store, scan):
    text = _file_text(scan, LAYER3_FILE, layer3_path(store))
    if not text:
        return []
    promoted = {}  # a promoted fact's line, without its "<!-- id: X confirmed: ... -->", -> X
    for raw in text.split("\n"):
        at = raw.find("<!-- id: ")
        if at >= 0:
            promoted[_without_comments(raw).strip()] = raw[at + 9:].split(" ", 1)[0].split("-->")[0]
    entries, group = [], None
    for number, line in enumerate(_without_comments(text).split("\n")):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            group = heading(stripped)
            continue
        item_id = promoted.get(stripped)
        entries.append(Entry(_clip(bullet(line)), group, number, LAYER3_FILE, True,
                             frozenset([item_id]) if item_id else frozenset()))
    return entries


def _trail_ids(line):
    """(id, [ids it supersedes]) of a trail line record wrote ("- 10:32Z [topic] fact (id X,
    supersedes Y, Z)"), or (None, []) for any other line."""
    at = line.rfind(" (id ")
    if at < 0 or not line.rstrip().endswith(")"):
        return None, []
    parts = line.rstrip()[at + 5:-1].split(", supersedes ")
    item_id = parts[0].strip()
    if not item_id or " " in item_id:
        return None, []
    return item_id, [x.strip() for x in parts[1].split(",") if x.strip()] if len(parts) > 1 else []


def _layer2_entries(store, days, scan):
    try:
        names = st.list_daily_files(store)
    except st.CorruptFile as exc:  # memory/ is a link
        skip(scan.skipped, store, DAILY_DIR, exc)
        names = []
    chosen = names[:days]
    entries, replaced = [], set()
    for rank, name in enumerate(chosen):
        rel = DAILY_DIR + "/" + name
        text = _file_text(scan, rel, os.path.join(store, DAILY_DIR, name)) or ""
        lines = [(i, l) for i, l in enumerate(_without_comments(text).split("\n"))
                 if l.strip() and not l.lstrip().startswith("#")]
        group = "%s (%s)" % (name[:-3], rel)
        for i, line in reversed(lines):  # newest entries of the newest day first
            item_id, supersedes = _trail_ids(line)
            replaced.update(supersedes)
            brief = None
            if supersedes:  # what the line adds when its fact is shown elsewhere: the supersede, by ids
                head = line.strip().split("] ", 1)[0] + "]" if "] " in line else "-"
                brief = _clip(bullet("%s %s supersedes %s" % (head, item_id, ", ".join(supersedes))))
            entries.append(Entry(_clip(bullet(line)), group, (rank, i), rel, True,
                                 frozenset([item_id]) if item_id else frozenset(), brief))
    # the trail line of a fact superseded since is left out: the line that superseded it names it
    entries = [e for e in entries if not (e.ids & replaced)]
    return entries, len(names), len(chosen)


def _layer1_entries(store, topics, max_items, notes, scan, root=None, confirmed=frozenset(), touched=()):
    """(entries ranked best first, active count, topics read, read from the merged index, {id: why})."""
    root = root or os.path.dirname(store)
    try:
        available = st.list_topics(store)
    except st.CorruptFile as exc:  # areas/ or areas/topics/ is a link
        skip(scan.skipped, store, TOPICS_DIR, exc)
        available = []
    scan.sigs = dict((t, index.signature(topic_items_path(store, t))) for t in available)  # every topic's
    if topics:
        unknown = [t for t in topics if t not in available]
        if unknown:
            notes.append("no such topic: " + ", ".join(unknown))
        available = [t for t in available if t in topics]
    rows, active_total = [], 0  # the pool: [stamp, id, fact, flags, anchors, topic]
    merged = None if topics else index.read_newest(store, scan.sigs, max_items)
    if merged is not None:  # no topic file changed since its last writer indexed it
        active_total, rows = merged
    for topic in available if merged is None else ():
        path = topic_items_path(store, topic)
        rel = os.path.relpath(path, store)
        sig = scan.sigs[topic]
        entry = index.read_topic_entry(store, topic, sig, max_items)
        if entry is not None:  # the file is unchanged since its last writer indexed it
            active_total += entry["active"]
            rows.extend(r + [topic] for r in entry["rows"])
            continue
        try:
            _doc, items = st.parse_items(st.read_text(path) or "[]", rel)
        except st.CorruptFile as exc:
            skip(scan.skipped, scan.store, rel, exc)
            continue
        # Keep only what can be ranked, so memory stays bounded by the largest topic, not the store.
        count, pool = index.newest_rows(items, max(max_items, index.LOAD_DEPTH))
        if max_items <= index.LOAD_DEPTH:  # what the topic's index would hold (the hook may save it)
            scan.parsed[topic] = (sig, count, [list(r) for r in pool])
        active_total += count
        rows.extend(r + [topic] for r in pool)
        del items, pool
    if merged is None:  # the pool the merged index would hold, so a cold load ranks as a warm one
        rows.sort(key=lambda r: (r[0], r[1]), reverse=True)
        rows = index.pooled(rows, max(max_items, index.LOAD_DEPTH))
    from .ranking import CHANGED, branch_words, rank
    ranked = rank(rows, max_items, root, confirmed, branch_words(root), frozenset(touched))
    stale = set(r[1] for r, reasons in ranked if CHANGED in reasons)  # anchors hashed once, by rank()
    facts = [(r[0], r[1], r[5], _row_item(r)) for r, _why in ranked]
    if merged is None or not index.is_clean(scan.marks, store, index.NEWEST_INDEX):
        _mask_facts(facts, scan)
    why = dict((r[1], reasons) for r, reasons in ranked)
    return (_fact_entries(facts, max_items, stale), active_total, len(available),
            merged is not None or bool(topics) or not available, why)


def _mask_facts(facts, scan):
    """Mask the facts in place, each as a whole before it is joined or cut. One scan over all of
    them joined (the scanner's per-call cost dominates on short texts), then only the facts with a
    finding are masked one by one."""
    if not facts:
        return
    scan.scanned = True
    extra_patterns, masked = scan.extra, scan.masked
    from .redaction import find_secrets, mask_secrets
    joined, starts = [], []
    pos = 0
    for fact in facts:
        starts.append(pos)
        joined.append(fact[3]["fact"])
        pos += len(fact[3]["fact"]) + 3
    findings = find_secrets("\n\n\n".join(joined), extra_patterns)
    if not findings:
        return
    import bisect
    hit = set()
    for f in findings:
        first, last = bisect.bisect_right(starts, f.start) - 1, bisect.bisect_right(starts, max(f.start, f.end - 1)) - 1
        hit.update(range(max(first, 0), last + 1))
    for number in sorted(hit):
        _stamp, _id, topic, item = facts[number]
        item = dict(item)
        item["fact"], found = mask_secrets(item["fact"], extra_patterns)
        facts[number] = (_stamp, _id, topic, item)
        masked.extend("%s/%s/items.json: %s" % (TOPICS_DIR.replace(os.sep, "/"), topic, f.kind) for f in found)


def _row_item(row):
    """The item fields an index row keeps (index._row)."""
    return {"id": row[1], "fact": row[2], "inferred": "i" in row[3], "needs_review": "r" in row[3],
            "anchors": row[4]}


def _fact_entries(facts, max_items, stale):
    """Entries for the ranked facts; facts: (stamp, id, topic, item) best first. A fact
    anchored to a file that changed or disappeared (its id in stale) is marked [stale?], and one
    review flagged is marked [needs review], instead of being shown as plain truth."""
    entries = []
    for rank, (_stamp, item_id, topic, item) in enumerate(facts[:max_items]):
        label = item_id if item_id.startswith(topic + "-") else "%s:%s" % (topic, item_id or "?")
        label = escape_controls(one_line(label))[:80]
        flag = " (inferred)" if item.get("inferred") else ""
        if item.get("needs_review"):
            flag += " [needs review]"
        if item_id in stale:
            flag += " [stale?]"
        entries.append(Entry(_clip("- [%s]%s %s" % (label, flag, item["fact"])), None, rank,
                             TOPICS_DIR.replace(os.sep, "/") + "/%s/items.json" % topic, True,
                             frozenset([item_id]) if item_id else frozenset()))
    return entries


def _fair_shares(budget, demands):
    """Max-min fair split of budget over demands."""
    shares = [0] * len(demands)
    pending = sorted(range(len(demands)), key=lambda i: demands[i])
    left = budget
    while pending:
        equal = left // len(pending)
        i = pending.pop(0)
        shares[i] = min(demands[i], equal)
        left -= shares[i]
    return shares


def _cost(entry, opened_groups):
    cost = len(entry.text) + 1
    if entry.group is not None and entry.group not in opened_groups:
        cost += len(entry.group) + 1
    return cost


def _demand(entries):
    opened, total = set(), 0
    for entry in entries:
        total += _cost(entry, opened)
        if entry.group is not None:
            opened.add(entry.group)
    return total


def _fill_layer3(entries, chosen, opened, allowance, shown):
    """Layer 3 when it does not fit: shortened by section. Every heading is kept with its first lines
    (each section gets a max-min fair share, so one long section cannot push the others out) and a
    note of how many lines of it were left out; note entries are added to entries. When even the
    headings and notes do not fit, the first lines that fit, as any layer."""
    if _demand(entries) <= allowance:
        return _fill(entries, chosen, opened, allowance, shown)
    sections = []  # [(group, [positions])] in file order
    for position, entry in enumerate(entries):
        if not sections or sections[-1][0] != entry.group:
            sections.append((entry.group, []))
        sections[-1][1].append(position)
    fixed = sum((len(group) + 1 if group is not None else 0) + len(SECTION_NOTE % 999) + 1 for group, _p in sections)
    if fixed > allowance:
        return _fill(entries, chosen, opened, allowance, shown)
    shares = _fair_shares(allowance - fixed, [sum(len(entries[p].text) + 1 for p in positions)
                                              for _g, positions in sections])
    used = 0
    for (group, positions), share in zip(sections, shares):
        taken = 0
        for position in positions:  # the section's first lines: stop at the first that does not fit
            cost = len(entries[position].text) + 1
            if taken + cost > share:
                break
            chosen.add(position)
            shown.update(entries[position].ids)
            taken += cost
        left = len(positions) - sum(1 for p in positions if p in chosen)
        if left:
            entries.append(Entry(SECTION_NOTE % left, group, entries[positions[-1]].order + 0.5, LAYER3_FILE, True))
            chosen.add(len(entries) - 1)
            taken += len(entries[-1].text) + 1
        if group is not None and (taken or left):
            opened.add(group)
            taken += len(group) + 1
        used += taken
    return used


SECTION_NOTE = "- (%d more line(s) of this section left out: MEMORY.md)"


def _fill(entries, chosen, opened, allowance, shown):
    """Take entries in priority order while they fit; skip (not stop at) one that does not, and
    one whose fact is shown already (shown: the ids shown so far, in any layer). A trail line
    whose fact is shown elsewhere is shown as its brief note when it has one (a supersede)."""
    used = 0
    for position, entry in enumerate(entries):
        if position in chosen:
            continue
        if entry.ids & shown:
            if entry.brief is None:
                continue
            entry.text, entry.brief, entry.ids = entry.brief, None, frozenset()
        cost = _cost(entry, opened)
        if used + cost <= allowance:
            chosen.add(position)
            shown.update(entry.ids)
            if entry.group is not None:
                opened.add(entry.group)
            used += cost
    return used


FILL_ORDER = (0, 2, 1)  # Layer 3, Layer 1, Layer 2 (the layers list's order is the output's: 3, 2, 1)
LAYER_TITLES = ("[Layer 3] confirmed long-term knowledge (MEMORY.md)",
                "[Layer 2] recent daily trail (memory/, newest day first)",
                "[Layer 1] active facts, most useful first ([id] -> areas/topics/<topic>/items.json)")


def load_context(root, store, settings, preamble=None, extra_patterns=(), structured=False, notes=(), touched=(),
                 parsed=None):
    """Return (text, report). settings: max_chars, max_items, daily_days, topics; touched: the paths
    this session touched (ranking.py); parsed: a dict that receives what this load computed that a
    maintained store keeps in its indexes (index.save_parsed). With structured,
    the first value is the same selection as {layer: [{"text", "source", "group"}]} instead."""
    max_chars = settings["max_chars"]
    store_rel = os.path.relpath(store, root)
    report = {"store": store_rel, "budget_chars": max_chars, "skipped": [], "notes": list(notes), "masked": [],
              "layers": {}, "wrote": "nothing"}
    if not os.path.isdir(store):
        text = ("[memory-3layer] No project memory yet: %s/ does not exist in %s. Record a fact with "
                "scripts/record_memory.py --fact TEXT --topic TOPIC; nothing was loaded or written."
                % (store_rel, root))
        report["empty"] = True
        return text[:max_chars], report

    scan = _Scan(store, report["skipped"], index.read_clean(store, index.scan_fingerprint(extra_patterns)),
                 extra_patterns, report["masked"])
    layers = [_layer3_entries(store, scan)]
    l2, daily_total, daily_read = _layer2_entries(store, settings["daily_days"], scan)
    layers.append(l2)
    confirmed = frozenset(i for e in layers[0] for i in e.ids)
    l1, active_total, topic_count, indexed, why = _layer1_entries(store, settings.get("topics"), settings["max_items"],
                                                                  report["notes"], scan, root, confirmed,
                                                                  touched)
    layers.append(l1)
    if parsed is not None:
        parsed.update(topics=scan.parsed, clean=scan.found_clean, sigs=scan.sigs)
    # "stale": some index or clean mark did not match, so this load parsed or scanned more than a
    # maintained store needs (the SessionStart hook then refreshes them).
    report["stale"] = scan.scanned or not indexed

    head = "# Project memory (memory-3layer, %s/)" % escape_controls(store_rel)
    pre = ""
    if preamble:  # the saved session state: data like the rest, masked whole and inside the fence
        pre = "\n".join(_clip(l) for l in _mask_block(preamble, scan).split("\n") if l.strip())
        pre = _clip_block(pre, min(PREAMBLE_MAX, max_chars // 4)) + "\n"
    fixed = (len(head) + len(DATA_NOTE) + len(FENCE_OPEN) + len(FENCE_CLOSE) + 4 + len(pre) + REPORT_RESERVE
             + sum(len(t) + 1 for t, e in zip(LAYER_TITLES, layers) if e))
    pool = max(0, max_chars - fixed)
    demands = [_demand(entries) for entries in layers]
    shares = _fair_shares(pool, demands)
    chosen = [set() for _ in layers]
    opened = [set() for _ in layers]
    available = [len(entries) for entries in layers]  # before Layer 3's notes of what it left out
    shown, used = set(), [0] * len(layers)
    # Layer 3 first, with all the room the others do not need (it is shortened by section, once),
    # then Layer 1, then the trail, so a fact confirmed in MEMORY.md is not repeated in Layer 1
    # (unless its line did not fit) and a trail line does not repeat a fact Layer 1 shows
    used[0] = _fill_layer3(layers[0], chosen[0], opened[0], pool - sum(min(d, s) for d, s in
                                                                      zip(demands[1:], shares[1:])), shown)
    for i in FILL_ORDER[1:]:
        used[i] = _fill(layers[i], chosen[i], opened[i], shares[i], shown)
    leftover = pool - sum(used)
    for i in FILL_ORDER[1:]:  # unused room goes back, in the same order
        if leftover <= 0:
            break
        leftover -= _fill(layers[i], chosen[i], opened[i], leftover, shown)

    out = [head, DATA_NOTE, FENCE_OPEN]
    if pre:
        out.append(pre.rstrip("\n"))
    for title, entries, picked in zip(LAYER_TITLES, layers, chosen):
        if not picked:
            continue
        out.append(title)
        group = None
        for entry in sorted((entries[i] for i in picked), key=lambda e: e.order):
            if entry.group is not None and entry.group != group:
                group = entry.group
                out.append(group)
            out.append(entry.text)
    names = ("layer3", "layer2", "layer1")
    for name, entries, picked, total in zip(names, layers, chosen, available):
        report["layers"][name] = {"included": sum(1 for i in picked if i < total), "available": total}
    report["layers"]["layer2"]["daily_files"] = {"read": daily_read, "total": daily_total}
    report["layers"]["layer1"].update({"active_facts": active_total, "topics": topic_count,
                                       "max_items": settings["max_items"]})
    report["layers"]["layer1"]["why"] = [{"id": i, "why": why.get(i, [])} for e in
                                         sorted((l1[k] for k in chosen[2] if k < available[2]), key=lambda e: e.order)
                                         for i in sorted(e.ids)]
    report["shown_ids"] = sorted(shown)  # every fact shown whole, in any layer (the prompt hook's "given")
    if not any(chosen):
        out.append("(the store is empty: nothing recorded yet)")
    out.append(FENCE_CLOSE)
    body = "\n".join(out)
    closing = _closing_line(report, max_chars - len(body) - 1)
    text = body + "\n" + closing
    report["chars"] = len(text)
    if structured:
        return dict((name, [{"text": entries[i].text, "source": entries[i].source, "group": entries[i].group}
                            for i in sorted(picked, key=lambda i: entries[i].order)])
                    for name, entries, picked in zip(names, layers, chosen)), report
    return text, report


def _mask_block(text, scan):
    from .redaction import mask_secrets
    text, found = mask_secrets(text, scan.extra)
    scan.masked.extend("session state: %s" % f.kind for f in found)
    return text


def _clip_block(text, limit):
    text = text.strip()
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def _closing_line(report, room):
    lay = report["layers"]
    l1, l2, l3 = lay["layer1"], lay["layer2"], lay["layer3"]
    parts = ["[memory-3layer] included L3 %d/%d lines, L2 %d/%d lines (%d of %d daily files), "
             "L1 %d/%d active facts (%d topics)" % (l3["included"], l3["available"], l2["included"],
                                                   l2["available"], l2["daily_files"]["read"],
                                                   l2["daily_files"]["total"], l1["included"],
                                                   l1["active_facts"], l1["topics"])]
    dropped = ["L%s %d" % (n[-1], d["available"] - d["included"]) for n, d in
               (("layer3", l3), ("layer2", l2), ("layer1", l1)) if d["available"] > d["included"]]
    if l1["active_facts"] > l1["available"]:
        dropped.append("L1 %d over --max-items %d" % (l1["active_facts"] - l1["available"], l1["max_items"]))
    if dropped:
        parts.append("left out for the %d-char budget: %s" % (report["budget_chars"], ", ".join(dropped)))
    free = []  # text that comes from files, paths and settings: masked and escaped like the data
    if report["skipped"]:
        unsafe = [s for s in report["skipped"] if s.get("security")]
        if unsafe:
            free.append("SECURITY: skipped, never followed: " + "; ".join(
                "%s (%s)" % (s["path"], s["reason"]) for s in unsafe))
        rest = [s for s in report["skipped"] if not s.get("security")]
        if rest:
            free.append("skipped unreadable: " + "; ".join("%s (%s)" % (s["path"], s["reason"]) for s in rest))
    if report["masked"]:
        parts.append("masked %d secret(s) found in files" % len(report["masked"]))
    free.extend(report["notes"])
    if free:
        from .rendering import masked_line
        parts.extend(masked_line(part) for part in free)
    parts.append("loading wrote nothing")
    line = "; ".join(parts) + "."
    if len(line) > room:
        line = line[:max(0, room - 1)] + "\u2026"
    return line
