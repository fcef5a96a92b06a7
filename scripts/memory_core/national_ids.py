"""National ids of other countries, by their check digits: Brazil's CPF, the Dutch BSN, India's
Aadhaar (digits only), and Spain's DNI/NIE, Finland's henkilötunnus, Sweden's personnummer, France's
NIR and Hong Kong's HKID (letters or layouts of their own). Context words live in
data/personal_data.json; personal_data.find_personal calls these."""
from .personal_data import _glued, _line_window, _luhn, _re, _rx, _scan


# Verhoeff's dihedral-group tables (Aadhaar's check digit).
_VERHOEFF_D = ("0123456789", "1234067895", "2340178956", "3401289567", "4012395678",
               "5987604321", "6598710432", "7659821043", "8765932104", "9876543210")
_VERHOEFF_P = ("0123456789", "1576283094", "5803796142", "8916043527",
               "9453126870", "4286573901", "2793806415", "7046913258")


def _verhoeff_ok(digits):
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = int(_VERHOEFF_D[c][int(_VERHOEFF_P[i % 8][int(ch)])])
    return c == 0


def _cpf_ok(digits):
    if len(set(digits)) == 1:
        return False  # 111.111.111-11 passes the arithmetic but is no one's
    for n in (9, 10):
        check = sum(int(d) * w for d, w in zip(digits[:n], range(n + 1, 1, -1))) * 10 % 11 % 10
        if check != int(digits[n]):
            return False
    return True


def numeric_ids(text, windows):
    """Brazil's CPF, the Dutch BSN and India's Aadhaar: check digits, and their name nearby (a CPF
    in its own 000.000.000-00 layout needs none)."""
    for m in _scan(r"[0-9]{3}(\.?)[0-9]{3}\1[0-9]{3}-?[0-9]{2}|[2-9][0-9]{3}( ?)[0-9]{4}\2[0-9]{4}|[0-9]{9}",
                   text, windows):
        digits = m.group().replace(" ", "").replace(".", "").replace("-", "")
        if _glued(text, m.start(), m.end()):
            continue
        before, after = _line_window(text, m.start(), m.end(), 60, 20)
        near = before + " " + after
        if len(digits) == 11 and _cpf_ok(digits) and (m.group(1) or _rx("cpf_rx").search(near)):
            yield "national-id", m.start(), m.end()
        elif len(digits) == 12 and _verhoeff_ok(digits) and _rx("aadhaar_rx").search(near):
            yield "national-id", m.start(), m.end()
        elif len(digits) == 9 and digits[0] != "0" and _rx("bsn_rx").search(near) and \
                (sum(int(d) * w for d, w in zip(digits[:8], range(9, 1, -1))) - int(digits[8])) % 11 == 0:
            yield "national-id", m.start(), m.end()


def lettered_ids(text):
    """Ids with letters or a layout of their own, each with its name nearby: Spain's DNI/NIE,
    Finland's henkilötunnus, Sweden's personnummer, France's NIR, Hong Kong's HKID."""
    shapes = (("dni_rx", r"(?<![0-9A-Za-z])[XYZ0-9][0-9]{7}-?[A-Za-z](?![0-9A-Za-z])", _dni_ok),
              ("hetu_rx", r"(?<![0-9])[0-3][0-9][01][0-9]{3}[-+A-F][0-9]{3}[0-9A-Ya-y](?![0-9A-Za-z])", _hetu_ok),
              ("personnummer_rx", r"(?<![0-9])(?:19|20)?[0-9]{6}[-+]?[0-9]{4}(?![0-9])", _pnr_ok),
              ("nir_rx", r"(?<![0-9])[12][0-9]{2}[0-1][0-9](?:[0-9]{2}|2[AB])[0-9]{6} ?[0-9]{2}(?![0-9])", _nir_ok),
              ("hkid_rx", r"(?<![0-9A-Za-z])[A-Z]{1,2}[0-9]{6} ?\(?[0-9A]\)?", _hkid_ok))
    for context, shape, valid in shapes:
        if not _rx(context).search(text):
            continue
        for m in _re(shape).finditer(text):
            before, after = _line_window(text, m.start(), m.end(), 60, 20)
            if valid(m.group().upper()) and _rx(context).search(before + " " + after):
                yield "national-id", m.start(), m.end()


def _dni_ok(s):
    s = s.replace("-", "")
    digits = str("XYZ".find(s[0])) + s[1:8] if s[0] in "XYZ" else s[:8]
    return "TRWAGMYFPDXBNJZSQVHLCKE"[int(digits) % 23] == s[8]


def _hetu_ok(s):
    return "0123456789ABCDEFHJKLMNPRSTUVWXY"[int(s[:6] + s[7:10]) % 31] == s[10]


def _pnr_ok(s):
    digits = s.replace("-", "").replace("+", "")[-10:]
    return 1 <= int(digits[2:4]) <= 12 and _luhn(digits)


def _nir_ok(s):
    s = s.replace(" ", "")
    body = s[:13].replace("2A", "19").replace("2B", "18")  # Corsica's departments count as numbers
    return 97 - int(body) % 97 == int(s[13:])


def _hkid_ok(s):
    s = s.replace("(", "").replace(")", "").replace(" ", "")
    head = s[:-7] if len(s) in (8, 9) else ""
    if not head:
        return False
    values = ([36] if len(head) == 1 else []) + [ord(c) - 55 for c in head] + [int(c) for c in s[-7:-1]]
    check = (11 - sum(v * w for v, w in zip(values, range(9, 1, -1))) % 11) % 11
    return ("0123456789A"[check]) == s[-1]
