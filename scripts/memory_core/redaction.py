"""Secret detection and masking.

The recorder refuses a fact that holds a secret or personal data; the loader masks them in
hand-edited files. find_secrets normalises the text (hidden characters dropped, Unicode spaces
made plain, full-width forms folded), then runs the finders, cheapest first: PEM private keys and
provider token shapes from data/provider_tokens.json (each behind a literal needle, so a text
without the needle never runs or compiles its regex); credentials in URLs; credentials.py
(assignments, plain-language statements in English and Chinese, login pairs, command flags,
.netrc); base64 whose decoded text holds one of those (decoded once); personal data
(personal_data.find_personal, when present). A token split over lines, by a no-break space, into
quoted pieces or into groups of four is also scanned joined. Offsets are always into the
caller's text.

Stdlib only, Python 3.8, deterministic. Data files load and regexes compile on first use: every
hook run is a fresh process and would pay for them again.
"""
import os
import re
from bisect import bisect_right as _bisect
from collections import namedtuple

from .text_normalise import _compiled, _re, has_classes, join_spans, normalise  # noqa: F401 (re-exported)

Finding = namedtuple("Finding", "kind start end line")

_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
_data = {}


def _load(name):
    """A file of data/, parsed once per process (fastjson: hooks avoid importing json)."""
    value = _data.get(name)
    if value is None:
        from .fastjson import loads
        with open(os.path.join(_DATA_DIR, name), encoding="utf-8") as fh:
            value = _data[name] = loads(fh.read())
    return value


def words():
    """credential_words.json: lists of words as frozensets, lists of lists as they are."""
    vocab = _data.get("words")
    if vocab is None:
        raw = _load("credential_words.json")
        vocab = {key: frozenset(value) if all(isinstance(v, str) for v in value) else value
                 for key, value in raw.items() if not key.startswith("_")}
        vocab["example_keys"] = frozenset("".join(parts) for parts in raw["example_keys"])
        vocab["placeholder_markers"] = tuple(raw["placeholder_markers"])
        _data["words"] = vocab
    return vocab


# ---------------------------------------------------------------------------------------------
# Value tests shared by every finder.

def entropy(value):
    import math  # lazily: most scans never get here
    counts = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = float(len(value))
    return -sum(c / n * math.log(c / n, 2) for c in counts.values())


def has_run(value, size=6):
    """A character repeated `size` times in a row: xxxxxx, 000000, ######."""
    run = 1
    for i in range(1, len(value)):
        run = run + 1 if value[i] == value[i - 1] else 1
        if run >= size:
            return True
    return False


# Template openers count only when closed later: "$(cmd)" is a template, a random key that
# happens to hold "$(" is not.
_TEMPLATE_CLOSE = {"${": "}", "$(": ")", "#{": "}"}


