"""Tests for scripts/memory_core/redaction.py, the secret detector used by record and load.

Fake credentials are assembled at run time from pieces (see _tok), so this file holds no
contiguous token that a repository secret scanner would flag.
"""
import base64
import json
import unittest

import _support
from memory_core.redaction import Finding, describe, find_secrets, mask_secrets

try:
    from hypothesis import given, settings, strategies as st
except ImportError:  # pragma: no cover - hypothesis is a test-only dependency
    given = None

# Random-looking material for fake tokens: no runs, no placeholder words.
ALNUM = "q8Zt3vLp0XmR7cWk2NbY5hGd9FjS4aUe1TyQ6oIr8PzK3wMx0VnB7sDl2CgH5fJ4bE6nA9uV1iO7kT3rY5eW8"
LETTERS = "qZtvLpXmRcWkNbYhGdFjSaUeTyQoIrPzKwMxVnBsDlCgHfJbEnAuViOkTrYeWa"
HEX = "9f3c1a7e5b2d8046e1c3a5f7b9d20486ace13579bdf02468fa91c3e5d7b20846"


def _tok(*parts):
    return "".join(parts)


def _b64url(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _jwt():
    return ".".join([_b64url({"alg": "HS256", "typ": "JWT"}),
                     _b64url({"sub": "1234567890", "name": "Test User", "iat": 1516239022}),
                     ALNUM[:43]])


def _pem(label):
    body = "\n".join([ALNUM[:64], ALNUM[10:74], ALNUM[20:60] + "=="])
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, body, label)


def kinds(text):
    return [f.kind for f in find_secrets(text)]


def flagged_values(text):
    return [text[f.start:f.end] for f in find_secrets(text)]


class ProviderTokenTest(unittest.TestCase):
    """Each provider family is found, and the finding covers exactly the token."""

    def assertToken(self, token, kind, template="{}"):
        text = template.format(token)
        findings = find_secrets(text)
        self.assertEqual([f.kind for f in findings], [kind], text)
        self.assertEqual(text[findings[0].start:findings[0].end], token)

    def test_aws(self):
        self.assertToken(_tok("AKIA", "Q7W3E5R2T6Y4U2I3"), "aws-access-key", "key id {} in the CI job")
        self.assertToken(_tok("ASIA", "Q7W3E5R2T6Y4U2I3"), "aws-access-key")
        self.assertToken(_tok("wJ4lrXUtnFEMI/K7MDENG/", "bPxRfiCYq3zT8kLm2N"), "secret-assignment",
                         "aws_secret_access_key = {}")

    def test_github(self):
        self.assertToken(_tok("gh", "p_", ALNUM[:36]), "github-token", "GITHUB_TOKEN={}")
        self.assertToken(_tok("gh", "s_", ALNUM[5:41]), "github-token")
        self.assertToken(_tok("github", "_pat_", "11A", ALNUM[:22], "_", ALNUM[:57]), "github-token")

    def test_gitlab(self):
        self.assertToken(_tok("gl", "pat-", ALNUM[:20]), "gitlab-token", "token: {}")
        self.assertToken(_tok("gl", "rt-", ALNUM[3:23]), "gitlab-token")

    def test_slack(self):
        self.assertToken(_tok("xo", "xb-", "781236542736-2364535789652-", ALNUM[:24]), "slack-token")
        self.assertToken(_tok("xo", "xp-", "41684372915-1320496754-45609968301-", HEX[:32]), "slack-token")
        self.assertToken(_tok("xa", "pp-1-A052FGTS2DL-5171572773297-", HEX[:64]), "slack-token")
        hook = _tok("T0DCUJB1Q/B0DD08H5G/", ALNUM[:24])
        self.assertToken(hook, "slack-webhook", "https://hooks.slack.com/services/{}")

    def test_stripe(self):
        self.assertToken(_tok("sk", "_live_", ALNUM[:24]), "stripe-key")
        self.assertToken(_tok("rk", "_live_", ALNUM[4:28]), "stripe-key")
        self.assertToken(_tok("sk", "_test_", ALNUM[:30]), "stripe-key")

    def test_openai_and_anthropic(self):
        self.assertToken(_tok("sk-", ALNUM[:20], "T3Blbk", "FJ", ALNUM[20:40]), "openai-key")
        self.assertToken(_tok("sk-", "proj-", ALNUM[:60], "_", ALNUM[:40]), "openai-key")
        self.assertToken(_tok("sk-", "ant-api03-", ALNUM[:60], "-", ALNUM[:32], "AA"), "anthropic-key",
                         "ANTHROPIC_API_KEY={}")

    def test_google_npm_pypi_huggingface(self):
        self.assertToken(_tok("AI", "za", "Sy", ALNUM[:33]), "google-api-key")
        self.assertToken(_tok("np", "m_", ALNUM[:36]), "npm-token")
        self.assertToken(_tok("py", "pi-AgEIcHlwaS5vcmc", ALNUM[:60]), "pypi-token")
        self.assertToken(_tok("h", "f_", LETTERS[:34]), "huggingface-token")

    def test_other_providers(self):
        self.assertToken(_tok("op", "s_eyJ", ALNUM * 2), "1password-token")
        self.assertToken(_tok("S", "K", HEX[:32]), "twilio-key")
        self.assertToken(_tok("S", "G.", ALNUM[:22], ".", ALNUM[30:73]), "sendgrid-key")
        discord_id = base64.b64encode(b"123456789012345678").decode()
        self.assertToken(_tok(discord_id, ".", "Cx2FMQ", ".", ALNUM[:27]), "discord-token")
        self.assertToken(_tok("123456789", ":AA", ALNUM[:33]), "telegram-bot-token")
        self.assertToken(_tok("bP8", "8Q~", ALNUM[:34]), "azure-client-secret", "client_secret={}")
        self.assertToken(_tok("do", "p_v1_", HEX), "digitalocean-token")
        self.assertToken(_tok("sh", "pat_", HEX[:32]), "shopify-token")
        self.assertToken(_tok("hv", "s.", (ALNUM * 2)[:91]), "vault-token")

    def test_jwt(self):
        token = _jwt()
        self.assertToken(token, "jwt", "Authorization: Bearer {}")
        self.assertToken(token, "jwt", '{{"id_token": "{}"}}')

    def test_private_keys(self):
        for label in ("RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY",
                      "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"):
            block = _pem(label)
            self.assertEqual(kinds("key:\n" + block + "\nend"), ["private-key"], label)
            self.assertEqual(flagged_values(block), [block])
        # JSON-escaped, as in a service-account file
        escaped = _pem("PRIVATE KEY").replace("\n", "\\n")
        self.assertEqual(kinds('{"private_key": "%s\\n"}' % escaped), ["private-key"])


