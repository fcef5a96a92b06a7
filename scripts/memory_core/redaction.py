"""Secret detection and masking.

The recorder refuses a fact that holds a secret; the loader masks secrets already sitting in
hand-edited files. Three families of rules, cheapest first:

1. provider tokens with a recognisable shape (``ghp_...``, ``AKIA...``, PEM blocks, JWTs), each
   behind a literal needle so a text without the needle never runs (or compiles) the regex;
2. credentials inside URLs and ``curl -u user:pass``;
3. assignments ``name = value`` whose name says secret (password, token, api_key, 密码, ...) and
   whose value looks like a real credential rather than a placeholder, a reference or prose.

Stdlib only, Python 3.8, deterministic. Regexes compile on first use because every hook run is a
fresh process and pays compile cost again.
"""
import re
from collections import namedtuple

Finding = namedtuple("Finding", "kind start end line")

# Left/right edges: a token glued to other alphanumerics is part of something else.
_L = r"(?<![A-Za-z0-9])"
_R = r"(?![A-Za-z0-9])"
_RD = r"(?![\w-])"  # right edge for tokens whose alphabet includes "-"

# ---------------------------------------------------------------------------------------------
# Provider table: (kind, literal needles, regex). A row runs only when one needle occurs in the
# text (case-sensitive, like the prefixes). A named group "s" marks the secret part; otherwise the
# whole match is the secret.
_PROVIDERS = (
    ("aws-access-key", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
     _L + r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}" + _R),
    ("aws-bedrock-key", ("ABSKQmVkcm9ja0FQSUtleS",),
     _L + r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}"),
    ("aws-bedrock-key", ("bedrock-api-key-",),
     r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]*"),
    ("github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
     _L + r"gh[pousr]_[A-Za-z0-9]{36,251}" + _R),
    ("github-token", ("github_pat_",), _L + r"github_pat_[A-Za-z0-9_]{50,}"),
    # GitLab token formats have documented lengths; near-misses outside them are not tokens.
    ("gitlab-token", ("glpat-", "gldt-", "glrt-", "glcbt-", "glft-", "glffct-"),
     _L + r"gl(?:pat|dt|rt|cbt|ft|ffct)-[\w.-]{20,}" + _RD),
    ("gitlab-token", ("glsoat-",), _L + r"glsoat-[\w-]{20,50}" + _RD),
    ("gitlab-token", ("glagent-",), _L + r"glagent-[\w-]{50,}" + _RD),
    ("gitlab-token", ("glimt-",), _L + r"glimt-[\w-]{25}" + _RD),
    ("gitlab-token", ("glptt-",), _L + r"glptt-[\w-]{40}" + _RD),
    ("gitlab-token", ("gloas-",), _L + r"gloas-[\w-]{64}" + _RD),
    ("gitlab-token", ("GR1348941",), _L + r"GR1348941[\w-]{20,50}" + _RD),
    ("gitlab-token", ("_gitlab_session=",), r"_gitlab_session=(?P<s>[0-9a-z]{32})" + _R),
    ("slack-token", ("xox",), _L + r"xox[bpoesar]-\d{6,}-[A-Za-z0-9-]{8,}"),
    ("slack-token", ("xox",), _L + r"xox[ar]-(?:\d-)?[A-Za-z0-9]{8,48}" + _R),
    ("slack-token", ("xoxe",), _L + r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{40,}"),
    ("slack-token", ("xapp-",), _L + r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+"),
    ("slack-webhook", ("hooks.slack.com/",),
     r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/+-]{20,})"),
    ("teams-webhook", (".webhook.office.com/",),
     r"\.webhook\.office\.com/webhookb2/(?P<s>[\w-]{8,}@[\w-]{8,}/IncomingWebhook/\w{16,}/[\w-]{8,})"),
    ("stripe-key", ("sk_", "rk_"), _L + r"[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,}" + _R),
    ("anthropic-key", ("sk-ant-",), _L + r"sk-ant-(?:api|admin)\d\d-[\w-]{90,100}AA" + _RD),
    # OpenAI keys carry "T3BlbkFJ" (base64 of "OpenAI"); project/service keys are long.
    ("openai-key", ("T3BlbkFJ",), _L + r"sk-(?:proj-|svcacct-|admin-)?[\w-]{16,}T3BlbkFJ[\w-]{16,}"),
    ("openai-key", ("sk-proj-", "sk-svcacct-", "sk-admin-"),
     _L + r"sk-(?:proj|svcacct|admin)-[\w-]{40,}"),
    ("google-api-key", ("AIza",), _L + r"AIza[\w-]{35}" + _RD),
    ("npm-token", ("npm_",), _L + r"npm_[A-Za-z0-9]{36}" + _R),
    ("pypi-token", ("pypi-AgE",), _L + r"pypi-AgE[\w-]{50,}"),
    ("huggingface-token", ("hf_",), _L + r"hf_[A-Za-z]{34}" + _R),
    ("huggingface-token", ("api_org_",), _L + r"api_org_[A-Za-z]{34}" + _R),
    ("1password-token", ("ops_eyJ",), _L + r"ops_eyJ[A-Za-z0-9+/_-]{100,}={0,2}"),
    ("1password-secret-key", ("A3-",),
     _L + r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}" + _R),
    ("twilio-key", ("SK",), _L + r"SK[0-9a-fA-F]{32}" + _R),
    ("sendgrid-key", ("SG.",), _L + r"SG\.[\w-]{22}\.[\w-]{43}" + _RD),
    ("discord-token", (".",), r"[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,}"),
    ("telegram-bot-token", (":AA",), _L + r"\d{8,10}:AA[\w-]{32,33}" + _RD),
    ("azure-client-secret", ("Q~",), r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])"),
    ("digitalocean-token", ("_v1_",), _L + r"do[opr]_v1_[a-f0-9]{64}" + _R),
    ("shopify-token", ("shpss_", "shpat_", "shpca_", "shppa_"),
     _L + r"shp(?:ss|at|ca|pa)_[A-Za-z0-9]{32,}" + _R),
    ("facebook-token", ("EAA",), _L + r"EAA[MC][A-Za-z0-9]{80,}"),
    ("facebook-token", ("|",), _L + r"\d{15,16}\|[\w-]{27,40}" + _RD),
    ("square-token", ("EAAA",), _L + r"EAAA[\w-]{22,60}" + _RD),
    ("square-token", ("sq0atp-", "sq0csp-"), _L + r"sq0(?:atp|csp)-[\w\\-]{22,60}"),
    ("vault-token", ("hvs.", "hvb.", "hvr."), _L + r"hv[sbr]\.[\w-]{90,}"),
    ("databricks-token", ("dapi",), _L + r"dapi[a-fA-F0-9]{32}(?:-\d)?" + _R),
    ("grafana-token", ("glc_",), _L + r"glc_[A-Za-z0-9+/]{32,}={0,2}"),
    ("grafana-token", ("glsa_",), _L + r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _R),
    ("grafana-token", ("eyJrIjoi",), _L + r"eyJrIjoi[A-Za-z0-9]{60,}={0,2}"),
    ("sentry-token", ("sntrys_eyJ",), _L + r"sntrys_eyJ[A-Za-z0-9+/=_]{50,}"),
    ("sentry-token", ("sntryu_",), _L + r"sntryu_[a-f0-9]{64}" + _R),
    ("notion-token", ("ntn_",), _L + r"ntn_[0-9]{11}[A-Za-z0-9]{35}" + _R),
    ("figma-token", ("figd_",), _L + r"figd_[\w-]{40,}"),
    ("groq-key", ("gsk_",), _L + r"gsk_[A-Za-z0-9]{52}" + _RD),
    ("vercel-token", ("vcp_", "vci_", "vca_", "vcr_", "vck_"), _L + r"vc[pikar]_[A-Za-z0-9]{24,}" + _R),
    ("cloudflare-token", ("cfat_", "cfut_", "cfk_"), _L + r"cf(?:at|ut|k)_[A-Za-z0-9]{40,}" + _R),
    ("cloudflare-token", ("v1.0-",), _L + r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}" + _R),
    ("perplexity-key", ("pplx-",), _L + r"pplx-[A-Za-z0-9]{48}" + _R),
    ("mailchimp-key", ("-us",), _L + r"[0-9a-f]{32}-us\d{1,2}" + _R),
    ("sendinblue-key", ("xkeysib-",), _L + r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _R),
    ("postman-key", ("PMAK-",), _L + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _R),
    ("newrelic-key", ("NRAK-", "NRJS-", "NRII-"), _L + r"NR(?:AK|JS|II)-[A-Za-z0-9]{19,32}" + _R),
    ("heroku-key", ("HRKU-",), _L + r"HRKU-[\w-]{40,}"),
    ("sourcegraph-token", ("sgp_",), _L + r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}" + _R),
    ("openshift-token", ("sha256~",), _L + r"sha256~[\w-]{43}" + _RD),
    ("easypost-key", ("EZAK", "EZTK"), r"(?<![A-Za-z0-9+/])EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9+/])"),
    ("atlassian-token", ("ATATT3",), _L + r"ATATT3[\w=-]{150,}"),
    ("intra42-secret", ("s-s4t2",), _L + r"s-s4t2(?:ud|af)-[a-f0-9]{64}" + _R),
    ("planetscale-token", ("pscale_",), _L + r"pscale_(?:pw|tkn|oauth)_[\w=.-]{32,}"),
    ("rubygems-key", ("rubygems_",), _L + r"rubygems_[a-f0-9]{48}" + _R),
    ("clojars-token", ("CLOJARS_",), _L + r"CLOJARS_[a-z0-9]{60}" + _R),
    ("linear-key", ("lin_api_",), _L + r"lin_api_[A-Za-z0-9]{40}" + _R),
    ("doppler-token", ("dp.pt.",), _L + r"dp\.pt\.[A-Za-z0-9]{43}" + _R),
    ("dynatrace-token", ("dt0c01.",), _L + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _R),
    ("pulumi-token", ("pul-",), _L + r"pul-[a-f0-9]{40}" + _R),
    ("flyio-token", ("fo1_",), _L + r"fo1_[\w-]{43}" + _RD),
    ("flyio-token", ("FlyV1 ",), r"FlyV1 (?P<s>fm\d_[A-Za-z0-9+/=_-]{100,})"),
    ("flutterwave-key", ("FLWSECK", "FLWPUBK"), _L + r"FLW(?:SEC|PUB)K_TEST-[a-h0-9]{12,32}(?:-X)?" + _R),
    ("adobe-secret", ("p8e-",), _L + r"p8e-[A-Za-z0-9]{32}" + _R),
    ("alibaba-key", ("LTAI",), _L + r"LTAI[A-Za-z0-9]{20}" + _R),
    ("sidekiq-secret", ("CONTRIBSYS__COM",),
     r"CONTRIBSYS__COM\w*[\"']?[ \t]*(?:=|:)[ \t]*[\"']?(?P<s>[0-9a-f]{8}:[0-9a-f]{8})" + _R),
    ("jwt", ("eyJ",), _L + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?"),
)

_PRIVATE_KEY_BEGIN = r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"
_PRIVATE_KEY_END = r"-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----"

# ---------------------------------------------------------------------------------------------
# Assignment rules: a name that says "secret", then a separator, then a value that looks real.

# Lower-case stems that may start a secret name; the whole identifier is classified afterwards.
_NAME_STEMS = r"pass|pw|secret|token|key|auth|cred|login|session|access|密码|口令|令牌|密钥|秘钥"
_PASSWORD_WORDS = {"password", "passwd", "pwd", "pass", "passphrase", "passcode", "pw"}
_SECRET_WORDS = {"secret", "token", "apikey", "secretkey", "privatekey", "accesskey", "accesstoken",
                 "authtoken", "clientsecret", "authorization", "bearer"}
# Plurals ("secrets:", "passwords") name collections, not one credential.
_WEAK_WORDS = {"auth", "cred", "creds", "credential", "credentials", "login", "session"}
# "<word> key" compounds that are credentials by themselves.
_KEY_COMPOUNDS = {"api", "secret", "private", "access", "auth", "master", "signing", "encryption",
                  "account", "license", "licence", "app", "client", "service", "admin", "storage",
                  "shared", "webhook", "sas", "root", "deploy", "session"}
# "<word> key" compounds that name data structures or public material, not credentials.
_STRUCTURAL_KEYS = {"primary", "foreign", "sort", "partition", "cache", "hash", "public", "pub",
                    "row", "column", "schema", "sequence", "bucket", "object", "map", "dict", "lookup",
                    "unique", "composite", "index", "group", "routing", "idempotency", "shortcut",
                    "hot", "sub", "ssh", "gpg", "pgp", "host", "known", "kms", "dedup", "natural",
                    "surrogate", "key"}
# Words after the secret word that make the name metadata about a secret: token_url, secret_name.
_META_SUFFIXES = {"name", "names", "id", "ids", "file", "files", "path", "dir", "url", "urls", "uri",
                  "endpoint", "length", "len", "size", "count", "counts", "type", "types", "kind",
                  "hash", "hashed", "digest", "salt", "event", "source", "var", "variable", "env",
                  "field", "header", "prefix", "suffix", "format", "encoding", "policy", "rule", "rules",
                  "strength", "expiry", "expires", "expiration", "ttl", "lifetime", "timeout",
                  "required", "enabled", "min", "max", "limit", "budget", "usage", "estimate",
                  "rotation", "reset", "change", "changed", "refresh", "exchange", "version", "label",
                  "hint", "regex", "pattern", "manager", "store", "storage", "vault", "provider",
                  "service", "helper", "location", "ref", "reference", "arn", "key", "keys", "mode",
                  "method", "scheme", "algorithm", "algo", "alg", "command", "cmd", "script", "input",
                  "prompt", "dialog", "form", "page", "screen", "column", "table", "flag", "option",
                  "options", "config", "setting", "settings", "check", "validation", "validator",
                  "generator", "index", "idx", "position", "pos", "chars", "characters", "digits",
                  "bits", "bytes", "error", "errors", "owner", "user", "username", "issuer",
                  "audience", "scope", "scopes", "callback", "redirect"}
# Words before the secret word that say the value is not a real credential (or not a credential
# at all: csrf_token, next_page_token, max_tokens).
_NOT_REAL_WORDS = {"fake", "dummy", "example", "sample", "mock", "placeholder", "not", "non", "no",
                   "invalid", "wrong", "bogus", "csrf", "xsrf", "authenticity", "public", "pub",
                   "next", "page", "continuation", "cursor", "pagination", "sync", "max", "num",
                   "total", "input", "output", "prompt", "completion"}

_ASSIGN_OPS = r":::=|::=|:=|\?=|\.=|\+=|=>|<-|=|:|：|＝|,"
# "Authorization: Bearer VALUE": the scheme word is skipped, the value after it is the secret.
_AUTH_SCHEMES = {"bearer", "basic", "token", "digest", "api-token", "apikey", "bot", "oauth"}

# ---------------------------------------------------------------------------------------------
# Placeholders and non-secrets.
_PLACEHOLDER_MARKERS = ("xxxx", "****", "...", "your", "example", "sample", "placeholder", "changeme",
                        "change_me", "change-me", "replace", "dummy", "fake", "redacted", "insert",
                        "here", "<", ">", "${", "{{", "}}", "$(", "#{", "<%", "%s", "%(", "####",
                        "notreal", "not_real", "not-real", "not_a_real", "xxx-xxx", "todo:")
_PLACEHOLDER_WORDS = {"password", "passwd", "pass", "pwd", "secret", "token", "apikey", "api_key",
                      "key", "null", "none", "nil", "undefined", "true", "false", "yes", "no", "empty",
                      "required", "optional", "string", "str", "admin", "root", "test", "user",
                      "username", "default", "hidden", "unknown", "tbd", "todo", "n/a", "off", "on",
                      "disabled", "enabled", "mypassword", "yourpassword", "secretpassword",
                      "letmein", "qwerty", "abc123", "foobar", "foo", "bar", "baz", "value",
                      "mysecret", "mytoken", "xxx", "***", "env", "secret_key", "access_token"}

_compiled = {}


def _re(pattern, flags=0):
    """Compile on first use and keep it: hooks are fresh processes, so unused rules cost nothing."""
    key = (pattern, flags)
    rx = _compiled.get(key)
    if rx is None:
        rx = _compiled[key] = re.compile(pattern, flags)
    return rx


def _entropy(value):
    import math  # lazily: most scans never get here
    counts = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = float(len(value))
    return -sum(c / n * math.log(c / n, 2) for c in counts.values())


def _has_run(value, size=6):
    """A character repeated `size` times in a row: xxxxxx, 000000, ######."""
    run = 1
    for i in range(1, len(value)):
        run = run + 1 if value[i] == value[i - 1] else 1
        if run >= size:
            return True
    return False


def _is_placeholder(value):
    low = value.lower()
    if low.strip("'\"`[](){}<>=:") in _PLACEHOLDER_WORDS:
        return True
    if any(marker in low for marker in _PLACEHOLDER_MARKERS):
        return True
    if len(value) >= 4 and len(set(value)) <= 3:
        return True
    # 123123123123, abababab, pass=pass=pass=: a short unit repeated is typed, not generated.
    if any(value[p:] == value[:-p] for p in range(1, min(12, len(value) // 3) + 1)):
        return True
    return _has_run(value) or _re(r"(.{2,4})\1{3,}").search(value) is not None


def _has_classes(value):
    """Digits, upper and lower case together: generated, not typed words."""
    return (any(c.isdigit() for c in value) and any(c.isupper() for c in value)
            and any(c.islower() for c in value))


def _is_word_like(value):
    """Letters joined by separators ("insert_key_here", "shorter-version"): words, not a key.
    Long letter-only strings with few vowels (random keys without digits) still count as keys."""
    if not all(part.isalpha() and part.isascii() for part in _split_on(value, "-_. ")):
        return False
    letters = [c for c in value if c.isalpha()]
    if len(letters) >= 12:
        vowels = sum(1 for c in letters if c in "aeiouAEIOU")
        mixed = any(c.isupper() for c in letters[1:]) and any(c.islower() for c in letters)
        if mixed and vowels < 0.3 * len(letters):
            return False
    return True


def _split_on(value, separators):
    for sep in separators[1:]:
        value = value.replace(sep, separators[0])
    return value.split(separators[0])


def _is_reference(value):
    """Code or configuration pointing elsewhere: $VAR, %VAR%, call(), obj.attr, CONSTANT_NAME."""
    if value[:1] in "$%@&*[{(":
        return True
    if any(c in value for c in "()[]"):
        return True  # call() or index[...]
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts) and not any(c.isdigit() for c in value):
        return True  # settings.API_KEY, os.environ
    return value.isupper() and "_" in value and value.replace("_", "").isalpha()  # SL_API_KEY_ENV


def _is_prose_base64(value):
    """Base64 of ordinary text (a message, not a key): decodes to printable words with spaces."""
    if len(value) < 16 or not _re(r"[A-Za-z0-9+/]+={0,2}\Z").match(value):
        return False
    import binascii
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    if b" " not in raw:
        return False
    wordy = sum(1 for b in raw if 65 <= b <= 90 or 97 <= b <= 122 or b in b" ,.!?'")
    return wordy >= 0.85 * len(raw)


_HEX = frozenset("0123456789abcdefABCDEF")


def _looks_like_uuid(value):
    parts = value.split("-")
    return [len(p) for p in parts] == [8, 4, 4, 4, 12] and all(c in _HEX for p in parts for c in p)


_FILE_EXTENSIONS = {"txt", "pem", "key", "json", "yaml", "yml", "env", "cfg", "conf", "ini", "crt", "p12",
                    "pfx", "jks"}


def _value_is_secret(value, strength, quoted):
    """strength: "password", "secret" (token, api key), "weak" (auth, creds, vendor key) or
    "id" (access id: like weak, but an id that is a UUID is an identifier, not a credential)."""
    if not value or len(value) > 512 or " " in value:
        return False
    if any(ord(c) < 33 or ord(c) > 126 for c in value):
        return False  # non-ASCII (prose in another language) or control characters
    if _is_placeholder(value) or "://" in value:
        return False
    if not quoted and _is_reference(value):
        return False
    if value[:1] in "/~" or value.startswith("./") or value.rpartition(".")[2].lower() in _FILE_EXTENSIONS:
        return False  # a file path
    if _is_word_like(value) or _is_prose_base64(value):
        return False
    if not value.isdigit() and all(p.isdigit() for p in _split_on(value[1:] if value[:1] == "v" else value,
                                                                   ".:/+-")):
        return False  # version, date, time, ratio
    if value.isdigit():
        return len(value) >= (8 if strength == "password" else 16)
    if strength == "password":
        return len(value) >= 6
    if strength == "secret":
        return len(value) >= 8
    if _looks_like_uuid(value):
        return strength == "weak"
    return (len(value) >= 12 and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)
            and _entropy(value) >= 3.0)


def _split_words(name):
    # [^\x00-\x7f] instead of a CJK range: same effect here, far cheaper to compile.
    return [w.lower() for w in _re(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^\x00-\x7f]+").findall(name)]


_strength_cache = {}


def _name_strength(name):
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
    words = _split_words(name)
    for i in range(len(words) - 1, -1, -1):
        word = words[i]
        prev = words[i - 1] if i else ""
        strength = None
        if word[:1] >= "\u4e00":
            if word.endswith(("密码", "口令")):
                strength = "password"
            elif word.endswith(("令牌", "密钥", "秘钥")):
                strength = "secret"
            else:
                continue
        elif word in _PASSWORD_WORDS or word.endswith(("password", "passwd")):
            strength = "password"
        elif word in _SECRET_WORDS:
            strength = "secret"
        elif word in _WEAK_WORDS:
            strength = "weak"
        elif word == "key":
            if prev in _KEY_COMPOUNDS:
                strength = "secret"
            elif prev and prev not in _STRUCTURAL_KEYS and not prev.isdigit() and len(prev) > 1:
                if any(not w.isdigit() for w in words[i + 1:]):
                    return None  # key_down_event, keyPressed: a key, not a credential
                strength = "weak"
            else:
                return None
        elif word == "accessid" or (word == "id" and prev == "access"):
            strength = "id"
        else:
            continue
        if any(w in _META_SUFFIXES for w in words[i + 1:]):
            return None
        if any(w in _NOT_REAL_WORDS for w in words[:i]):
            return None
        return strength
    return None


# ---------------------------------------------------------------------------------------------
# Finders. Each yields (rank, kind, start, end); lower rank wins when spans overlap.

_UNIQUE_NEEDLES = sorted({n for _kind, needles, _pattern in _PROVIDERS for n in needles})


def _provider_findings(text):
    # Every provider token is one run of 12+ non-space characters holding its needle ("FlyV1 " is
    # the one needle with a space), so needles are looked for in those runs only: prose has few.
    runs = "\n".join(_re(r"\S{12,}").findall(text))
    if not runs:
        return
    present = {n for n in _UNIQUE_NEEDLES if n in runs or (" " in n and n in text)}
    if not present:
        return
    for kind, needles, pattern in _PROVIDERS:
        if present.isdisjoint(needles):
            continue
        for m in _re(pattern).finditer(text):
            start, end = m.span("s") if "s" in m.re.groupindex else m.span()
            secret = text[start:end]
            if kind == "jwt":
                if not _jwt_parts_decode(secret):
                    continue
            elif _is_placeholder(secret) or text[end:end + 3] in ("...", "###", "***", "xxx", "XXX"):
                continue  # xoxp-123-456-#######: the token is a template
            elif kind == "discord-token" and not _has_classes(secret.split(".")[0]):
                continue  # the first part is base64 of a numeric id, never a plain dotted name
            yield 1, kind, start, end


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
        if len(b64) >= 40 and _re(r"[A-Za-z0-9+/=]+\Z").match(b64) and not _has_run(b64, 12):
            yield 0, "private-key", m.start(), end


def _password_is_real(password, user=""):
    """Password part of a URL or user:pass pair."""
    if len(password) < 4 or password == user:
        return False
    low = password.lower()
    if _is_placeholder(password) or low.strip("{}") in _PLACEHOLDER_WORDS:
        return False
    if password[:1] in "$%{[<(" or ("password" in low and password.isalpha()):
        return False
    return True


def _url_findings(text):
    if "://" not in text or "@" not in text:
        return
    rx = _re(r"[A-Za-z][A-Za-z0-9+.-]{1,20}://(?P<user>[^\s:/?#@\"'<>]*):"
             r"(?P<pw>[^\s/?#\"'<>]+)@(?=[\w\[.-])")
    for m in rx.finditer(text):
        user, pw = m.group("user"), m.group("pw")
        if pw == "x-oauth-basic" and len(user) >= 20 and not _is_placeholder(user):
            yield 2, "password-in-url", m.start("user"), m.end("user")  # the token is the user
        elif _password_is_real(pw, user) and not user.startswith(("$", "{")):
            yield 2, "password-in-url", m.start("pw"), m.end("pw")


def _cli_credential_findings(text):
    """curl -u user:pass / --user user:pass (also wget, http clients)."""
    if "-u" not in text:
        return
    # Literal first (no leading look-behind), so `re` jumps from one "-u" to the next.
    rx = _re(r"-(?:u|-user)(?:[ \t]+|=)(?P<cred>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)+)")
    for m in rx.finditer(text):
        before = text[m.start() - 1:m.start()]
        if before and (before.isalnum() or before in "_-"):
            continue  # "re-use", "--user" seen from its second dash
        raw, base = m.group("cred"), m.start("cred")
        # Map each unquoted character back to its offset in the text.
        chars, offsets = [], []
        for i, ch in enumerate(raw):
            if ch not in "\"'":
                chars.append(ch)
                offsets.append(base + i)
        cred = "".join(chars)
        if ":" not in cred or any(t in cred for t in ("${", "{{", "$(", "[", "<")):
            continue  # templated: {{ .Values.password }}, ${PASS}, $(cat file), <user:password>
        colon = cred.index(":")
        user, pw = cred[:colon], cred[colon + 1:]
        if user.startswith("$") or pw.startswith("$"):
            continue
        lo, hi = (colon + 1, len(cred)) if pw else (0, colon)
        secret = (pw or user).strip("{}")
        if not _password_is_real(secret, user.strip("{}") if pw else ""):
            continue
        if secret.isdigit() and len(secret) < 8 or _is_word_like(secret):
            continue  # docker -u 1000:1000, -u user:pass
        yield 2, "password-in-command", offsets[lo], offsets[hi - 1] + 1


def _assignment_findings(text):
    # One regex finds a stem, the rest of its identifier and the separator after it. It runs on
    # lower-cased text: a case-sensitive alternation of literals lets `re` skip ahead fast, and
    # lower() keeps offsets unless a rare character changes length.
    low = text.lower()
    flags = 0
    if len(low) != len(text):
        low, flags = text, re.IGNORECASE
    # The rest of the identifier is ASCII: CJK names end with their stem (数据库密码).
    name_then_op = _re(r"(?:" + _NAME_STEMS + r")[A-Za-z0-9_.\-]*(?P<close>[\"'`\]]{0,2})"
                       r"(?:[ \t]+str(?:ing)?)?[ \t]*(?P<op>" + _ASSIGN_OPS + r")?", flags)
    for m in name_then_op.finditer(low):
        end = m.start("close")
        op, after = m.group("op"), text[end:end + 1]
        if op is None and after != ">" and after not in " \t":
            continue  # prose: "rotate the token every 90 days"
        start = m.start()
        while start > 0 and _is_ident_char(text[start - 1]):
            start -= 1
        strength = _name_strength(text[start:end].strip(".-"))
        if strength is None:
            continue
        found = _assigned_value(text, start, end, op, m.group("close"), m.end())
        if found is None:
            continue
        vstart, vend, quoted = found
        value = text[vstart:vend]
        if "..." in value or text[vend:vend + 3] == "...":
            continue  # elided in documentation: ops_eyJzaWdu...
        if not quoted:  # trailing sentence punctuation is not part of the value
            stripped = value.rstrip(".,;:)]}'\"")
            vend -= len(value) - len(stripped)
            value = stripped
        if _value_is_secret(value, strength, quoted):
            kind = {"password": "password-assignment", "secret": "secret-assignment"}.get(
                strength, "high-entropy-assignment")
            yield 3, kind, vstart, vend


def _is_ident_char(ch):
    return ch.isalnum() and ch.isascii() or ch in "_.-" or "\u4e00" <= ch <= "\u9fff"


def _assigned_value(text, start, end, op, close, pos):
    """(value start, value end, quoted) of what the name text[start:end] is set to, or None.
    op, close: the separator and closing quote after the name; pos: where the value may start."""
    if op is None:
        if text[start - 1:start] == "<" and text[end:end + 1] == ">":  # <fooToken>value</fooToken>
            close_tag = text.find("<", end + 1, end + 2000)
            if close_tag < 0:
                return None
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
    if v.group("q"):
        vstart, value = v.start("qv"), v.group("qv")
        scheme, _, rest = value.partition(" ")
        if scheme.lower() in _AUTH_SCHEMES and rest:  # "Bearer abc..." inside quotes
            vstart, value = vstart + len(value) - len(rest.lstrip()), rest.lstrip()
        return vstart, vstart + len(value), True
    if op == ",":
        return None
    if v.group("uv").lower() in _AUTH_SCHEMES:  # Authorization: Bearer abc...
        after = value_rx.match(text, v.end())
        if after is not None and after.group("uv") and not after.group("q"):
            return after.start("uv"), after.end("uv"), False
    return v.start("uv"), v.end("uv"), False


def _extra_findings(text, extra_patterns):
    for kind, rx in extra_patterns:
        for m in rx.finditer(text):
            if "secret" in rx.groupindex:
                span = m.span("secret")
            elif rx.groups and m.group(1) is not None:
                span = m.span(1)
            else:
                span = m.span()
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


# ---------------------------------------------------------------------------------------------
# Public functions.

_MARKER = "[redacted:"


def find_secrets(text, extra_patterns=()):
    """Findings in text, sorted by start and non-overlapping. Raises ValueError for a bad extra
    pattern ((kind, regex) pairs from the user's config; group "secret" or group 1 marks the
    secret, else the whole match)."""
    extra = _compile_extra(extra_patterns or ())  # a bad pattern fails even on empty text
    if not text:
        return []
    candidates = []
    for finder in (_private_key_findings, _provider_findings, _url_findings,
                   _cli_credential_findings, _assignment_findings):
        candidates.extend(finder(text))
    if extra:
        candidates.extend(_extra_findings(text, extra))
    # Text already masked is never flagged again.
    masked_spans = []
    if _MARKER in text:
        masked_spans = [m.span() for m in _re(r"\[redacted:[\w.-]*\]").finditer(text)]
    chosen = []
    for rank, kind, start, end in sorted(candidates, key=lambda c: (c[0], c[2], c[2] - c[3])):
        if end <= start:
            continue
        if any(s < end and start < e for s, e in masked_spans):
            continue
        if any(s < end and start < e for s, e, _kind in chosen):
            continue
        chosen.append((start, end, kind))
    chosen.sort()
    return [Finding(kind, start, end, text.count("\n", 0, start) + 1) for start, end, kind in chosen]


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
