"""The TensorFlow and Keras a file is written for: its *target*.

Rules whose truth depends on the release (tf.data's default graph rewrites, the Keras 2 and 3
APIs) ask the target instead of assuming the current TensorFlow. It comes, first found wins, from
the `target-version` setting; from the closest file above the module that declares TensorFlow or
Keras (requirements*.txt, setup.py, setup.cfg, pyproject.toml, Pipfile, environment.yml, a
Dockerfile, a README's install line), walking up to the enclosing git work tree; from the
module's own API (`tf.Session`, `tf.contrib`: TensorFlow 1.x; `fit_generator`, `fit(workers=)`:
Keras 2); else the current TensorFlow with Keras 3.

Versions of the default rewrites, as read in TensorFlow's own wheels (docs/benchmarks.md,
"TensorFlow's default rewrites"): `map_parallelization` is among the defaults from 2.5
(`optimization_options.py`, `_graph_rewrites`; its docstring says so from 2.6), `inject_prefetch`
from 2.11 (2.10's `options.py` documents the option with "defaults to False"; earlier releases
have no option, and the C++ rewrite ran only as an internal experiment), `map_and_batch_fusion`
is a default in every release read, from 1.13 on.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from pipelint.ancestors import ClosestAncestor

__all__ = ["CURRENT_TENSORFLOW", "DECLARING_FILE_GLOBS", "Target", "TargetError", "api_evidence", "declaration_key", "forget_declarations",
           "is_declaring_file", "parse_target_version", "target_for"]

#: The newest TensorFlow release pipelint knows: an unknown or unpinned version reads as this one.
CURRENT_TENSORFLOW = (2, 21)
#: Keras 3 became `tf.keras` in TensorFlow 2.16.
_KERAS3_FROM = (2, 16)

#: The first release in which each default rewrite is on (see the module docstring).
REWRITE_DEFAULT_FROM: dict[str, tuple[int, int]] = {
    "map_parallelization": (2, 5),
    "inject_prefetch": (2, 11),
    "map_and_batch_fusion": (1, 13),
}

_TENSORFLOW_NAMES = frozenset({"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-macos",
                               "tensorflow-intel", "tf-nightly", "tf-nightly-gpu", "tf-nightly-cpu"})
_KERAS_NAMES = frozenset({"keras"})
_LEGACY_KERAS_NAMES = frozenset({"tf-keras"})

# Releases a version range can resolve to: the newest one a range admits is what pip installs.
_TF_RELEASES = [(1, minor) for minor in range(16)] + [(2, minor) for minor in range(CURRENT_TENSORFLOW[1] + 1)]
_KERAS_RELEASES = [(1, minor) for minor in range(3)] + [(2, minor) for minor in range(16)] + \
    [(3, minor) for minor in range(16)]


class TargetError(ValueError):
    """A `target-version` value that names no TensorFlow release."""


@dataclass(frozen=True)
class Target:
    """`tensorflow`: (major, minor), None where not known (read as the current release). `keras`:
    2 or 3, None to follow TensorFlow (Keras 3 from 2.16). `source`: where it was found, for
    messages ("requirements.txt", "`tf.Session` in this module", "target-version")."""

    tensorflow: tuple[int, int] | None = None
    keras: int | None = None
    source: str = ""
    #: With `tensorflow` unknown: the first release the target is known to be older than
    #: (standalone Keras 2.3 and older ran on TensorFlow 2.2 at the newest).
    until: tuple[int, int] | None = None

    @property
    def tensorflow_version(self) -> tuple[int, int]:
        return self.tensorflow or CURRENT_TENSORFLOW

    @property
    def keras_major(self) -> int:
        if self.keras is not None:
            return self.keras
        return 3 if self.tensorflow_version >= _KERAS3_FROM else 2

    @property
    def known(self) -> bool:
        return bool(self.source)

    def _known_release(self) -> tuple[int, int] | None:
        if self.tensorflow is not None:
            return self.tensorflow
        # Code written for Keras 2 with no release declared: some TensorFlow before 2.16.
        return None if self.keras == 2 else CURRENT_TENSORFLOW

    def is_from(self, release: tuple[int, int]) -> bool:
        """Is the target's TensorFlow known to be `release` or newer? (A Keras 2 target of unnamed
        release is not: a call is judged to fail there, or a fix to work, only when known.)"""
        known = self._known_release()
        return known is not None and known >= release

    def is_before(self, release: tuple[int, int]) -> bool:
        """Is the target's TensorFlow known to be older than `release`?"""
        if self.tensorflow is None and self.until is not None:
            return self.until <= release
        known = self._known_release()
        return known is not None and known < release

    def has_default_rewrite(self, rewrite: str) -> bool:
        """Is tf.data's `rewrite` on by default in this target's TensorFlow? (Under a bound, only
        where some release below it has it: quiet rather than wrong.)"""
        if self.tensorflow is None and self.until is not None:
            return self.until > REWRITE_DEFAULT_FROM[rewrite]
        return self.tensorflow_version >= REWRITE_DEFAULT_FROM[rewrite]

    def _tensorflow_words(self) -> str:
        if self.tensorflow is not None:
            major, minor = self.tensorflow
            return f"TensorFlow {major}.x" if major == 1 and self.source.startswith("`") else f"TensorFlow {major}.{minor}"
        if self.until is not None:
            return f"TensorFlow before {self.until[0]}.{self.until[1]}"
        if self.keras == 2:
            return "TensorFlow before 2.16"  # written for Keras 2, release not named
        current = ".".join(map(str, CURRENT_TENSORFLOW))
        return f"TensorFlow {current}" if not self.source else f"TensorFlow {current} (unpinned)"

    def describe_tensorflow(self) -> str:
        """"TensorFlow 2.4 (requirements.txt)", or "TensorFlow 1.x (`tf.Session` in this module)"."""
        words = self._tensorflow_words()
        if not self.source:
            return words
        if words.endswith(")"):
            return words[:-1] + f", {self.source})"
        return f"{words} ({self.source})"

    def describe_keras(self) -> str:
        where = f" ({self.source})" if self.source else ""
        return f"Keras {self.keras_major}{where}"

    def describe(self) -> str:
        """The one line `--show-settings` prints."""
        if not self.known:
            return f"{self._tensorflow_words()}, Keras 3 (not declared: the current release)"
        return f"{self._tensorflow_words()}, Keras {self.keras_major} ({self.source})"


