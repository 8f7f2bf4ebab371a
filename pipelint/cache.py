"""Result cache: replay the findings of files whose bytes and settings are unchanged (as ruff's).

Where: ``PIPELINT_CACHE_DIR``, else ``cache-dir`` of the configuration that governs the current
directory, else ``.pipelint_cache`` beside that configuration file (the current directory when
there is none). Layout:

    .pipelint_cache/
        .gitignore          ``*``: never committed
        CACHEDIR.TAG        backup and archiving tools skip the directory
        <generation>/       pipelint's version and code, the Python and libcst it runs on
            <root>.json     one shard per configuration root: file -> key, last day seen, findings
            project.summaries  the project index's module summaries: file -> key, last day, summary
            runs/<files>.json  the last run over exactly these files: each file's stat and key

A file's entry is used only when its key matches: a hash of the generation, every setting that
decides the file's findings (select, ignore, rule options, per-file-ignores with the file's path),
the file's suffix, its bytes, and the summaries (`pipelint.project`) of the project modules its
findings depend on: those it imports, those that hand it datasets, and what they import. So an
edited file, an edited module it calls into, a changed config or another pipelint is a miss, and
a corrupt or foreign shard or entry is ignored and written anew.

Bounds: the most recently used `_KEEP_GENERATIONS` generations are kept (upgrades and checkouts
do not pile up), and an entry not seen for `_FORGET_AFTER_DAYS` days is dropped (deleted files).
Writes go to a temporary file renamed over the shard, after merging what another run wrote
meanwhile, so two runs at once never corrupt it (one may lose the other's new entries: misses).
A run whose every file is a hit writes nothing and never imports the engine or libcst.

A run over the same files as the last one, none of whose stats (inode, size, modification and
change times) moved and whose settings and declarations say the same, takes each file's key from
that run (`_RunSnapshot`): it reads no file and builds no project index. Any other run reads the
files and computes the keys from their bytes, as above.

`--fix` and `--diff` take a hit only when it holds no fix they would apply; otherwise the file is
checked from its bytes, and a fixed file is not cached (its next check is a miss).
"""
from __future__ import annotations

import dataclasses
import json
import os
import stat
import sys
import time
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelint import __version__
from pipelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Impact, Severity
from pipelint.project import ProjectIndex
from pipelint.target import declaration_key
from pipelint.results import DisplayPaths, FileResult, FixMode

try:  # blake2b without hashlib's OpenSSL import: a warm run has little else to do
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython always has it
    from hashlib import blake2b

if TYPE_CHECKING:
    from pipelint.config import Settings, SettingsResolver

__all__ = ["CACHE_DIR_ENV", "DEFAULT_CACHE_DIR", "ResultCache", "check_with_cache", "clean",
           "resolve_cache_dir"]

DEFAULT_CACHE_DIR = ".pipelint_cache"
CACHE_DIR_ENV = "PIPELINT_CACHE_DIR"
_FORMAT = 1  # bump when the shard layout changes
_KEEP_GENERATIONS = 4
_FORGET_AFTER_DAYS = 30
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by pipelint.\n"
        "# For information about cache directory tags see https://bford.info/cachedir/\n")
# Settings fields that choose which files are checked, never what is found in one.
_NOT_ABOUT_FINDINGS = frozenset({"exclude", "extend_exclude", "respect_gitignore", "force_exclude",
                                 "config_path", "root", "cache_dir"})


