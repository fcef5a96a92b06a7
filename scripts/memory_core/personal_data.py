"""Personal and payment data detection: facts are committed to git and shown to AI models.

find_personal yields (rank, kind, start, end) like the finders in redaction.py, for payment-card,
iban, national-id, phone, email and home-path. A number counts only when its check digits hold
(Luhn, ISO 7064 MOD 97-10, MOD 11-2) and nothing around it says test data, an id, a service line
or an example. Tables and vocabularies live in data/personal_data.json, read once per process when
a rule first needs them. The caller has normalised the text (NFKC, no zero-width characters). Each
rule sits behind a cheap test and compiles on first use: hooks are fresh processes. Stdlib only.
"""
import re

RANK = 2
_compiled = {}
_tables = None

_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
# When spans overlap, the more specific rule wins.
_PRIORITY = {"home-path": 0, "email": 1, "iban": 2, "national-id": 3, "payment-card": 4, "phone": 5}


def _re(pattern):
    return _compiled.get(pattern) or _compiled.setdefault(pattern, re.compile(pattern))


def _words(words, right_edge=True):
    """Pattern for any of the lower-case words, longest first, not inside a longer word."""
    alt = "|".join(re.escape(w.lower()) for w in sorted(set(words), key=len, reverse=True))
    return "(?<![a-z])(?:%s)%s" % (alt, "(?![a-z])" if right_edge else "")


def _data():
    """The data file with its lookups prepared. Entries ending in _rx are patterns that _rx
    compiles on first use, so a text with only an email never compiles the phone vocabulary."""
    global _tables
    if _tables is None:
        import os
        from .fastjson import loads
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "personal_data.json")
        with open(path, encoding="utf-8") as fh:
            raw = loads(fh.read())
        card, nid, phone, email = raw["payment_card"], raw["national_id"], raw["phone"], raw["email"]
        issuers = []
        for row in card["issuers"]:
            for prefix in row["prefixes"]:
                lo, _, hi = prefix.partition("-")
                issuers.append((lo, hi or lo, frozenset(row["lengths"])))
        nino_words = nid["nino_context_words"]
        _tables = {
            "issuers": issuers,
            "test_cards": frozenset(card["test_numbers"]),
            # "order #", "订单号：", "trace id=" right before a number: an identifier.
            "id_rx": r"(?:%s)(?:[\s:#=：_.\-]|id|no|num|number|号|码)*\Z"
                     % _words(raw["id_context"]["words"], right_edge=False),
            "iban_lengths": raw["iban"]["lengths"],
            "example_rx": "(?i:%s)" % _words(raw["iban"]["example_words"]),
            "iban_examples": frozenset(raw["iban"]["documented_examples"]),
            "sin_rx": "(?i:%s)" % _words(nid["sin_context_words"]),
            "nhs_rx": "(?i:%s)" % _words(nid["nhs_context_words"]),
            "card_test_rx": "(?i:%s)" % _words(card["test_context_words"]),
            "card_rx": "(?i:%s)" % _words(card["card_context_words"]),
            "email_role_rx": "(?i:%s)" % _words(email["role_context_words"]),
            "email_strong": frozenset(email["strong_role_parts"]),
            "email_placeholders": frozenset(email["placeholder_parts"]),
            "consumer_domains": frozenset(email["consumer_domains"]),
            "ssn_invalid": frozenset(nid["ssn_invalid_examples"]),
            "cn_examples": frozenset(nid["cn_id_examples"]),
            # the word, then at most a few separator characters or a JSON key's quotes
            "passport_rx": "(?i:%s)[\"']?(?:[\\s:：=,\"'#号码是]|number\\b|no\\.|is\\b|was\\b){0,8}(?P<n>[A-Z]{1,2}[0-9]{6,9}|[0-9]{9})(?![0-9A-Za-z])"
                           % _words(nid["passport_words"], right_edge=False),
            "cn_example_rx": "(?i:%s)" % _words(nid["cn_id_example_words"]),
            "nino_bad": (frozenset(nid["nino_invalid_prefixes"]), nid["nino_first_letters_not"],
                         nid["nino_second_letters_not"]),
            # Two-letter words ("NI") only in capitals: "ni" is a syllable in many languages.
            "nino_rx": "|".join([r"(?<![A-Za-z])%s(?![A-Za-z])" % re.escape(w)
                                 for w in nino_words if len(w) <= 2]
                                + ["(?i:%s)" % _words([w for w in nino_words if len(w) > 2])]),
            # Role words first: at one position "customer service" beats "customer".
            "ctx_rx": "(?P<role>%s)|(?P<person>%s)"
                      % (_words(phone["role_words"]), _words(phone["person_words"])),
            "name_stop": frozenset(phone["name_stopwords"]),
            "title_rx": r"(?<![A-Za-z])(?:%s)\.? (?:[A-Z]\. )?[A-Z][a-z]+" % "|".join(phone["name_titles"]),
            "cn_name_rx": "(?:%s|[%s])[\u4e00-\u9fff]{1,2}(?=的?(?:手机|电话|号码|联系|微信|座机))"
                          % ("|".join(phone["cn_compound_surnames"]), phone["cn_surnames"]),
            "toll_free": tuple(phone["toll_free_prefixes"]),
            "mobile_prefixes": tuple(phone["international_mobile_prefixes"]),
            "placeholder_phones": frozenset(phone["placeholder_numbers"]),
            "placeholder_ranges": tuple(phone["placeholder_ranges"]),
            "nanp_drama": phone["placeholder_nanp_exchange"] + "1",
            "email_roles": frozenset(email["role_words"]),
            "email_domains": tuple(email["reserved_domains"]),
            "email_tlds": frozenset(email["reserved_tlds"]) | frozenset(email["file_extensions"]),
            "shared_homes": frozenset(n.lower() for n in raw["home_path"]["shared_folders"]),
        }
        for country in ("cpf", "bsn", "aadhaar", "dni", "hetu", "personnummer", "nir", "hkid"):  # national_ids.py
            _tables[country + "_rx"] = "(?i:%s)" % _words(nid[country + "_context_words"])
    return _tables


