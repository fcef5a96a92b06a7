"""Credentials in fixed formats: login pairs ("admin / Gr4fana!Prod", "账号/密码：a / b"), .netrc
and .pgpass lines, passwords in command flags (sshpass -p, docker login -p, mysql -pSECRET,
redis-cli -a, htpasswd -b), curl -u user:pass, and {"key": NAME, "value": VALUE} objects.

Split from credentials.py (names and prose), whose value tests it shares. Each finder yields
(rank, kind, start, end) of the value only, on normalised text.
"""
from .credentials import (_TAIL, _algorithm_like, _classes, _data_cache, _has_user_word, name_strength,
                          plain_value_ok, value_is_secret)
from .redaction import _re, is_reference, is_versionish, is_word_like, password_is_real, words

def pair_findings(text):
    """"login: bot / S0nar!Bot", "Grafana: admin / Gr4fana!Prod", "creds admin:Netgear#2023"."""
    vocab = words()
    low = None
    if "/" in text:
        for m in _slash_pairs(text):
            low = text.lower() if low is None else low
            user, pw = m.group("u"), m.group("p").rstrip(_TAIL)
            common = user.lower() in vocab["common_usernames"]
            near = _has_user_word(low[max(0, m.start() - 40):m.start()] + " " + low[m.end():m.end() + 40])
            # spaced "bot / S0nar!Bot" needs a known user or a login word; "root/Toor123!" both.
            # A password with every character class ("svc_rabbit / rB7!kqLp93") needs neither:
            # paths and ratios never look like that.
            strong = (m.group("sp") and len(pw) >= 8 and _classes(pw) >= 4
                      and any(c in "!@#$%^&*?~" for c in pw))  # base64 and paths hold only + / = _ -
            if ((common and near if not m.group("sp") else common or near) or strong) and _pair_password_ok(pw, user):
                yield 2, "login-pair", m.start("p"), m.start("p") + len(pw)
    if ":" in text and _has_user_word(text):  # every ":" pair needs a login word near it
        rx = _re(r"(?<![\w/:@.$%{-])(?P<u>[A-Za-z][\w.-]{0,40}):(?P<p>[^\s:@/,;'\"`<>]{4,64})(?=[\s.,;)\]}'\"]|\Z)")
        for m in rx.finditer(text):
            user, pw = m.group("u"), m.group("p").rstrip(_TAIL)
            if user.lower() in vocab["hash_names"] or user.lower() in ("http", "https", "mailto", "data", "file"):
                continue
            low = text.lower() if low is None else low
            near = _has_user_word(low[max(0, m.start() - 40):m.start()] + " " + low[m.end():m.end() + 40])
            if near and _pair_password_ok(pw, user):
                yield 2, "login-pair", m.start("p"), m.start("p") + len(pw)


def _slash_pairs(text):
    """Matches of user / password, looked for only around each "/" (str.find): a regex tried at
    every letter of a long text costs far more on prose than the few windows do."""
    rx = _re(r"(?<![\w/.-])(?P<u>[A-Za-z][\w.@-]{0,40})(?P<sp>[ \t]*)/[ \t]*(?P<p>[^\s/,;'\"`]{4,64})(?![\w/])")
    at, last = text.find("/"), 0
    while at >= 0:
        for m in rx.finditer(text, max(last, at - 48), min(len(text), at + 72)):
            if m.end("sp") == at:  # this "/" is the pair's
                last = m.end()
                yield m
                break
        at = text.find("/", max(at + 1, last))


def key_value_findings(text):
    """{"key": "access_token", "value": "EQqu..."} (Postman environments, tag lists): the name
    and the value are two fields of one object."""
    if '"value"' not in text:
        return
    rx = _re(r'"(?:key|name)"\s*:\s*"(?P<n>[^"\n]{1,80})"\s*,\s*"value"\s*:\s*"(?P<v>[^"\n]{1,512})"')
    for m in rx.finditer(text):
        strength = name_strength(m.group("n"))
        if strength and value_is_secret(m.group("v"), strength, True):
            yield 3, "secret-assignment", m.start("v"), m.end("v")


