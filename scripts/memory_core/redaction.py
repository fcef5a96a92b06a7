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
import binascii
import math
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
    ("vault-token", ("s.",), r"(?<![\w.])s\.(?=[A-Za-z]*[0-9])[A-Za-z0-9]{24}" + _R),
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
_NAME_STEMS = (r"(?i:pass|pwd|secret|token|key|auth|cred|login|session|access)|"
               r"密码|口令|令牌|密钥|秘钥")
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
                    "hot", "sub", "ssh", "gpg", "pgp", "host", "known", "foreign", "kms", "key",
                    "my", "the", "a", "any", "some", "this", "that", "dedup", "natural", "surrogate"}
# Words after the secret word that turn the name into metadata about the secret.
_META_SUFFIXES = {"name", "names", "id", "ids", "file", "files", "path", "dir", "url", "uri", "urls",
                  "endpoint", "length", "len", "size", "count", "type", "types", "hash", "event",
                  "source", "var", "variable", "env", "field", "header", "prefix", "suffix", "format",
                  "policy", "expiry", "expires", "expiration", "ttl", "lifetime", "timeout", "required",
                  "enabled", "min", "max", "limit", "rotation", "version", "label", "hint", "regex",
                  "pattern", "manager", "store", "provider", "location", "ref", "reference", "arn",
                  "key", "keys", "vault", "mode", "method", "scheme", "store", "storage", "service",
                  "helper", "command", "cmd", "script", "env", "selector", "pair", "pressed", "down",
                  "up", "reset", "changed", "change", "strength", "rule", "rules", "error", "errors",
                  "input", "prompt", "dialog", "form", "page", "screen", "field", "column", "table",
                  "algorithm", "algo", "alg", "kind", "flag", "option", "options", "config", "setting",
                  "settings", "check", "validation", "validator", "generator", "budget", "usage",
                  "count", "counts", "estimate", "budget", "index", "idx", "position", "pos", "chars",
                  "characters", "digits", "bits", "bytes", "encoding", "hint", "hash", "hashed",
                  "digest", "salt", "ids", "owner", "user", "username", "issuer", "audience", "scope",
                  "scopes", "uri", "callback", "redirect", "exchange", "refresh"}
_NOT_REAL_WORDS = {"fake", "dummy", "example", "sample", "mock", "placeholder", "not", "non", "no",
                   "invalid", "wrong", "bogus", "csrf", "xsrf", "authenticity", "public", "pub",
                   "next", "page", "continuation", "cursor", "pagination", "sync", "max", "num",
                   "total", "input", "output", "prompt", "completion"}

_ASSIGN_OPS = r":::=|::=|:=|\?=|\.=|\+=|=>|<-|=|:|：|＝|,"
_SCHEMES = r"(?i:Bearer|Basic|Token|Digest|Api-Token|ApiKey|Bot|OAuth)"

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
    if low.strip("'\"`[](){}<>") in _PLACEHOLDER_WORDS:
        return True
    if any(marker in low for marker in _PLACEHOLDER_MARKERS):
        return True
    if len(value) >= 4 and len(set(value)) <= 3:
        return True
    # 123123123123, abababab: a short unit repeated is typed by hand, not generated.
    return _has_run(value) or _re(r"(.{2,4})\1{3,}").search(value) is not None


def _is_word_like(value):
    """Letters joined by separators ("insert_key_here", "shorter-version"): words, not a key.
    Long letter-only strings with few vowels (random keys without digits) still count as keys."""
    if not _re(r"[A-Za-z]+(?:[-_. ][A-Za-z]+)*\Z").match(value):
        return False
    letters = [c for c in value if c.isalpha()]
    if len(letters) >= 12:
        vowels = sum(1 for c in letters if c in "aeiouAEIOU")
        mixed = any(c.isupper() for c in letters[1:]) and any(c.islower() for c in letters)
        if mixed and vowels < 0.3 * len(letters):
            return False
    return True


