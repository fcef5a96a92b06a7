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
        # 40 characters of base64 alphabet with AWS named in the text: the secret access key
        self.assertToken(_tok("wJ4lrXUtnFEMI/K7MDENG/", "bPxRfiCYq3zT8kLm2N"), "aws-secret-key",
                         "aws_secret_access_key = {}")
        self.assertToken(_tok("5ept+7LNC8yg4hlLtW8+", "e4XnDln99H2DVBfTP/eM"), "aws-secret-key",
                         "the AWS secret for the billing user: {}")

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


def masked(text):
    return mask_secrets(text)[0]


class PlainLanguageTest(unittest.TestCase):
    """Credentials written in words, English and Chinese: the value is found, prose is not."""

    def assertValue(self, text, value, kind=None):
        findings = find_secrets(text)
        self.assertEqual([text[f.start:f.end] for f in findings], [value], text)
        if kind:
            self.assertEqual(findings[0].kind, kind, text)

    def test_english_statements(self):
        for text, value in (("The prod Redis password is Tr0ub4dor&3, don't rotate it", "Tr0ub4dor&3"),
                            ("the password for the office NAS is MarbleStairs19 if you need it", "MarbleStairs19"),
                            ("The Keycloak admin pw is 'Qz7!vP2w#Lr9', set at bootstrap", "Qz7!vP2w#Lr9"),
                            ("elastic superuser password was regenerated -> 3vQ8*Zk1bTn0wYh", "3vQ8*Zk1bTn0wYh"),
                            ("jwt signing secret (HS256) for the auth service: " + ALNUM[:44], ALNUM[:44]),
                            ("GitHub webhook secret for the Atlantis hook: " + HEX[:40], HEX[:40]),
                            ("api key for openweather is " + HEX[:32], HEX[:32]),
                            ("set the SMTP app password to 'correct-horse-battery-staple'",
                             "correct-horse-battery-staple"),
                            ("The wifi password is bluebird.", "bluebird"),
                            ("the grafana admin password is still the default: Gr@fana2024", "Gr@fana2024")):
            self.assertValue(text, value)
        self.assertEqual(kinds("The prod Redis password is Tr0ub4dor&3"), ["password-in-text"])
        self.assertEqual(kinds("the uploader's secret is " + HEX[:12] + ALNUM[:20]), ["secret-in-text"])
        # 40 base64 characters with AWS named: the more specific kind wins
        self.assertEqual(kinds("the S3 uploader's secret is " + HEX[:20] + ALNUM[:20]), ["aws-secret-key"])

    def test_chinese_statements(self):
        for text, value in (("线上 Redis 密码是 zhangsan-secret", "zhangsan-secret"),
                            ("测试服 MongoDB 的密码改成了 Abc@123456，之前那个作废了", "Abc@123456"),
                            ("nacos 控制台密码改过了，现在是 nacos_Prod#7731。", "nacos_Prod#7731"),
                            ("跳板机 root 密码为 Jmp!k8s-2023Q4，进去之后先 sudo -i。", "Jmp!k8s-2023Q4"),
                            ("163 邮箱 SMTP 授权码 KJQWERTYBNMZXCVA，配在 alert-mailer 里", "KJQWERTYBNMZXCVA"),
                            ("foxmail 客户端的授权码填 yhdkwpzmqxbvtlnc 就行", "yhdkwpzmqxbvtlnc"),
                            ("和风天气的 API KEY 是 " + HEX[:32] + "，免费额度", HEX[:32]),
                            ("百度翻译 API：APPID 20230511001945463，密钥 " + ALNUM[:20], ALNUM[:20]),
                            ("公众号 AppID wxed138c1de8ba2ac4，AppSecret " + HEX[:32] + "，刷 token 用", HEX[:32]),
                            ("数据库口令：Mysql@Pay_0817（生产库的读写号）", "Mysql@Pay_0817"),
                            ("密码=zhangsan-secret", "zhangsan-secret"),
                            ("高德地图 key 是 " + HEX[:32], HEX[:32])):
            self.assertValue(text, value)

    def test_word_like_passwords(self):
        # For a password any token counts, words included; for keys and tokens it must look generated.
        for text, value in (("password=super-secret-value", "super-secret-value"),
                            ("DB_PASSWORD=correct-horse-battery", "correct-horse-battery"),
                            ("passwd: hunterbrown", "hunterbrown")):
            self.assertValue(text, value, "password-assignment")
        self.assertEqual(kinds("api_key=correct-horse-battery"), [])

    def test_prose_is_not_a_value(self):
        for text in ("passwords are read from Secrets Manager", "the password is rotated every 90 days",
                     "the token is stored in Vault", "密码统一放在 Vault 里", "密码为空时报错",
                     "The password is the same as in staging.", "the token is valid for 24 hours",
                     "The API key is passed in the X-Api-Key header.", "Password: see the team vault entry.",
                     "To rotate the DB password: update it in Vault, then restart the pods.",
                     "The token is JWT-based and signed with RS256.", "password hashing uses bcrypt with cost 12",
                     "The password reset link expires in 15 minutes.", "Our password policy requires 14 characters.",
                     "token bucket rate limiter: 100 tokens, refill 10/s", "until you pass `--supersedes ID`",
                     "passwd:         files systemd", "usernamePassword(credentialsId: '" + HEX[:8] + "-1234')",
                     "后台密码强度要求：至少 12 位，包含大小写字母", "密钥轮换策略：每季度一次",
                     "用户密码用 bcrypt 存，cost=12", "忘了 grafana 密码就找运维重置", "令牌有效期为 2 小时",
                     "QQ 邮箱的授权码要在 设置→账户→POP3/SMTP 服务 里生成", "token 的格式是 JWT",
                     "默认密码是 admin，首次登录后必须修改", "Kafka 消息的 key 用 user_id", "缓存 key 为 order_20240611_abc",
                     "We store it in arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf."):
            self.assertEqual(find_secrets(text), [], text)

    def test_placeholders_and_references(self):
        for text in ("the password is <your-password>", "the token is ${API_TOKEN}", "密码是 你的密码",
                     "the password is $DB_PASSWORD", "the API key is os.environ['API_KEY']",
                     "the token is process.env.API_TOKEN", "password: '{{ secrets.DB_PASSWORD }}'",
                     "the secret is vault:secret/data/prod#password", "password is changeme",
                     "the api key is your_api_key_here", "the password is ********",
                     "secret: arn:aws:secretsmanager:us-east-1:123456789012:secret:db"):
            self.assertEqual(find_secrets(text), [], text)


