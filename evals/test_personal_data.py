"""Tests for scripts/memory_core/personal_data.py, the personal and payment data finder.

Every valid number here is built at run time from a made-up prefix and a computed check digit
(Luhn, ISO 7064 MOD 97-10, GB 11643 MOD 11-2); none is a real person's data.
"""
import datetime
import json
import subprocess
import unittest

import _support
from memory_core import personal_data
from memory_core.personal_data import find_personal

KINDS = {"payment-card", "iban", "national-id", "phone", "email", "home-path"}


def spans(text):
    return [(kind, text[start:end]) for _rank, kind, start, end in find_personal(text)]


def luhn_digit(body):
    total = 0
    for i, ch in enumerate(reversed(body)):
        n = int(ch)
        if i % 2 == 0:  # doubled: the check digit is appended to the right of body
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return str((10 - total % 10) % 10)


def card(prefix, length):
    body = (prefix + "7305918264" * 2)[:length - 1]  # made-up account digits
    return body + luhn_digit(body)


def flip(number, index=5):
    """The same number with one digit changed (so its check digit no longer holds)."""
    d = number[index]
    return number[:index] + str((int(d) + 1) % 10) + number[index + 1:]


def iban(country, bban):
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return "%s%02d%s" % (country, check, bban)


def grouped(s, size=4, sep=" "):
    return sep.join(s[i:i + size] for i in range(0, len(s), size))


def cn_id(region, birth, seq):
    body = region + birth + seq
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return body + "10X98765432"[sum(int(c) * w for c, w in zip(body, weights)) % 11]


class PaymentCardTest(unittest.TestCase):
    def test_valid_numbers_found_with_exact_span(self):
        for prefix, length in (("4539", 16), ("4539", 13), ("4916", 19), ("5312", 16), ("2720", 16),
                               ("2221", 16), ("3782", 15), ("3411", 15), ("6011", 16), ("6445", 16),
                               ("6512", 16), ("6228", 19), ("3530", 16), ("3589", 16), ("3012", 14),
                               ("3612", 14), ("5018", 16), ("2201", 16)):
            number = card(prefix, length)
            text = "Charge card %s tomorrow." % number
            start = text.index(number)
            self.assertEqual(list(find_personal(text)), [(2, "payment-card", start, start + length)], number)

    def test_checksum_matters(self):
        for prefix, length in (("4539", 16), ("5312", 16), ("3782", 15), ("6228", 19)):
            number = card(prefix, length)
            self.assertEqual(spans("card %s" % number), [("payment-card", number)])
            for index in (3, 8, length - 1):
                self.assertEqual(spans("card %s" % flip(number, index)), [], flip(number, index))

    def test_grouped_forms(self):
        visa, amex, diners = card("4539", 16), card("3782", 15), card("3012", 14)
        for text_number in (grouped(visa), grouped(visa, sep="-"),
                            "%s %s %s" % (amex[:4], amex[4:10], amex[10:]),
                            "%s-%s-%s" % (diners[:4], diners[4:10], diners[10:])):
            self.assertEqual(spans("my card: %s." % text_number), [("payment-card", text_number)])
        long_visa = card("4916", 19)
        text_number = grouped(long_visa)  # 4-4-4-4-3
        self.assertEqual(spans("card %s ok" % text_number), [("payment-card", text_number)])
        self.assertEqual(spans("card %s 12/27" % grouped(visa)), [("payment-card", grouped(visa))])
        mixed = visa[:4] + " " + visa[4:8] + "-" + visa[8:12] + " " + visa[12:]
        self.assertEqual(spans("card %s" % mixed), [])  # inconsistent separators

    def test_issuer_prefix_required(self):
        for prefix in ("1234", "9876", "7000", "8123", "2100", "2800", "3300"):
            number = card(prefix, 16)
            self.assertEqual(spans("card %s" % number), [], number)
        self.assertEqual(spans("card %s" % card("3782", 16)), [])  # Amex is 15 digits, not 16

    def test_vendor_test_numbers_allowed(self):
        for number in ("4242424242424242", "4000056655665556", "5555555555554444", "2223003122003222",
                       "5200828282828210", "378282246310005", "371449635398431", "6011111111111117",
                       "6011000990139424", "3056930009020004", "36227206271667", "3566002020360505",
                       "6200000000000005", "4111111111111111", "4012888888881881", "5105105105105100",
                       "4000000000000002", "6011000000000004"):
            self.assertEqual(spans("use test card %s in staging" % number), [], number)
        self.assertEqual(spans("Stripe test card 4242 4242 4242 4242"), [])
        self.assertEqual(spans("Amex test 3782 822463 10005"), [])

    def test_id_contexts_allowed(self):
        number = card("4539", 16)
        for text in ("order %s", "Order ID: %s", "ticket #%s", "#%s", "trace id=%s", "request id %s",
                     "tx %s", "txn: %s", "订单 %s", "订单号：%s", "工单号%s", "交易号: %s", "流水号 %s"):
            self.assertEqual(spans(text % number), [], text)

    def test_timestamps_hex_and_longer_runs_allowed(self):
        number = card("4539", 16)
        self.assertEqual(spans("ts=1712345678901 and 1712345678901234"), [])
        for text in ("a%s", "%sf", "deadbeef-%s", "%s-cafe", "%s7", "v1.%s", "/orders/%s", "12:%s",
                     "1234 %s" % grouped(number), "%s 5678" % grouped(number)):
            t = text % number if "%s" in text else text
            self.assertEqual(spans(t), [], t)
        self.assertEqual(spans("id 550e8400-e29b-41d4-a716-446655440000"), [])

    def test_chinese_and_english_sentences(self):
        number = card("6228", 19)
        text = "我的信用卡号是%s，请勿外传。" % number
        self.assertEqual(spans(text), [("payment-card", number)])
        text = "Please charge Jane's Visa %s before Friday." % grouped(card("4539", 16))
        self.assertEqual(spans(text), [("payment-card", grouped(card("4539", 16)))])


