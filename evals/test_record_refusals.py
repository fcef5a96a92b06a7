"""Every kind of secret and personal data the safety issue names is refused by record, every time,
and the look-alikes it names stay allowed. Fake values are assembled at run time from pieces, so
this file holds no contiguous token a repository secret scanner would flag."""
import json
import unittest

import _support
from memory_core.redaction import find_secrets

J = "".join


def luhn_complete(prefix, length):
    digits = [int(c) for c in prefix]
    for check in range(10):
        full = digits + [0] * (length - len(digits) - 1) + [check]
        total = 0
        for i, d in enumerate(reversed(full)):
            if i % 2:
                d *= 2
                d -= 9 if d > 9 else 0
            total += d
        if total % 10 == 0:
            return prefix + "0" * (length - len(prefix) - 1) + str(check)


def iban(country, bban):
    digits = "".join(str(int(c, 36)) for c in bban + country + "00")
    return country + "%02d" % (98 - int(digits) % 97) + bban


def cn_id(body17):
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body17 + "10X98765432"[sum(int(c) * w for c, w in zip(body17, weights)) % 11]


HEX64 = "5f3c9a1e7b2d4068e1c3a5f7b9d20486ace13579bdf02468fa91c3e5d7b2084c"
B64 = "q8Zt3vLp0XmR7cWk2NbY5hGd9FjS4aUe1TyQ6oIr8PzK3wMx0VnB7sDl2CgH5fJ4bE6nA9uV1iO7kT3rY5eW8"
UUID = "7d3f1c2a-9b8e-4f6d-a5c4-3b2e1f0a9d8c"

REFUSED = {
    "plain password, English": "The prod Redis password is Kx9-mPq2vLw",
    "plain password, Chinese": "线上 Redis 密码是 Zh8pw2024xy",
    "word-like password assignment": "password=super-secret-value",
    "env password": "DB_PASSWORD=correct-horse-battery",
    "Chinese password assignment": "密码=zhangsan-secret",
    "login pair": "Grafana login is admin / Wint3r-Lake-42",
    "sshpass": "sshpass -p 'Hunter2Go9' ssh deploy@10.0.0.5 uptime",
    "docker login": "docker login -u ci -p Sup3rS3cretPw registry.internal",
    "netrc": "machine git.internal login ci password Zq7xLm3pRw",
    "SMTP app password": J(["QQ 邮箱 SMTP 授权码：", "qwhdkzmvpetrsnbc"]),
    "slack webhook": J(["https://hooks.slack.com/services/T0", "4A7KQ2M/B06", "ZL9PQ3R/", B64[:24]]),
    "feishu webhook": "https://open.feishu.cn/open-apis/bot/v2/hook/" + UUID,
    "dingtalk webhook": "https://oapi.dingtalk.com/robot/send?access_token=" + HEX64,
    "wecom webhook": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=" + UUID,
    "aws key pair": J(["AKIA", "Q3ZKT7WXRB2MNV5L aws_secret_access_key=", B64[:40]]),
    "bare aws secret": J(["AWS secret key: ", B64[2:42]]),
    "alibaba access key": J(["LTAI", "5tQk8ZpW3mRx7Lc2NvYd"]),
    "tencent secret id": J(["SecretId: AKID", "q8Zt3vLp0XmR7cWk2NbY5hGd9FjS4aUe"]),
    "azure storage key": J(["DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey=", B64[:86], "==;"]),
    "s3 presigned url": J(["https://b.s3.amazonaws.com/a.csv?X-Amz-Credential=x&X-Amz-Signature=", HEX64]),
    "stripe webhook secret": J(["whsec_", B64[:32]]),
    "django secret key": J(["SECRET_KEY = 'django-insecure-", B64[5:45], "'"]),
    "bearer in prose": J(["call it with Bearer ", B64[7:47]]),
    "token split over lines": J(["ghp_", B64[:18], "\n", B64[18:36]]),
    "zero-width inside a token": J(["ghp_", B64[:18], "\u200b", B64[18:36]]),
    "no-break space inside a token": J(["token: ghp_", B64[:18], "\u00a0", B64[18:36]]),
    "base64 of password=": "creds blob: cGFzc3dvcmQ9U3VwM3JTM2NyZXQh",
    "payment card": "customer card " + luhn_complete("453901482376521", 16),
    "iban": "refund to " + iban("DE", "50010517" + "5407324931"),
    "chinese resident id": "客户身份证号 " + cn_id("11010519880416053"),
    "phone of a person": "张三的手机 13912345678",
    "personal email": "Ping jane.doe1987@gmail.com for the keys",
    "home path, macOS": "The cert is at /Users/alice/.ssh/deploy_key",
    "home path, Linux, example": "see /home/example/project/notes.txt",
    "home path, Windows": "C:\\Users\\bob\\AppData\\token.txt",
    "home path, WSL": "the CA is at /mnt/c/Users/Dana.Lee/certs/ca.pem",
    "typed password near a login word": "ssh to the bastion as ops and Kq7!mZp2#wL9 is what it asks for",
    "password column of a table": "| env | user | password |\n|---|---|---|\n| qa | app_rw | Kestrel#2291 |",
    "terraform default": J(['variable "db_password" {\n  type = string\n  default = "Harbor-', 'Lights-5520!"\n}']),
    "session cookie": J(["curl -b 'sessionid=", B64[:32], "' https://admin.internal/"]),
    "go mysql dsn": "dsn := \"trade:Tr@de_2024x@tcp(10.8.0.12:3306)/orders\"",
    "smbclient user%pass": "smbclient //fs/scans -U scanner%Sc4nN0w!x -c ls",
    "jwt signing literal": J(["jwt.sign(payload, '", B64[3:35], "')"]),
    "passport with a name": "郑凯，护照号 E38291746，订机票用",
    "postman key/value": J(['{"key": "access_token", "value": "', B64[9:49], '"}']),
}