class CredentialTest(unittest.TestCase):
    """Passwords in URLs and commands, and key = value assignments in every common syntax."""

    def test_password_in_url(self):
        for url, password in (("postgres://app:s3cr3tPw9x@db.internal:5432/app", "s3cr3tPw9x"),
                              ("mongodb+srv://app:myR3al@Pw0rd@cluster0.example.net/db", "myR3al@Pw0rd"),
                              ("redis://:Rk29Lm3Qp8@cache:6379/0", "Rk29Lm3Qp8"),
                              ("jdbc:mysql://admin:str0ngP4ss@db:3306/app", "str0ngP4ss")):
            self.assertEqual(kinds(url), ["password-in-url"], url)
            self.assertEqual(flagged_values(url), [password], url)

    def test_doubled_word_is_still_a_password(self):
        # A unit repeated three or more times reads as a placeholder; twice can be a real password.
        self.assertEqual(kinds("https://bob:hunter2hunter2@example.com/x"), ["password-in-url"])
        self.assertEqual(kinds("password=123123123123"), [])

    def test_connection_string_and_command(self):
        ado = "Server=db;User ID=sa;Password=Str0ng!Pass9;Database=app;"
        self.assertEqual(flagged_values(ado), ["Str0ng!Pass9"])
        self.assertEqual(kinds(ado), ["password-assignment"])
        curl = "curl -u admin:Adm1n!2024x https://api.internal/x"
        self.assertEqual(kinds(curl), ["password-in-command"])
        self.assertEqual(flagged_values(curl), ["Adm1n!2024x"])

    def test_assignment_syntaxes(self):
        value = "Xk29fLq0aPz81mNb"
        for template in ("password={}", "passwd: {}", 'pwd = "{}"', "export DB_PASSWORD={}",
                         "token={}", "secret: '{}'", 'api_key: "{}"', "apikey={}", "access_key = {}",
                         "client_secret: {}", '"auth_token": "{}",', "export X_TOKEN={}",
                         'var githubToken string = "{}"', "apiToken := `{}`", "<serviceToken>\n  {}\n</serviceToken>",
                         'System.setProperty("SERVICE_TOKEN", "{}")', "login --token {} --verbose",
                         "Authorization: Bearer {}", '"Authorization": "Bearer {}"', "X-Api-Key: {}",
                         "os.environ['SERVICE_API_TOKEN'] = '{}'", "AUTH_CLIENTSECRET = {}"):
            text = template.format(value)
            self.assertEqual(flagged_values(text), [value], text)

    def test_kinds_of_assignments(self):
        self.assertEqual(kinds("password=hunter2xyz"), ["password-assignment"])
        self.assertEqual(kinds("api_token=hunter2xyz"), ["secret-assignment"])
        self.assertEqual(kinds("auth: dXNlcjpwYXNzd29yZDEyMw3k"), ["high-entropy-assignment"])
        self.assertEqual(kinds("herokuKey = 832d2129-a846-4e27-99f4-7004b6ad53ef"),
                         ["high-entropy-assignment"])

    def test_chinese_keys(self):
        self.assertEqual(kinds("数据库密码：Tr0ub4dor&3x9Q"), ["password-assignment"])
        self.assertEqual(flagged_values("数据库密码：Tr0ub4dor&3x9Q"), ["Tr0ub4dor&3x9Q"])
        self.assertEqual(kinds("令牌=8f3kd92jfk3la0slxk2m"), ["secret-assignment"])
        for text in ("口令=Hunter2Xyz!", "访问令牌＝ghx9Kd82kfLq02mZpQ7s", "密钥: 9f8e7d6c5b4a3f2e1d0c",
                     "秘钥：Zx81kLq0Pm3nB7vC"):
            self.assertEqual(len(find_secrets(text)), 1, text)