def labelled_pair_findings(text):
    """"账号/密码：finance_ro / Fin@nce2024", "user/pass: admin:S3cret!": a label that names both,
    then both; the second is the password."""
    if "/" not in text and "／" not in text:
        return
    low = text.lower()
    if not any(w in low for w in ("密码", "口令", "pass", "pwd")):
        return
    rx = _re(r"(?i)(?:账号|帐号|用户名|用户|user(?:name)?|login)[ \t]*/[ \t]*(?:密码|口令|pass(?:word)?|pwd)"
             r"[ \t]*[:：=][ \t]*(?P<u>[\w.@-]{1,40})[ \t]*[/:，,][ \t]*(?P<p>[^\s,，;；（(]{4,64})")
    for m in rx.finditer(text):
        pw = m.group("p").rstrip(_TAIL)
        if _pair_password_ok(pw, m.group("u")):
            yield 2, "login-pair", m.start("p"), m.start("p") + len(pw)


def _pair_password_ok(pw, user):
    if not password_is_real(pw, user) or is_versionish(pw) or is_reference(pw) or _algorithm_like(pw):
        return False
    if not any(c.isalpha() for c in pw) or len(pw) < 6 or _re(r"\d+\.\d").match(pw):
        return False  # nginx:1.25-alpine is an image tag
    ext = pw.rpartition(".")[2].lower()
    if "." in pw and (ext in words()["file_extensions"] or ext in ("ps1", "sh", "py", "js", "ts", "md", "bat", "cmd")):
        return False  # deploy/install-kiosk.ps1 is a path
    return any(c.isdigit() for c in pw) or any(not c.isalnum() for c in pw)


def netrc_findings(text):
    if "pgpass" in text or text.count(":") >= 4:  # hostname:port:database:username:password
        # named .pgpass anywhere; otherwise only a line that is nothing but such an entry
        line = r"[^\s:'\"]+:(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:(?P<s>[^\s:'\"]+)"
        for m in _re(line if "pgpass" in text else r"(?m)^[ \t]*" + line + r"[ \t]*$").finditer(text):
            if plain_value_ok(m.group("s"), "password", "sep", True):
                yield 2, "netrc-password", m.start("s"), m.end("s")
    if "login" not in text or "password" not in text:
        return
    rx = _re(r"(?:\bmachine\s+\S+|\bdefault)\s+(?:login\s+\S+\s+)?(?:account\s+\S+\s+)?password\s+(?P<s>\S+)")
    for m in rx.finditer(text):
        value = m.group("s").strip("'\"")
        if plain_value_ok(value, "password", "sep", True):
            start = m.start("s") + m.group("s").index(value)
            yield 2, "netrc-password", start, start + len(value)


# ---------------------------------------------------------------------------------------------
# Commands.

def _commands():
    """({command or "command subcommand": (flags, glued flags, positional)}, first words)."""
    table = _data_cache.get("commands")
    if table is None:
        vocab, table = words(), {}
        for key, rows in (("flags", vocab["cli_flags"]), ("glued", vocab["cli_glued"])):
            for command, flag in rows:
                table.setdefault(command, {"flags": set(), "glued": set(), "positional": []})[key].add(flag)
        for command, marker, n in vocab["cli_positional"]:
            table.setdefault(command, {"flags": set(), "glued": set(), "positional": []})["positional"].append((marker, n))
        table = _data_cache["commands"] = (table, tuple(sorted({c.split()[0] for c in table})))
    return table


def command_findings(text):
    if " -" not in text and "password" not in text and "net user" not in text and "add_user" not in text \
            and " login " not in text and " /p " not in text and " alias set " not in text \
            and " host add " not in text:
        return  # every command below takes a flag, a "password" word or one of these
    table, firsts = _commands()
    for first in firsts:
        at = text.find(first)
        while at >= 0:
            end = at + len(first)
            if (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_./-")) and \
                    (end == len(text) or not (text[end].isalnum() or text[end] in "_-")):
                for found in _command_at(text, first, end, table):
                    yield found
            at = text.find(first, end)


def _command_at(text, command, end, table):
    sub = _re(r"[ \t]+([a-z_-]+)").match(text, end)
    spec = table.get(command + " " + sub.group(1)) if sub else None
    if spec is not None:
        end = sub.end()
    else:
        spec = table.get(command)
        if spec is None:
            return  # docker run -p 8080:80: only "docker login" takes a password
    for start, stop in _password_args(_split_args(text, end), spec, text):
        if text.startswith("pass:", start):
            start += 5  # openssl -passin pass:SECRET (env:VAR, file:PATH are references)
        value = text[start:stop]
        if plain_value_ok(value, "password", "sep", True) and not (value.isalpha() and value.islower()):
            yield 2, "password-in-command", start, stop


def _split_args(text, pos):
    """[(start, end)] of the arguments up to the end of the command (newline, |, ;, &&); an
    argument may glue quoted pieces to a flag (-p'S3cret')."""
    args, rx = [], _re(r"[ \t]+((?:\"[^\"\n]*\"|'[^'\n]*'|[^\s|;&<>\"']+)+)")
    for _ in range(40):
        m = rx.match(text, pos)
        if m is None:
            break
        args.append(m.span(1))
        pos = m.end()
    return args


def _unquote(text, start, end):
    if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start]:
        return start + 1, end - 1
    return start, end