def resolve_cache_dir(settings: Settings, cwd: Path) -> Path:
    """The cache directory for a run whose current directory `settings` govern."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(os.path.normpath(cwd / Path(override).expanduser()))
    configured = getattr(settings, "cache_dir", None)
    if configured is not None:
        return Path(configured)
    return Path(settings.root) / DEFAULT_CACHE_DIR


def _generation() -> str:
    """pipelint's version, a fingerprint of its checker's code (so a source checkout never
    replays findings of code since edited), Python's version and libcst's installed files."""
    digest = blake2b(digest_size=8)
    digest.update(f"{_FORMAT}\0{__version__}\0{sys.version}\0{sys.implementation.cache_tag}\0".encode())
    package = Path(__file__).resolve().parent
    for directory, subdirectories, names in os.walk(package):
        # The profiler never changes a finding.
        subdirectories[:] = sorted(d for d in subdirectories if d not in ("profiler", "__pycache__"))
        for name in sorted(names):
            if name.endswith(".py"):
                info = os.stat(os.path.join(directory, name))
                relative = os.path.relpath(os.path.join(directory, name), package)
                digest.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    libcst = _libcst_init()
    if libcst is not None:
        info = os.stat(libcst)
        digest.update(f"libcst\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return f"{__version__}-{digest.hexdigest()}"


def _libcst_init() -> str | None:
    """libcst's __init__.py, found on sys.path without importing libcst."""
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "libcst", "__init__.py")
        if os.path.isfile(candidate):
            return candidate
    return None


def _encode(diagnostic: Diagnostic) -> dict[str, Any]:
    """A finding as JSON, less its path (the display path depends on where pipelint runs)."""
    out: dict[str, Any] = {}
    for spec in dataclasses.fields(diagnostic):
        if spec.name == "path":
            continue
        value = getattr(diagnostic, spec.name)
        if isinstance(value, Fix):
            value = {"applicability": value.applicability.value,
                     "edits": [[e.line, e.column, e.end_line, e.end_column, e.content] for e in value.edits]}
        elif isinstance(value, Enum):
            value = value.value
        elif value is not None and not isinstance(value, (str, int, float, bool)):
            raise TypeError(f"cannot cache a {type(value).__name__}")
        out[spec.name] = value
    return out


def _decode(raw: dict[str, Any], path: str) -> Diagnostic:
    values = dict(raw)
    values["severity"] = Severity(values["severity"])
    values["impact"] = Impact(values["impact"])
    fix = values.get("fix")
    if fix is not None:
        values["fix"] = Fix(Applicability(fix["applicability"]),
                            tuple(Edit(*edit) for edit in fix["edits"]))
    return Diagnostic(path=path, **values)


def _read_json(file: Path) -> object:
    """The JSON in `file`, or None when it is missing, unreadable or not JSON (it is rewritten)."""
    try:
        return json.loads(file.read_bytes())
    except (OSError, ValueError):
        return None


class _Shard:
    """The entries of one configuration root, loaded on first use."""

    def __init__(self, file: Path, root: str, generation: str) -> None:
        self.file, self.root, self.generation = file, root, generation
        self.entries = self._load()
        self.changed: dict[str, list] = {}

    def _load(self) -> dict[str, list]:
        data = _read_json(self.file)
        if (not isinstance(data, dict) or data.get("format") != _FORMAT
                or data.get("generation") != self.generation or data.get("root") != self.root
                or not isinstance(data.get("files"), dict)):
            return {}  # foreign or corrupt: treated as empty, rewritten on save
        return data["files"]


class _Summaries:
    """The project index's module summaries (`pipelint.project.SummaryStore`), kept in one file
    per generation, `project.summaries` (JSON): absolute path -> [key, last day seen, summary]. A warm run
    then parses only the modules that changed."""

    def __init__(self, file: Path, today: int) -> None:
        self.file, self.today = file, today
        self._entries: dict[str, list] | None = None
        self.changed: dict[str, list] = {}

    def _load(self) -> dict[str, list]:
        data = _read_json(self.file)
        return data if isinstance(data, dict) else {}

    def get(self, path: str, key: str) -> dict | None:
        if self._entries is None:
            self._entries = self._load()
        entry = self._entries.get(path)
        if not (isinstance(entry, list) and len(entry) == 3 and entry[0] == key and isinstance(entry[2], dict)):
            return None
        if entry[1] != self.today:
            self.changed[path] = [key, self.today, entry[2]]
        return entry[2]

    def put(self, path: str, key: str, summary: dict) -> None:
        self.changed[path] = [key, self.today, summary]

    def save(self) -> None:
        if not self.changed:
            return
        merged = {path: entry for path, entry in self._load().items()
                  if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[1], int)
                  and self.today - entry[1] <= _FORGET_AFTER_DAYS}
        merged.update(self.changed)
        _atomic_write(self.file, json.dumps(merged, separators=(",", ":")).encode())
        self._entries, self.changed = merged, {}


