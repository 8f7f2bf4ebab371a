"""A blind sample of default findings on projects nobody on the team has read (issue 29).

Draw: every repository under the mirrors (`/work/.mirror`, brought there by `fetch` while sets
were collected and then passed over: too many files, no pipeline, another partition) that no
manifest names (`benchmarks/realcode`, `sample_repos.json`, any first-contact set); its Python
files and notebooks at HEAD, with the files that declare its TensorFlow, go into TREE; each repository is checked as a user would check it
(the default rules, one run per repository); N findings are drawn with SEED. The draw is written to
`blind_sample.json` (repository, commit, path, line, code, message), for a reader who never runs
pipelint to judge each finding accurate or not, and worth acting on or not, from the code alone.

    python benchmarks/firstcontact/blind_sample.py TREE --sample 70 --seed 2026 --out DRAW.json
    python benchmarks/firstcontact/blind_sample.py TREE --verdicts VERDICTS.csv   # the shares
    python benchmarks/firstcontact/blind_sample.py TREE --shown --exclude EARLIER.json --seed 2027 --out D2.json
    python benchmarks/firstcontact/blind_sample.py TREE --shown --pool pool_2029.json --seed 2029 --out D4.json
    python benchmarks/firstcontact/blind_sample.py TREE --shown --pool pool_2034.json --skip-fragment keras-gan \
        --exclude D5.json --seed 2035 --sample 80 --out D6.json     # the rest, without one project's 40 copies

`VERDICTS.csv`: `index,accurate,worth,reason` (index into the draw; `accurate`/`worth` yes or no).
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent.parent))

from benchmarks.firstcontact.score import default_codes, known_repositories  # noqa: E402
from pipelint.target import is_declaring_file  # noqa: E402

MIRRORS = Path("/work/.mirror")
MAX_FILES = 300  # per repository: a monorepo's thousandth file adds nothing to a sample of users' code
MAX_BYTES = 1_000_000


def named_anywhere() -> set[str]:
    names = set(known_repositories())
    for manifest in HERE.glob("set_*/manifest.json"):
        names |= {entry["repository"] for entry in json.loads(manifest.read_text(encoding="utf-8"))["repositories"]}
    return names


def git(directory: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(directory), *args], capture_output=True, check=True).stdout


def mirrored() -> dict[str, Path]:
    """owner/name -> its bare git directory."""
    found = {}
    for entry in sorted(MIRRORS.iterdir()) if MIRRORS.is_dir() else []:
        if "+" not in entry.name:
            continue
        heads = [p.parent for p in entry.rglob("HEAD") if (p.parent / "objects").is_dir()]
        if heads:
            found[entry.name.replace("+", "/", 1)] = heads[0]
    return found


def extract(tree: Path, pool: set[str] | None = None) -> dict[str, str]:
    """Bring the unread repositories' code into TREE (only those `pool` names, where given);
    repository -> commit."""
    known = named_anywhere()
    commits = {}
    for repository, directory in mirrored().items():
        if repository in known or (pool is not None and repository not in pool):
            continue
        try:
            commit = git(directory, "rev-parse", "HEAD").decode().strip()
            listed = git(directory, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
            # The code, and the files that declare its TensorFlow (requirements, setup, Dockerfile,
            # README): a user checks a project with them beside it.
            code = [n for n in listed if n.endswith((".py", ".ipynb"))]
            names = code[:MAX_FILES] + [n for n in listed if n not in code and is_declaring_file(n.rsplit("/", 1)[-1])]
        except subprocess.CalledProcessError:
            continue
        root = tree / repository.replace("/", "__")
        for name in names:
            try:
                data = git(directory, "show", f"HEAD:{name}")
            except subprocess.CalledProcessError:
                continue
            if len(data) > MAX_BYTES:
                continue
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if root.is_dir():
            (root / ".git").mkdir(exist_ok=True)  # the repository's top: declarations are not looked for above it
            commits[repository] = commit
    return commits


def findings(tree: Path, commits: dict[str, str], shown: bool = False) -> list[dict]:
    """Every default-rule finding; with `shown`, only those the default output shows (issue 32:
    migrations and housekeeping are left out unless asked for)."""
    from pipelint.config import CliOverrides, SettingsResolver
    from pipelint.discovery import discover
    from pipelint.engine import check_files

    codes = default_codes()
    found = []
    for repository, commit in sorted(commits.items()):
        root = tree / repository.replace("/", "__")
        resolver = SettingsResolver(CliOverrides(), cwd=root)
        # The files `pipelint check .` would read there (default excludes: `.ipynb_checkpoints`...)
        paths = [root / path for path in discover([root], resolver).files]
        try:
            checked = check_files(paths, resolver, jobs=1)
        except Exception as error:  # noqa: BLE001
            print(f"{repository}: check raised {type(error).__name__}: {error}", file=sys.stderr)
            continue
        for result in checked:
            path = Path(result.file or result.path).resolve().relative_to(root.resolve()).as_posix()
            settings = resolver.for_path(Path(result.file or result.path))
            for d in result.diagnostics:
                if d.code in codes and (not shown or settings.shows(d)):
                    cell = getattr(d, "cell", None)
                    found.append({"repository": repository, "commit": commit, "path": path,
                                  "line": f"{cell}:{d.line}" if cell is not None else d.line,
                                  "code": d.code, "message": d.message,
                                  "impact": d.impact.value if d.impact is not None else None})
    return found


def shares(draw: list[dict], verdicts: Path) -> None:
    rows = list(csv.DictReader(verdicts.open(encoding="utf-8")))
    judged = {int(r["index"]): r for r in rows}
    accurate = sum(r["accurate"] == "yes" for r in judged.values())
    worth = sum(r["worth"] == "yes" for r in judged.values())
    print(f"{len(judged)} of {len(draw)} findings judged: accurate {accurate} ({accurate / len(judged):.0%}), "
          f"worth acting on {worth} ({worth / len(judged):.0%})")
    by_code: dict[str, list[int]] = {}
    for index, row in judged.items():
        entry = by_code.setdefault(draw[index]["code"], [0, 0])
        entry[0] += 1
        entry[1] += row["accurate"] == "yes"
    for code, (total, right) in sorted(by_code.items()):
        print(f"  {code}  {right}/{total} accurate")
    # (draws made before impacts were recorded carry none)
    by_impact: dict[str, list[int]] = {}
    for index, row in judged.items():
        entry = by_impact.setdefault(draw[index].get("impact") or "not recorded", [0, 0, 0])
        entry[0] += 1
        entry[1] += row["accurate"] == "yes"
        entry[2] += row["worth"] == "yes"
    for impact, (total, right, worth) in sorted(by_impact.items()):
        print(f"  {impact}: {total} findings, {right} accurate, {worth} worth acting on")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--sample", type=int, default=70)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=HERE / "blind_sample.json")
    parser.add_argument("--verdicts", type=Path, help="score a judged draw instead of drawing")
    parser.add_argument("--shown", action="store_true", help="draw only from what the default output shows")
    parser.add_argument("--pool", type=Path,
                        help="a pool file (pool_2029.json): draw only from the repositories it lists")
    parser.add_argument("--skip-fragment", action="append", default=[],
                        help="leave out the pool's repositories collected under this name fragment "
                             "(pool 2034's keras-gan: 40 copies of one project's scripts)")
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="an earlier draw whose findings a reader has seen (left out of this one)")
    args = parser.parse_args()
    if args.verdicts is not None:
        shares(json.loads(args.out.read_text(encoding="utf-8"))["draw"], args.verdicts)
        return
    pool = None if args.pool is None else {
        entry["repository"] for entry in json.loads(args.pool.read_text(encoding="utf-8"))["repositories"]
        if entry.get("fragment") not in args.skip_fragment}
    commits = extract(args.tree, pool)
    seen = {(f["repository"], f["path"], str(f["line"]), f["code"]) for earlier in args.exclude
            for f in json.loads(earlier.read_text(encoding="utf-8"))["draw"]}
    every = [f for f in findings(args.tree, commits, args.shown)
             if (f["repository"], f["path"], str(f["line"]), f["code"]) not in seen]
    draw = random.Random(args.seed).sample(every, min(args.sample, len(every)))
    from pipelint import __version__

    args.out.write_text(json.dumps({"seed": args.seed, "shown": args.shown, "excluded": [str(e) for e in args.exclude],
                                    "pool": str(args.pool) if args.pool is not None else None,
                                    "skipped_fragments": args.skip_fragment,
                                    "repositories": len(commits), "findings": len(every),
                                    "pipelint": __version__, "draw": draw}, indent=1) + "\n", encoding="utf-8")
    print(f"{len(commits)} repositories, {len(every)} findings, {len(draw)} drawn -> {args.out}")


if __name__ == "__main__":
    main()