class PairsAndCommandsTest(unittest.TestCase):
    """Login pairs, passwords in command flags, .netrc lines."""

    def test_login_pairs(self):
        for text, value in (("login admin / P@ssw0rd9", "P@ssw0rd9"), ("Grafana: admin / Gr4fana!Prod", "Gr4fana!Prod"),
                            ("SonarQube bot login: sonar-bot / S0narQube!Bot", "S0narQube!Bot"),
                            ("login with root/Toor123! on the serial console", "Toor123!"),
                            ("Office router, creds admin:Netgear#2023", "Netgear#2023"),
                            ("admin:hunter2 for the grafana login", "hunter2"),
                            ("账号 admin 密码 Adm1n@2024", "Adm1n@2024"),
                            ("user root pass Olive-Tree-9 on the old bastion", "Olive-Tree-9"),
                            ("For the vendor SFTP: username acme_upload, password 7tYq!pL3zV", "7tYq!pL3zV")):
            self.assertEqual(flagged_values(text), [value], text)
        self.assertEqual(kinds("login admin / P@ssw0rd9"), ["login-pair"])
        for text in ("Admin / Editor / Viewer roles are defined in RBAC.", "read / write access",
                     "nginx:1.25-alpine is the base image; login to the registry first.",
                     "user:group ownership should be app:app", "Log in as admin:admin on first boot."):
            self.assertEqual(find_secrets(text), [], text)

    def test_command_flags(self):
        for text, value in (("sshpass -p 'Xk29fLq0' ssh deploy@bastion", "Xk29fLq0"),
                            ("docker login -u ci-bot -p Rk8vQz2pLm4x registry.internal:5000", "Rk8vQz2pLm4x"),
                            ("docker login registry.gitlab.com -u deploy --password Dk9!mQ2xLp", "Dk9!mQ2xLp"),
                            ("mysql -h db.prod -u admin -pHq7!xV2mZ shop", "Hq7!xV2mZ"),
                            ("mysql -h 10.0.0.3 -uroot -p'R00t#Mysql' shop", "R00t#Mysql"),
                            ("mysqladmin -u root -p Zx81kLq0Pm status", "Zx81kLq0Pm"),
                            ("redis-cli -h cache-prod -a 'Rq9#Lm2vXz' --no-auth-warning INFO", "Rq9#Lm2vXz"),
                            ("htpasswd -bc /etc/nginx/.htpasswd admin Ng1nx!Pw", "Ng1nx!Pw"),
                            ("rabbitmqctl add_user metrics 'M3trics#Pwd2024' && rabbitmqctl list_users",
                             "M3trics#Pwd2024"),
                            ("PGPASSWORD=nT5pX8vLq2 psql -h analytics-db -U etl", "nT5pX8vLq2"),
                            ("helm repo add internal https://charts.acme.io --username ci --password 'Hc7vQ2pXr9'",
                             "Hc7vQ2pXr9"),
                            ("openssl pkcs12 -export -passout pass:Exp0rt!Pw -out cert.p12", "Exp0rt!Pw")):
            self.assertEqual(flagged_values(text), [value], text)
        self.assertEqual(kinds("sshpass -p 'Xk29fLq0' ssh deploy@bastion"), ["password-in-command"])
        for text in ("mysql -h db.prod -u admin -p   (it prompts; the password is in Vault)",
                     "docker run -p 8080:80 nginx", "sshpass -e ssh deploy@bastion",
                     "redis-cli -a \"$REDIS_PASS\" --no-auth-warning ping", "mysql -uroot -p你的密码 -h 127.0.0.1",
                     "mysql -u root -p mydb", "docker login -u \"$CI_USER\" --password-stdin registry"):
            self.assertEqual(find_secrets(text), [], text)

    def test_netrc(self):
        self.assertEqual(flagged_values("machine api.heroku.com login ops@acme.io password hunterbrown"),
                         ["hunterbrown"])
        self.assertEqual(kinds("machine x.io login y password hunterbrown"), ["netrc-password"])
        self.assertEqual(flagged_values("machine bitbucket.org\nlogin build-svc\npassword Gl_Ci_Bot#2024"),
                         ["Gl_Ci_Bot#2024"])
        self.assertEqual(flagged_values("default login anonymous password guest-ftp-2024"), ["guest-ftp-2024"])
        self.assertEqual(find_secrets("machine api.example.com login <user> password <token>"), [])