def _password_args(args, spec, text):
    values = [text[a:b] for a, b in args]
    for i, arg in enumerate(values):
        start, end = args[i]
        for flag in spec["flags"]:
            if arg == flag and i + 1 < len(args):
                yield _unquote(text, *args[i + 1])
            elif flag[:2] == "--" and arg.startswith(flag + "="):
                yield _unquote(text, start + len(flag) + 1, end)
        for flag in spec["glued"]:
            if arg.startswith(flag) and len(arg) > len(flag) and arg[:2] != "--":
                yield _unquote(text, start + len(flag), end)
    for marker, n in spec["positional"]:  # htpasswd -b FILE USER PASSWORD: marker -b, n 3
        at = -1 if not marker else next((i for i, v in enumerate(values) if v == marker or (
            marker[0] == "-" and v[:1] == "-" and v[:2] != "--" and marker[1:] in v[1:])), None)
        plain = [a for a in args[at + 1:] if text[a[0]] != "-"] if at is not None else []
        if len(plain) >= n:
            yield _unquote(text, *plain[n - 1])


def curl_findings(text):
    """curl -u user:pass / --user user:pass (also wget, http clients)."""
    if "-u" not in text:
        return
    # Literal first (no leading look-behind), so `re` jumps from one "-u" to the next.
    rx = _re(r"-(?:u|-user)(?:[ \t]+|=)(?P<cred>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`]+)+)")
    for m in rx.finditer(text):
        before = text[m.start() - 1:m.start()]
        if before and (before.isalnum() or before in "_-"):
            continue  # "re-use", "--user" seen from its second dash
        raw, base = m.group("cred"), m.start("cred")
        # the unquoted characters, and each one's offset in the text
        offsets = [base + i for i, ch in enumerate(raw) if ch not in "\"'`"]
        cred = "".join(ch for ch in raw if ch not in "\"'`")
        if ":" not in cred or any(t in cred for t in ("${", "{{", "$(", "[", "<")):
            continue  # templated: {{ .Values.password }}, ${PASS}, $(cat file), <user:password>
        colon = cred.index(":")
        user, pw = cred[:colon], cred[colon + 1:]
        if user.startswith("$") or pw.startswith("$"):
            continue
        lo, hi = (colon + 1, len(cred)) if pw else (0, colon)
        secret = (pw or user).strip("{}")
        if not password_is_real(secret, user.strip("{}") if pw else ""):
            continue
        if secret.isdigit() and len(secret) < 8 or is_word_like(secret):
            continue  # docker -u 1000:1000, -u user:pass
        yield 2, "password-in-command", offsets[lo], offsets[hi - 1] + 1


def table_findings(text):
    """A Markdown table whose header names a password column: every cell of that column holds one
    ("| env | user | password |" ... "| qa | app_rw | Kestrel#2291 |")."""
    if "|" not in text or "\n" not in text:
        return
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    column = None
    for number, line in enumerate(lines):
        cells = line.strip().strip("|").split("|") if line.strip().startswith("|") else None
        if cells is None:
            column = None
            continue
        if column is None:
            names = [c.strip().lower() for c in cells]
            column = next((i for i, n in enumerate(names) if name_strength(n) == "password"), None)
            continue
        if column >= len(cells) or set(cells[column].strip()) <= set("-: "):
            continue
        value = cells[column].strip()
        if plain_value_ok(value, "password", "sep", True):
            start = offsets[number] + line.index("|") + 1 + sum(len(c) + 1 for c in cells[:column])
            start += cells[column].index(value)
            yield 2, "password-in-table", start, start + len(value)