class IbanTest(unittest.TestCase):
    def test_valid_compact_and_grouped(self):
        de = iban("DE", "370400440532013001")
        gb = iban("GB", "WEST12345698765433")
        mt = iban("MT", "MALT011000012345MTLCAST001S")
        no = iban("NO", "86011117947")
        for value in (de, grouped(de), gb, grouped(gb), mt, grouped(mt), no, grouped(no), de.lower()):
            text = "Wire it to %s, thanks." % value
            start = text.index(value)
            self.assertEqual(list(find_personal(text)), [(2, "iban", start, start + len(value))], value)

    def test_every_registry_country(self):
        lengths = personal_data._data()["iban_lengths"]
        self.assertGreaterEqual(len(lengths), 89)
        for country, length in sorted(lengths.items()):
            value = iban(country, ("9081726354" * 4)[:length - 4])
            self.assertEqual(spans("IBAN %s" % value), [("iban", value)], value)
            self.assertEqual(spans("IBAN %s" % grouped(value)), [("iban", grouped(value))], value)
            self.assertEqual(spans("IBAN %s" % value[:-1]), [], "too short " + value)
            self.assertEqual(spans("IBAN %s7" % value), [], "too long " + value)

    def test_checksum_matters(self):
        de = iban("DE", "370400440532013001")
        for index in (2, 3, 8, 21):
            self.assertEqual(spans("IBAN %s" % flip(de, index)), [], flip(de, index))
        self.assertEqual(spans("IBAN %s" % iban("ZZ", "370400440532013000")), [])  # no such country

    def test_grouped_iban_followed_by_words(self):
        be = iban("BE", "539007547034")
        self.assertEqual(spans("pay %s then stop" % grouped(be)), [("iban", grouped(be))])

    def test_marked_examples_allowed(self):
        de = iban("DE", "370400440532013001")
        for text in ("example IBAN: %s", "Example: %s", "sample IBAN %s", "示例：%s", "%s (example)"):
            self.assertEqual(spans(text % de), [], text)
        # An example marker on another line does not cover this one.
        self.assertEqual(spans("See the example below.\nIBAN %s" % de), [("iban", de)])

    def test_documented_example_ibans_allowed(self):
        for example in ("DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32"):
            self.assertEqual(spans("refund to %s" % example), [], example)