class NotFlaggedTest(unittest.TestCase):
    """Ordinary facts must pass: a tool that refuses them is soon switched off."""

    def assertClean(self, *texts):
        for text in texts:
            self.assertEqual(find_secrets(text), [], text)

    def test_hashes_and_ids(self):
        self.assertClean("fixed in commit 3821f30b06c69f761a8019196a6ce4cd0ddc513a",
                         'Revert "7fb21a4"', "git checkout 87d96295d6", "906085fba6b5",
                         "request_id=e3eff9c0-cf44-4d3f-89e7-d15f17362f25",
                         '"sessionId": "2fa91425-cb00-4853-9d2c-67eda13ffe79"',
                         "clientId = \"73082700-1f09-405b-80d0-3131bfd6272d\"",
                         "checksum: 0cb7a896bb62ff2ba1f3e286adc037a1fb5f1f46cc65c0efcf076df49fd108a5",
                         "e8beb6280d8ea75eec993125eabe308887e49c1c91693f0436a75cf2c3a47824  notes.txt")

    def test_lockfile_and_module_hashes(self):
        self.assertClean("resolution: {integrity: sha512-" + ALNUM[:86] + "==}",
                         "integrity sha256-" + ALNUM[:43] + "=",
                         "golang.org/x/mod v0.1.0/go.mod h1:" + ALNUM[:43] + "=",
                         '"packageManager": "pnpm@10.4.1+sha512.' + HEX + HEX + '"')

    def test_placeholders(self):
        self.assertClean("OPENAI_API_KEY=sk-xxxx", "token: <your-token>", "TOKEN=${TOKEN}",
                         "export API_KEY=$API_KEY", "api_key: YOUR_API_KEY", "password: changeme",
                         "password: ****", "password=", "token: null", "secret: example",
                         "token = " + "x" * 40, "aws_access_key: AKIAIOSFODNN7EXAMPLE",
                         _tok("gh", "p_") + "x" * 36, "password: aaaaaaaaaa",
                         'secret = get_secret_key()', 'secret = request.headers["apikey"]',
                         "api_key = settings.OPENAI_API_KEY", 'GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}',
                         "Authorization: Bearer $TOKEN", "curl -u $USER:$PASS https://x",
                         "mongodb://username:password@localhost:27017/db",
                         "https://${user}:${password}@api.example.com",
                         "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----")

    def test_prose_and_key_names(self):
        self.assertClean("the password must be at least 12 characters", "rotate the token every 90 days",
                         "the secret sauce is caching", "set GITHUB_TOKEN in CI",
                         "The API key is read from OPENAI_API_KEY (see config.py).",
                         "password_min_length: 12", "max_tokens: 4096", "input_tokens=1532",
                         "TOKEN_EXPIRY=3600", "secret_name: db-password", "access_token_url: https://x/y",
                         "csrf_token = request.cookies.get('csrftoken')", "primary_key: id",
                         "keyboard shortcut: ctrl+k", "auth: oauth2", "Tests pass: 42/42",
                         "密码必须至少12位", "令牌每90天轮换一次", "密码：至少12位")

    def test_paths_urls_versions_and_base64_text(self):
        self.assertClean("see scripts/memory_core/redaction.py and /etc/ssl/private/key.pem",
                         "https://github.com/org/repo/blob/main/README.md",
                         "postgres://localhost:5432/app", "DATABASE_URL=postgres://app@localhost/app",
                         "version 1.2.3, node >= 18.17.0", "password_file: /run/secrets/db_password",
                         "docker run -u 1000:1000 image", "git push -u origin main",
                         "payload: " + base64.b64encode(b"Thanks, John! See you at the meeting.").decode(),
                         "ANY_KEY = " + base64.b64encode(b"dummy text data data data").decode())

    def test_masked_text(self):
        self.assertClean("[redacted:github-token] was rotated", "password=[redacted:password-assignment]",
                         "postgres://app:[redacted:password-in-url]@db/app",
                         'token: "[redacted:secret-assignment]"')


