"""Copy the real-code corpus named in manifest.json into a directory, checking every file's sha256.

The corpus is third-party code: it is never committed here. The manifest pins each file by
repository, commit and path; this script brings each one from a local git mirror when there is
one (a bare or normal clone under MIRRORS/<owner>+<name>/repo or MIRRORS/<owner>+<name>), and
otherwise downloads it from raw.githubusercontent.com at the pinned commit.

    python benchmarks/realcode/extract.py DEST                      # mirrors in /work/.mirror, else download
    python benchmarks/realcode/extract.py DEST --mirrors ~/clones   # your own clones
    python benchmarks/realcode/extract.py DEST --offline            # mirrors only, no network
    python benchmarks/realcode/extract.py TREE --unlabelled         # the rest, for a blind sample
    python benchmarks/realcode/extract.py TREE --unlabelled --only-sample-repos   # sample_repos.json only
    python benchmarks/realcode/extract.py TREE --unlabelled --only-sample-repos --sample-set 2   # one set of them

Files land at DEST/<owner>__<name>/<path>, the paths labels.csv uses. A file whose sha256 does
not match the manifest is not written (the labels would not fit it) and is reported; exit 1 then.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))  # run as a script from anywhere
from pipelint.target import is_declaring_file  # noqa: E402

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
SAMPLE_REPOS = HERE / "sample_repos.json"
DEFAULT_MIRRORS = Path("/work/.mirror")
RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"


def local_path(entry: dict) -> str:
    """Where an entry lives inside the extracted directory (and in labels.csv)."""
    return entry["repository"].replace("/", "__") + "/" + entry["path"]


def load_manifest(path: Path = MANIFEST) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["files"]


def _from_mirror(mirrors: Path, entry: dict) -> bytes | None:
    name = entry["repository"].replace("/", "+")
    for git_dir in (mirrors / name / "repo", mirrors / name):
        if not git_dir.exists():
            continue
        try:
            return subprocess.run(
                ["git", "--git-dir" if (git_dir / "HEAD").exists() else "-C", str(git_dir),
                 "show", f"{entry['commit']}:{entry['path']}"],
                check=True, capture_output=True,
            ).stdout
        except subprocess.CalledProcessError:
            continue
    return None


def _download(entry: dict) -> bytes:
    url = RAW_URL.format(**entry)
    with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 - fixed https host
        return response.read()


def extract(dest: Path, mirrors: Path = DEFAULT_MIRRORS, offline: bool = False,
            manifest: Path = MANIFEST) -> list[str]:
    """Write every manifest file under `dest`; return one line per file that could not be."""
    problems = []
    for entry in load_manifest(manifest):
        target = dest / local_path(entry)
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"]:
            continue
        data = _from_mirror(mirrors, entry)
        if data is None and not offline:
            try:
                data = _download(entry)
            except OSError as error:
                problems.append(f"{local_path(entry)}: download failed ({error})")
                continue
        if data is None:
            problems.append(f"{local_path(entry)}: not in any mirror under {mirrors}")
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != entry["sha256"]:
            problems.append(f"{local_path(entry)}: sha256 {digest} does not match the manifest")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for entry in load_manifest(manifest):
        # The repository's root, as a clone has it: imports resolve from there (`utils.data`).
        root = dest / local_path(entry).split("/", 1)[0]
        if root.is_dir():
            (root / ".git").mkdir(exist_ok=True)
    return problems


def _git(git_dir: Path, *args: str) -> bytes:
    flag = "--git-dir" if (git_dir / "HEAD").exists() else "-C"
    return subprocess.run(["git", flag, str(git_dir), *args], check=True, capture_output=True).stdout


def _library_or_test(path: str) -> bool:
    """A library's own sources (a `src/` tree, or a virtualenv's `site-packages/` committed with the
    project), a test, or a copy Jupyter saved (`.ipynb_checkpoints/`): not the training code users
    write, or not once."""
    name = path.rsplit("/", 1)[-1]
    return ("/src/" in f"/{path}" or "/site-packages/" in f"/{path}" or "/tests/" in f"/{path}"
            or "/test/" in f"/{path}" or "/.ipynb_checkpoints/" in f"/{path}"
            or name.startswith("test_") or name.endswith("_test.py"))


def load_sample_repos(path: Path = SAMPLE_REPOS, sample_set: int | None = None) -> list[dict]:
    """The repositories of `sample_repos.json`: `{"repository": "owner/name", "commit": ..., "set": N}`;
    with `sample_set`, only those of that set (each fresh sample is one set)."""
    entries = json.loads(path.read_text(encoding="utf-8"))["repositories"]
    return entries if sample_set is None else [e for e in entries if e.get("set") == sample_set]


def _write_repository(dest: Path, mirrors: Path, repository: str, commit: str,
                      listed: frozenset[str] = frozenset()) -> int:
    """Write one repository's dataset code at `commit` (its `.py`/`.ipynb` files that are neither a
    library's sources nor tests, that mention `tf.data` or `Dataset`, and that `listed` leaves out,
    and the files that declare its TensorFlow: requirements, setup.cfg, Dockerfile, README...)
    under DEST/<owner>__<name>/, marking that directory as the repository's root (`.git`), as
    `extract()` does. Returns how many files; 0 when no mirror has the commit."""
    name = repository.replace("/", "+")
    git_dir = next((d for d in (mirrors / name / "repo", mirrors / name) if d.exists()), None)
    if git_dir is None:
        return 0
    try:
        paths = _git(git_dir, "ls-tree", "-r", "--name-only", "-z", commit).decode().split("\0")
    except subprocess.CalledProcessError:
        return 0
    root = dest / repository.replace("/", "__")
    written = 0
    for path in paths:
        relpath = repository.replace("/", "__") + "/" + path
        if is_declaring_file(path.rsplit("/", 1)[-1]) and not path.endswith(".py") and relpath not in listed:
            # requirements.txt, a Dockerfile...: the TensorFlow the project targets, as a clone has it
            try:
                (dest / relpath).parent.mkdir(parents=True, exist_ok=True)
                (dest / relpath).write_bytes(_git(git_dir, "show", f"{commit}:{path}"))
            except subprocess.CalledProcessError:
                pass
            continue
        if not path.endswith((".py", ".ipynb")) or relpath in listed or _library_or_test(path):
            continue
        try:
            data = _git(git_dir, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:  # a snapshot may list a file whose blob it lacks
            continue
        if b"tf.data" not in data and b"Dataset" not in data:
            continue
        target = dest / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    if written:
        (root / ".git").mkdir(exist_ok=True)
    return written


def extract_unlabelled(dest: Path, mirrors: Path = DEFAULT_MIRRORS, manifest: Path = MANIFEST) -> int:
    """Write the files of the manifest's mirrored repositories that the manifest leaves out, that
    are neither a library's sources nor tests, and that mention `tf.data` or `Dataset` (at the commit the manifest pins for each repository):
    code nobody labelled, for `precision_recall.py --sample-from`. Returns how many."""
    entries = load_manifest(manifest)
    listed = frozenset(local_path(entry) for entry in entries)
    commits = {}
    for entry in entries:
        commits.setdefault(entry["repository"], entry["commit"])
    return sum(_write_repository(dest, mirrors, repository, commit, listed)
               for repository, commit in sorted(commits.items()))


def extract_sample_repos(dest: Path, mirrors: Path = DEFAULT_MIRRORS,
                         sample_repos: Path = SAMPLE_REPOS,
                         sample_set: int | None = None) -> tuple[int, list[str]]:
    """Write the dataset code of every repository in `sample_repos.json` (or of one `sample_set`) at
    its pinned commit (same filters as `extract_unlabelled`; none of them is labelled). Returns how
    many files, and the repositories that no mirror under `mirrors` has at that commit."""
    written, missing = 0, []
    for entry in load_sample_repos(sample_repos, sample_set):
        count = _write_repository(dest, mirrors, entry["repository"], entry["commit"])
        if not count:
            missing.append(entry["repository"])
        written += count
    return written, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="directory to extract into")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS,
                        help="directory of git clones named <owner>+<name> (default %(default)s)")
    parser.add_argument("--offline", action="store_true", help="never download; mirrors only")
    parser.add_argument("--unlabelled", action="store_true",
                        help="write instead the mirrored repositories' other files that use datasets, "
                             "and those of the repositories in sample_repos.json")
    parser.add_argument("--only-sample-repos", action="store_true",
                        help="with --unlabelled: write only the repositories in sample_repos.json")
    parser.add_argument("--sample-set", type=int, metavar="N",
                        help="with --only-sample-repos: only the repositories of set N in sample_repos.json "
                             "(each fresh sample is one set)")
    args = parser.parse_args(argv)
    if args.only_sample_repos and not args.unlabelled:
        parser.error("--only-sample-repos goes with --unlabelled")
    if args.sample_set is not None and not args.only_sample_repos:
        parser.error("--sample-set goes with --only-sample-repos")
    if args.unlabelled:
        if not args.only_sample_repos:
            print(f"{extract_unlabelled(args.dest, args.mirrors)} unlabelled files of the manifest's "
                  f"repositories in {args.dest}")
        written, missing = extract_sample_repos(args.dest, args.mirrors, sample_set=args.sample_set)
        total = len(load_sample_repos(sample_set=args.sample_set))
        print(f"{written} files of {total - len(missing)} sample repositories in {args.dest}")
        for repository in missing:
            print(f"  {repository}: no dataset code, or not in any mirror under {args.mirrors}", file=sys.stderr)
        return 0
    problems = extract(args.dest, args.mirrors, args.offline)
    total = len(load_manifest())
    print(f"{total - len(problems)}/{total} files in {args.dest}")
    for line in problems:
        print("  " + line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