class NationalIdTest(unittest.TestCase):
    def test_chinese_resident_id(self):
        value = cn_id("110105", "19900307", "123")
        text = "身份证号：%s，已核验" % value
        self.assertEqual(spans(text), [("national-id", value)])
        start = text.index(value)
        self.assertEqual(list(find_personal(text)), [(2, "national-id", start, start + 18)])
        for index in (0, 7, 12, 16):
            broken = flip(value, index)
            self.assertEqual(spans("ID %s" % broken), [], broken)

    def test_chinese_id_x_check_character(self):
        for seq in range(100, 1000):
            value = cn_id("440305", "19851120", str(seq))
            if value.endswith("X"):
                break
        self.assertEqual(spans("证件 %s" % value), [("national-id", value)])
        self.assertEqual(spans("证件 %s" % value[:-1] + "x"), [("national-id", value[:-1] + "x")])

    def test_chinese_id_dates(self):
        future = (datetime.date.today() + datetime.timedelta(days=400)).strftime("%Y%m%d")
        for birth in ("19900230", "20010229", "19901301", "18991231", future):
            value = cn_id("110105", birth, "123")
            self.assertEqual(spans("ID %s" % value), [], value)
        self.assertEqual(spans("ID %s" % cn_id("110105", "20000229", "123")),
                         [("national-id", cn_id("110105", "20000229", "123"))])  # a leap day

    def test_chinese_id_not_in_longer_run(self):
        value = cn_id("110105", "19900307", "123")
        for text in ("9%s", "%s1", "a%s", "%sb"):
            self.assertEqual(spans(text % value), [], text)

    def test_us_ssn(self):
        value = "-".join(("512", "38", "4076"))
        self.assertEqual(spans("SSN %s on file" % value), [("national-id", value)])
        for bad in ("078-05-1120", "123-45-6789", "219-09-9999", "000-38-4076", "666-38-4076", "912-38-4076",
                    "512-00-4076", "512-38-0000"):
            self.assertEqual(spans("SSN %s" % bad), [], bad)
        for text in ("SSN 512384076", "x512-38-4076", "512-38-4076-1", "1-512-38-4076"):
            self.assertEqual(spans(text), [], text)

    def test_uk_national_insurance_number_needs_context(self):
        for value in ("AB 12 34 56 C", "AB123456C", "JG 10 32 98 A"):
            for text in ("NI number: %s", "NINO %s", "Her national insurance number is %s.", "%s (NI)"):
                self.assertEqual(spans(text % value), [("national-id", value)], text % value)
            self.assertEqual(spans("reference %s" % value), [], value)
        for bad in ("BG123456C", "GB123456C", "QA123456C", "AO123456C", "DA123456C", "AB123456E"):
            self.assertEqual(spans("NINO %s" % bad), [], bad)