def _rx(name):
    return _re(_data()[name])


# ---------------------------------------------------------------------------------------------
# Shared helpers and check digits.

def _glued(text, start, end):
    """text[start:end] is part of a longer token: letters or digits touch it, directly or through
    a joiner (v1.2, ab-12, /orders/12, 12:30). In "card:4111..." the colon is a label's."""
    b1, b2 = text[start - 1:start] if start else "", text[start - 2:start - 1] if start >= 2 else ""
    a1, a2 = text[end:end + 1], text[end + 1:end + 2]
    if (b1 and b1 in _ALNUM) or (a1 and a1 in _ALNUM):
        return True
    if b1 and b2 and (b1 in "-./" and b2 in _ALNUM or b1 == ":" and b2.isdigit()):
        return True
    return bool(a1 and a2) and a1 in "-./:" and a2 in _ALNUM


def _id_context(text, start):
    """An order/ticket/trace/transaction id: the words right before say so."""
    window = text[max(0, start - 40):start].lower()
    return window.rstrip(" ").endswith("#") or _rx("id_rx").search(window) is not None


def _line_window(text, start, end, before, after):
    """The text before and after text[start:end] on its own line, at most before/after chars."""
    lo = max(0, start - before, text.rfind("\n", 0, start) + 1)
    nl = text.find("\n", end, end + after)
    return text[lo:start], text[end:nl if nl >= 0 else end + after]


def _clause_window(text, start, end):
    """The text around text[start:end] within its clause (it stops at , ， ; 。 and line ends)."""
    before, after = _line_window(text, start, end, 40, 60)
    cut = _re(r"[,，;；。!?！？]").search(after)
    return before[max(before.rfind(c) for c in ",，;；。") + 1:], after[:cut.start()] if cut else after


def _scan(pattern, text, windows):
    rx = _re(pattern)
    for lo, hi in windows:
        for m in rx.finditer(text, lo, hi):
            yield m