class _RunSnapshot:
    """The last run over one set of files: per file its stat and the key its bytes gave, and the
    part of that key that comes from settings and declarations (`context`). A warm run whose stats
    and contexts all match takes the keys as they are: no file read, no project index."""

    def __init__(self, folder: Path, files: Sequence[Path]) -> None:
        names = b"\0".join(sorted(os.fsencode(os.path.abspath(path)) for path in files))
        self.file = folder / "runs" / f"{blake2b(names, digest_size=12).hexdigest()}.json"
        self.changed: dict | None = None

    @staticmethod
    def stat_of(path: Path) -> list[int] | None:
        try:
            found = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(found.st_mode):
            return None
        return [found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]

    def keys(self, stats: dict[str, list[int] | None], contexts: dict[str, str]) -> dict[str, str] | None:
        """Each file's key from the last run, where nothing it depends on moved; else None."""
        if any(value is None for value in stats.values()):
            return None
        data = _read_json(self.file)
        if not (isinstance(data, dict) and data.get("stats") == stats and data.get("contexts") == contexts
                and isinstance(data.get("keys"), dict) and data["keys"].keys() == stats.keys()):
            return None
        return data["keys"]

    def put(self, stats: dict[str, list[int] | None], contexts: dict[str, str], keys: dict[str, str]) -> None:
        if all(value is not None for value in stats.values()) and keys.keys() == stats.keys():
            self.changed = {"stats": stats, "contexts": contexts, "keys": keys}

    def save(self) -> None:
        if self.changed is not None:
            self.file.parent.mkdir(exist_ok=True)
            _atomic_write(self.file, json.dumps(self.changed, separators=(",", ":")).encode())
            self.changed = None