class PhoneTest(unittest.TestCase):
    def test_chinese_mobile_personal_by_default(self):
        for value in ("13912345678", "+86 139 1234 5678", "+8613912345678", "0086 13912345678",
                      "139-1234-5678", "86 15023456789"):
            text = "电话 %s，谢谢" % value
            self.assertEqual(spans(text), [("phone", value)], value)
        text = "张三的手机号是13912345678。"
        start = text.index("139")
        self.assertEqual(list(find_personal(text)), [(2, "phone", start, start + 11)])
        self.assertEqual(spans("reach me at 18623456789"), [("phone", "18623456789")])

    def test_chinese_mobile_service_lines_and_placeholders_allowed(self):
        for text in ("客服电话：13912345678", "售后热线 13912345678", "前台 139-1234-5678", "support line 13912345678",
                     "手机 13800138000", "手机 13900000000", "手机 12345678901", "手机 13888888888",
                     "订单号 13912345678", "139123456789", "2139123456789", "v13912345678"):
            self.assertEqual(spans(text), [], text)

    def test_other_formats_need_person_context(self):
        cases = (("Jane Doe: +44 20 7123 4567", "+44 20 7123 4567"),
                 ("my cell is (415) 823-4567.", "(415) 823-4567"),
                 ("Call her at 415-823-4567 tomorrow", "415-823-4567"),
                 ("customer mobile: 07911 123456", "07911 123456"),
                 ("John Smith +1 415 823 4567", "+1 415 823 4567"),
                 ("李四电话：021-6123-4567", "021-6123-4567"),
                 ("客户座机 0755-2345-6789", "0755-2345-6789"),
                 ("紧急联系人 +49 30 1234 5678", "+49 30 1234 5678"),
                 ("Call Jane Doe at 020 7123 4567", "020 7123 4567"),
                 ("Mr. Smith's desk line is 020 7123 4567.", "020 7123 4567"),
                 ("Dr. Wang: 0755-2345-6789", "0755-2345-6789"),
                 ("my mobile +4915112345678", "+4915112345678"),
                 ("Call customer at 415 823 4567", "415 823 4567"))
        for text, value in cases:
            self.assertEqual(spans(text), [("phone", value)], text)
            bare = "Dial " + text[text.index(value):]
            # A mobile number is someone's even without a name next to it (as Chinese mobiles are).
            expected = [("phone", value)] if value.startswith("+4915") else []
            self.assertEqual(spans(bare), expected, bare)

    def test_role_lines_and_look_alikes_allowed(self):
        for text in ("support hotline: +44 20 7123 4567", "helpdesk (415) 823-4567", "sales: 415-823-4567",
                     "客服热线 021-6123-4567", "公司总机 021-6123-4567", "my company's 400-123-4567",
                     "call my team at 1-800-234-5678", "her number (415) 555-0123",
                     "my number +1 415 555 0199", "my number 123-456-7890", "my server 192.168.100.200:8080",
                     "my version 1.2.3.4567", "my timestamp 1712345678", "user ip 10.0.0.1",
                     "my build 2024-01-15 10:30:00", "my order id +44 20 7123 4567"):
            self.assertEqual(spans(text), [], text)

    def test_nearest_context_word_decides(self):
        text = "Support: (415) 823-4567 / Jane Doe: (415) 823-9876"
        self.assertEqual(spans(text), [("phone", "(415) 823-9876")])
        text = "Customer Jane Doe, mobile +44 7911 123456; support line +44 20 7123 4567."
        self.assertEqual(spans(text), [("phone", "+44 7911 123456")])


class EmailTest(unittest.TestCase):
    def test_personal_addresses_found(self):
        for value in ("alice@company.com", "jane.doe@gmail.com", "zhangsan@qq.com", "lisi1990@163.com",
                      "bob+news@startup.io", "Carol.White@Corp.CO.UK"):
            text = "Contact <%s>." % value
            start = text.index(value)
            self.assertEqual(list(find_personal(text)), [(2, "email", start, start + len(value))], value)
        self.assertEqual(spans("mailto:jane.doe@gmail.com"), [("email", "jane.doe@gmail.com")])
        self.assertEqual(spans("请联系张三，邮箱 zhangsan@qq.com。"), [("email", "zhangsan@qq.com")])

    def test_role_addresses_allowed(self):
        for local in ("oncall", "noreply", "no-reply", "donotreply", "support", "security", "team", "admin",
                      "info", "help", "ops", "devops", "sre", "alerts", "billing", "sales", "hr", "jobs",
                      "careers", "contact", "abuse", "postmaster", "webmaster", "root", "git", "ci", "bot",
                      "build", "release", "deploy", "notifications", "feedback", "privacy", "legal", "press",
                      "dev", "engineering", "platform", "it", "platform-team", "ci-bot", "eng-leads",
                      "dev-notify", "Support"):
            self.assertEqual(spans("mail %s@company.com" % local), [], local)

    def test_reserved_and_non_email_forms_allowed(self):
        for text in ("12345+alice@users.noreply.github.com", "alice@example.com", "bob@example.org",
                     "carol@example.net", "dan@corp.example", "eve@host.test", "fay@foo.invalid",
                     "gus@localhost",
                     "ssh deploy@prod-web-01", "ssh alice@buildhost", "alice@db.internal",
                     "git@github.com:org/repo.git", "alice@github.com:org/repo.git", "lodash@4.17.21",
                     "icon@2x.png", "https://alice@bitbucket.org/team/repo.git", "@decorator", "a @ b.com"):
            self.assertEqual(spans(text), [], text)


