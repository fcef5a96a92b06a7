"""Optional store settings: config.yaml, then environment, then flags (the caller applies flags).

pyyaml is imported only when a config file exists. Without pyyaml a config.yaml that is plain
JSON (a subset of YAML) still reads; anything else is reported as degraded, never a crash.
"""
import os

from .paths import StoreError, config_path

DEFAULTS = {"max_chars": 9000, "max_items": 60, "daily_days": 3, "topics": None}
ENV_NAMES = {"max_chars": "MEMORY_MAX_CHARS", "max_items": "MEMORY_MAX_ITEMS",
             "daily_days": "MEMORY_DAILY_DAYS", "topics": "MEMORY_TOPICS"}
LIMITS = {"max_chars": (500, 100000), "max_items": (0, 100000), "daily_days": (0, 3650)}


CONFIG_LIMIT = 1024 * 1024


def read_config(store, strict=False):
    """(config dict, notes). Notes say what was degraded or ignored, one line each. A config.yaml
    that exists but cannot be read or parsed would silently drop the user's own secret patterns:
    writers pass strict=True and refuse (exit 2, naming the file); readers go on and say so."""
    from . import safefs
    path = config_path(store)
    try:
        raw = safefs.read_bytes(path, CONFIG_LIMIT)
    except (OSError, safefs.CorruptFile) as exc:
        raw, problem = b"", getattr(exc, "reason", None) or exc.strerror or str(exc)
    else:
        problem = None
        if raw is None:
            return {}, []
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            problem = "not UTF-8"
    if problem:
        return _unusable(path, problem, strict)
    import json
    try:
        import yaml
    except ImportError:
        yaml = None
    try:
        data = yaml.safe_load(text) if yaml is not None else json.loads(text or "{}")
    except Exception as exc:  # yaml raises many types; any parse failure means "ignored, reported"
        why = "pyyaml not installed and the file is not plain JSON" if yaml is None else str(exc).split("\n")[0]
        return _unusable(path, why, strict)
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        return _unusable(path, "expected a mapping at the top", strict)
    return data, []


def _unusable(path, why, strict):
    if strict:
        raise StoreError("%s cannot be used: %s; nothing was written (its secrets.extra_patterns "
                         "would be ignored)" % (path, why),
                         fix="fix or remove %s (install pyyaml, or write it as JSON); then run this again" % path,
                         exit_code=2, path=path)
    return {}, ["%s ignored: %s; its settings and secret patterns are not applied" % (path, why)]


def _as_int(name, value, source):
    lo, hi = LIMITS[name]
    try:
        number = int(str(value).strip())
    except ValueError:
        raise StoreError("%s=%r is not a whole number" % (source, value),
                         fix="use a whole number from %d to %d" % (lo, hi))
    if not lo <= number <= hi:
        raise StoreError("%s=%d is out of range" % (source, number),
                         fix="use a whole number from %d to %d" % (lo, hi))
    return number


def parse_topics(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        parts = [str(v).strip() for v in value]
    else:
        parts = [p.strip() for p in str(value).split(",")]
    parts = [p for p in parts if p]
    return parts or None


def load_settings(config, flags, env=None):
    """Budget settings: flag > environment > config.yaml ('budgets' mapping or top level) > default."""
    env = os.environ if env is None else env
    budgets = config.get("budgets") if isinstance(config.get("budgets"), dict) else {}
    out = {}
    for name, default in DEFAULTS.items():
        if flags.get(name) is not None:
            value, source = flags[name], "--" + name.replace("_", "-")
        elif env.get(ENV_NAMES[name]):
            value, source = env[ENV_NAMES[name]], ENV_NAMES[name]
        elif name in budgets or name in config:
            value, source = budgets.get(name, config.get(name)), "config.yaml " + name
        else:
            value, source = default, None
        if name == "topics":
            out[name] = parse_topics(value)
        elif source is None:
            out[name] = value
        else:
            out[name] = _as_int(name, value, source)
    return out


def extra_secret_patterns(config):
    """[(kind, regex)] from config.yaml: secrets: {extra_patterns: [{kind:, regex:}]}."""
    section = config.get("secrets") if isinstance(config.get("secrets"), dict) else {}
    found = []
    for entry in section.get("extra_patterns") or []:
        if isinstance(entry, dict) and isinstance(entry.get("regex"), str):
            found.append((str(entry.get("kind") or "custom"), entry["regex"]))
    return found


def fact_model_extra(config):
    """{"aliases": {name: [spellings]}, "families": {family: [members]}, "concepts": {concept: [words]}}
    from config.yaml's fact_model section (references/fact-model.md), or None; entries that are not a
    name with a list of strings are ignored."""
    section = config.get("fact_model") if isinstance(config.get("fact_model"), dict) else {}
    out = {}
    for part in ("aliases", "families", "concepts"):
        table = section.get(part)
        if isinstance(table, dict):
            clean = dict((str(k), [str(w) for w in v if isinstance(w, (str, int))])
                         for k, v in table.items() if isinstance(v, list))
            if clean:
                out[part] = clean
    return out or None