class ResultCache:
    """Lookups and stores for one run; `save()` writes what changed."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.generation = _generation()
        self.folder = directory / self.generation
        self._shards: dict[str, _Shard] = {}
        self._settings_keys: dict[int, tuple[Settings, bytes]] = {}
        self.today = int(time.time() // 86400)
        self.warnings: list[str] = []
        self.summaries = _Summaries(self.folder / "project.summaries", self.today)
        self.runs: _RunSnapshot | None = None

    # ---- keys

    def _settings_key(self, settings: Settings, path: Path) -> bytes:
        known = self._settings_keys.get(id(settings))
        if known is None or known[0] is not settings:
            parts = [f"{spec.name}={getattr(settings, spec.name)!r}"
                     for spec in dataclasses.fields(settings)
                     if not spec.name.startswith("_") and spec.name not in _NOT_ABOUT_FINDINGS]
            known = self._settings_keys[id(settings)] = (settings, "\0".join(parts).encode())
        if getattr(settings, "per_file_ignores", None):
            # Which per-file-ignores apply depends on where the file is.
            return known[1] + b"\0path=" + os.fsencode(os.path.abspath(path))
        return known[1]

    def key(self, settings: Settings, path: Path, data: bytes, project: bytes = b"", context: str | None = None) -> str:
        """`project`: what the file's findings depend on in other modules (`ProjectIndex.key_of`);
        `context`: `self.context(settings, path)`, where already known."""
        digest = blake2b(digest_size=20)
        context = self.context(settings, path) if context is None else context
        for part in (self.generation.encode(), context.encode(), path.suffix.encode(), data, project):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return digest.hexdigest()

    def context(self, settings: Settings, path: Path) -> str:
        """The part of a file's key that is not in its bytes or its project: the settings that
        decide its findings, and the TensorFlow/Keras it targets (from files beside the code,
        requirements.txt...)."""
        digest = blake2b(digest_size=16)
        for part in (self._settings_key(settings, path), declaration_key(path).encode()):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return digest.hexdigest()

    # ---- entries

    def _shard(self, settings: Settings) -> _Shard:
        root = str(settings.root)
        shard = self._shards.get(root)
        if shard is None:
            name = blake2b(root.encode(), digest_size=8).hexdigest()
            shard = self._shards[root] = _Shard(self.folder / f"{name}.json", root, self.generation)
        return shard

    @staticmethod
    def _name(settings: Settings, path: Path) -> str:
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, settings.root)
        return absolute if relative.startswith("..") else relative

    def get(self, settings: Settings, path: Path, key: str, display: str) -> list[Diagnostic] | None:
        shard = self._shard(settings)
        name = self._name(settings, path)
        entry = shard.entries.get(name)
        if not (isinstance(entry, list) and len(entry) == 3 and entry[0] == key
                and isinstance(entry[1], int) and isinstance(entry[2], list)):
            return None
        try:
            diagnostics = [_decode(raw, display) for raw in entry[2]]
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if entry[1] != self.today:  # keep it from being forgotten; at most one write a day
            shard.changed[name] = [key, self.today, entry[2]]
        return diagnostics

    def put(self, settings: Settings, path: Path, key: str, diagnostics: Sequence[Diagnostic]) -> None:
        try:
            encoded = [_encode(d) for d in diagnostics]
        except TypeError:
            return
        shard = self._shard(settings)
        shard.changed[self._name(settings, path)] = [key, self.today, encoded]

    # ---- writing

    def save(self) -> None:
        """Write every shard that changed; a cache that cannot be written is skipped, with a warning."""
        dirty = [shard for shard in self._shards.values() if shard.changed]
        runs = self.runs is not None and self.runs.changed is not None
        if not dirty and not self.summaries.changed and not runs:
            return
        try:
            new_generation = not self.folder.is_dir()
            self._prepare()
            self.summaries.save()
            if self.runs is not None:
                self.runs.save()
            for shard in dirty:
                merged = {name: entry for name, entry in shard._load().items()
                          if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[1], int)
                          and self.today - entry[1] <= _FORGET_AFTER_DAYS}
                merged.update(shard.changed)
                payload = {"format": _FORMAT, "pipelint": __version__, "generation": self.generation,
                           "root": shard.root, "files": merged}
                _atomic_write(shard.file, json.dumps(payload, separators=(",", ":")).encode())
                shard.entries, shard.changed = merged, {}
            if new_generation:
                self._prune_generations()
        except OSError as error:
            self.warnings.append(f"cannot write the cache at {self.directory}: "
                                 f"{error.strerror or error} (use --no-cache, or set {CACHE_DIR_ENV})")

    def _prepare(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Created by pipelint: the cache is never committed.\n*\n"),
                           ("CACHEDIR.TAG", _TAG)):
            marker = self.directory / name
            if not marker.exists():
                _atomic_write(marker, text.encode())
        os.utime(self.folder)  # most recently used generation

    def _prune_generations(self) -> None:
        generations = []
        for entry in os.scandir(self.directory):
            if entry.is_dir(follow_symlinks=False) and entry.name != self.generation:
                generations.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
        import shutil

        for _, path in sorted(generations, reverse=True)[_KEEP_GENERATIONS - 1:]:
            shutil.rmtree(path, ignore_errors=True)


def _atomic_write(target: Path, data: bytes) -> None:
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _read_regular(path: Path, stated: list[int] | None) -> bytes | None:
    """The file's bytes, or None when the engine must look at it: `stated` (`_RunSnapshot.stat_of`,
    taken just before) says it is not a regular file, or it cannot be read."""
    if stated is None:
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def _has_fix_to_apply(diagnostics: Sequence[Diagnostic], fix_mode: FixMode) -> bool:
    return any(d.fix is not None and (fix_mode.include_unsafe or d.fix.applicability is Applicability.SAFE)
               for d in diagnostics)


def check_with_cache(files: Sequence[Path], resolver: SettingsResolver, cache: ResultCache,
                     jobs: int | None = None, fix_mode: FixMode = FixMode(),
                     cwd: Path | None = None) -> list[FileResult]:
    """Like `engine.check_files`, answering unchanged files from the cache; the engine (and
    libcst) is imported only when some file misses."""
    cwd = cwd or Path.cwd()
    display_path = DisplayPaths(cwd)
    # A regular file's settings are its directory's (what `for_path` finds, minus a stat).
    settings_of = {path: resolver.for_directory(os.path.dirname(os.path.join(cwd, path)) or os.sep)
                   for path in files}
    # Stats before reads: a file written in between looks changed to the next run, never unchanged.
    cache.runs = _RunSnapshot(cache.folder, files)
    stats = {os.path.abspath(path): _RunSnapshot.stat_of(path) for path in files}
    contexts = {os.path.abspath(path): cache.context(settings_of[path], path) for path in files}
    if not fix_mode.enabled:
        replayed = _replay(files, settings_of, cache, cache.runs.keys(stats, contexts), display_path)
        if replayed is not None:
            return replayed
    results: list[FileResult] = []
    misses: list[Path] = []
    contents: dict[Path, bytes] = {}
    keys: dict[Path, tuple[Settings, str]] = {}
    read = {path: _read_regular(path, stats[os.path.abspath(path)]) for path in files}
    # The project index (stdlib `ast` only): a file's key holds the summaries of the modules its
    # findings depend on, so that editing `data.py` re-checks `train.py`.
    project = ProjectIndex.build(files, {path: data for path, data in read.items() if data is not None},
                                 cache.summaries, jobs=jobs or os.cpu_count() or 1)
    computed: dict[str, str] = {}
    for path in files:
        data = read[path]
        if data is None:
            misses.append(path)
            continue
        settings = settings_of[path]
        absolute = os.path.abspath(path)
        key = computed[absolute] = cache.key(settings, path, data, project.key_of(path), contexts[absolute])
        display = display_path(path)
        diagnostics = cache.get(settings, path, key, display)
        if diagnostics is None or (fix_mode.enabled and _has_fix_to_apply(diagnostics, fix_mode)):
            misses.append(path)
            contents[path] = data
            keys[path] = (settings, key)
        else:
            results.append(FileResult(display, diagnostics, file=path))
    if misses:
        from pipelint.engine import check_files

        checked = check_files(misses, resolver, jobs=jobs, fix_mode=fix_mode, cwd=cwd, contents=contents,
                              project=project)
        by_file = {result.file: result for result in checked}
        every_file_cached = len(keys) == len(misses)
        for path, (settings, key) in keys.items():
            result = by_file.get(path)
            if (result is None or result.fixed_source is not None
                    or any(d.code == "PL000" for d in result.diagnostics)):
                every_file_cached = False
                continue  # an internal error may not recur; a fixed file has new bytes
            cache.put(settings, path, key, result.diagnostics)
        results.extend(checked)
    else:
        every_file_cached = True
    if every_file_cached and not fix_mode.enabled:
        cache.runs.put(stats, contexts, computed)  # the next run over these files may replay them
    cache.save()
    return sorted(results, key=lambda r: r.path)


def _replay(files: Sequence[Path], settings_of: dict, cache: ResultCache, keys: dict[str, str] | None,
            display_path) -> list[FileResult] | None:
    """Every file's findings from the cache under the keys of the last run; None where one is
    missing (then the run reads the files)."""
    if keys is None:
        return None
    results = []
    for path in files:
        display = display_path(path)
        diagnostics = cache.get(settings_of[path], path, keys[os.path.abspath(path)], display)
        if diagnostics is None:
            return None
        results.append(FileResult(display, diagnostics, file=path))
    cache.save()
    return sorted(results, key=lambda r: r.path)


def clean(directories: Sequence[Path]) -> list[Path]:
    """Remove these cache directories (only ones pipelint made: they hold its CACHEDIR.TAG)."""
    import shutil

    removed = []
    for directory in directories:
        tag = directory / "CACHEDIR.TAG"
        try:
            ours = tag.is_file() and "pipelint" in tag.read_text(errors="replace")
        except OSError:
            ours = False
        if ours:
            shutil.rmtree(directory, ignore_errors=True)
            removed.append(directory)
    return removed