def is_placeholder(value):
    vocab = words()
    low = value.lower()
    if low.strip("'\"`[](){}<>=:") in vocab["placeholder_words"]:
        return True
    if any(marker in low for marker in vocab["placeholder_markers"]):
        # A long random key (Django's 50 characters of punctuation) holds "%s" or "<" by chance.
        generated = len(value) >= 32 and entropy(value) >= 4.3
        for marker in vocab["placeholder_markers"]:
            at = low.find(marker)
            if generated and marker in ("%s", "%(", "<%", "#{", "$(", "<", ">"):
                continue
            if at >= 0 and (marker not in _TEMPLATE_CLOSE or _TEMPLATE_CLOSE[marker] in low[at + 2:]):
                return True
    if len(value) >= 4 and len(set(value)) <= 3:
        return True
    # 123123123123, abababab, pass=pass=pass=: a short unit repeated is typed, not generated.
    if any(value[p:] == value[:-p] for p in range(1, min(12, len(value) // 3) + 1)):
        return True
    return has_run(value) or _re(r"(.{2,4})\1{3,}").search(value) is not None


def split_on(value, separators):
    for sep in separators[1:]:
        value = value.replace(sep, separators[0])
    return value.split(separators[0])


def is_word_like(value):
    """Letters joined by separators ("insert_key_here", "shorter-version"): words, not a key.
    Long letter-only strings with few vowels (random keys without digits) still count as keys."""
    if not all(part.isalpha() and part.isascii() for part in split_on(value, "-_. ")):
        return False
    letters = [c for c in value if c.isalpha()]
    if len(letters) >= 12:
        vowels = sum(1 for c in letters if c in "aeiouAEIOU")
        mixed = any(c.isupper() for c in letters[1:]) and any(c.islower() for c in letters)
        if mixed and vowels < 0.3 * len(letters):
            return False
    return True


def looks_random(value):
    """Letters only but no word: few vowels (an SMTP app password such as "xqkzmbtlwpoghjca")."""
    letters = [c for c in value.lower() if c.isalpha()]
    return len(letters) >= 10 and sum(1 for c in letters if c in "aeiouy") < 0.25 * len(letters)


def is_reference(value):
    """Code or configuration pointing elsewhere: $VAR, %VAR%, call(), obj.attr, CONSTANT_NAME,
    vault paths, secret-manager ARNs."""
    if value[:1] in "$%@&*[{(":
        return True
    if any(c in value for c in "()[]"):
        return True  # call() or index[...]
    low = value.lower()
    if low.startswith(tuple(words()["reference_prefixes"])):
        return True
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts) and not any(c.isdigit() for c in value):
        return True  # settings.API_KEY, os.environ
    return _re(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z").match(value) is not None  # SL_API_KEY_ENV, ASC_KEY_P8_B64


def is_prose_base64(value):
    """Base64 of ordinary text (a message, not a key): decodes to printable words with spaces."""
    raw = _b64decode(value, 16)
    if raw is None or b" " not in raw:
        return False
    wordy = sum(1 for b in raw if 65 <= b <= 90 or 97 <= b <= 122 or b in b" ,.!?'")
    return wordy >= 0.85 * len(raw)


def _b64decode(value, min_len):
    if len(value) < min_len or not _re(r"[A-Za-z0-9+/]+={0,2}\Z").match(value):
        return None
    import binascii
    try:
        return binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


_HEX = frozenset("0123456789abcdefABCDEF")


def looks_like_uuid(value):
    parts = value.split("-")
    return [len(p) for p in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for p in parts for c in p)


def is_versionish(value):
    """Versions, dates, times, ratios: 1.2.3, v2, 2024-05-01, 10:30, 42/42."""
    body = value[1:] if value[:1] in "vV" else value
    return not body.isdigit() and all(p.isdigit() for p in split_on(body, ".:/+-"))


def credential_like(value):
    """A generated-looking token: digits and letters, mixed case, or random letters."""
    if len(value) < 8 or is_placeholder(value) or is_versionish(value) or looks_like_uuid(value):
        return False
    letters = any(c.isalpha() for c in value)
    if any(c.isdigit() for c in value) and letters:
        return entropy(value) >= 2.5
    return looks_random(value) or (len(value) >= 16 and has_classes(value + "0"))


def password_is_real(password, user=""):
    """Password part of a URL or user:pass pair."""
    if len(password) < 4 or password == user:
        return False
    low = password.lower()
    if is_placeholder(password) or low.strip("{}") in words()["placeholder_words"]:
        return False
    if password[:1] in "$%{[<(" or ("password" in low and password.isalpha()):
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Finders. Each yields (rank, kind, start, end); lower rank wins when spans overlap.

_runs_memo = [None, ()]


def long_runs(text):
    """(start, end) of each run of 12+ non-space characters, for the last text asked about.
    Provider tokens and base64 live in such runs; prose has few. The pattern starts with a
    literal space so that `re` skips from space to space instead of trying every position."""
    if _runs_memo[0] is not text:
        padded = " " + text.replace("\n", " ").replace("\t", " ").replace("\r", " ")
        _runs_memo[1] = [(m.start(), m.end() - 1) for m in _re(r" \S{12,}").finditer(padded)]
        _runs_memo[0] = text
    return _runs_memo[1]


def _providers():
    rules = _data.get("providers")
    if rules is None:
        rules = []
        for rule in _load("provider_tokens.json")["rules"]:
            rules.append((rule["kind"], frozenset(rule.get("needles", ())), rule["regex"],
                          bool(rule.get("in_text")), tuple(rule.get("context", ())),
                          frozenset(rule.get("checks", ())), rule.get("min_run", 12)))
        run_needles = sorted({n for rule in rules if not rule[3] for n in rule[1]})
        text_needles = sorted({n for rule in rules if rule[3] for n in rule[1]})
        word_needles = sorted({n for rule in rules if rule[3] and not rule[6] for n in rule[1]})
        rules = _data["providers"] = (rules, run_needles, text_needles, word_needles)
    return rules


def _provider_findings(text):
    spans = long_runs(text)
    rules, run_needles, text_needles, word_needles = _providers()
    # Most provider tokens are one run of 12+ non-space characters holding their needle, so
    # those needles are looked for in such runs only: prose has few. A seed phrase is words
    # only (its rule sets min_run 0), so its needles are looked for in any text.
    runs = "\n".join(text[a:b] for a, b in spans)
    longest = max([b - a for a, b in spans] or [0])
    present = {n for n in run_needles if n in runs}
    present.update(n for n in (text_needles if longest >= 16 else word_needles) if n in text)
    low = None
    for kind, needles, pattern, _in_text, context, checks, min_run in rules:
        if min_run > longest or (needles and present.isdisjoint(needles)):
            continue
        if context:
            low = text.lower() if low is None else low
            if not any(word in low for word in context):
                continue
        elif not needles:
            continue
        for m in _re(pattern).finditer(text):
            start, end = m.span("s") if "s" in m.re.groupindex else m.span()
            secret = text[start:end]
            if kind == "jwt":
                if not _jwt_parts_decode(secret):
                    continue
            elif is_placeholder(secret) or text[end:end + 3] in ("...", "###", "***", "xxx", "XXX"):
                continue  # xoxp-123-456-#######: the token is a template
            elif kind == "seed-phrase" and not _real_mnemonic(secret):
                continue  # prose after "mnemonic", or the all-"abandon" test vector
            elif kind == "discord-token" and not has_classes(secret.split(".")[0]):
                continue  # the first part is base64 of a numeric id, never a plain dotted name
            elif "credential" in checks and not credential_like(secret.replace("%2F", "/")):
                continue
            elif "classes" in checks and not has_classes(secret):
                continue
            yield 1, kind, start, end


def _real_mnemonic(phrase):
    """Five words in six on the BIP39 list, and varied (test vectors repeat one word)."""
    bip39 = _data.get("bip39")
    if bip39 is None:
        bip39 = _data["bip39"] = frozenset(_load("bip39_english.json")["words"])
    found = phrase.lower().replace(",", " ").split()
    listed = sum(1 for w in found if w in bip39)  # writers misremember a word or two; prose has many
    return listed * 6 >= len(found) * 5 and len(set(found)) * 4 >= len(found) * 3


def _b64_json_start(segment):
    """Decode a base64url segment (possibly truncated); true when it is a JSON object."""
    seg = segment.replace("-", "+").replace("_", "/")
    seg = seg[:len(seg) - len(seg) % 4]
    import binascii
    try:
        raw = binascii.a2b_base64(seg)
    except (binascii.Error, ValueError):
        return None
    return raw if raw.startswith(b'{"') else None


def _jwt_parts_decode(token):
    parts = token.split(".")
    header, payload = _b64_json_start(parts[0] + "=="), _b64_json_start(parts[1] + "==")
    if header is None or payload is None:
        return False
    # The header is complete: it must read as JSON text, not bytes that happen to start with {".
    printable = sum(1 for b in header if 32 <= b < 127 or b in b"\r\n\t")
    return header.rstrip(b"\r\n ").endswith(b"}") and printable >= 0.9 * len(header)


_PRIVATE_KEY_BEGIN = r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
_PRIVATE_KEY_END = r"-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"


def _private_key_findings(text):
    if "PRIVATE KEY" not in text:
        return
    for m in _re(_PRIVATE_KEY_BEGIN).finditer(text):
        end_m = _re(_PRIVATE_KEY_END).search(text, m.end(), m.end() + 30000)  # 4096-bit PEM: ~3.3k
        if end_m:
            body, end = text[m.end():end_m.start()], end_m.end()
        else:  # truncated block: the key runs as far as base64 does
            tail = _re(r"(?:[A-Za-z0-9+/=\s]|\\n)*").match(text, m.end())
            body, end = tail.group(), tail.end()
        body = body.replace("\\n", "\n")
        lines = [ln for ln in body.split("\n") if ln.strip() and ":" not in ln]  # drop Proc-Type: ...
        b64 = "".join("".join(lines).split())
        if len(b64) >= 40 and _re(r"[A-Za-z0-9+/=]+\Z").match(b64) and not has_run(b64, 12):
            yield 0, "private-key", m.start(), end


def _url_findings(text):
    if "://" not in text or "@" not in text:
        return
    # "#" may sit in a password ("Mq#Queue2023@host"): people write it unescaped.
    rx = _re(r"[A-Za-z][A-Za-z0-9+.-]{1,20}://(?P<user>[^\s:/?#@\"'<>]*):"
             r"(?P<pw>[^\s/?\"'<>]+)@(?=[\w\[.-])")
    for m in rx.finditer(text):
        user, pw = m.group("user"), m.group("pw")
        if pw == "x-oauth-basic" and len(user) >= 20 and not is_placeholder(user):
            yield 2, "password-in-url", m.start("user"), m.end("user")  # the token is the user
        elif password_is_real(pw, user) and not user.startswith(("$", "{")):
            yield 2, "password-in-url", m.start("pw"), m.end("pw")


def _decoded_findings(text):
    """Encoded tokens of 12+ characters whose decoded text holds a credential: base64 of
    "password=..." or "user:pass", hex, %-encoding, \\u escapes. The decoded text is scanned
    once, without decoding again; the finding is the whole encoded token."""
    b64 = _re(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{12,}={0,2}(?![A-Za-z0-9+/=_-])")
    for a, b in long_runs(text):
        for m in b64.finditer(text, a, b):
            body = m.group().rstrip("=")
            # Words and numbers are not base64 of text: that nearly always mixes case.
            raw = None if body.islower() or body.isupper() or body.isdigit() else _b64decode(m.group(), 12)
            kind = _decoded_kind(raw, True) if raw is not None and len(raw) >= 8 else None
            if kind is None and raw is not None and 6 <= len(raw) <= 64 and _password_named_near(text, m.start()):
                kind = _decoded_password(raw)  # "base64'd the broker password: QnIw..." decodes to one
            if kind:
                yield 4, "base64-" + kind, m.start(), m.end()
        run = text[a:b]
        hexed = _re(r"(?:[0-9a-fA-F]{2}){12,}\Z").match(run)
        if hexed or "%" in run or "\\u" in run or "\\x" in run:
            if hexed:
                raw = bytes.fromhex(run)
            else:  # %3D, \u003d, \x3d: one byte or code point each
                raw = _re(r"%([0-9A-Fa-f]{2})|\\x([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})").sub(
                    lambda e: chr(int(e.group(e.lastindex), 16)), run).encode("utf-8", "replace")
            kind = _decoded_kind(raw, False) if raw != run.encode("utf-8", "replace") else None
            if kind:
                yield 4, "encoded-" + kind, a, b


def _password_named_near(text, start):
    low = text[max(0, start - 100):start].lower()
    return "password" in low or "passwd" in low or "密码" in low or "口令" in low or " pw" in low


def _decoded_password(raw):
    """"password" when decoded bytes are one typed password: printable ASCII, no spaces, three
    character classes."""
    try:
        value = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
               + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))
    return "password" if value.isprintable() and " " not in value and classes >= 3 else None


def _decoded_kind(raw, pairs):
    """Kind of the first credential in decoded bytes that read as text, else None."""
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if sum(1 for c in decoded if c.isprintable()) < 0.95 * len(decoded):
        return None
    inner = _scan(decoded, (), nested=True)
    if inner:
        return inner[0][1]
    pair = _re(r"([\w.@+$-]{1,64}):(\S{4,128})\Z").match(decoded) if pairs else None
    if pair and password_is_real(pair.group(2), pair.group(1)) and not is_word_like(pair.group(2)):
        return "credential"
    return None


_personal = []


def _personal_findings(text):
    """personal_data.find_personal, imported lazily; skipped while that module is absent."""
    if not _personal:
        try:
            from .personal_data import find_personal
        except ImportError as exc:
            if exc.name not in (__package__ + ".personal_data", "personal_data"):
                raise  # the module is there but broken: say so, do not silently skip
            find_personal = None
        _personal.append(find_personal)
    if _personal[0] is not None:
        for found in _personal[0](text):  # (rank, kind, start, end), like every finder here
            yield found


def _extra_findings(text, extra_patterns):
    for kind, rx in extra_patterns:
        for m in rx.finditer(text):
            span = m.span("secret") if "secret" in rx.groupindex else (
                m.span(1) if rx.groups and m.group(1) is not None else m.span())
            if span[1] > span[0]:
                yield 1, kind, span[0], span[1]


def _compile_extra(extra_patterns):
    """[(kind, compiled)] from the user's (kind, regex) pairs. The kind is reduced to the
    characters a [redacted:<kind>] marker allows, so masked text is always recognised."""
    compiled = []
    for entry in extra_patterns:
        try:
            kind, pattern = entry
        except (TypeError, ValueError):
            raise ValueError("secret pattern %r is not a (kind, regex) pair" % (entry,))
        key = ("extra", pattern)
        rx = _compiled.get(key)
        if rx is None:
            try:
                rx = _compiled[key] = re.compile(pattern)
            except (re.error, TypeError) as exc:
                raise ValueError("secret pattern %r: invalid regex %r: %s" % (kind, pattern, exc))
        compiled.append((re.sub(r"[^\w.-]+", "-", str(kind)).strip("-") or "custom", rx))
    return compiled


def _scan(text, extra, nested=False, personal=False):
    from .credentials import credential_findings
    candidates = []
    finders = [_private_key_findings, _provider_findings, _url_findings, credential_findings]
    if not nested:
        finders.append(_decoded_findings)
    for finder in finders:
        candidates.extend(finder(text))
    if extra:
        candidates.extend(_extra_findings(text, extra))
    if personal:
        candidates.extend(_personal_findings(text))
    return candidates


def _joined_findings(text, spans, extra):
    """Findings of the text with spans deleted that cross a deletion, in text's offsets."""
    pieces, back, points, pos = [], [], [], 0
    for a, b in spans:
        if a < pos:
            continue
        pieces.append(text[pos:a])
        back.extend(range(pos, a))
        points.append(len(back))
        pos = b
    pieces.append(text[pos:])
    back.extend(range(pos, len(text)))
    for rank, kind, start, end in _scan("".join(pieces), extra):
        i = _bisect(points, start)
        if i < len(points) and points[i] < end:
            yield rank, kind, back[start], back[end - 1] + 1


# ---------------------------------------------------------------------------------------------
# Public functions.

_MARKER = "[redacted:"


def find_secrets(text, extra_patterns=()):
    """Findings in text, sorted by start and non-overlapping, with offsets into text. Raises
    ValueError for a bad extra pattern ((kind, regex) pairs from the user's config; group
    "secret" or group 1 marks the secret, else the whole match)."""
    extra = _compile_extra(extra_patterns or ())  # a bad pattern fails even on empty text
    if not text:
        return []
    norm, offsets, soft = normalise(text)
    candidates = _scan(norm, extra, personal=True)
    spans = join_spans(norm, soft)
    if spans:
        candidates.extend(_joined_findings(norm, spans, extra))
    # Text already masked is never flagged again.
    masked = _Spans()
    if _MARKER in norm:
        for m in _re(r"\[redacted:[\w.-]*\]").finditer(norm):
            masked.add(*m.span())
    chosen, kinds, examples = _Spans(), {}, None
    for rank, kind, start, end in sorted(candidates, key=lambda c: (c[0], c[2], c[2] - c[3])):
        if end <= start or masked.overlaps(start, end) or chosen.overlaps(start, end):
            continue
        if end - start >= 16:  # published documentation keys (AKIAIOSFODNN7EXAMPLE, ...)
            examples = words()["example_keys"] if examples is None else examples
            if any(key in norm[start:end] for key in examples):
                continue
        chosen.add(start, end)
        kinds[start] = kind
    findings, line, counted = [], 1, 0
    for start, end in zip(chosen.starts, chosen.ends):
        kind = kinds[start]
        if offsets is not None:
            start, end = offsets[start], offsets[end - 1] + 1
        line += text.count("\n", counted, start)  # sorted, so lines are counted once
        counted = start
        findings.append(Finding(kind, start, end, line))
    return findings


class _Spans(object):
    """Sorted non-overlapping spans: overlap tests stay logarithmic for thousands of findings."""

    def __init__(self):
        self.starts, self.ends = [], []

    def overlaps(self, start, end):
        i = _bisect(self.starts, start)
        return (i > 0 and self.ends[i - 1] > start) or (i < len(self.starts) and self.starts[i] < end)

    def add(self, start, end):
        i = _bisect(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)


def mask_secrets(text, extra_patterns=()):
    """(masked text, findings): each secret value becomes [redacted:<kind>]; names around it stay.
    Masking is repeated until nothing is left, so masking the result again changes nothing; the
    findings are those of the original text."""
    extra_patterns = list(extra_patterns or ())
    findings = find_secrets(text, extra_patterns)
    masked, current = text, findings
    # Each pass turns secret characters into markers, which are never flagged, so this ends;
    # the bound only guards a hook against a pathological extra pattern.
    for _ in range(20):
        if not current:
            break
        pieces, pos = [], 0
        for f in current:
            pieces.append(masked[pos:f.start])
            pieces.append("[redacted:%s]" % f.kind)
            pos = f.end
        pieces.append(masked[pos:])
        masked = "".join(pieces)
        current = find_secrets(masked, extra_patterns)
    return masked, findings


def describe(findings):
    """One short line: "github-token at line 1, password-assignment at line 3"."""
    if not findings:
        return "no secrets found"
    parts = ["%s at line %d" % (f.kind, f.line) for f in findings[:5]]
    if len(findings) > 5:
        parts.append("and %d more" % (len(findings) - 5))
    return ", ".join(parts)
