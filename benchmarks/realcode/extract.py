"""Copy the real-code corpus named in manifest.json into a directory, checking every file's sha256.

The corpus is third-party code: it is never committed here. The manifest pins each file by
repository, commit and path; this script brings each one from a local git mirror when there is
one (a bare or normal clone under MIRRORS/<owner>+<name>/repo or MIRRORS/<owner>+<name>), and
otherwise downloads it from raw.githubusercontent.com at the pinned commit.

    python benchmarks/realcode/extract.py DEST                      # mirrors in /work/.mirror, else download
    python benchmarks/realcode/extract.py DEST --mirrors ~/clones   # your own clones
    python benchmarks/realcode/extract.py DEST --offline            # mirrors only, no network

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

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
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
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="directory to extract into")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS,
                        help="directory of git clones named <owner>+<name> (default %(default)s)")
    parser.add_argument("--offline", action="store_true", help="never download; mirrors only")
    args = parser.parse_args(argv)
    problems = extract(args.dest, args.mirrors, args.offline)
    total = len(load_manifest())
    print(f"{total - len(problems)}/{total} files in {args.dest}")
    for line in problems:
        print("  " + line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
