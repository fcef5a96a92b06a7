"""Credentials named in words: assignments, plain-language statements, login pairs, commands.

redaction.find_secrets calls credential_findings on normalised text (full-width forms folded,
hidden characters gone); each finder yields (rank, kind, start, end) of the value only, so masking
keeps the sentence readable. Covered: ``name = value`` whose name says secret (password, api_key,
密码); "<credential word> [qualifier] <copula or separator> <value>" in English and Chinese ("the
prod Redis password is ...", "线上 Redis 密码是 ...", "授权码 KJQW..."); login pairs ("admin /
Gr4fana!Prod", "creds admin:Netgear#2023"); .netrc lines; passwords in command flags (sshpass -p,
docker login -p, mysql -pSECRET, redis-cli -a, htpasswd -b) and curl -u user:pass.

Prose or value is decided by the vocabularies of data/credential_words.json: after "is"/"是" a
common word ("rotated", "stored") or Han text is prose; a token with a digit, a symbol or mixed
case, or a lone uncommon word ending the clause, is a value. Passwords may be words
("correct-horse-battery"); tokens and keys must look generated.
"""
from .redaction import (_re, credential_like, entropy, is_placeholder, is_prose_base64, is_reference,
                        is_versionish, is_word_like, looks_like_uuid, looks_random, split_on, words)

# Lower-case stems that may start a secret name; the whole identifier is classified afterwards.
_NAME_STEMS = r"pass|pw|pin|secret|token|key|auth|cred|login|session|access|密码|口令|令牌|密钥|秘钥|密匙|私钥|授权码"
_ALL_STEMS = tuple(_NAME_STEMS.split("|"))
_ASCII_STEMS = tuple(stem for stem in _ALL_STEMS if stem.isascii())
_ASSIGN_OPS = r":::=|::=|:=|\?=|\.=|\+=|=>|<-|=|:|：|＝|,"
_TAIL = ".,;:)]}'\""  # sentence punctuation after an unquoted value is not part of it
_data_cache = {}  # compiled vocabularies (copulas, command table), built on first use


def credential_findings(text):
    from . import credential_formats as formats
    for finder in (_assignment_findings, formats.pair_findings, formats.netrc_findings,
                   formats.command_findings, formats.curl_findings, formats.key_value_findings,
                   formats.labelled_pair_findings, formats.table_findings, formats.terraform_findings,
                   formats.strong_token_findings):
        for found in finder(text):
            yield found


# ---------------------------------------------------------------------------------------------
# Names.

