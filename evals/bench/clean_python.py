"""The interpreter the benchmarks measure with: a fresh virtual environment's python, by its own path.

Why: a benchmark's ratios are against a bare `python -c pass`, so whatever the interpreter does at
every start hides the product's cost. On the development machines `python3` is a pyenv shim (a
shell script, ~50 ms before Python starts) and the base interpreter's site-packages holds .pth files
that `site` runs at every start (certifi's and others, ~28 ms). A fresh venv (no
--system-site-packages) processes none of them; it is called by its own path (venv/bin/python, not
resolved to the base binary, or it would stop being the venv).

The venv is kept in <temp dir>/m3l-bench-venvs/py<version>-<hash of the base interpreter's path>/venv
and reused; pyyaml and rapidfuzz (the product's optional dependencies, see requirements.txt) are
installed into it with its own pip, so the normal mode is measured. setuptools, which `ensurepip`
adds to venvs before Python 3.12, is uninstalled again: its distutils-precedence.pth would import
a module at every start, and a 3.12+ venv has no such file. Stdlib only, Python 3.8+.
"""
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

REQUIREMENTS = ("pyyaml>=5.4", "rapidfuzz>=3.0")  # the runtime part of requirements.txt
DEPENDENCIES = (("pyyaml", "yaml"), ("rapidfuzz", "rapidfuzz"))  # (distribution, module)
CACHE_DIRNAME = "m3l-bench-venvs"
MARKER = "m3l-bench-venv.json"
PIP_TIMEOUT = 600  # seconds for the whole pip step; pip itself gives up on a dead network sooner
_STARTUP_MODULES = ("sitecustomize", "usercustomize")

# Run in the measured interpreter: which .pth files its `site` processed and which modules a bare
# start imported from site-packages (or via sitecustomize), then whether the optional deps import.
PROBE = r"""
import sys
files = [(n, getattr(m, "__file__", None)) for n, m in list(sys.modules.items())]
started = len(files)
import json, os, site
dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
if getattr(site, "ENABLE_USER_SITE", False):
    dirs.append(site.getusersitepackages())
pth = []
for d in dirs:
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    pth.extend(os.path.join(d, n) for n in names if n.endswith(".pth"))
roots = [os.path.realpath(d) + os.sep for d in dirs]
hooks = sorted([n, f] for n, f in files if n in ("sitecustomize", "usercustomize")
               or (f and any(os.path.realpath(f).startswith(r) for r in roots)))
deps = {}
for dist, mod in (("pyyaml", "yaml"), ("rapidfuzz", "rapidfuzz")):
    try:
        deps[dist] = str(getattr(__import__(mod), "__version__", "present"))
    except Exception:
        deps[dist] = None
print(json.dumps({"executable": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3],
                  "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix),
                  "site_dirs": dirs, "pth": pth, "hook_modules": hooks, "startup_modules": started,
                  "deps": deps}))
"""


class CleanPythonError(Exception):
    pass


def child_env(base=None):
    """The environment of every measured child: no PYTHON* knobs (PYTHONPATH, PYTHONHOME,
    PYTHONDONTWRITEBYTECODE, PYTHONUNBUFFERED, ...), so the interpreter starts as on a clean machine."""
    base = os.environ if base is None else base
    return dict((k, v) for k, v in base.items() if not k.startswith("PYTHON"))


def base_interpreter():
    """The running interpreter itself (a shim or venv symlink resolved): what the venv is made from."""
    return os.path.realpath(sys.executable)


def venv_python(venv):
    if os.name == "nt":
        return os.path.join(venv, "Scripts", "python.exe")
    return os.path.join(venv, "bin", "python")


def cache_dir(base=None):
    """<temp>/m3l-bench-venvs/py<version>-<hash of the base interpreter's path>."""
    base = base or base_interpreter()
    key = hashlib.sha1(base.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    version = "%d.%d.%d" % sys.version_info[:3]
    return os.path.join(tempfile.gettempdir(), CACHE_DIRNAME, "py%s-%s" % (version, key))


def _is_script(path):
    """True for a wrapper script (a pyenv shim, say) rather than an interpreter binary."""
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"#!"
    except OSError:
        return False


def _under(path, root):
    return os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)