def _luhn(digits):
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = (ord(ch) - 48) << (i & 1)  # every second digit from the right doubled
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _mod97(iban):
    """ISO 7064 MOD 97-10 over the rearranged IBAN; letters count as 10..35."""
    return int("".join(str(int(ch, 36)) for ch in iban[4:] + iban[:4])) % 97


def _cn_check(first17, weights=(7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)):
    """GB 11643-1999: ISO 7064 MOD 11-2 check character."""
    return "10X98765432"[sum(int(c) * w for c, w in zip(first17, weights)) % 11]


# ---------------------------------------------------------------------------------------------
# Payment cards and IBANs.

_CARD = r"[0-9]{4}(?:([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{4}|([ -])[0-9]{6}\2[0-9]{4,5})|[0-9]{13,19}"


def _cards(text, windows):
    t = _data()
    for m in _scan(_CARD, text, windows):
        start, sep, ends = m.start(), m.group(1), [m.end()]
        if sep:
            # 4-4-4-4 may carry a 1-3 digit group (19-digit cards); a fifth group of four, or a
            # group before, makes a longer run that is no card.
            more = _re(r"[ -]([0-9]{1,4})(?![0-9])").match(text, m.end())
            if more and more.group()[0] == sep:
                if len(more.group(1)) == 4:
                    continue
                ends.insert(0, more.end())
            if _re(r"[0-9]{4}[ -]\Z").search(text, max(0, start - 5), start):
                continue
        for end in ends:
            if _glued(text, start, end) or text[start - 1:start] == "+":
                continue  # +4915112345678 is a phone number
            digits = text[start:end].replace(" ", "").replace("-", "")
            if not any(len(digits) in lengths and a <= digits[:len(a)] <= b
                       for a, b, lengths in t["issuers"]):
                continue  # epoch timestamps (1...) and most ids have no issuer prefix
            if not _luhn(digits) or digits in t["test_cards"]:
                continue
            before, after = _line_window(text, start, end, 50, 40)
            if _rx("card_test_rx").search(before + " " + after):
                continue  # "银联沙箱测试卡", "sandbox card": published test data
            if _id_context(text, start) and not _rx("card_rx").search(before + " " + after):
                continue  # "order #4539..." is an id, but "the Amex ... into the ticket: 3765 ... cvv" is a card
            yield "payment-card", start, end
            break


_IBAN = r"[A-Za-z]{2}[0-9]{2}(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,3})?)"


def _ibans(text, windows):
    t = _data()
    for m in _scan(_IBAN, text, windows):
        start, found = m.start(), m.group()
        length = t["iban_lengths"].get(found[:2].upper())
        count = cut = 0
        for cut, ch in enumerate(found, 1):  # where `length` characters end, spaces aside
            count += ch != " "
            if count == length:
                break
        if count != length or _glued(text, start, start + cut):
            continue  # no IBAN country, or the wrong length for it
        compact = found[:cut].replace(" ", "").upper()
        if _mod97(compact) != 1 or compact in t["iban_examples"]:
            continue  # DE89 3704 0044 0532 0130 00 and the other examples printed in every spec
        before, after = _line_window(text, start, start + cut, 40, 30)
        if not _rx("example_rx").search(before + " " + after):
            yield "iban", start, start + cut  # else "example IBAN: ...", "Stripe's test IBAN" in docs


# ---------------------------------------------------------------------------------------------
# National identifiers.

_CN_ID = (r"[1-9][0-9]{5}( ?)(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])\1[0-9]{3}[0-9Xx]")


def _cn_ids(text, windows):
    for m in _scan(_CN_ID, text, windows):
        s = m.group().replace(" ", "")  # 320102 19761119 9253: grouped as it is read aloud
        if _glued(text, m.start(), m.end()) or _cn_check(s[:17]) != s[17].upper():
            continue
        import datetime  # only for a candidate whose check character holds
        try:
            born = datetime.date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
        except ValueError:
            continue  # 0230, 0431: no such day
        if born > datetime.date.today() or s.upper() in _data()["cn_examples"]:
            continue  # 11010519491231002X: the standard's own example
        before, after = _line_window(text, m.start(), m.end(), 40, 30)
        if not _rx("cn_example_rx").search(before + " " + after):
            yield "national-id", m.start(), m.end()