def _split_words(name):
    # [^\x00-\x7f] instead of a CJK range: same effect here, far cheaper to compile.
    return [w.lower() for w in _re(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\x00-\x7f]+").findall(name)]


_strength_cache = {}


def name_strength(name):
    """Cached: the same names recur throughout a memory file."""
    strength = _strength_cache.get(name, "?")
    if strength == "?":
        if len(_strength_cache) > 4096:
            _strength_cache.clear()
        strength = _strength_cache[name] = _classify_name(name)
    return strength


def _classify_name(name):
    """How strongly an identifier says "this holds a secret": None, "password", "secret", "weak"
    or "id". The last secret word decides; words after it may turn it into metadata
    (token_url, secret_name), words before it may say it is not real (fake_token, csrf_token)."""
    vocab = words()
    if name.lower() in vocab["product_names"]:
        return None  # 1Password, LastPass: a password manager, not a password
    parts = _split_words(name)
    for i in range(len(parts) - 1, -1, -1):
        word = parts[i]
        j = i - 1
        while j > 0 and (parts[j].isdigit() or parts[j] == "v"):
            j -= 1  # api-v3-key: the version between says nothing
        prev = parts[j] if i else ""
        strength = None
        if word[:1] >= "\u4e00":
            if word.endswith(tuple(vocab["zh_password_words"])):
                strength = "password"
            elif word.endswith(tuple(vocab["zh_secret_words"])):
                strength = "secret"
            else:
                continue
        elif word in vocab["password_words"] or word.endswith(("password", "passwd")):
            strength = "password"
        elif word in vocab["secret_words"] or (len(word) > 7 and word.endswith("secret")) or \
                (word == "certificate" and prev in vocab["key_compounds"]):  # corpsecret; Agora's App Certificate
            strength = "secret"
        elif word in vocab["weak_words"]:
            strength = "weak"
        elif word == "key":
            if prev in vocab["key_compounds"]:
                strength = "secret"
            elif prev and prev not in vocab["structural_keys"] and not prev.isdigit() and len(prev) > 1:
                if any(not w.isdigit() for w in parts[i + 1:]):
                    return None  # key_down_event, keyPressed: a key, not a credential
                strength = "weak"
            else:
                return None
        elif word == "accessid" or (word == "id" and prev == "access"):
            strength = "id"
        else:
            continue
        if any(w in vocab["meta_suffixes"] for w in parts[i + 1:]):
            return None
        if any(w in vocab["not_real_words"] for w in parts[:i]):
            return None
        return strength
    return None


def _is_ident_char(ch):
    return ch.isalnum() and ch.isascii() or ch in "_.-" or "\u4e00" <= ch <= "\u9fff"


def prose_like(value):
    """Ordinary words ("rotated", "read-only", "the"): prose, not a password."""
    vocab = words()
    prose, suffixes = vocab["prose_words"], tuple(vocab["prose_suffixes"])
    return all(not p or p in prose or p in vocab["placeholder_words"] or (len(p) > 4 and p.endswith(suffixes))
               for p in split_on(value.lower(), "-_."))


def _algorithm_like(value):
    """SHA-256, HS256, AES256, TLS1: an algorithm or protocol name, not a password."""
    m = _re(r"([A-Za-z]{2,8})-?\d{1,4}\Z").match(value)
    return m is not None and (m.group(1).isupper() or m.group(1).lower() in words()["hash_names"])


# ---------------------------------------------------------------------------------------------
# Values.

def _is_path(value):
    if value[:1] in "/~" or value.startswith("./"):
        return not any(c in value for c in "+=")  # "/j/jcx0Wl...+roF...=" is base64, not a path
    return value.rpartition(".")[2].lower() in words()["file_extensions"]


def value_is_secret(value, strength, quoted):
    """Value of an assignment. strength: "password", "secret" (token, api key), "weak" (auth,
    creds, vendor key) or "id" (access id: like weak, but a UUID there is an identifier)."""
    if not value or len(value) > 512 or " " in value:
        return False
    if any(ord(c) < 33 or ord(c) > 126 for c in value):
        return False  # non-ASCII (prose in another language) or control characters
    if is_placeholder(value) or "://" in value:
        return False
    if (not quoted or _re(r"\$\{?[A-Za-z_]\w*\}?\Z").match(value)) and is_reference(value):
        return False  # PGPASSWORD="$PGPASS": the shell expands it; the text holds a reference
    if _is_path(value):
        return False
    if is_word_like(value):
        # A password may be words ("correct-horse-battery"); a key never is.
        return strength == "password" and len(value) >= 4 and not prose_like(value)
    if is_prose_base64(value) or is_versionish(value):
        return False
    if value.isdigit():
        return len(value) >= (6 if strength == "password" else 16)
    if strength == "password":
        return len(value) >= 6
    if strength == "secret":
        return len(value) >= 8
    if looks_like_uuid(value):
        return strength == "weak"
    return (len(value) >= 12 and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
            and entropy(value) >= 3.0)


def plain_value_ok(value, strength, how, at_end, zh=False):
    """Value of a plain-language statement. how: "sep" (after = or :), "copula" (after is / 是)
    or "space" (right after the word: "password 7tYq!pL3zV", "授权码 KJQW..."); at_end: nothing
    but punctuation follows in the clause; zh: the statement is Chinese."""
    if not value or len(value) > 256 or not value.isascii() or len(value) < 4:
        return False
    word = all(c.isalpha() or c in "-_." for c in value)  # words, no digits or symbols
    if word and prose_like(value):
        return False  # cheapest test first: prose is what most calls see
    if is_placeholder(value) or "://" in value or is_reference(value) or value.startswith("-"):
        return False
    if _is_path(value) or is_versionish(value) or _algorithm_like(value):
        return False
    if value.isdigit():  # a PIN-like password; after a bare English word it is a count or an id
        return strength == "password" and (how != "space" or zh) and len(value) >= 6
    if word:  # a password may be words; a key must at least look random
        if strength != "password":
            return len(value) >= 12 and looks_random(value)
        return how == "sep" or (at_end if how == "copula" else looks_random(value) or (zh and at_end))
    if strength == "password":
        classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
                   + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))
        return len(value) >= 6 and (how != "space" or (classes >= 2 and any(c.isalpha() for c in value)))
    if strength == "secret" and looks_like_uuid(value):
        return how != "space"  # "the token is <uuid>": many APIs issue UUID tokens
    return strength == "secret" and credential_like(value) and (how != "space" or len(value) >= 12)