def _is_reference(value):
    """Code or configuration pointing elsewhere: $VAR, %VAR%, call(), obj.attr, CONSTANT_NAME."""
    if value[:1] in "$%@&*[{(":
        return True
    if any(c in value for c in "()[]"):
        return True  # call() or index[...]
    if _re(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z").match(value) and not _re(r"\d").search(value):
        return True
    if _re(r"[A-Z][A-Z_]*_[A-Z_]+\Z").match(value):
        return True
    return False


def _is_prose_base64(value):
    """Base64 of ordinary text (a message, not a key): decodes to printable words with spaces."""
    if len(value) < 16 or not _re(r"[A-Za-z0-9+/]+={0,2}\Z").match(value):
        return False
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    if b" " not in raw:
        return False
    wordy = sum(1 for b in raw if 65 <= b <= 90 or 97 <= b <= 122 or b in b" ,.!?'")
    return wordy >= 0.85 * len(raw)


def _looks_like_uuid(value):
    return bool(_re(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
                .match(value))


def _value_is_secret(value, strength, quoted):
    """strength: "password", "secret" (token, api key), "weak" (auth, creds, vendor key) or
    "id" (access id: like weak, but an id that is a UUID is an identifier, not a credential)."""
    if not value or len(value) > 1000 or " " in value:
        return False
    if any(ord(c) < 33 or ord(c) > 126 for c in value):
        return False  # non-ASCII (prose in another language) or control characters
    if _is_placeholder(value) or "://" in value:
        return False
    if not quoted and _is_reference(value):
        return False
    if value[:1] in "/~" or value.startswith("./") or _re(r"[\w-]+\.(?:txt|pem|key|json|ya?ml|env|"
                                                           r"cfg|conf|ini|crt|p12|pfx|jks)\Z").match(value):
        return False  # a file path
    if _is_word_like(value) or _is_prose_base64(value):
        return False
    if _re(r"v?\d+(?:[.:/+-]\d+)*\Z").match(value) and not value.isdigit():
        return False  # version, date, time, ratio
    if value.isdigit():
        return len(value) >= (8 if strength == "password" else 16)
    if strength == "password":
        return len(value) >= 6
    if strength == "secret":
        return len(value) >= 8
    if _looks_like_uuid(value):
        return strength == "weak"
    return (len(value) >= 12 and _re(r"[A-Za-z]").search(value) is not None
            and _re(r"\d").search(value) is not None and _entropy(value) >= 3.0)


def _split_words(name):
    return [w.lower() for w in _re(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[\u4e00-\u9fff]+").findall(name)]


def _name_strength(name):
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
        elif word == "id" or word in _META_SUFFIXES:
            continue
        else:
            continue
        if any(w in _META_SUFFIXES for w in words[i + 1:]) and not (word == "id"):
            return None
        if any(w in _NOT_REAL_WORDS for w in words[:i]):
            return None
        return strength
    return None


# ---------------------------------------------------------------------------------------------
# Finders. Each yields (rank, kind, start, end); lower rank wins when spans overlap.

def _provider_findings(text):
    for kind, needles, pattern in _PROVIDERS:
        if not any(n in text for n in needles):
            continue
        for m in _re(pattern).finditer(text):
            start, end = m.span("s") if "s" in m.re.groupindex else m.span()
            secret = text[start:end]
            if kind == "jwt":
                if not _jwt_parts_decode(secret):
                    continue
            elif _is_placeholder(secret) or text[end:end + 3] in ("...", "###", "***", "xxx", "XXX"):
                continue  # xoxp-123-456-#######: the token is a template
            yield 1, kind, start, end


def _b64_json_start(segment):
    """Decode a base64url segment (possibly truncated); true when it is a JSON object."""
    seg = segment.replace("-", "+").replace("_", "/")
    seg = seg[:len(seg) - len(seg) % 4]
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
        end_m = _re(_PRIVATE_KEY_END).search(text, m.end())
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
    rx = _re(r"(?<![\w-])(?:-u|--user)(?:[ \t]+|=)(?P<cred>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)+)")
    for m in rx.finditer(text):
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
    stems = _re(_NAME_STEMS)
    after_name = _re(r"(?P<close>[\"'`\]]{0,2})(?:[ \t]+(?:string|String|str))?[ \t]*"
                     r"(?P<op>" + _ASSIGN_OPS + r")?")
    value_rx = _re(r"[ \t]*(?:(?P<scheme>" + _SCHEMES + r")[ \t]+)?"
                   r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\r\n]{0,1000})|(?P<uv>[^\s\"'`<>,;]{1,1000}))")
    last_name_end = -1
    for hit in stems.finditer(text):
        if hit.start() < last_name_end:
            continue  # same identifier as the previous hit
        start, end = hit.start(), hit.end()
        while start > 0 and _is_ident_char(text[start - 1]):
            start -= 1
        while end < len(text) and _is_ident_char(text[end]):
            end += 1
        last_name_end = end
        name = text[start:end].strip(".-")
        strength = _name_strength(name)
        if strength is None:
            continue
        found = _assigned_value(text, start, end, name, after_name, value_rx)
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


def _assigned_value(text, start, end, name, after_name, value_rx):
    """(value start, value end, quoted) of what `name` is set to, or None."""
    m = after_name.match(text, end)
    op = m.group("op")
    pos = m.end()
    if op is None:
        if text[start - 1:start] == "<" and text[end:end + 1] == ">":  # <fooToken>value</fooToken>
            close = text.find("<", end + 1, end + 2000)
            if close < 0:
                return None
            inner = text[end + 1:close]
            vstart = end + 1 + len(inner) - len(inner.lstrip())
            return vstart, vstart + len(inner.strip()), True
        if name.startswith("-") and text[end:end + 1] in " \t":  # --token VALUE
            pos = end
        else:
            return None
    elif op == "," and not (m.group("close") and text[start - 1:start] in "\"'"):
        return None  # f(token, x): only ("NAME", "value") pairs count
    v = value_rx.match(text, pos)
    if v is None:
        return None
    if v.group("q"):
        if op == "," and not v.group("q"):
            return None
        vstart, value = v.start("qv"), v.group("qv")
        scheme = _re(r"[ \t]*" + _SCHEMES + r"[ \t]+").match(value)
        if scheme:  # "Bearer abc..." inside quotes
            vstart, value = vstart + scheme.end(), value[scheme.end():]
        return vstart, vstart + len(value), True
    if op == ",":
        return None
    return v.start("uv"), v.end("uv"), False


def _extra_findings(text, extra_patterns):
    for kind, pattern in extra_patterns:
        rx = _compile_extra(kind, pattern)
        for m in rx.finditer(text):
            if "secret" in rx.groupindex:
                span = m.span("secret")
            elif rx.groups and m.group(1) is not None:
                span = m.span(1)
            else:
                span = m.span()
            if span[1] > span[0]:
                yield 1, str(kind), span[0], span[1]


def _compile_extra(kind, pattern):
    key = ("extra", kind, pattern)
    rx = _compiled.get(key)
    if rx is None:
        try:
            rx = re.compile(pattern)
        except (re.error, TypeError) as exc:
            raise ValueError("secret pattern %r has an invalid regex %r: %s" % (kind, pattern, exc))
        _compiled[key] = rx
    return rx


# ---------------------------------------------------------------------------------------------
# Public functions.

_MARKER = "[redacted:"


def find_secrets(text, extra_patterns=()):
    """Findings in text, sorted by start and non-overlapping. Raises ValueError for a bad extra
    pattern ((kind, regex) pairs from the user's config; group "secret" or group 1 marks the
    secret, else the whole match)."""
    extra_patterns = list(extra_patterns or ())
    for kind, pattern in extra_patterns:
        _compile_extra(kind, pattern)  # fail on a bad pattern even when the text is empty
    if not text:
        return []
    candidates = []
    for finder in (_private_key_findings, _provider_findings, _url_findings,
                   _cli_credential_findings, _assignment_findings):
        candidates.extend(finder(text))
    if extra_patterns:
        candidates.extend(_extra_findings(text, extra_patterns))
    # Text already masked is never flagged again.
    masked_spans = [m.span() for m in _re(r"\[redacted:[\w.:-]*\]").finditer(text)] if _MARKER in text else []
    chosen = []
    for rank, kind, start, end in sorted(candidates, key=lambda c: (c[0], c[2], c[2] - c[3])):
        if end <= start:
            continue
        if any(s < end and start < e for s, e in masked_spans):
            continue
        if any(f[1] < end and f[0] < f[1] and start < f[1] and f[0] < end for f in chosen):
            continue
        chosen.append((start, end, kind))
    chosen.sort()
    return [Finding(kind, start, end, text.count("\n", 0, start) + 1) for start, end, kind in chosen]


def mask_secrets(text, extra_patterns=()):
    """(masked text, findings): each secret value becomes [redacted:<kind>]; names around it stay.
    Masking is repeated until nothing is left, so masking the result again changes nothing; the
    findings are those of the original text."""
    findings = find_secrets(text, extra_patterns)
    masked, current = text, findings
    while current:
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