def _ssns(text, windows):
    invalid = _data()["ssn_invalid"]
    for m in _scan(r"([0-9]{3})-([0-9]{2})-([0-9]{4})", text, windows):
        area, group, serial = m.groups()
        if not (_glued(text, m.start(), m.end()) or area in ("000", "666") or area[0] == "9"
                or group == "00" or serial == "0000" or m.group() in invalid):
            yield "national-id", m.start(), m.end()


def _ninos(text, windows):
    bad, first_not, second_not = _data()["nino_bad"]
    for m in _scan(r"([A-Za-z]{2}) ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?[A-Da-d]", text, windows):
        prefix = m.group(1).upper()
        if prefix in bad or prefix[0] in first_not or prefix[1] in second_not:
            continue
        before, after = _line_window(text, m.start(), m.end(), 60, 40)
        header = text[max(0, text.rfind("\n", 0, m.start() - len(before) - 1)):m.start() - len(before)]
        if not _glued(text, m.start(), m.end()) and _rx("nino_rx").search(header + " " + before + " " + after):
            yield "national-id", m.start(), m.end()  # the context may be a CSV header line above


def _sin_nhs(text, windows):
    """A Canadian SIN (3-3-3 digits, Luhn) or an NHS number (3-3-4, mod 11) next to its name."""
    for m in _scan(r"[0-9]{3}([ -]?)[0-9]{3}\1[0-9]{3,4}", text, windows):
        digits = m.group().replace(" ", "").replace("-", "")
        if _glued(text, m.start(), m.end()):
            continue
        before, after = _line_window(text, m.start(), m.end(), 60, 20)
        if len(digits) == 9 and _luhn(digits) and _rx("sin_rx").search(before + " " + after):
            yield "national-id", m.start(), m.end()
        elif len(digits) == 10 and _nhs_ok(digits) and _rx("nhs_rx").search(before + " " + after):
            yield "national-id", m.start(), m.end()


def _nhs_ok(digits):
    check = 11 - sum(int(d) * w for d, w in zip(digits[:9], range(10, 1, -1))) % 11
    return (0 if check == 11 else check) == int(digits[9])


def _passports(text):
    """A passport number (E12345678, EA1234567, 123456789) right after a word that says so."""
    for m in _rx("passport_rx").finditer(text):
        if not _glued(text, m.start("n"), m.end("n")):
            yield "national-id", m.start("n"), m.end("n")


# ---------------------------------------------------------------------------------------------
# Phone numbers.

# The +86 / 0086 / 86 prefix is looked for behind a match: a pattern that starts with a literal
# scans much faster than one that starts with an optional group.
_CN_MOBILE = r"1[3-9][0-9](?:[0-9]{8}|([ -])[0-9]{4}\1[0-9]{4})"
_PHONE = (r"(?:\+|00)[0-9]{1,3}(?:[ .\-]?\(?[0-9]{1,4}\)?){2,6}"  # +44 20 7946 0958
          r"|\([0-9]{2,5}\) ?[0-9]{3,4}[ .\-]?[0-9]{3,4}"  # (415) 555-2671, (0755) 1234567
          r"|1[ .\-][0-9]{3}[ .\-][0-9]{3}[ .\-][0-9]{4}"  # 1-800-555-0199
          r"|[0-9]{3}([ .\-])[0-9]{3}\1[0-9]{4}"  # 415-555-2671, 415 555 2671
          r"|0[0-9]{1,4}[ \-]?[0-9]{3,4}[ \-]?[0-9]{3,4}"  # 020 7946 0958, 07911 123456, 010-12345678
          r"|0[1-9](?:([ .\-])[0-9]{2}){4}"  # 06 72 48 19 53 (France and others in pairs)
          r"|0[1-9][0-9]{1,2}[ -][0-9]{2,3}(?: [0-9]{2}){2,3}")  # 070-482 19 63 (Sweden and others)