ALLOWED = {
    "env reference": "The DB password comes from ${DB_PASSWORD}",
    "code reference": "SECRET_KEY = os.environ['SECRET_KEY']",
    "vault path": "The token is in Vault at secret/data/ci/npm",
    "placeholder": "Set API_TOKEN=<your-token> in .env.local",
    "changeme": "The default password is changeme until first login",
    "prose": "Passwords are read from Secrets Manager, never from files",
    "prose, Chinese": "密码统一放在 Vault 里，每 90 天轮换一次",
    "test card": "Use 4242 4242 4242 4242 in Stripe test mode",
    "role address": "Alerts go to oncall@company.com",
    "relative path": "The deploy script is scripts/deploy.sh",
    "documented example key": J(["AKIA", "IOSFODNN7EXAMPLE is the AWS docs example key"]),
    "uuid": "Tenant id " + UUID,
    "hash": "Release commit " + HEX64[:40],
    "password manager name": "The new value is in 1Password, vault payments-prod, item stripe-rk",
    "identifier near a login word": "login handler is chain_Anvil1_Key in auth.py",
    "key id": "KEY_ID=prod-signing-2024 names the key; the key itself is in KMS",
}


class RecordRefusesEveryNamedKindTest(_support.TempProject):
    def test_detector_finds_every_named_kind(self):
        missed = [name for name, text in REFUSED.items() if not find_secrets(text)]
        self.assertEqual(missed, [])

    def test_detector_allows_every_named_look_alike(self):
        flagged = dict((name, [f.kind for f in find_secrets(text)]) for name, text in ALLOWED.items())
        self.assertEqual(dict((k, v) for k, v in flagged.items() if v), {})

    def test_record_refuses_and_writes_nothing(self):
        for name in ("plain password, English", "login pair", "payment card", "chinese resident id",
                     "personal email", "home path, macOS", "token split over lines"):
            with self.subTest(name=name):
                code, out = self.record(REFUSED[name], "--topic", "ops")
                self.assertEqual(code, 1, out)
                self.assertFalse(self.store.exists())  # not even an empty store
        code, out = self.record(REFUSED["home path, macOS"], "--topic", "ops")
        self.assertIn("relative to the project", out["fix"])
        code, out = self.record(REFUSED["payment card"], "--topic", "ops", "--redact")
        self.assertEqual(code, 0, out)
        stored = json.loads((self.store / "areas/topics/ops/items.json").read_text())["items"][0]["fact"]
        self.assertIn("[redacted:payment-card]", stored)

    def test_migration_applies_the_same_rules(self):
        legacy = self.project / ".claude" / "memory" / "areas" / "topics" / "ops"
        legacy.mkdir(parents=True)
        (legacy / "items.json").write_text(json.dumps([
            {"id": "fact-1", "fact": REFUSED["payment card"]},
            {"id": "fact-2", "fact": "Deploys go through the staging branch first"}]))
        proc = _support.run_script("migrate_legacy_memory.py", "--project-dir", self.project, "--json")
        report = json.loads(proc.stdout)
        self.assertIn("payment-card", json.dumps(report))
        items = (self.store / "areas/topics/ops/items.json").read_text() if self.store.exists() else ""
        self.assertNotIn(REFUSED["payment card"][-16:], items)


if __name__ == "__main__":
    unittest.main()