# ---- the setting


def parse_target_version(value: str) -> Target:
    """`target-version = "2.4"` (or "tf2.4", "tf2.15+keras3", "keras2"): the TensorFlow release the
    project targets, optionally with its Keras major version."""
    text = value.strip().lower().replace(" ", "")
    match = re.fullmatch(r"(?:tf|tensorflow)?(\d+)\.(\d+)(?:\.\d+)?(?:\+?keras(\d))?|keras(\d)", text)
    if match is None:
        raise TargetError(f"target-version {value!r}: expected a TensorFlow release such as \"2.4\", "
                          f"\"tf2.15+keras3\" or \"keras2\"")
    if match.group(4):
        keras = int(match.group(4))
        tensorflow = None
    else:
        tensorflow = (int(match.group(1)), int(match.group(2)))
        keras = int(match.group(3)) if match.group(3) else None
        if tensorflow not in _TF_RELEASES:
            raise TargetError(f"target-version {value!r}: no TensorFlow {tensorflow[0]}.{tensorflow[1]} "
                              f"(known: 1.0 to {CURRENT_TENSORFLOW[0]}.{CURRENT_TENSORFLOW[1]})")
    if keras is not None and keras not in (2, 3):
        raise TargetError(f"target-version {value!r}: Keras must be 2 or 3")
    return Target(tensorflow, keras, "target-version")


# ---- declarations


@dataclass(frozen=True)
class _Declared:
    tensorflow: str | None  # the version specifier as written ("==2.4.1", ">=2.3,<2.5", "" unpinned)
    keras: str | None
    legacy_keras: bool
    source: str
    #: The Python the same folder runs (`FROM python:3.6` in its Dockerfile, `python-3.7.12` in
    #: runtime.txt), where it caps the TensorFlow pip can install; and where that was read.
    python: tuple[int, int] | None = None
    python_source: str = ""