def _value_at(text, pos):
    """(start, end, quoted) of one value starting at pos (after spaces), or None."""
    m = _re(r"[ \t]*(?:(?P<q>[\"'`])(?P<qv>[^\"'`\s]{1,256})(?P=q)|(?P<uv>[!#-&(-+\--:=?-_a-~]{1,256}))").match(text, pos)
    if m is None:
        return None
    if m.group("q"):
        return m.start("qv"), m.end("qv"), True
    start, value = m.start("uv"), m.group("uv")
    stripped = _strip_tail(text, start, value)
    return (start, start + len(stripped), False) if stripped else None


def _strip_tail(text, start, value):
    """Sentence punctuation after an unquoted value is not part of it, nor is an opening bracket
    right before Chinese text ("Mysql@Pay_0817（生产库" folds to "...0817(生产库")."""
    value = value.rstrip(_TAIL)
    end = start + len(value)
    if end < len(text) and not text[end].isascii():
        value = value.rstrip("([{").rstrip(_TAIL)
    # "kmlb...sgi（smtp.qq.com:465）" folds to "...sgi(smtp.qq.com:465)": a host note, not the value
    host_note = _re(r"(.{6,}?)\([^()\s]*[.:][^()\s]*\)?\Z").match(value)
    return host_note.group(1) if host_note else value


def _clause_ends_at(text, pos):
    """Nothing but punctuation (or Han text, or the end) follows pos in the clause."""
    m = _re(r"[ \t]*(.|\Z)", 16).match(text, pos)  # 16: re.DOTALL
    ch = m.group(1)
    return not ch or ch in ".,;:!?)]}'\"\n([#" or not ch.isascii()  # "pw: X (staging)", "X # prod"


# ---------------------------------------------------------------------------------------------
# Assignments and plain-language statements.

def _stem_matches(text):
    """For each stem of a secret name (password, token, 密码), a match of the rest of its
    identifier and the separator after it. str.find locates stems in lower-cased text (C speed);
    lower() keeps offsets unless a rare character changes length: then a case-insensitive
    regex searches instead."""
    # The rest of the identifier is ASCII: CJK names end with their stem (数据库密码).
    rest = (r"[A-Za-z0-9_.\-]*(?P<close>[\"'`\]]{0,2})(?:[ \t]+str(?:ing)?)?[ \t]*(?P<op>"
            + _ASSIGN_OPS + r")?")
    low = text.lower()
    if len(low) != len(text):
        for m in _re(r"(?:" + _NAME_STEMS + r")" + rest, 2).finditer(text):  # 2: re.IGNORECASE
            yield m
        return
    places = []
    for stem in _ASCII_STEMS if text.isascii() else _ALL_STEMS:
        at = low.find(stem)
        while at >= 0:
            places.append((at, len(stem)))
            at = low.find(stem, at + 1)
    # The match starts after the stem; callers extend names backwards over it anyway.
    rx, last = _re(rest), 0
    for at, size in sorted(places):
        if at >= last:
            m = rx.match(low, at + size)
            last = m.end()
            yield m