class UrlAndKeyShapeTest(unittest.TestCase):
    """Webhooks, cloud keys, storage keys, signed URLs, signing secrets, bearer tokens."""

    def test_webhooks(self):
        uuid = "340dfa06-91ea-41f0-838f-1e20668e8b85"
        for url, kind in ((_tok("https://discord.com/api/webhooks/123456789012345678/", ALNUM[:68]), "discord-webhook"),
                          (_tok("https://open.feishu.cn/open-apis/bot/v2/hook/", uuid), "feishu-webhook"),
                          (_tok("https://open.larksuite.com/open-apis/bot/v2/hook/", uuid), "feishu-webhook"),
                          (_tok("https://oapi.dingtalk.com/robot/send?access_token=", HEX), "dingtalk-webhook"),
                          (_tok("https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=", uuid), "wecom-webhook")):
            self.assertEqual(kinds("alerts: " + url), [kind], url)
        self.assertEqual(kinds("sign secret: SEC" + HEX), ["dingtalk-secret"])
        teams = _tok("https://acme.webhook.office.com/webhookb2/", uuid, "@", uuid, "/IncomingWebhook/",
                     HEX[:32], "/", uuid, "/V2", ALNUM[:40])
        self.assertEqual(masked("hook: " + teams),
                         "hook: https://acme.webhook.office.com/webhookb2/[redacted:teams-webhook]")
        self.assertEqual(find_secrets("https://open.feishu.cn/open-apis/bot/v2/hook/xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"), [])

    def test_cloud_keys(self):
        self.assertEqual(kinds(_tok("腾讯云 SecretId：AKID", ALNUM[:32])), ["tencent-secret-id"])
        self.assertEqual(kinds(_tok("ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI", "5tGXNnMh1jldbMpqNfp2")), ["alibaba-key"])
        self.assertEqual(flagged_values(_tok("百度智能云 BOS：AK ", HEX[:32], "，SK ", HEX[32:64])),
                         [HEX[:32], HEX[32:64]])
        azure_key = (ALNUM * 2)[:86] + "=="
        self.assertEqual(kinds("storage account 'mlartifacts' key1: " + azure_key), ["azure-storage-key"])
        self.assertEqual(kinds("DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + azure_key + ";"),
                         ["azure-storage-key"])
        self.assertEqual(find_secrets("AK/SK 一律用 RAM 子账号，主账号的 AccessKey 已经禁用"), [])
        self.assertEqual(find_secrets("integrity sha512-" + ALNUM[:86] + "== in the azure storage lockfile"), [])

    def test_signed_urls(self):
        for url in (_tok("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=", HEX),
                    _tok("https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=",
                         HEX, HEX),
                    _tok("https://a.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig=", ALNUM[:43], "%3D"),
                    _tok("https://b.oss-cn-beijing.aliyuncs.com/a.jpg?Expires=1718003600&Signature=", ALNUM[:27], "%3D"),
                    _tok("https://b.cos.ap-guangzhou.myqcloud.com/a?q-sign-algorithm=sha1&q-signature=", HEX[:40])):
            self.assertEqual(kinds(url), ["signed-url"], url)
        self.assertEqual(find_secrets("presigned URLs last 15 minutes (X-Amz-Expires=900)"), [])

    def test_signing_secrets_and_framework_keys(self):
        self.assertEqual(kinds(_tok("STRIPE_WEBHOOK_SECRET=wh", "sec_", ALNUM[:32])), ["stripe-webhook-secret"])
        self.assertEqual(kinds("the endpoint signing secret is " + _tok("wh", "sec_", ALNUM[:32])),
                         ["stripe-webhook-secret"])
        for text in ("SECRET_KEY = 'django-insecure-$l0-898d60fwj)z#-*d2@5eab^k*2*^-2($(we2nc=!_^3'",
                     "production:\n  secret_key_base: " + HEX + HEX, "app.secret_key = '" + HEX[:20] + "'",
                     "JWT_SECRET=" + HEX[:32]):
            self.assertEqual(len(find_secrets(text)), 1, text)

    def test_bearer_in_prose(self):
        token = ALNUM[5:45]
        self.assertEqual(flagged_values("use Bearer %s for the admin API" % token), [token])
        self.assertEqual(kinds("use Bearer %s for the admin API" % token), ["bearer-token"])
        for text in ("Bearer tokens are validated by the gateway.", "Authorization: Bearer <your-token>",
                     "Authorization: Bearer $API_TOKEN"):
            self.assertEqual(find_secrets(text), [], text)

    def test_documented_example_keys_are_not_secrets(self):
        for text in (_tok("aws_access_key_id = AKIA", "IOSFODNN7EXAMPLE"),
                     _tok("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"),
                     _tok("stripe test key sk_test_", "4eC39HqLyjWDarjtT1zdp7dc")):
            self.assertEqual(find_secrets(text), [], text)


class ObfuscationTest(unittest.TestCase):
    """Normalisation: hidden characters, Unicode spaces, full-width forms, split tokens. Offsets
    always point into the original text, so masking removes the hidden characters too."""

    def test_zero_width_inside_a_token(self):
        token = _tok("gh", "p_", ALNUM[:10], "\u200b", ALNUM[10:36])
        text = "token: %s done" % token
        self.assertEqual(flagged_values(text), [token])
        self.assertEqual(masked(text), "token: [redacted:github-token] done")
        self.assertEqual(masked(_tok("GITLAB_TOKEN=gl", "pat-", ALNUM[:8], "\u2060\ufeff", ALNUM[8:20])),
                         "GITLAB_TOKEN=[redacted:gitlab-token]")

    def test_no_break_space_inside_a_token(self):
        text = _tok("GH_TOKEN=github", "_pat_11YTH9OU3PDPO4D196R\u00a0R59_", ALNUM[:60])
        self.assertEqual(masked(text), "GH_TOKEN=[redacted:github-token]")
        self.assertEqual(masked("The prod password\u00a0is\u3000Tr0ub4dor&3."),
                         "The prod password\u00a0is\u3000[redacted:password-in-text].")

    def test_full_width(self):
        text = "runner token ｇｌｐａｔ－ｄ８ＭＴｆ３ＮｐＩ５ｄｑｆ９ＣＰｇＸＪｒ end"
        self.assertEqual(masked(text), "runner token [redacted:gitlab-token] end")
        self.assertEqual(masked("ｐａｓｓｗｏｒｄ＝Ｈｕｎｔｅｒ２Ｘｙｚ！"), "ｐａｓｓｗｏｒｄ＝[redacted:password-assignment]")

    def test_token_split_over_lines(self):
        first, second = _tok("gh", "p_", ALNUM[:16]), ALNUM[16:36]
        text = "GitHub token, split in two:\n%s\n%s\nthanks" % (first, second)
        self.assertEqual(masked(text), "GitHub token, split in two:\n[redacted:github-token]\nthanks")
        self.assertEqual([f.line for f in find_secrets(text)], [2])
        shell = "export GITHUB_TOKEN=%s\\\n%s" % (first, second)
        self.assertEqual(masked(shell), "export GITHUB_TOKEN=[redacted:github-token]")
        # ordinary line breaks join nothing
        self.assertEqual(find_secrets("the token\nis rotated"), [])

    def test_concatenated_and_grouped(self):
        self.assertEqual(masked(_tok('TOKEN = "gl', 'pat-6MYu" + "IcxH4XvO5wnINRIj"')),
                         'TOKEN = "[redacted:gitlab-token]"')
        self.assertEqual(masked("按 4 位一组：LTAI 5tEV IhTM VmoF H8Aw Y5RN"), "按 4 位一组：[redacted:alibaba-key]")
        self.assertEqual(masked("The app password for the Gmail relay is qwzx kfpt mnbv hjlr"),
                         "The app password for the Gmail relay is [redacted:password-in-text]")
        self.assertEqual(find_secrets("that will make sure this code runs fast"), [])

    def test_base64_of_credentials(self):
        for raw, kind in ((b"password=Hunter2-Prod!", "base64-password-assignment"),
                          (b"deploy:Rk8!vQ2zWm", "base64-credential")):
            blob = base64.b64encode(raw).decode()
            self.assertEqual(kinds("legacy blob %s from the old config" % blob), [kind], raw)
            self.assertEqual(masked("legacy blob %s" % blob), "legacy blob [redacted:%s]" % kind)
        prose = base64.b64encode(b"Thanks, John! See you at the meeting tomorrow.").decode()
        self.assertEqual(find_secrets("payload " + prose), [])

    def test_mask_of_normalised_text_is_idempotent(self):
        text = "线上 Redis 密码是：Zx8#kLq2Mv，\u200bｔｏｋｅｎ＝" + _tok("gh", "p_", ALNUM[:36])
        out, findings = mask_secrets(text)
        self.assertEqual(out, "线上 Redis 密码是：[redacted:password-in-text]，\u200bｔｏｋｅｎ＝[redacted:github-token]")
        self.assertEqual(len(findings), 2)
        self.assertEqual(mask_secrets(out), (out, []))


class PersonalDataHookTest(unittest.TestCase):
    """find_secrets calls personal_data.find_personal when the module is there, and skips it
    while it is absent."""

    def test_personal_findings_are_refused_and_masked(self):
        from memory_core import redaction
        saved = list(redaction._personal)
        try:
            redaction._personal[:] = [lambda text: iter([(2, "email", text.find("x@"), text.find("x@") + 9)])]
            self.assertEqual(masked("mail x@corp.io now"), "mail [redacted:email] now")
            redaction._personal[:] = [None]  # module absent: skipped
            self.assertEqual(find_secrets("mail x@corp.io now"), [])
        finally:
            redaction._personal[:] = saved


class DataFileTest(unittest.TestCase):
    """The data files load with fastjson and every rule names its source and compiles."""

    def test_provider_rules(self):
        import re
        from memory_core.fastjson import loads
        path = _support.SCRIPTS / "memory_core" / "data" / "provider_tokens.json"
        rules = loads(path.read_text("utf-8"))["rules"]
        self.assertGreater(len(rules), 90)
        for rule in rules:
            self.assertTrue(rule["kind"] and rule["source"], rule)
            self.assertTrue(rule["needles"] or rule.get("context"), rule)
            re.compile(rule["regex"])

    def test_public_rule_sources_name_their_version(self):
        # Issue 8: a shape taken from a public rule set names the set and its version.
        from memory_core.fastjson import loads
        path = _support.SCRIPTS / "memory_core" / "data" / "provider_tokens.json"
        rules = loads(path.read_text("utf-8"))["rules"]
        self.assertGreater(len([r for r in rules if "gitleaks" in r["source"]]), 10)
        for rule in rules:
            source = rule["source"]
            self.assertNotIn("version not recorded", source)
            if "gitleaks" in source and "not in the gitleaks config" not in source:
                self.assertRegex(source, r"commit [0-9a-f]{8}", rule["kind"])

    def test_vocabularies(self):
        from memory_core.redaction import words
        vocab = words()
        for key in ("password_words", "secret_words", "zh_password_words", "copulas_en", "copulas_zh",
                    "separators", "qualifier_words", "prose_words", "placeholder_words", "meta_suffixes",
                    "zh_meta_suffixes", "example_keys", "cli_flags"):
            self.assertTrue(vocab[key], key)
        self.assertIn(_tok("AKIA", "IOSFODNN7EXAMPLE"), vocab["example_keys"])


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
        found = {r["id"]: find_secrets(r["text"]) for r in rows}
        missed = [r["id"] for r in secrets if not found[r["id"]]]
        false_pos = [r["id"] for r in lookalikes if found[r["id"]]]
        recall = 1 - len(missed) / float(len(secrets))
        fpr = len(false_pos) / float(len(lookalikes))
        _support.report_metric("secrets recall", "%.3f" % recall)
        _support.report_metric("secrets false-positive rate", "%.3f" % fpr)
        # The same rows with personal-data findings (emails in example URLs) left out: the
        # figure of the secret rules alone, comparable with earlier versions.
        personal = {"payment-card", "iban", "national-id", "phone", "email", "home-path"}
        fp_secret = sum(1 for r in lookalikes if any(f.kind not in personal for f in found[r["id"]]))
        _support.report_metric("secrets false-positive rate (secret rules only)",
                               "%.3f" % (fp_secret / float(len(lookalikes))))
        print("secrets-dev (in-sample): recall %.3f (%d missed), false-positive rate %.3f (%d flagged; %d by "
              "secret rules alone)" % (recall, len(missed), fpr, len(false_pos), fp_secret))
        self.assertGreaterEqual(recall, 0.95, "recall %.3f; missed e.g. %s" % (recall, missed[:12]))
        self.assertLessEqual(fpr, 0.05, "false-positive rate %.3f; e.g. %s" % (fpr, false_pos[:12]))


class RoundTenRulesTest(unittest.TestCase):
    """Rules added after blind round 9 (kinds that set had and the rules missed)."""

    def kinds(self, text):
        return [f.kind for f in find_secrets(text)]

    def test_caught(self):
        word = "ribbon sudden gauge orbit velvet plunge credit harbor mimic salon tired annual"
        for text in ("hot wallet mnemonic (has funds!!): " + word,  # words only: no long run
                     "Riot key: RGAPI-745412d6-70df-4e83-" + "bea1-42e4f6e209f2",
                     "RPC https://eth-mainnet.g.alchemy.com/v2/" + "arRC8hp-9l_5nv8RJcKlQxh7i_IjJH2U",
                     "cloudflare token w/ DNS edit: HOwC157XXKDGLdRiUPJrJJ" + "Og0Ehx1bcQYgrartLw",
                     "InfluxDB token（org=farm）：GlD5sRG2Td4uN8n0tUIALyh_RIXz" + "zTCa4C8NMBBLGlYTSuVDdGBP8veZ==",
                     "QQ 邮箱 SMTP 授权码：kmlbweqzywbghsgi（smtp.qq.com:465）",
                     "user uploaded a blurry passport, number is 548193027 (US)"):
            self.assertTrue(self.kinds(text), text)

    def test_look_alikes_pass(self):
        for text in ("BIP39 test vector mnemonic 'abandon abandon abandon abandon abandon abandon abandon "
                     "abandon abandon abandon abandon about', testnet only",
                     "the mnemonic stays offline, never write these words down anywhere online please team",
                     "回调配置示例：Token=<回调Token>，EncodingAESKey=<43位随机串>，都在后台生成。",
                     "X.509 auth, no password: mongodb+srv://cluster0.x7kq2.mongodb.net/?authMechanism=MONGODB-X509",
                     "RPC https://eth-mainnet.g.alchemy.com/v2/${ALCHEMY_API_KEY}",
                     "passport photo is blurry, ticket 548193027",
                     "Customs escalations go to customs-desk@portx-logistics.com (shared).",
                     "理赔通知邮箱已改为企业邮箱 claims-notice@huibao-ins.cn。",
                     "赛程变更通知发 schedule@esports-cup.cn。"):
            self.assertEqual(self.kinds(text), [], text)


class RoundElevenRulesTest(RoundTenRulesTest):
    """Rules added after blind round 10."""

    def test_caught(self):
        for text in ("seed data has a real CPF (711.783.023-93) from the pilot",  # CPF layout: no name needed
                     "KYC stuck: Aadhaar 6762 6531 0761, name mismatch",  # Verhoeff
                     "HR import failed: BSN 438176698, Jan Bakker",  # 11-test
                     "mc alias set prod http://10.0.8.11:9000 minioadmin Mini0-Pr0d-77",
                     "gsql -d postgres -p 26000 -U omm -W 'Gauss@1234' -r",
                     "hot wallet signer key 0x408a1da1061c8a32d331774da31a9c2c" + "de275a26c6c8247821492eec75f66ddf",
                     "智谱 GLM key 00bf5cdba1c4fd503278938195d36826." + "oAXfRJZSKwlsBVOM，记得改",
                     "wallet: seed = orbit velvet hammer lunar tissue cargo swift ember plastic olive random beacon"):
            self.assertTrue(self.kinds(text), text)

    def test_look_alikes_pass(self):
        for text in ("SMS stub uses Ofcom drama numbers like +44 7700 900123, never a real mobile",
                     "his cell in the screenplay is 415-555-0142",
                     "mysql -h 10.10.2.5 -u root -p order_db   # type the password at the prompt",
                     "mc alias set prod http://10.0.8.11:9000 $MINIO_USER $MINIO_PASS",
                     "order 438176698 shipped; build 6762 6531 0761; version 711.783.023-94",
                     "seed: 42 for every run of the benchmark, the sampler and the shuffler and the split"):
            self.assertEqual(self.kinds(text), [], text)


class RoundTwelveRulesTest(RoundTenRulesTest):
    """Rules added after blind round 11: national ids with letters or layouts of their own."""

    def test_caught(self):
        for text in ("NIR 1720474447963 97 for the French employee",  # 97 - n mod 97
                     "payroll: henkilötunnus 230780-1244 (Mikko's)",  # mod-31 character
                     "import broke on personnummer 19830406-6312",  # Luhn over 10 digits
                     "policyholder DNI 73361732N in the export",  # mod-23 letter
                     "香港用户开户卡住了，HKID Y426183(4)",  # mod-11
                     "学生身份证号：320102 19761119 9253",  # GB 11643, grouped
                     "telegram bot for alerts: 7180076338:p9PbpkZnQxePyNJZWJaPM" + "WlhecZPxON9eS8",
                     "the Mailgun key key-5766f750b8972649" + "ef1c030405d2741e leaked"):
            self.assertTrue(self.kinds(text), text)

    def test_look_alikes_pass(self):
        for text in ("DNI 73361732A (wrong letter)", "build 19830406-6312 passed",
                     "order 1720474447963 97 shipped", "HKID format is A123456(7)",
                     "bot 7180076338 restarted at 12:00", "api-key-00000000000000000000000000000000"):
            self.assertEqual(self.kinds(text), [], text)


class PathologicalInputTest(unittest.TestCase):
    """Hooks have timeouts: long junk must stay linear, not backtrack."""

    def test_long_junk_is_fast(self):
        import time
        for text in ("password=" * 20000, "-u " * 50000, "密码：" * 30000, '"token", "' * 20000,
                     "<token>" * 30000, ("-----BEGIN PRIVATE KEY-----\n" + "AAAA\n") * 5000,
                     "eyJ" + "A" * 100000 + ".eyJ" + "B" * 100000, "https://u:" + "p@" * 50000,
                     "the password is " * 20000, "密码是 " * 30000, "machine x login y password " * 20000,
                     "admin / " * 30000, "user:" * 50000, "aB3dE5gH7jK9\n" * 20000, "ｐａｓｓ\u200b" * 30000,
                     "\u00a0aB3d" * 40000, "aB3d " * 50000, "mysql -p" * 30000, "Q2FmZQ==" * 30000,
                     '"aB3d" + ' * 30000, "token " * 50000, "mnemonic " * 30000,
                     "passport, number is " * 20000, "token（org=x）：" * 20000, "seed = " * 30000,
                     "CPF 111.444.777-35 " * 10000, "mc alias set a b c " * 10000,
                     "DNI HKID NIR personnummer hetu " + "1" * 200000, "HKID A123456(3) " * 10000):
            start = time.perf_counter()
            mask_secrets(text)
            self.assertLess(time.perf_counter() - start, 5.0, text[:30])


if __name__ == "__main__":
    unittest.main()