def probe(python, env=None):
    """Facts about `python` as the benchmarks start it, and a verdict: clean or not, and why."""
    try:
        proc = subprocess.run([python, "-c", PROBE], env=child_env(env), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CleanPythonError("cannot run %s: %s" % (python, exc))
    try:
        info = json.loads(proc.stdout.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise CleanPythonError("%s could not report itself (exit %s): %s" % (
            python, proc.returncode, proc.stderr.decode("utf-8", "replace").strip()[-1500:]))
    info["path"] = python
    info["base"] = info["base_prefix"]
    info["venv"] = os.path.realpath(info["prefix"]) != os.path.realpath(info["base_prefix"])
    own = info["prefix"] if info["venv"] else None  # a venv's own site-packages may have hooks of its own
    info["own_pth"] = [p for p in info["pth"] if own and _under(p, own)]
    info["foreign_pth"] = [p for p in info["pth"] if p not in info["own_pth"]]
    info["foreign_hook_modules"] = [n for n, f in info["hook_modules"]
                                    if not (own and f and _under(f, own)) or n in _STARTUP_MODULES]
    reasons = []
    if _is_script(python):
        reasons.append("%s is a wrapper script (a pyenv-style shim?), not an interpreter" % python)
    if info["foreign_pth"]:
        reasons.append("site runs .pth files at every start: %s" % ", ".join(info["foreign_pth"]))
    if info["foreign_hook_modules"]:
        reasons.append("a bare start imports %s" % ", ".join(info["foreign_hook_modules"]))
    info["clean"] = not reasons
    info["not_clean_because"] = reasons
    info["missing"] = [d for d, _m in DEPENDENCIES if not info["deps"].get(d)]
    info["mode"] = "degraded" if info["missing"] else "normal"
    return info


def _run(argv, what, timeout=PIP_TIMEOUT):
    try:
        proc = subprocess.run(argv, env=child_env(), stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "%s: %s" % (what, exc)
    if proc.returncode != 0:
        text = (proc.stderr or proc.stdout or b"").decode("utf-8", "replace")
        tail = " | ".join(l.strip() for l in text.splitlines() if l.strip())[-800:]
        return "%s exited %s: %s" % (what, proc.returncode, tail)
    return None


def install_dependencies(python):
    """pip install pyyaml and rapidfuzz with the venv's own pip (the pip cache makes a rebuild fast),
    then drop setuptools (no startup .pth). Returns None or the error text."""
    error = _run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--timeout", "20",
                  "--retries", "2"] + list(REQUIREMENTS), "pip install %s" % " ".join(REQUIREMENTS))
    remove_setuptools(python)
    return error


def remove_setuptools(python):
    """ensurepip puts setuptools in venvs before 3.12; its distutils-precedence.pth runs at every start."""
    site_dirs = probe(python)["site_dirs"]
    if any(os.path.exists(os.path.join(d, "distutils-precedence.pth")) for d in site_dirs):
        _run([python, "-m", "pip", "uninstall", "--disable-pip-version-check", "-q", "-y", "setuptools"],
             "pip uninstall setuptools", timeout=120)


def make_venv(path, with_pip=True, base=None):
    """`python -m venv PATH` (no --system-site-packages); returns the error text or None."""
    argv = [base or base_interpreter(), "-m", "venv"] + ([] if with_pip else ["--without-pip"]) + [path]
    return _run(argv, "python -m venv", timeout=300)


def _read_marker(venv):
    try:
        with open(os.path.join(venv, MARKER), "r") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _write_marker(venv, data):
    with open(os.path.join(venv, MARKER), "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)


def ensure_venv(log=None):
    """The cached clean venv's python (made or repaired as needed) and its probe().

    info["source"] says "venv (reused)" or "venv (new)"; info["install_error"] the reason the optional
    dependencies are missing, when they are (the run then measures the degraded mode)."""
    log = log or (lambda msg: None)
    base = base_interpreter()
    folder = cache_dir(base)
    venv = os.path.join(folder, "venv")
    python = venv_python(venv)
    marker = _read_marker(venv)
    info = None
    if marker is not None and marker.get("base") == base and os.path.exists(python):
        try:
            info = probe(python)
        except CleanPythonError:
            info = None
        if info is not None and info["version"] != "%d.%d.%d" % sys.version_info[:3]:
            info = None
    if info is not None:
        info["source"] = "venv-reused"
        info["base"] = base
        if info["missing"]:
            log("the cached venv %s lacks %s; trying pip install again" % (venv, ", ".join(info["missing"])))
            error = install_dependencies(python)
            again = probe(python)
            again["source"], again["base"] = info["source"], base
            info = again
            info["install_error"] = error if info["missing"] else None
            marker.update(deps=info["deps"], install_error=info["install_error"])
            _write_marker(venv, marker)
        return python, info

    # Build it beside the cache entry, then move it into place: a concurrent run never sees half a venv.
    log("making a clean venv in %s (once; later runs reuse it)" % venv)
    os.makedirs(folder, exist_ok=True)
    shutil.rmtree(venv, ignore_errors=True)
    building = tempfile.mkdtemp(prefix="venv-building-", dir=folder)
    try:
        error = make_venv(building, with_pip=True, base=base)
        if error:  # e.g. Debian without python3-venv: no ensurepip, so no pip in the venv either
            shutil.rmtree(building, ignore_errors=True)
            os.makedirs(building)
            error2 = make_venv(building, with_pip=False, base=base)
            if error2:
                raise CleanPythonError("cannot make a venv with %s: %s; pass --python PATH" % (base, error2))
            install_error = "the venv has no pip (%s)" % error
        else:
            log("installing %s into it with its own pip" % " and ".join(REQUIREMENTS))
            install_error = install_dependencies(venv_python(building))
        deps = probe(venv_python(building))["deps"]
        _write_marker(building, {"base": base, "version": "%d.%d.%d" % sys.version_info[:3], "deps": deps,
                                 "install_error": install_error if not all(deps.values()) else None,
                                 "made": datetime.datetime.now().isoformat(timespec="seconds")})
        try:
            os.rename(building, venv)
        except OSError:  # another run put one in place meanwhile: use that
            shutil.rmtree(building, ignore_errors=True)
    finally:
        if os.path.isdir(building):
            shutil.rmtree(building, ignore_errors=True)
    info = probe(python)
    info["source"] = "venv-new"
    info["base"] = base
    marker = _read_marker(venv) or {}
    info["install_error"] = marker.get("install_error") if info["missing"] else None
    return python, info


def given_python(path):
    """--python PATH: that interpreter, as given (a venv's python stays the venv's), and its probe()."""
    if os.sep not in path and (os.altsep is None or os.altsep not in path):
        found = shutil.which(path)
        if found is None:
            raise CleanPythonError("--python %s: not found on PATH" % path)
        path = found
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise CleanPythonError("--python %s: no such file" % path)
    info = probe(path)
    info["source"] = "--python"
    info["install_error"] = None
    return path, info


def describe(info):
    """Lines for the table's footer: which interpreter, clean or not (why), normal or degraded mode."""
    if info["source"] == "venv-new":
        how = "fresh venv made now from %s" % info["base"]
    elif info["source"] == "venv-reused":
        how = "fresh venv of %s, reused from the cache" % info["base"]
    elif info["venv"]:
        how = "given with --python, a venv of %s" % info["base_prefix"]
    else:
        how = "given with --python, not a venv"
    lines = ["interpreter: %s (Python %s; %s)" % (info["path"], info["version"], how)]
    if info["clean"]:
        extra = ""
        if info["own_pth"] or info["hook_modules"]:
            extra = "; its own site-packages runs %s" % ", ".join(
                [os.path.basename(p) for p in info["own_pth"]] + [n for n, _f in info["hook_modules"]])
        lines.append("clean: yes (no .pth file or site hook outside the venv's own packages%s; "
                     "%d modules at a bare start)" % (extra, info["startup_modules"]))
    else:
        lines.append("clean: NO, start-up costs are hidden in the baseline: %s" % "; ".join(info["not_clean_because"]))
    versions = ", ".join("%s %s" % (d, info["deps"].get(d) or "absent") for d, _m in DEPENDENCIES)
    if info["mode"] == "normal":
        lines.append("mode: normal (%s)" % versions)
    else:
        why = info.get("install_error") or "not installed in this interpreter"
        lines.append("mode: DEGRADED, this run measures the product without %s (%s): %s" % (
            " and ".join(info["missing"]), versions, why))
    return lines