def _assignment_findings(text):
    ascii_text = text.isascii()
    for m in _stem_matches(text):
        end = m.start("close")
        op, after = m.group("op"), text[end:end + 1]
        start = m.start()
        floor = max(0, start - 64)  # a name is short; an endless run must not make this quadratic
        while start > floor and _is_ident_char(text[start - 1]):
            start -= 1
        if text[start - 1:start] == ":" and _re(r"[!-~]").match(text, start - 2) is not None and op != "=":
            continue  # arn:aws:secretsmanager:...:secret:prod/db: part of an identifier
        name = text[start:end].strip(".-")
        strength = name_strength(name)
        zh_name = not name[-1:].isascii()
        zh = zh_name or (not ascii_text and _re(r"[\u3000-\u9fff]").search(
            text, max(0, start - 40), min(len(text), end + 60)) is not None)
        if strength is None and name.lower() == "key":
            # "API key", "secret access key"; in Chinese text a bare "key" names an API key
            strength = _phrase_strength(text, start, name) if text[start - 1:start] in " \t" else None
            strength = strength or ("key" if zh and op in (None, ":", "=", "：", "＝") else None)
        elif strength is None and name[-1:] in "sS" and op is None:
            # "the passwords are Stg#2024pw and ...": a plural says so only in a sentence
            strength = {"password": "plural-password", "secret": "plural-secret"}.get(name_strength(name[:-1]))
        if strength is None:
            continue
        if strength == "key" and op is not None:
            found = _assigned_value(text, start, end, op, m.group("close"), m.end())
            value = _strip_tail(text, found[0], text[found[0]:found[1]]) if found else ""
            if _re(r"(?=.*\d)[A-Za-z0-9+/=]{16,}\Z").match(value) and credential_like(value):
                yield 3, "secret-assignment", found[0], found[0] + len(value)  # key：9f3c...: generated only
            continue
        if op is not None or after == ">" or text[start:start + 1] == "-":
            found = _assigned_value(text, start, end, op, m.group("close"), m.end())
            if found is not None:
                vstart, vend, quoted = found
                value = text[vstart:vend]
                if "..." in value or text[vend:vend + 3] == "...":
                    continue  # elided in documentation: ops_eyJzaWdu...
                if not quoted:
                    stripped = _strip_tail(text, vstart, value)
                    vend -= len(value) - len(stripped)
                    value = stripped
                if value_is_secret(value, strength, quoted) and (
                        quoted or not is_word_like(value) or _clause_ends_at(text, vend)):
                    # a word after "password:" is a value only when it ends the clause:
                    # "To rotate the DB password: update it in Vault" is prose
                    kind = {"password": "password-assignment", "secret": "secret-assignment"}.get(
                        strength, "high-entropy-assignment")
                    yield 3, kind, vstart, vend
                continue
        if op is None and strength != "weak" and strength != "id":
            base = {"key": "secret", "plural-password": "password", "plural-secret": "secret"}.get(strength, strength)
            found = _plain_statement(text, end, base, zh, zh_name, plural=strength.startswith("plural"))
            if found is not None and (strength != "key" or _re(r"(?=.*\d)[A-Za-z0-9+/=]{16,}\Z").match(
                    text, found[0], found[1])):  # a bare "key" takes only a generated value
                yield 3, base + "-in-text", found[0], found[1]


def _phrase_strength(text, start, name):
    """"API key", "secret access key": the words before a bare "key" make it a credential."""
    before = text[max(0, start - 40):start].split()[-2:]
    phrase = name
    for word in reversed(before):
        if not (word.isalpha() and word.isascii()):
            break
        phrase = word + "_" + phrase
        strength = name_strength(phrase)
        if strength in ("password", "secret"):
            return strength
    return None


def _assigned_value(text, start, end, op, close, pos):
    """(value start, value end, quoted) of what the name text[start:end] is set to, or None.
    op, close: the separator and closing quote after the name; pos: where the value may start."""
    if op is None:
        if text[start - 1:start] == "<" and text[end:end + 1] == ">":  # <fooToken>value</fooToken>
            close_tag = text.find("<", end + 1, end + 2000)
            if close_tag < 0 or text[close_tag + 1:close_tag + 2] != "/":
                return None  # <回调Token>，Key=<...>: a placeholder, not an element
            inner = text[end + 1:close_tag]
            vstart = end + 1 + len(inner) - len(inner.lstrip())
            return vstart, vstart + len(inner.strip()), True
        if text[start:start + 1] != "-":  # only CLI flags take a value without a separator
            return None
        pos = end
    elif op == "," and not (close and text[start - 1:start] in "\"'"):
        return None  # f(token, x): only ("NAME", "value") pairs count
    # Values are ASCII and at most 512 characters; a longer unbroken run is a blob, not a
    # credential (and bounding it keeps a pathological text linear).
    value_rx = _re(r"[ \t]*(?:(?P<q>[\"'`])(?P<qv>[^\"'`\r\n]{0,512})|"
                   r"(?P<uv>[!#-&(-+\--:=?-_a-~]{1,512}))")  # printable ASCII but "'`,;<>
    v = value_rx.match(text, pos)
    if v is None or v.end() - v.start("qv" if v.group("q") else "uv") >= 512:
        return None
    schemes = words()["auth_schemes"]
    if v.group("q"):
        vstart, value = v.start("qv"), v.group("qv")
        scheme, _, rest = value.partition(" ")
        if scheme.lower() in schemes and rest:  # "Bearer abc..." inside quotes
            vstart, value = vstart + len(value) - len(rest.lstrip()), rest.lstrip()
        return vstart, vstart + len(value), True
    if op == ",":
        return None
    if v.group("uv").lower() in schemes:  # Authorization: Bearer abc...
        after = value_rx.match(text, v.end())
        if after is not None and after.group("uv") and not after.group("q"):
            return after.start("uv"), after.end("uv"), False
    return v.start("uv"), v.end("uv"), False