def _admitted(specifier: str, releases: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The releases a specifier admits, oldest first (every release for an empty one)."""
    return list(_admitted_once(specifier, "keras" if releases is _KERAS_RELEASES else "tensorflow"))


@lru_cache(maxsize=256)
def _admitted_once(specifier: str, package: str) -> tuple[tuple[int, int], ...]:
    # (Every file under one requirements.txt asks the same question: answered once.)
    releases = _KERAS_RELEASES if package == "keras" else _TF_RELEASES
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    if not specifier.strip():
        return tuple(releases)
    try:
        spec = SpecifierSet(specifier.strip())
    except InvalidSpecifier:
        exact = re.match(r"\s*=?=?\s*v?(\d+)\.(\d+)", specifier)
        return ((int(exact.group(1)), int(exact.group(2))),) if exact else tuple(releases)
    return tuple((major, minor) for major, minor in releases
                 if any(spec.contains(Version(f"{major}.{minor}.{patch}"), prereleases=True) for patch in range(10))
                 or spec.contains(Version(f"{major}.{minor}.0rc0"), prereleases=True))


class _Lazy:
    """A regular expression compiled on first use: most runs read no declaration and no module's
    API from text (a warm run answers from the cache), and compiling them all costs milliseconds."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._arguments = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = re.compile(*self._arguments)
        return getattr(self._compiled, name)


_NAME = r"(tensorflow(?:[-_](?:gpu|cpu|macos|intel))?|tf[-_]nightly(?:[-_](?:gpu|cpu))?|tf[-_]keras|keras)"
_SPEC = r"((?:\s*(?:===|==|~=|!=|<=|>=|<|>|=)\s*[\w.*+!-]+\s*,?)*)"
# A requirement at the start of a line (requirements files, setup.cfg, environment.yml's `- x=1`).
_LINE_REQUIREMENT = _Lazy(r"(?im)^[ \t]*(?:-[ \t]+)?" + _NAME + r"(?:\[[^\]\n]*\])?" + _SPEC
                               + r"[ \t]*(?:[#;][^\n]*)?\r?$")
# A quoted requirement (setup.py, pyproject.toml dependencies).
_QUOTED_REQUIREMENT = _Lazy(r"[\"']" + _NAME + r"(?:\[[^\]\"']*\])?" + _SPEC + r"\s*(?:;[^\"']*)?[\"']", re.I)
# Pipfile: `tensorflow = "==2.4"` or `tensorflow = {version = "==2.4"}`.
_PIPFILE = _Lazy(r"(?im)^\s*[\"']?" + _NAME + r"[\"']?\s*=\s*(?:\{[^}]*version\s*=\s*)?[\"']([^\"']*)[\"']")
# Dockerfile: the official image's tag, or a pip install line.
_DOCKER_IMAGE = _Lazy(r"(?im)^\s*FROM\s+(?:docker\.io/)?tensorflow/tensorflow:(\d+\.\d+)")
_DOCKER_LATEST = _Lazy(r"(?im)^\s*FROM\s+(?:docker\.io/)?tensorflow/tensorflow(?::(?:latest|nightly)\S*)?\s*(?:AS\s+\S+)?$")
_PIP_INSTALL = _Lazy(r"pip3?\s+install\b[^\n]*?\b" + _NAME + r"(?:\[[^\]\s]*\])?((?:\s*(?:==|>=|~=|<=|<|>)\s*[\d.*]+,?)*)", re.I)
# A README's prose: "TensorFlow 2.4.1", "tensorflow-gpu==1.15", "Tensorflow version 1.14", "Keras: 2.9.0".
_README_VERSION = _Lazy(r"\b" + _NAME + r"\s*(?:version\s*|v)?(==|>=|=|:|\s)\s*v?(\d+\.\d+(?:\.\d+)?)\b", re.I)
# A README's shields.io badge: `![TensorFlow](https://img.shields.io/badge/TensorFlow-2.5-orange)`.
_README_BADGE = _Lazy(r"badge/" + _NAME + r"-v?(\d+\.\d+(?:\.\d+)?)-", re.I)

# A wheel named by URL or path (`https://.../tensorflow-1.0.0-cp27-none-linux_x86_64.whl`).
_WHEEL = _Lazy(r"(?i)\b(tensorflow(?:[-_](?:gpu|cpu))?)-(\d+\.\d+(?:\.\d+)?)(?:rc\d+)?-cp\d+[^\s/]*\.whl\b")

_REQUIREMENTS_FILE = _Lazy(r"(?i)^requirements.*\.(?:txt|in)$")
_DOCKERFILE = _Lazy(r"(?i)^(?:dockerfile.*|.*\.dockerfile)$")
_README = _Lazy(r"(?i)^readme(?:\.(?:md|rst|txt))?$")


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-")


def _from_matches(pairs: list[tuple[str, str]], source: str) -> _Declared | None:
    tensorflow = keras = None
    legacy = nightly = False
    for name, spec in pairs:
        name = _canonical(name)
        spec = spec.strip().rstrip(",").strip()
        if spec.startswith("=") and not spec.startswith("=="):
            spec = "=" + spec  # conda's `tensorflow=2.4.1`
        # (the first mention with a version wins: an unpinned `tensorflow-gpu` at the top of a
        # file that pins `tensorflow==2.3.1` further down is the same project's TensorFlow)
        if name in _TENSORFLOW_NAMES and (tensorflow is None or tensorflow == "" and not nightly and spec):
            nightly = name.startswith("tf-nightly")
            tensorflow = "" if nightly else spec
        elif name in _KERAS_NAMES and not keras:
            keras = spec
        elif name in _LEGACY_KERAS_NAMES:
            legacy = True
    if tensorflow is None and keras is None and not legacy:
        return None
    return _Declared(tensorflow, keras, legacy, source)


def _wheels(text: str) -> list[tuple[str, str]]:
    return [(name, "==" + version) for name, version in _WHEEL.findall(text)] if ".whl" in text else []


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except OSError:
        return None
    return data.decode("utf-8", "replace")


def _declared_by(directory: str, name: str) -> _Declared | None:
    text = _read(os.path.join(directory, name))
    if text is None:
        return None
    if _REQUIREMENTS_FILE.match(name) or name == "setup.cfg":
        return _from_matches(_LINE_REQUIREMENT.findall(text) + _wheels(text), name)
    if name in ("setup.py", "pyproject.toml"):
        return _from_matches(_QUOTED_REQUIREMENT.findall(text), name)
    if name == "Pipfile":
        return _from_matches(_PIPFILE.findall(text), name)
    if name.lower() in ("environment.yml", "environment.yaml"):
        return _from_matches(_LINE_REQUIREMENT.findall(text), name)
    if _DOCKERFILE.match(name):
        image = _DOCKER_IMAGE.search(text)
        if image:
            return _Declared("==" + image.group(1), None, False, name)
        if _DOCKER_LATEST.search(text):
            return _Declared("", None, False, name)
        return _from_matches(_PIP_INSTALL.findall(text) + _wheels(text), name)
    if _README.match(name):
        installs = _PIP_INSTALL.findall(text) + _wheels(text)
        found = _from_matches(installs, name)
        if found is not None:
            return found
        prose = [(m.group(1), ("==" if m.group(2) in ("=", "==", ":") or m.group(2).isspace() else m.group(2)) + m.group(3))
                 for m in _README_VERSION.finditer(text)]
        prose += [(m.group(1), "==" + m.group(2)) for m in _README_BADGE.finditer(text)]
        return _from_matches(prose, name)
    return None


# Within one directory, the most exact declaration first.
_DECLARING_PREFIXES = ("requirements", "setup.", "pyproject.", "pipfile", "environment.", "dockerfile", "readme")


def _rank(name: str) -> int:
    lowered = name.lower()
    if not lowered.startswith(_DECLARING_PREFIXES) and not lowered.endswith(".dockerfile"):
        return -1  # (most names: a directory of a thousand packages is listed once per run)
    if _REQUIREMENTS_FILE.match(name):
        return 0 if lowered in ("requirements.txt", "requirements.in") else 1
    order = {"setup.py": 2, "setup.cfg": 3, "pyproject.toml": 4, "pipfile": 5, "environment.yml": 6,
             "environment.yaml": 6}
    if lowered in order:
        return order[lowered]
    if _DOCKERFILE.match(name):
        return 7
    if _README.match(name):
        return 8
    return -1


#: Globs of the files that can declare a target, for an editor to watch.
DECLARING_FILE_GLOBS = ("requirements*.txt", "requirements*.in", "setup.py", "setup.cfg", "pyproject.toml",
                        "Pipfile", "environment.yml", "environment.yaml", "Dockerfile*", "README*")


def is_declaring_file(name: str) -> bool:
    """Can a file of this name declare the TensorFlow/Keras a project targets?"""
    return _rank(name) >= 0


_STOP = _Declared(None, None, False, "")  # the git work tree's top: look no further


#: Folders at a project's top where its environment is often declared (`docker/dev/Dockerfile`,
#: `requirements/base.txt`): read when the top itself declares nothing.
_ENVIRONMENT_FOLDERS = frozenset({"docker", "dockerfiles", "requirements", "env", "envs", "environment",
                                  "environments", "deploy", "deployment", ".devcontainer", "devcontainer"})


# The newest TensorFlow whose wheels a Python release can install (TensorFlow's tested build
# configurations: 2.6 was the last for Python 3.6, 2.11 for 3.7, 2.13 for 3.8); Keras 3 needs 3.9.
_LAST_TENSORFLOW_FOR_PYTHON = {(3, 6): (2, 6), (3, 7): (2, 11), (3, 8): (2, 13)}
_PYTHON_IN = (
    (_Lazy(r"(?im)^\s*FROM\s+(?:docker\.io/)?(?:library/)?python:(\d+)\.(\d+)\b"), _DOCKERFILE),
    (_Lazy(r"(?im)^\s*python-(\d+)\.(\d+)\b"), _Lazy(r"(?i)^runtime\.txt$")),
    (_Lazy(r"(?im)^[ \t]*-[ \t]+python[ \t]*=+[ \t]*(\d+)\.(\d+)\b"), _Lazy(r"(?i)^environment\.ya?ml$")),
    (_Lazy(r"(?im)^\s*python_version\s*=\s*[\"'](\d+)\.(\d+)\b"), _Lazy(r"^Pipfile$")),
)


def _python_declared(directory: str, names: list[str]) -> tuple[tuple[int, int], str] | None:
    """The Python release a file of this folder says the project runs, where it caps TensorFlow."""
    for pattern, file_name in _PYTHON_IN:
        for name in sorted(names):
            if not file_name.match(name):
                continue
            text = _read(os.path.join(directory, name))
            found = pattern.search(text) if text else None
            if found and (int(found.group(1)), int(found.group(2))) in _LAST_TENSORFLOW_FOR_PYTHON:
                return (int(found.group(1)), int(found.group(2))), name
    return None


def _declaration_in(directory: str) -> _Declared | None:
    try:
        names = os.listdir(directory)
    except OSError:
        return None
    candidates = sorted((rank, name) for name in names if (rank := _rank(name)) >= 0)
    for _, name in candidates:
        found = _declared_by(directory, name)
        if found is not None:
            return _with_python(found, directory, names)
    if ".git" not in names:
        return None
    # The top of the work tree: its environment folders, two levels down at most.
    for folder in sorted(name for name in names if name.lower() in _ENVIRONMENT_FOLDERS):
        found = _declaration_below(os.path.join(directory, folder), 2)
        if found is not None:
            return _with_python(replace(found, source=f"{folder}/{found.source}"), directory, names)
    python = _python_declared(directory, names)
    if python is not None:
        # (the top names its Python and no TensorFlow: pip installs the newest that Python can)
        return _Declared("", None, False, python[1], python=python[0], python_source=python[1])
    return _STOP


def _with_python(found: _Declared, directory: str, names: list[str]) -> _Declared:
    python = _python_declared(directory, names)
    return replace(found, python=python[0], python_source=python[1]) if python else found


def _declaration_below(directory: str, depth: int) -> _Declared | None:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return None
    for entry in entries:
        if entry.is_file() and _rank(entry.name) >= 0:
            found = _declared_by(directory, entry.name)
            if found is not None:
                return found
    if depth > 1:
        for entry in entries:
            if entry.is_dir() and not entry.name.startswith("."):
                found = _declaration_below(entry.path, depth - 1)
                if found is not None:
                    return replace(found, source=f"{entry.name}/{found.source}")
    return None


_declarations: ClosestAncestor[_Declared] = ClosestAncestor(_declaration_in)


def forget_declarations() -> None:
    """Read the declaring files anew (each run: a long-lived process sees a changed requirements.txt)."""
    global _declarations
    _declarations = ClosestAncestor(_declaration_in)


def _from_declaration(declared: _Declared, evidence: Target | None) -> Target:
    """The declared release the code is written for: among those the declaration admits, the newest
    one that fits the code's own API (a `tensorflow>=2.3` project calling `fit_generator` is on a
    Keras 2 release), else the newest (what a fresh install gets)."""
    source = declared.source
    tensorflow = keras = None
    cap = _LAST_TENSORFLOW_FOR_PYTHON.get(declared.python) if declared.python else None
    python = f"Python {declared.python[0]}.{declared.python[1]} in {declared.python_source}" if cap else ""
    if declared.tensorflow is not None:
        admitted = _admitted(declared.tensorflow, _TF_RELEASES)
        capped = [release for release in admitted if cap is not None and release <= cap]
        if capped and capped != admitted:
            # (what pip installs on that Python: the newest release it has wheels for)
            admitted, declared = capped, replace(declared, tensorflow=declared.tensorflow or f"<={cap[0]}.{cap[1]}")
            source = python if source == declared.python_source else f"{source}, {python}"
        fitting = admitted
        if evidence is not None and evidence.tensorflow is not None:  # written for TensorFlow 1.x
            fitting = [release for release in admitted if release[0] == 1]
            if admitted and not fitting:
                # (`tf.Session` fails on every release the declaration admits: the code was
                # written, and run, on TensorFlow 1.x; the declaration came later or is wrong)
                return Target(evidence.tensorflow, 2,
                              f"{evidence.source}, which no release {declared.source} declares has")
        elif evidence is not None and evidence.keras == 2:  # written for Keras 2
            until = evidence.until or (
                _OPTIMIZER_V2_UNTIL if any(f"`{name}`" in evidence.source for name in _OPTIMIZER_V2_PRIVATE)
                else _KERAS3_FROM)
            fitting = [release for release in admitted if release < until]
        narrowed = bool(fitting) and fitting != admitted
        if narrowed:
            source = f"{source}, with {evidence.source}"
            tensorflow = fitting[-1]
        elif declared.tensorflow and admitted:
            tensorflow = admitted[-1]
    if declared.legacy_keras:
        keras = 2
    elif declared.keras is not None:
        admitted_keras = _admitted(declared.keras, _KERAS_RELEASES)
        majors = {release[0] for release in admitted_keras}
        if evidence is not None and evidence.keras == 2 and 2 in majors:
            keras = 2
            if majors != {2} and evidence.source not in source:
                source = f"{source}, with {evidence.source}"
        elif declared.keras:
            keras = admitted_keras[-1][0] if admitted_keras else None
            keras = keras if keras in (2, 3) else 2
        elif cap is not None:
            keras = 2  # (Keras 3 needs Python 3.9)
            source = source if python in source else f"{source}, {python}"
        elif tensorflow is None:
            keras = 3  # `keras` unpinned: today's Keras
        if declared.tensorflow is None and declared.keras and admitted_keras:
            return _beside_keras(admitted_keras, declared, evidence, Target(tensorflow, keras, source))
    if tensorflow is None and keras == 2 and evidence is not None and evidence.until is not None:
        # (Keras 1's arguments in a project that names no TensorFlow release: that era's)
        with_evidence = source if evidence.source in source else f"{source}, with {evidence.source}"
        return Target(None, 2, with_evidence, until=evidence.until)
    return Target(tensorflow, keras, source)


def _beside_keras(admitted: list[tuple[int, int]], declared: _Declared, evidence: Target | None,
                  otherwise: Target) -> Target:
    """The TensorFlow a standalone Keras pin implies where TensorFlow itself is not declared:
    Keras 2.0-2.3 ran on TensorFlow 1.x (2.3 also on 2.0-2.2; 2.4 became a wrapper of TensorFlow
    2.2's tf.keras), and from 2.6 the `keras` package is released with TensorFlow, minor for
    minor (TensorFlow 2.8 requires keras 2.8)."""
    pin = f"`keras{declared.keras.strip()}` in {declared.source}"
    if admitted[-1] < (2, 4):
        if evidence is not None and evidence.tensorflow is not None:
            return Target(evidence.tensorflow, 2, f"{pin}, with {evidence.source}")
        return Target(None, 2, pin, until=(2, 3))
    if admitted[0] >= (2, 6) and admitted[-1] <= (2, 15):
        return Target(admitted[-1], 2, pin)
    return otherwise


# ---- the module's own API

# Names TensorFlow 2 no longer has outside `tf.compat.v1` (each one an AttributeError there).
_TF1_API = _Lazy(
    r"\b(?:tf\.(?:contrib|Session|InteractiveSession|placeholder|variable_scope|get_variable|"
    r"global_variables_initializer|train\.(?:Saver|AdamOptimizer|GradientDescentOptimizer|MomentumOptimizer|"
    r"RMSPropOptimizer)|read_file|image\.resize_images|layers\.(?:dense|conv2d)|logging\.(?:info|set_verbosity)|"
    r"gfile\.\w+|app\.flags|get_default_graph|set_random_seed|to_float|to_int32)|"
    r"from\s+tensorflow\.contrib|import\s+tensorflow\.contrib)\b|\.make_(?:one_shot|initializable)_iterator\(")
# `tf` bound to TensorFlow 2's `tf.compat.v1` (which TensorFlow 1.13 on has too): its TF1 names
# say nothing of the release.
_TF_IS_COMPAT_V1 = _Lazy(r"(?m)^\s*(?:import\s+tensorflow\.compat\.v1\s+as\s+tf|"
                         r"from\s+tensorflow\.compat\s+import\s+v1\s+as\s+tf|tf\s*=\s*tf\.compat\.v1)\b")
# Keras 2 only: the training methods' generator variants and worker arguments, and module paths
# Keras 3 removed (`keras.layers.convolutional`, `tensorflow.python.keras`, `keras.engine`...).
#: Private methods of Keras 2's OptimizerV2, gone from TensorFlow 2.11's optimizers (PL404).
_OPTIMIZER_V2_PRIVATE = ("_decayed_lr", "_get_hyper", "_set_hyper", "_create_slots", "_create_all_weights")
_OPTIMIZER_V2_UNTIL = (2, 11)
_KERAS2_MODULES = ("tensorflow.python.keras", "keras.engine",
                   *(f"keras.layers.{name}" for name in ("convolutional", "core", "pooling", "advanced_activations",
                                                         "recurrent", "normalization")),
                   "keras.wrappers.scikit_learn",
                   *(f"keras.utils.{name}" for name in ("np_utils", "data_utils", "vis_utils")))
_TRAINING_METHODS = ("fit", "evaluate", "predict")
_WORKER_ARGUMENTS = ("workers", "use_multiprocessing", "max_queue_size")
_OPTIMIZERS = ("Adam", "SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Ftrl")
_KERAS2_API = _Lazy(
    r"(?m)^\s*(?:from|import)\s+(?:" + "|".join(map(re.escape, _KERAS2_MODULES)) + r")\b|"
    # (a layer class read through one of those modules: `keras.layers.normalization.BatchNormalization`)
    r"(?<![\w.])keras\.layers\.(?:convolutional|core|pooling|advanced_activations|recurrent|normalization)\.[A-Z]|"
    r"\.(?:" + "|".join(_TRAINING_METHODS) + r")_generator\s*\(|"
    r"\.(?:" + "|".join(_TRAINING_METHODS) + r")\s*\((?:[^()]|\([^()]*\))*\b(?:" + "|".join(_WORKER_ARGUMENTS) + r")\s*=|"
    # `Adam(lr=...)`: the optimizers from TensorFlow 2.11 on (and Keras 3) refuse `lr`
    r"\b(?:" + "|".join(_OPTIMIZERS) + r")\s*\((?:[^()]|\([^()]*\))*\blr\s*=|"
    # the private methods of Keras 2's OptimizerV2 (PL404): code calling them ran on Keras 2
    r"\.(?:" + "|".join(_OPTIMIZER_V2_PRIVATE) + r")\s*\(")


# Keras 1's argument names (and its `Convolution2D`), which only standalone Keras up to 2.3 took
# (its legacy interfaces converted them; tf.keras never did): the project runs standalone Keras
# of that era, on TensorFlow before 2.3, where `fit` takes no generator.
_KERAS1_ARGUMENTS = ("nb_epoch", "samples_per_epoch", "nb_val_samples", "max_q_size", "nb_worker", "pickle_safe",
                     "border_mode")
# The names standalone Keras up to 2.3 exported from `keras.engine` (its `topology` too): Keras
# 2.4 had no `keras.engine`, and the one of 2.6 on exports none of them.
_OLD_ENGINE_NAMES = ("Model", "Input", "InputLayer", "InputSpec", "Layer", "get_source_inputs", "topology")
_KERAS1_API = _Lazy(r"(?m)\b(?:(?:" + "|".join(_KERAS1_ARGUMENTS) + r")\s*=|Convolution2D\s*\()|"
                    r"^\s*from\s+keras\.engine(?:\.topology\s+import\s+\w+|\s+import\s+\(?\s*(?:"
                    + "|".join(_OLD_ENGINE_NAMES) + r")\b)")
#: What standalone Keras up to 2.3 printed on import; a notebook's saved outputs keep it.
OLD_KERAS_BANNER = "Using TensorFlow backend."
#: The first TensorFlow release no standalone Keras of Keras 1's arguments ran on.
_KERAS1_STYLE_UNTIL = (2, 3)


def _may_show_keras2(text: str) -> bool:
    """Is a literal that one of `_KERAS2_API`'s alternatives needs in `text`? Without one the
    pattern cannot match, and it takes the pattern ~0.4 ms of a long module to find that out
    (every module of the keras package says "keras"; substring tests cost a fraction of that)."""
    return (any(path in text for path in _KERAS2_MODULES)
            or any(f"{method}_generator" in text for method in _TRAINING_METHODS)
            or any(argument in text for argument in _WORKER_ARGUMENTS)
            and any(f".{method}" in text for method in _TRAINING_METHODS)
            or "lr" in text and any(optimizer in text for optimizer in _OPTIMIZERS)
            or any(f".{name}" in text for name in _OPTIMIZER_V2_PRIVATE))


def _commented(text: str, offset: int) -> bool:
    """Is `offset` in a comment: after a `#` on its line (`# sess = tf.Session()`)? Approximate:
    a `#` inside a string before it on the line counts too."""
    return "#" in text[text.rfind("\n", 0, offset) + 1:offset]


def _live(pattern: _Lazy, text: str) -> re.Match[str] | None:
    """The first match of `pattern` in `text` outside comments: code commented out shows what the
    module once ran, not what it runs."""
    found = pattern.search(text)
    while found is not None and _commented(text, found.start()):
        found = pattern.search(text, found.end())
    return found


def api_evidence(text: str) -> str:
    """What a module's own API says: "1.x <name>" (TensorFlow 1.x: `tf.Session`, `tf.contrib`...),
    "keras2 <name>" (Keras 2: `fit_generator`, `fit(workers=...)`), or ""."""
    # Substring tests first: most modules hold none of these, and the patterns cost more.
    tf1 = _live(_TF1_API, text) if ("tf." in text or "tensorflow.contrib" in text or "_iterator(" in text) else None
    if tf1 is not None and tf1.group(0).startswith("tf.") and _TF_IS_COMPAT_V1.search(text):
        # (`import tensorflow.compat.v1 as tf`: `tf.Session` is TensorFlow 2's compat API)
        tf1 = next((found for found in _TF1_API.finditer(text)
                    if not found.group(0).startswith("tf.") and not _commented(text, found.start())), None)
    if tf1 is not None:
        name = tf1.group(0).replace("from ", "").replace("import ", "").strip().lstrip(".").rstrip("(")
        return f"1.x `{name}`"
    keras1 = _live(_KERAS1_API, text) if any(
        word in text for word in (*_KERAS1_ARGUMENTS, "Convolution2D", "keras.engine")) else None
    if keras1 is not None:
        found = " ".join(keras1.group(0).replace("(", " ").split())
        return "keras1 `" + found.rstrip("= ") + "`"
    keras2 = _live(_KERAS2_API, text) if _may_show_keras2(text) else None
    if keras2 is not None:
        found = keras2.group(0).strip()
        if found.startswith(("from ", "import ")):
            return "keras2 `" + found.split()[1] + "`"
        if found.startswith("keras.layers."):
            return "keras2 `" + found.rsplit(".", 1)[0] + "`"
        call = found.lstrip(".").split("(")[0].strip()
        if found.rstrip().endswith("lr =") or found.rstrip().endswith("lr="):
            return f"keras2 `{call}(lr=...)`"
        if call in ("fit", "evaluate", "predict"):
            argument = re.search(r"\b(workers|use_multiprocessing|max_queue_size)\s*=$", keras2.group(0))
            call = f"{call}({argument.group(1) if argument else 'workers'}=...)"
        return f"keras2 `{call}`"
    return ""


def _from_api(evidence: Sequence[tuple[str, str]]) -> Target | None:
    """The target the code's API shows: `evidence` is (where, `api_evidence`), this module's first,
    then the project modules connected to it, nearest first; TensorFlow 1.x API wins over Keras 2's."""
    for kind in ("1.x", "keras1", "keras2"):
        for where, found in evidence:
            if found.startswith(kind + " "):
                name = found[len(kind) + 1:]
                if kind == "1.x":
                    return Target((1, 15), 2, f"{name} in {where}")
                return Target(None, 2, f"{name} in {where}", until=_KERAS1_STYLE_UNTIL if kind == "keras1" else None)
    return None


def declaration_key(path: str | os.PathLike[str]) -> str:
    """What the closest declaration above the file says, for the result cache's key: the rest of a
    target comes from the file's text and its project's, which the key holds already."""
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    declared = _declarations.find(directory) if directory else None
    return repr(declared) if declared is not None and declared is not _STOP else ""


def target_for(path: str | os.PathLike[str] | None, source: str, setting: Target | None = None,
               neighbours: Sequence[tuple[str, str]] = (), own: str | None = None) -> Target:
    """The target of the module at `path` whose text is `source`: the setting, else the closest
    declaration above the file (narrowed by the code's API), else its API, else the current
    release. `neighbours`: (file name, `api_evidence`) of the project modules connected to it;
    `own`: the module's own `api_evidence` where the project index has it already."""
    if setting is not None:
        return setting
    evidence = _from_api([("this module", api_evidence(source) if own is None else own), *neighbours])
    # A name that is no file (an example, an unsaved buffer) has no declarations above it.
    if path is not None and os.path.isfile(path):
        directory = os.path.dirname(os.path.abspath(os.fspath(path)))
        if directory:
            declared = _declarations.find(directory)
            if declared is not None and declared is not _STOP:
                return _from_declaration(declared, evidence)
    return evidence or Target()