class MaskTest(unittest.TestCase):

    def test_mask_keeps_names(self):
        masked, findings = mask_secrets("password=hunter2xyz")
        self.assertEqual(masked, "password=[redacted:password-assignment]")
        self.assertEqual([f.kind for f in findings], ["password-assignment"])
        token = _tok("gh", "p_", ALNUM[:36])
        masked, _ = mask_secrets('GITHUB_TOKEN="%s" # CI only' % token)
        self.assertEqual(masked, 'GITHUB_TOKEN="[redacted:github-token]" # CI only')

    def test_mask_is_idempotent(self):
        text = "\n".join(["db: postgres://app:s3cr3tPw9x@db:5432/app", "api_key: " + ALNUM[:24],
                          "jwt " + _jwt(), _pem("RSA PRIVATE KEY"), "no secret here"])
        masked, findings = mask_secrets(text)
        self.assertEqual(len(findings), 4)
        self.assertEqual(find_secrets(masked), [])
        self.assertEqual(mask_secrets(masked), (masked, []))
        self.assertIn("no secret here", masked)

    def test_line_numbers_and_order(self):
        text = "first line\n" + _tok("gh", "p_", ALNUM[:36]) + "\n\nuser: bob\npassword: Hunter2Xyz!\n"
        findings = find_secrets(text)
        self.assertEqual([(f.kind, f.line) for f in findings],
                         [("github-token", 2), ("password-assignment", 5)])
        self.assertEqual(describe(findings), "github-token at line 2, password-assignment at line 5")
        self.assertTrue(all(isinstance(f, Finding) for f in findings))
        self.assertEqual(describe([]), "no secrets found")

    def test_findings_sorted_and_disjoint(self):
        text = "Authorization: Bearer %s\ntoken=%s x=%s" % (_jwt(), _tok("gh", "p_", ALNUM[:36]),
                                                            _tok("sk", "_live_", ALNUM[:24]))
        findings = find_secrets(text)
        self.assertEqual([f.kind for f in findings], ["jwt", "github-token", "stripe-key"])
        for a, b in zip(findings, findings[1:]):
            self.assertLessEqual(a.end, b.start)

    def test_describe_is_short(self):
        text = "\n".join("password%d=Hunter2Xyz%d!" % (i, i) for i in range(9))
        line = describe(find_secrets(text))
        self.assertTrue(line.endswith("and 4 more"), line)
        self.assertNotIn("\n", line)