def _copulas(text, pos, limit, zh):
    """(start, end, separator or None) of each copula or separator in text[pos:limit], in order.
    English copulas and separators are two regexes so that `re` can skip through the clause by
    their first characters; Chinese text gets one case-insensitive regex with every form."""
    rxs = _data_cache.get(("copulas", zh))
    if rxs is None:
        import re
        vocab = words()

        def alternation(items):  # longest first, so "is set to" wins over "is"
            return "|".join(re.escape(w).replace(r"\ ", r"[ \t]+") for w in sorted(items, key=len, reverse=True))
        seps = re.compile("(?P<sep>" + alternation(vocab["separators"]) + ")")
        if zh:
            rxs = (re.compile(r"(?<![A-Za-z])(?:" + alternation(vocab["copulas_en"]) + r")(?![A-Za-z])|(?:"
                              + alternation(vocab["copulas_zh"]) + r")|(?P<sep>" + alternation(vocab["separators"])
                              + ")", re.IGNORECASE),)
        else:
            rxs = (re.compile(r"[ \t](?:" + alternation(vocab["copulas_en"]) + r")(?![A-Za-z])"), seps)
        _data_cache[("copulas", zh)] = rxs
    found = sorted((m.start(), m.end(), m.groupdict().get("sep")) for rx in rxs for m in rx.finditer(text, pos, limit))
    return found


def _plain_statement(text, pos, strength, zh, zh_name=False, plural=False):
    """Span of the value a credential word ending at pos introduces in prose, or None.
    zh: the statement is Chinese; zh_name: the word itself is (密码, not AppSecret); plural:
    "passwords", which takes a value only after a copula ("are")."""
    vocab = words()
    nxt = _re(r"[ \t]*([A-Za-z]+)").match(text, pos)
    if nxt and nxt.group(1).lower() in vocab["meta_suffixes"]:
        return None  # "password policy", "token TTL": words about the secret
    if (zh_name or zh) and text[pos:pos + 6].lstrip(" \t").startswith(tuple(vocab["zh_meta_suffixes"])):
        return None  # 密码强度, 密钥轮换策略
    # The value right after the word: "password 7tYq!pL3zV", "授权码 KJQW...", "密钥 1nIj..."
    if not plural and (zh_name or text[pos:pos + 1] in " \t"):
        found = _value_after(text, pos, strength, "space", zh)
        if found and (zh or _space_value_en(text, pos, text[found[0]:found[1]])):
            return found
    # "set the SMTP app password to '...'": the verb before the word makes "to" a copula
    to = None if zh or plural else _re(r"[ \t]+to[ \t]+").match(text, pos)
    if to and vocab["set_verbs"].intersection(w.lower() for w in text[max(0, pos - 60):pos].split()):
        found = _value_after(text, to.end(), strength, "copula", zh)
        if found:
            return found
    # "<word> [qualifier] is|是|:|-> <value>"; English reads on past one failed copula ("was
    # regenerated -> X"), Chinese stops at the first
    tries = 0
    for c_start, c_end, sep in _copulas(text, pos, _clause_limit(text, pos, 90), zh):
        how = "sep" if sep else "copula"
        if plural and sep:
            return None  # "passwords: a, b" is a list heading
        arrow = sep in vocab["arrows"]
        if text.count("(", pos, c_start) > text.count(")", pos, c_start):
            continue  # token（org=smartfarm）：X: the "=" inside the brackets is not the separator
        if not _qualifier_ok(text[pos:c_start].strip(" \t"), how == "sep" and not arrow, zh):
            if tries or zh:
                return None
            continue
        tries += 1
        vpos = c_end + (how == "copula" and text[c_end:c_end + 1] == ":")  # 是：, is:
        found = _value_after(text, vpos, strength, "sep" if arrow else how, zh)
        if found or zh or tries >= 2:
            return found
    return None