_ABBREVIATIONS = frozenset("mr mrs ms dr prof tel ph no st jr sr ext e.g i.e co rd ave apt dept".split())
# Two capitalised words (Jane Doe, John Q. Public); a lookahead, so "Call Jane Doe" also tries "Jane Doe".
_NAME = r"(?<![A-Za-z])(?=([A-Z][a-z]+)(?: [A-Z]\.)? ([A-Z][a-z]+)(?![A-Za-z]))"


def _clause(text, start, end):
    """(lo, hi) of the sentence around text[start:end], on its line, at most 80/60 chars out."""
    lo, hi = max(0, start - 80), min(len(text), end + 60)
    stop = _re(r"[\n!?;。！？；]|\.(?=\s)")
    for m in stop.finditer(text, lo, start):
        word = text[max(lo, m.start() - 4):m.start()].lower().split(" ")[-1]
        if m.group() != "." or word not in _ABBREVIATIONS:
            lo = m.end()  # "Tel. 020 ...", "Mr. Smith" do not end a sentence
    m = stop.search(text, end, hi)
    return lo, (m.start() if m else hi)


def _phone_context(text, start, end, before_only=False):
    """"person", "role" or None: the kind of context nearest to the number in its sentence
    (before_only: a service line names itself before its number, "客服电话 1xx")."""
    lo, hi = _clause(text, start, end)
    if before_only:
        hi = min(hi, end + 3)
    clause, stop = text[lo:hi], _data()["name_stop"]
    hits = [(m.lastgroup, m.start(), m.end()) for m in _rx("ctx_rx").finditer(clause.lower())]
    hits.extend(("person", m.start(), m.end(2)) for m in _re(_NAME).finditer(clause)
                if m.group(1).lower() not in stop and m.group(2).lower() not in stop)
    hits.extend(("person", m.start(), m.end()) for m in _rx("title_rx").finditer(clause))  # Mr. Smith
    hits.extend(("person", m.start(), m.end()) for m in _rx("cn_name_rx").finditer(clause))  # 张三的电话
    best = None
    for kind, s, e in hits:
        s, e = s + lo, e + lo
        if s < end and start < e:
            continue
        dist = start - e if e <= start else s - end
        if best is None or dist < best[0] or (dist == best[0] and kind == "role"):
            best = (dist, kind)
    return best and best[1]


def _person_before(text, start):
    """A person's name (two capitalised words, or a title and a name) in the 160 characters
    before start, with no service word there."""
    window = text[max(0, start - 160):start]
    stop = _data()["name_stop"]
    if any(m.lastgroup == "role" for m in _rx("ctx_rx").finditer(window.lower())):
        return False
    return any(m.group(1).lower() not in stop and m.group(2).lower() not in stop for m in _re(_NAME).finditer(window)) \
        or _rx("title_rx").search(window) is not None


def _placeholder_phone(digits, t):
    ph, last10 = t["placeholder_phones"], digits[-10:]
    if last10.startswith(t["placeholder_ranges"]) or (len(last10) == 10 and last10[3:8] == t["nanp_drama"]):
        return True  # Ofcom's 07700 900xxx and NANP 555-01xx: set aside for fiction and docs
    return digits in ph or last10 in ph or len(set(digits[-8:])) == 1  # 13900000000, 555-555-5555


def _cn_mobiles(text, windows):
    t = _data()
    for m in _scan(_CN_MOBILE, text, windows):
        start, end = m.start(), m.end()
        prefix = _re(r"(?:\+|00)?86[ -]?\Z").search(text, max(0, start - 6), start)
        start = prefix.start() if prefix else start
        if _glued(text, start, end) or text[start - 1:start] == "+":
            continue
        digits = m.group().replace(" ", "").replace("-", "")
        if _placeholder_phone(digits, t) or _id_context(text, start):
            continue
        if _phone_context(text, max(0, start - 1), end, before_only=True) != "role":  # personal unless a service line
            yield "phone", start, end