class HomePathTest(unittest.TestCase):
    def test_home_prefix_is_the_span(self):
        cases = (("open /Users/alice/project/app.py now", "/Users/alice"),
                 ("see /home/bob/.ssh/config", "/home/bob"),
                 ("log at C:\\Users\\carol\\AppData\\Local", "C:\\Users\\carol"),
                 ("log at C:/Users/dave/x.txt", "C:/Users/dave"),
                 ("d:\\users\\me\\notes", "d:\\users\\me"),
                 ('"C:\\\\Users\\\\erin\\\\x"', "C:\\\\Users\\\\erin"),
                 ("path /Users/example/", "/Users/example"),
                 ("path /home/user/x", "/home/user"),
                 ("cd /Users/me", "/Users/me"),
                 ("file:///Users/frank/doc.pdf", "/Users/frank"))
        for text, value in cases:
            start = text.index(value)
            self.assertEqual(list(find_personal(text)), [(2, "home-path", start, start + len(value))], text)
        text = "open /Users/alice/project/app.py"
        _r, _k, _s, end = next(find_personal(text))
        self.assertEqual(text[end:], "/project/app.py")  # masking keeps the rest readable

    def test_not_a_home_folder(self):
        for text in ("/home/", "ls /Users/ here", "~/project/x", "$HOME/project", "${HOME}/x",
                     "/root/.bashrc", "/home/$USER/x", "/Users/<name>/x", "/mnt/home/alice",
                     "/Users/Shared/x", "C:\\Users\\Public\\x", "https://example.com/home/page"):
            self.assertEqual(spans(text), [], text)


class MixedTextTest(unittest.TestCase):
    def test_mixed_record(self):
        visa = card("4539", 16)
        de = iban("DE", "370400440532013001")
        text = ("Refund for jane.doe@gmail.com: card %s, IBAN %s. Logs in /Users/jane/logs. "
                "客户张三手机13912345678。Ping oncall@company.com; server 10.0.0.1:8080, build 1.2.3." % (visa, de))
        self.assertEqual(spans(text), [("email", "jane.doe@gmail.com"), ("payment-card", visa), ("iban", de),
                                       ("home-path", "/Users/jane"), ("phone", "13912345678")])
        found = list(find_personal(text))
        self.assertTrue(all(rank == 2 and kind in KINDS for rank, kind, _s, _e in found))
        ends = [(s, e) for _r, _k, s, e in found]
        self.assertEqual(ends, sorted(ends))
        self.assertTrue(all(a[1] <= b[0] for a, b in zip(ends, ends[1:])))

    def test_nothing_to_find(self):
        self.assertEqual(spans(""), [])
        prose = ("The build pipeline runs the unit tests first, then the integration suite. In 2023 we moved "
                 "from Python 3.8 to 3.11, which cut the run time by 20 percent; see PR #1234, v2.4.1. ") * 10
        self.assertEqual(spans(prose), [])

    def test_prose_loads_nothing(self):
        """A text with nothing to find reads no data file and compiles one small pattern."""
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from memory_core import personal_data as p\n"
                "list(p.find_personal('Deploy took 12 s in 2024; see v3.11 and https://host/docs. ' * 40))\n"
                "print(p._tables is None, len(p._compiled))" % str(_support.SCRIPTS))
        proc = subprocess.run([_support.PYTHON, "-c", code], capture_output=True, universal_newlines=True,
                              env=_support.clean_env(), timeout=60)
        self.assertEqual(proc.stdout.split(), ["True", "1"], proc.stderr)

    def test_data_file(self):
        path = _support.SCRIPTS / "memory_core" / "data" / "personal_data.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        self.assertTrue(data["sources"])
        for number in data["payment_card"]["test_numbers"]:
            self.assertEqual(luhn_digit(number[:-1]), number[-1], number)  # a non-Luhn entry is dead weight
        self.assertTrue(all(isinstance(n, int) and 15 <= n <= 34 for n in data["iban"]["lengths"].values()))


if __name__ == "__main__":
    unittest.main()
