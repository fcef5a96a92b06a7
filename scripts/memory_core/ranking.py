"""Which Layer 1 facts a load shows: ranked, not merely the newest.

A fact's score adds up what makes it worth the room:
  recency      1 for the newest, 0.5 for the 16th newest of the pool, falling on
  importance   a decision or a convention; a fact a person confirmed into MEMORY.md whose line
               there did not fit (a shown one is never repeated)
  relevance    a file it is anchored to changed (the anchors' hashes say so, no git call) or was
               touched in this session (after a compaction or resume: PostToolUse's record); its
               topic is a word of the branch name (read from .git/HEAD) or of a path touched
and coverage across topics: each fact already taken from a topic lowers the next one's score, so a
busy topic cannot fill Layer 1 alone. Every shown fact carries its reasons (the --json report's
"why"). The pool is what the indexes keep per topic: the newest facts, and older decisions,
conventions and anchored facts (index.newest_rows).
"""
import os

CHANGED = "anchored file changed"  # the reason loading marks [stale?]: an anchor no longer matches
WEIGHTS = {"recency": 1.0, "important": 1.0, "confirmed": 1.5, "anchor_changed": 2.0, "branch": 0.5}
RECENCY_HALF = 16    # the pool position whose recency counts half
COVERAGE_STEP = 0.1  # taken off per fact already taken from the same topic


def branch_words(root):
    """The words (3+ characters, lower-case) of the checked-out branch's name, from <root>/.git/HEAD
    when .git is a folder of the project (a linked worktree's is elsewhere: no words)."""
    head = os.path.join(root, ".git", "HEAD")
    try:
        if os.path.islink(os.path.join(root, ".git")) or not os.path.isfile(head) or os.path.islink(head):
            return frozenset()
        with open(head, "rb") as fh:
            text = fh.read(512).decode("utf-8", "replace").strip()
    except OSError:
        return frozenset()
    if not text.startswith("ref: refs/heads/"):
        return frozenset()
    return path_words([text[len("ref: refs/heads/"):]])


def path_words(paths):
    """The words (3+ characters, lower-case) of some project-relative paths."""
    words = set()
    for path in paths:
        word = []
        for ch in path.lower() + "/":
            if ch.isalnum():
                word.append(ch)
            else:
                if len(word) >= 3:
                    words.add("".join(word))
                word = []
    return frozenset(words)


def rank(rows, limit, root, confirmed=frozenset(), branch=frozenset(), touched=frozenset()):
    """[(row, [reasons])] best first, at most limit. rows: [stamp, id, fact, flags, anchors, topic],
    flags "d" decision, "c" convention (index._row); confirmed: ids a person confirmed into Layer 3
    that Layer 3 did not show; branch: branch_words(); touched: the paths this session touched."""
    touched_words = path_words(touched)
    states = {}
    ordered = sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)
    scored = []
    for position, row in enumerate(ordered):
        reasons, score = [], WEIGHTS["recency"] / (1.0 + position / float(RECENCY_HALF))
        if position < RECENCY_HALF:
            reasons.append("recent")
        flags = row[3]
        if "d" in flags or "c" in flags:
            score += WEIGHTS["important"]
            reasons.append("decision" if "d" in flags else "convention")
        if row[1] in confirmed:
            score += WEIGHTS["confirmed"]
            reasons.append("confirmed in MEMORY.md, its line not shown there")
        if row[4] and _stale(root, row[4], states):
            score += WEIGHTS["anchor_changed"]
            reasons.append(CHANGED)
        elif row[4] and touched and any(isinstance(a, dict) and isinstance(a.get("path"), str)
                                          and a["path"] in touched for a in row[4]):
            score += WEIGHTS["anchor_changed"]
            reasons.append("anchored file touched this session")
        if row[5] in branch:
            score += WEIGHTS["branch"]
            reasons.append("topic matches the branch")
        elif row[5] in touched_words:
            score += WEIGHTS["branch"]
            reasons.append("topic matches a path touched this session")
        scored.append([score, position, row, reasons])
    # Greedy by the score less the coverage step per fact already taken from the topic, kept in a heap:
    # a popped fact whose topic gave more since it was pushed goes back with its lower score.
    import heapq
    heap = [(-score, position, 0, i) for i, (score, position, _row, _why) in enumerate(scored)]
    heapq.heapify(heap)
    taken, per_topic = [], {}
    while heap and len(taken) < limit:
        _neg, position, seen, i = heapq.heappop(heap)
        score, _position, row, reasons = scored[i]
        now = per_topic.get(row[5], 0)
        if now != seen:
            heapq.heappush(heap, (-(score - COVERAGE_STEP * now), position, now, i))
            continue
        per_topic[row[5]] = now + 1
        taken.append((row, reasons or ["in the pool"]))
    return taken


def _stale(root, anchors, states):
    """Whether an anchor no longer matches its file; states: {(path, hash): bool}, so a file many
    facts are anchored to is hashed once per load."""
    from .anchors import anchor_state
    for anchor in anchors:
        if not (isinstance(anchor, dict) and isinstance(anchor.get("path"), str)
                and isinstance(anchor.get("hash"), str)):
            return True  # unreadable: counts as changed (anchors.anchor_state)
        key = (anchor["path"], anchor["hash"])
        if key not in states:
            states[key] = anchor_state(root, anchor) != "ok"
        if states[key]:
            return True
    return False