class ExtraPatternTest(unittest.TestCase):

    def test_extra_pattern_found_and_masked(self):
        extra = [("internal-ticket-key", r"TK-[0-9]{6}-[A-Z]{4}")]
        text = "deploy with TK-123456-ABCD please"
        self.assertEqual(kinds(text), [])
        findings = find_secrets(text, extra)
        self.assertEqual([(f.kind, text[f.start:f.end]) for f in findings],
                         [("internal-ticket-key", "TK-123456-ABCD")])
        masked, _ = mask_secrets(text, extra)
        self.assertEqual(masked, "deploy with [redacted:internal-ticket-key] please")
        self.assertEqual(mask_secrets(masked, extra), (masked, []))

    def test_group_marks_the_secret(self):
        extra = [("corp-pin", r"pin code (\d{6})"), ("corp-id", r"corp:(?P<secret>[a-z]{8})!")]
        masked, findings = mask_secrets("pin code 482913 and corp:abcdefgh!", extra)
        self.assertEqual(masked, "pin code [redacted:corp-pin] and corp:[redacted:corp-id]!")
        self.assertEqual(len(findings), 2)

    def test_kind_is_made_marker_safe(self):
        masked, findings = mask_secrets("ref AB-1234", [("my kind!", r"AB-\d+")])
        self.assertEqual(masked, "ref [redacted:my-kind]")
        self.assertEqual(findings[0].kind, "my-kind")

    def test_bad_pattern_raises_value_error_naming_kind(self):
        for text in ("some text", ""):
            with self.assertRaises(ValueError) as ctx:
                find_secrets(text, [("ticket-key", r"TK-([0-9")])
            self.assertIn("ticket-key", str(ctx.exception))
            self.assertIn("TK-([0-9", str(ctx.exception))
        with self.assertRaises(ValueError):
            mask_secrets("x", [("only-a-kind",)])


@unittest.skipIf(given is None, "hypothesis not installed")
class PropertyTest(unittest.TestCase):
    if given is not None:
        FRAGMENTS = ["password=", "token: ", "api_key=", '"secret": "', "://", "user:", "@host/db",
                     " -u ", "Bearer ", "[redacted:", "]", "\n", "=", ":", '"', "'",
                     _tok("gh", "p_", ALNUM[:36]), _tok("AKIA", "Q7W3E5R2T6Y4U2I3"), ALNUM[:20],
                     "Hunter2Xyz!", _jwt(), _pem("RSA PRIVATE KEY"), "postgres://a:s3cr3tPw9x@db/x",
                     "-----BEGIN PRIVATE KEY-----", "密码：", "xoxb-", "sk-", "eyJ", "..."]

        @settings(max_examples=300, deadline=None)
        @given(st.lists(st.one_of(st.text(max_size=20), st.sampled_from(FRAGMENTS)), max_size=14)
               .map("".join))
        def test_mask_never_raises_and_leaves_nothing(self, text):
            masked, findings = mask_secrets(text)
            self.assertEqual(find_secrets(masked), [])
            self.assertEqual(mask_secrets(masked), (masked, []))
            for a, b in zip(findings, findings[1:]):
                self.assertLessEqual(a.end, b.start)

        @settings(max_examples=200, deadline=None)
        @given(st.text())
        def test_arbitrary_text(self, text):
            masked, _ = mask_secrets(text)
            self.assertEqual(find_secrets(masked), [])


class DatasetTest(unittest.TestCase):
    """Recall and false-positive rate on the labelled set in ../shared/data (skipped when absent)."""

    def test_recall_and_false_positive_rate(self):
        path = _support.shared_data("secrets-dev.jsonl")
        with open(str(path), encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        secrets = [r for r in rows if r["is_secret"]]
        lookalikes = [r for r in rows if not r["is_secret"]]
        missed = [r["id"] for r in secrets if not find_secrets(r["text"])]
        false_pos = [r["id"] for r in lookalikes if find_secrets(r["text"])]
        recall = 1 - len(missed) / float(len(secrets))
        fpr = len(false_pos) / float(len(lookalikes))
        _support.report_metric("secrets recall", "%.3f" % recall)
        _support.report_metric("secrets false-positive rate", "%.3f" % fpr)
        print("secrets-dev: recall %.3f (%d missed), false-positive rate %.3f (%d flagged)"
              % (recall, len(missed), fpr, len(false_pos)))
        self.assertGreaterEqual(recall, 0.95, "recall %.3f; missed e.g. %s" % (recall, missed[:12]))
        self.assertLessEqual(fpr, 0.05, "false-positive rate %.3f; e.g. %s" % (fpr, false_pos[:12]))


class PathologicalInputTest(unittest.TestCase):
    """Hooks have timeouts: long junk must stay linear, not backtrack."""

    def test_long_junk_is_fast(self):
        import time
        for text in ("password=" * 20000, "-u " * 50000, "密码：" * 30000, '"token", "' * 20000,
                     "<token>" * 30000, ("-----BEGIN PRIVATE KEY-----\n" + "AAAA\n") * 5000,
                     "eyJ" + "A" * 100000 + ".eyJ" + "B" * 100000, "https://u:" + "p@" * 50000):
            start = time.perf_counter()
            mask_secrets(text)
            self.assertLess(time.perf_counter() - start, 5.0, text[:30])


if __name__ == "__main__":
    unittest.main()