def _other_phones(text, windows):
    t = _data()
    for m in _scan(_PHONE, text, windows):
        start, end, s = m.start(), m.end(), m.group()
        if _glued(text, start, end):
            continue
        intl = s[0] == "+" or s.startswith("00")
        digits = "".join(c for c in s if c.isdigit())[2 if s.startswith("00") else 0:]
        if not 9 <= len(digits) <= 15 or _placeholder_phone(digits, t):
            continue
        if intl and digits.startswith("86") and _re(r"1[3-9][0-9]{9}\Z").match(digits, 2):
            continue  # a Chinese mobile: _cn_mobiles decided
        nat = digits  # the national number, for the service and NANP rules
        if digits[0] == "1" and (intl or len(digits) == 11):
            nat = digits[1:]
        elif intl and digits[:2] in ("44", "86"):
            nat = ("0" if digits[:2] == "44" else "") + digits[2:]
        if nat.startswith(t["toll_free"]) and len(nat) in (10, 11):
            continue  # 400-/800-, 1-800, 0800: service lines
        if intl and digits.startswith(t["mobile_prefixes"]) and not _id_context(text, start) \
                and _phone_context(text, start, end) != "role":
            yield "phone", start, end  # +49 160 ..., +44 7...: a mobile is someone's
            continue
        if len(nat) == 10 and nat[0] != "0" and (not intl or digits[0] == "1"):
            if nat[0] == "1" or nat[3:8] == "55501":
                continue  # no NANP area code starts with 1 (123-456-7890); 555-01xx is fictional
        context = _phone_context(text, start, end)
        if context is None and _person_before(text, start):
            context = "person"  # "Call back Jordan Pike about ... by Friday. 617-294-8830": the sentence before
        if not _id_context(text, start) and context == "person":
            yield "phone", start, end


# ---------------------------------------------------------------------------------------------
# Email addresses and home folders.

_LOCAL_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._%+-")
_DOMAIN = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"


def _emails(text):
    at = text.find("@")
    while at >= 0:
        ls = at  # the local part is found backwards from "@"
        while ls > 0 and at - ls < 64 and text[ls - 1] in _LOCAL_CHARS:
            ls -= 1
        while ls < at and not text[ls].isalnum():
            ls += 1
        m = _re(_DOMAIN).match(text, at + 1)
        if ls < at and m and _personal_address(text[ls:at].lower(), m.group().lower()) \
                and not _rx("email_role_rx").search(" ".join(_clause_window(text, ls, m.end()))):
            # URL user info (scheme://user:pw@host) and git@github.com:org/repo.git are no addresses.
            token_start = max(text.rfind(" ", 0, ls), text.rfind("\n", 0, ls), text.rfind('"', 0, ls)) + 1
            if "://" not in text[token_start:ls] and not (text[m.end():m.end() + 1] == ":"
                                                  and text[m.end() + 1:m.end() + 2].strip()):
                yield "email", ls, m.end()
        at = text.find("@", at + 1)


def _personal_address(local, domain):
    t = _data()
    tld = domain.rpartition(".")[2]
    if not tld.isalpha() or len(tld) < 2 or tld in t["email_tlds"]:
        return False  # user@host, pkg@1.2.3, icon@2x.png, x@db.internal
    if any(domain == d or domain.endswith("." + d) for d in t["email_domains"]):
        return False  # example.com, users.noreply.github.com
    local, roles = local.partition("+")[0], t["email_roles"]
    parts = [p for p in re.split(r"[._-]", local) if p]
    if any(p in t["email_placeholders"] for p in parts):
        return False  # james.fake@, your-service@, test.user@: sample data, not a person
    if len(local) <= 3 and local.isalpha() and not set(local) & set("aeiouy") and domain not in t["consumer_domains"]:
        return False  # xxk@hospital.cn, bd@, hr@: a desk's short name at an organisation
    if local in roles or (parts and any(p in roles for p in parts) and all(p in roles or p.isdigit() for p in parts)):
        return False  # oncall@, eng-leads@, ci-bot@
    return not any(p in t["email_strong"] for p in parts)  # grant.liu.dev@ is a person; platform-team@ is not