def _value_after(text, pos, strength, how, zh):
    """(start, end) of the value at pos when plain_value_ok accepts it, else None."""
    found = _value_at(text, pos)
    if found is None or (text[found[0]:found[1]].isalpha() and text[found[0]:found[1]].lower() in
                         words()["prose_words"]):
        return None  # the common case in prose, "is rotated", "are read", decided cheaply
    cjk_after = not text[found[1]:found[1] + 1].isascii()
    ok = plain_value_ok(text[found[0]:found[1]], strength, how, _clause_ends_at(text, found[1]), zh or cjk_after)
    return found[:2] if ok else None


def _space_value_en(text, pos, value):
    """English puts no value right after "password" unless it lists a login ("user root pass
    Olive-Tree-9") or the value is plainly generated; "you pass `--flag`" is prose."""
    if not value[:1].isalnum():
        return False
    if len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value) \
            and (_classes(value) >= 3 or "-" in value or "_" in value):
        return True  # "WPA2 passphrase m0ntauk-harbor-17": generated or a word-and-digit passphrase
    if len(value) >= 20 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value) \
            and entropy(value) >= 3.3 and not _re(r"(?i)sha|md5|commit|digest|hash").search(text[max(0, pos - 30):pos]):
        return True  # "client_id 7dcf... secret 15b7...": a generated value right after the word
    if _re(r"(?i)pass(?:word|wd|phrase|code)?\Z").search(text, max(0, pos - 12), pos) and len(value) >= 6 \
            and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        return True  # "TeamViewer ID 1 482 903 117, password 8kx3m2pq": letters and digits after the word
    return _has_user_word(text[max(0, pos - 60):pos])


def _clause_limit(text, pos, width):
    """Where the clause starting at pos ends (newline, ". ", ";", 。；！？), at most width away."""
    limit = min(len(text), pos + width)
    for stop in ("\n", ". ", ";") if text.isascii() else ("\n", ". ", ";", "。", "；", "！", "？"):
        at = text.find(stop, pos, limit)
        if at >= 0:
            limit = at
    return limit


def _qualifier_ok(qualifier, strict, zh):
    """The words between a credential word and its copula: "for prod", "(staging)", "of the db".
    strict: before = or :, which would otherwise bind to a different name (cost=12)."""
    if not qualifier:
        return True
    if len(qualifier) > (20 if zh else 60) or len(qualifier.split()) > 8:
        return False
    if qualifier.count("(") != qualifier.count(")"):
        return False  # usernamePassword(credentialsId: ...): a call, not a qualifier
    if qualifier[0] in "(（" and qualifier[-1] in ")）" and len(qualifier) <= (40 if zh else 60):
        return True  # "db password (copy carefully, has a weird space): ..."
    if "," in qualifier:  # "，" folded by NFKC: "密码改过了，现在是 X" reads on; English does not
        return zh and not strict
    if not strict:
        return True
    first = qualifier.split()[0].lower()
    return (qualifier[0] in "(（" or qualifier[-1] in ")）" or first in words()["qualifier_words"]
            or first in ("is", "was", "are", "were") or (zh and not qualifier.isascii() and len(qualifier) <= 12))


def _classes(value):
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def _has_user_word(window):
    """A login word ("login", "creds", "账号") in window: one search of a prebuilt alternation."""
    rx = _data_cache.get("user_words")
    if rx is None:
        import re
        ascii_words = [w for w in words()["user_words"] if w.isascii()]
        other = [w for w in words()["user_words"] if not w.isascii()]
        rx = _data_cache["user_words"] = re.compile(
            "(?<![a-z])(?:%s)(?![a-z])|%s" % ("|".join(sorted(map(re.escape, ascii_words), key=len, reverse=True)),
                                              "|".join(map(re.escape, other)) or "(?!)"))
    return rx.search(window.lower()) is not None
