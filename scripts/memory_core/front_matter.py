"""SKILL.md's front matter, read with pyyaml when present, else by a minimal reader of flat
`key: value` lines and one level of nested keys (what the Agent Skills format uses)."""


def parse_front_matter(text):
    """(dict or None, error). pyyaml when importable, else a small reader for `key: value` lines,
    indented `sub: value` maps and quoted scalars (not flow collections or block scalars)."""
    if not text.startswith("---"):
        return None, "SKILL.md does not start with a --- front matter block"
    end = text.find("\n---", 3)
    if end < 0:
        return None, "SKILL.md front matter has no closing ---"
    block = text[text.index("\n") + 1:end + 1]
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        try:
            data = yaml.safe_load(block)
        except Exception as exc:  # any YAML error is a finding, reported with its first line
            return None, "front matter is not valid YAML: %s" % str(exc).split("\n")[0]
        return (data, None) if isinstance(data, dict) else (None, "front matter is not a mapping")
    data, current = {}, None
    for line in block.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.strip().partition(":")
        if not sep:
            return None, "front matter line %r is not `key: value`" % line
        value = _scalar(value.strip())
        if line[0] in " \t" and current is not None:
            if not isinstance(data[current], dict):
                data[current] = {}
            data[current][key.strip()] = value
        else:
            current = key.strip()
            data[current] = value if value != "" else {}
    return data, None


def _scalar(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