_HOME_NAME = r"[^\s/\\\"'`<>|:*?$%{}()\[\],;]+"  # no $USER, %USERNAME%, <name>, {user}
_POSIX_HOME = r"/(?:mnt/[a-z]/Users|Users|home)/(%s)" % _HOME_NAME  # /mnt/c/Users/x: Windows home from WSL
# Windows names may hold spaces ("C:\Users\Jane Doe\"), when a separator follows.
_WIN_HOME = (r"(?i)(?<![a-z0-9])[a-z]:(?:\\{1,2}|/)users(?:\\{1,2}|/)(%s(?: %s){0,2}(?=[\\/])|%s)"
             % ((_HOME_NAME,) * 3))


def _home_paths(text):
    matches = []
    if "/Users/" in text or "/home/" in text:
        for m in _re(_POSIX_HOME).finditer(text):
            before = text[max(0, m.start() - 2):m.start()].rjust(2)
            if m.group().startswith("/mnt/"):
                matches.append(m)
            elif not (before[1] in _ALNUM or before[1] in ".~$-" or (before[1] == "/" and before[0] in _ALNUM)):
                matches.append(m)  # but not /mnt/home/x, ~/home/x: not the top-level /home
    low = text.lower() if ":" in text else ""
    if ":\\users" in low or ":/users" in low or ":\\\\users" in low:
        matches.extend(_re(_WIN_HOME).finditer(text))
    for m in matches:
        if m.group(1).lower() not in _data()["shared_homes"]:
            yield "home-path", m.start(), m.end()


# ---------------------------------------------------------------------------------------------

def _number_windows(text):
    """Merged (lo, hi) spans of text where numeric rules may match: narrow ones around runs of 9+
    digits (cards, ids, phones), wide ones that fit an IBAN's letter groups and a NINO's context.
    Prose has few digit runs, so most texts stop here."""
    narrow, wide = [], []
    for m in _re(r"[0-9](?:[ ().\-]{0,2}[0-9]){5,}").finditer(text):
        start, end = m.start(), m.end()
        spans = [(wide, start - 40, end + 40)]
        if end - start - sum(map(m.group().count, " ().-")) >= 9:
            spans.append((narrow, start - 6, end + 2))  # "+86 " before, "X" after
        for windows, lo, hi in spans:
            if windows and lo <= windows[-1][1]:
                windows[-1][1] = hi
            else:
                windows.append([max(0, lo), hi])
    return narrow, wide


def find_personal(text):
    """Yield (rank, kind, start, end) for each personal / payment item in text. rank 2."""
    if not text:
        return
    from . import national_ids  # imports this module: loaded on first use
    found = []
    if "@" in text:
        found.extend(_emails(text))
    if "/Users/" in text or "/home/" in text or ":" in text:
        found.extend(_home_paths(text))
    narrow, wide = _number_windows(text)
    if wide and ("NI" in text or "国民保险" in text or _re(r"(?i)nino|national insurance|ni[_ -](?:no|number)").search(text)):
        found.extend(_ninos(text, wide))
    if wide:
        found.extend(_ibans(text, wide))
    if "assport" in text or "护照" in text:
        found.extend(_passports(text))
    if wide:
        found.extend(national_ids.lettered_ids(text))
    for finder in (_cn_ids, _ssns, _sin_nhs, national_ids.numeric_ids, _cards, _cn_mobiles, _other_phones) \
            if narrow else ():
        found.extend(finder(text, narrow))
    if not found:
        return
    from bisect import bisect
    chosen = []  # (start, end, kind), sorted and disjoint
    for kind, start, end in sorted(found, key=lambda f: (_PRIORITY[f[0]], f[1])):
        i = bisect(chosen, (start,))
        if (i == 0 or chosen[i - 1][1] <= start) and (i == len(chosen) or end <= chosen[i][0]):
            chosen.insert(i, (start, end, kind))
    for start, end, kind in chosen:
        yield RANK, kind, start, end