def terraform_findings(text):
    """variable "db_admin_password" { ... default = "Harbor-Lights-5520!" }: the block's name says
    what its default holds."""
    if "variable" not in text or "default" not in text:
        return
    rx = _re(r'variable\s+"(?P<n>[\w-]{1,80})"\s*\{(?P<b>[^{}]{0,2000})\}')
    for m in rx.finditer(text):
        strength = name_strength(m.group("n"))
        d = _re(r'\bdefault\s*=\s*"(?P<v>[^"\n]{1,512})"').search(m.group("b"))
        if strength and d and value_is_secret(d.group("v"), strength, True):
            start = m.start("b") + d.start("v")
            yield 3, "secret-assignment", start, start + len(d.group("v"))


def strong_token_findings(text):
    """A token with upper and lower case, digits and punctuation ("Qx4!vLp9#rT2",
    "Winter-Harvest-0419") in a sentence that speaks of logging in or of a password: "login with
    root and Qx4!vLp9#rT2", "用 root 加 Gw_2023@iot!x 登". Such tokens are typed passwords."""
    # Runs of token characters, then the character classes in Python: lookaheads tried at every
    # position cost ten times more.
    rx = _re(r"(?<![\w!@#$%^&*?~+=./\\:-])(?=[\w!@#$%^&*?~+=.-]{0,63}[A-Z])(?=[\w!@#$%^&*?~+=.-]{0,63}[0-9])"
             r"[\w!@#$%^&*?~+=./\\:-]{8,64}")
    if not any(c in text for c in "!@#$%^&*?~+-") or not _has_login_word(text.lower()):
        return  # cheap tests first: most texts have no symbol-bearing token or no login word
    low = None
    for m in rx.finditer(text):
        token = m.group()
        if token[-1:] == "." and token[-2:-1] != ".":  # the sentence's full stop
            token = token[:-1]
        if not (8 <= len(token) <= 64 and token[0].isalnum() and _classes(token) >= 4):
            continue
        if not any(c in "!@#$%^&*?~+-" for c in token) or "." in token or "=" in token or \
                any(c in token for c in "/\\:"):
            continue  # an identifier, a version, a domain, KEY_ID=...: not typed as a password
        if is_reference(token) or not password_is_real(token):
            continue
        low = text.lower() if low is None else low
        lo = max(low.rfind(stop, 0, m.start()) for stop in (". ", "\n", "。", "；", "; "))
        hi = min([x for x in (low.find(stop, m.end()) for stop in (". ", "\n", "。", "；", "; ")) if x >= 0] or [len(low)])
        end = m.start() + len(token)
        window = low[max(lo + 1, m.start() - 120, 0):m.start()] + " " + low[end:min(hi, end + 60)]
        if not any(c in "!@#$%^&*?~+" for c in token) or token.startswith(("X-", "x-")):
            # Words joined by - or _ ("Winter-Harvest-0419", "X-Shopify-Hmac-Sha256") read as a
            # password only where a password is named, not merely a key or a login.
            if not _has_password_word(window):
                continue
        if _has_login_word(window):
            yield 3, "password-in-text", m.start(), end


def _has_password_word(window):
    """A password word; "storepassword", "keypassword" count (the word may end an identifier)."""
    return any(w in window for w in words()["password_only_words"] if not w.isascii()) or \
        _re(r"(?:password|passwd|passphrase)(?![a-z])|(?<![a-z])(?:%s)(?![a-z])"
            % "|".join(w for w in words()["password_only_words"] if w.isascii())).search(window) is not None


def _has_login_word(window):
    """A word of logging in or of a password in window (lower case): one prebuilt alternation."""
    rx = _data_cache.get("login_words")
    if rx is None:
        import re
        vocab = words()["login_context_words"]
        ascii_words = sorted((re.escape(w) for w in vocab if w.isascii()), key=len, reverse=True)
        other = [re.escape(w) for w in vocab if not w.isascii()]
        rx = _data_cache["login_words"] = re.compile(
            "(?<![a-z0-9])(?:%s)(?![a-z0-9])|%s" % ("|".join(ascii_words), "|".join(other) or "(?!)"))
    return rx.search(window) is not None
