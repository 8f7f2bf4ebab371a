"""First contact: pipelint on projects nobody on the team has read, scored against blind labels.

Each set (`set_a`, `set_b`, ...) holds `manifest.json` (the repositories, pinned by commit, and
their files, declarations included) and `labels.csv`, written by a reader who never ran pipelint,
under CONVENTIONS.md. This script brings the files into DIR (from the mirrors under
/work/.mirror, else GitHub's raw files), checks each repository the way a user would
(`pipelint check` on its files, in one run, with the default rules and the project's own
requirements/setup/Dockerfile files beside the code), and compares the (file, line, code)
findings with the labels:

- recall: labelled positives found; also on the positives marked worth acting on (`worth=yes`);
- precision: findings on positive lines / all findings (a finding on an unlabelled line counts
  against it; `--unlabelled` lists those for a blind reader to judge);
- per rule, and every miss and every false finding, to find classes of misses.

    python benchmarks/firstcontact/score.py set_a /tmp/fc_a              # score
    python benchmarks/firstcontact/score.py set_a /tmp/fc_a --details    # misses and false findings
    PYTHONPATH=<checkout of an older commit> python benchmarks/firstcontact/score.py set_a DIR
                                                                           # that commit's figure

Rules that are off by default (PL105, PL107, PL301) are not run and their labels not scored. Every
finding of the rules run is scored, whatever its impact: `check_files` returns every finding, before
`Settings.shows` leaves out the migrations and housekeeping that a default `pipelint check` only
counts (docs/usage.md#impact), so the figures stay comparable with those scored before impacts. It
With `--shown`, only what the default output shows is scored (issue 32: does leaving out ever
hide a positive worth acting on?). It
uses only `pipelint.engine.check_files` and the configuration, so an older checkout can be scored
with the same script (first contact: score before changing anything).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent.parent))  # after PYTHONPATH: an older checkout can be scored

from benchmarks.realcode.extract import extract, local_path  # noqa: E402

Key = tuple[str, "int | str", str]


@dataclass
class Score:
    positives: set[Key] = field(default_factory=set)
    worth: set[Key] = field(default_factory=set)
    negatives: set[Key] = field(default_factory=set)
    found: dict[Key, str] = field(default_factory=dict)
    engine_errors: list[str] = field(default_factory=list)
    files: int = 0
    repositories: int = 0
    left_out: list[str] = field(default_factory=list)

    @property
    def true_positives(self) -> set[Key]:
        return self.positives & self.found.keys()

    def recall(self, keys: set[Key]) -> float:
        return len(keys & self.found.keys()) / len(keys) if keys else 1.0

    def precision(self) -> float:
        return len(self.true_positives) / len(self.found) if self.found else 1.0


def load_labels(path: Path, codes: frozenset[str]) -> tuple[set[Key], set[Key], set[Key]]:
    positives: set[Key] = set()
    worth: set[Key] = set()
    negatives: set[Key] = set()
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["code"] not in codes:
                continue
            line: int | str = row["line"] if ":" in row["line"] else int(row["line"])
            key = (row["path"], line, row["code"])
            if row["label"] == "positive":
                positives.add(key)
                if row.get("worth", "").strip().lower() == "yes":
                    worth.add(key)
            else:
                negatives.add(key)
    return positives, worth, negatives - positives


def known_repositories() -> set[str]:
    """Repositories the team has read (the corpus built with the rules, the earlier blind samples):
    a set that names one by mistake is scored without it, and says so."""
    realcode = HERE.parent / "realcode"
    names = {entry["repository"] for entry in json.loads((realcode / "manifest.json").read_text())["files"]}
    names |= {entry["repository"] for entry in json.loads((realcode / "sample_repos.json").read_text())["repositories"]}
    return names


def default_codes() -> frozenset[str]:
    from pipelint.codes import CODES

    return frozenset(code for code, info in CODES.items() if info.default_enabled and not code.startswith("PL0"))


def score(set_dir: Path, tree: Path, shown: bool = False) -> Score:
    """`shown`: only the findings a default `pipelint check` shows (`Settings.shows`: issue 32's
    impacts), to see whether what it leaves out ever held a positive worth acting on."""
    from pipelint.config import CliOverrides, SettingsResolver
    from pipelint.engine import check_files

    codes = default_codes()
    result = Score()
    result.positives, result.worth, result.negatives = load_labels(set_dir / "labels.csv", codes)
    manifest = json.loads((set_dir / "manifest.json").read_text(encoding="utf-8"))
    known = known_repositories()
    result.left_out = sorted({entry["repository"] for entry in manifest["files"]} & known)
    by_repository: dict[str, list[Path]] = {}
    for entry in manifest["files"]:
        if entry.get("kind") == "declaration" or entry["repository"] in known:
            continue
        path = tree / local_path(entry)
        if path.is_file():
            by_repository.setdefault(entry["repository"], []).append(path)
    for repository, paths in sorted(by_repository.items()):
        root = tree / repository.replace("/", "__")
        result.repositories += 1
        result.files += len(paths)
        resolver = SettingsResolver(CliOverrides(), cwd=root)
        try:
            checked = check_files(paths, resolver, jobs=1)
        except Exception as error:  # noqa: BLE001 - a crash is a failure to report, not a traceback
            result.engine_errors.append(f"{repository}: check raised {type(error).__name__}: {error}")
            continue
        for file_result in checked:
            relpath = Path(file_result.file or file_result.path).resolve().relative_to(tree.resolve()).as_posix()
            settings = resolver.for_path(Path(file_result.file or file_result.path))
            for d in file_result.diagnostics:
                if shown and not settings.shows(d):
                    continue
                cell = getattr(d, "cell", None)
                line: int | str = f"{cell}:{d.line}" if cell is not None else d.line
                if d.code.startswith("PL0"):
                    result.engine_errors.append(f"{relpath}:{line}: {d.code} {d.message}")
                elif d.code in codes:
                    result.found[(relpath, line, d.code)] = d.message
    # Labels on files that were not extracted cannot be scored.
    scored = {p.resolve().relative_to(tree.resolve()).as_posix() for ps in by_repository.values() for p in ps}
    result.positives = {k for k in result.positives if k[0] in scored}
    result.worth = {k for k in result.worth if k[0] in scored}
    return result


def report(result: Score, details: bool, out=sys.stdout) -> None:
    tp = result.true_positives
    found = result.found
    labelled_fp = found.keys() & result.negatives
    unlabelled = found.keys() - result.positives - result.negatives
    print(f"{result.repositories} repositories, {result.files} files; default rules", file=out)
    if result.left_out:
        print(f"left out, already read by the team: {', '.join(result.left_out)}", file=out)
    print(f"recall    {result.recall(result.positives):.3f}  ({len(tp)}/{len(result.positives)} labelled positives)",
          file=out)
    print(f"  worth   {result.recall(result.worth):.3f}  ({len(result.worth & found.keys())}/{len(result.worth)} "
          f"positives a maintainer would act on)", file=out)
    print(f"precision {result.precision():.3f}  ({len(tp)}/{len(found)} findings; {len(labelled_fp)} on lines labelled "
          f"negative, {len(unlabelled)} on unlabelled lines)", file=out)
    if labelled_fp or tp:
        print(f"  on labelled lines only {len(tp) / (len(tp) + len(labelled_fp)):.3f}", file=out)
    if result.engine_errors:
        print(f"engine errors: {len(result.engine_errors)}", file=out)
    print("\nper rule: positives found/labelled, worth found/labelled, findings (true, on negatives, unlabelled)",
          file=out)
    codes = sorted({k[2] for k in result.positives} | {k[2] for k in found})
    for code in codes:
        pos = {k for k in result.positives if k[2] == code}
        worth = {k for k in result.worth if k[2] == code}
        mine = {k for k in found if k[2] == code}
        print(f"  {code}  {len(pos & found.keys()):3}/{len(pos):<3}  {len(worth & found.keys()):3}/{len(worth):<3}  "
              f"{len(mine):3} ({len(mine & result.positives)}, {len(mine & result.negatives)}, "
              f"{len(mine - result.positives - result.negatives)})", file=out)
    if not details:
        return
    print("\nmissed positives:", file=out)
    for key in sorted(result.positives - found.keys(), key=str):
        print(f"  {key[0]}:{key[1]} {key[2]}{'  [worth]' if key in result.worth else ''}", file=out)
    print("\nfindings on lines labelled negative:", file=out)
    for key in sorted(labelled_fp, key=str):
        print(f"  {key[0]}:{key[1]} {key[2]} {found[key][:160]}", file=out)
    print("\nfindings on unlabelled lines:", file=out)
    for key in sorted(unlabelled, key=str):
        print(f"  {key[0]}:{key[1]} {key[2]} {found[key][:160]}", file=out)
    for error in result.engine_errors:
        print(f"  engine: {error}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", help="the set's directory name under benchmarks/firstcontact (set_a)")
    parser.add_argument("tree", type=Path, help="where the set's files are (extracted if missing)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--details", action="store_true", help="list misses and false findings")
    parser.add_argument("--shown", action="store_true",
                        help="score only what the default output shows (not what it leaves out and counts)")
    args = parser.parse_args(argv)
    set_dir = HERE / args.set
    problems = extract(args.tree, mirrors=args.mirrors, manifest=set_dir / "manifest.json")
    for problem in problems:
        print(f"not extracted: {problem}", file=sys.stderr)
    import pipelint

    print(f"pipelint {pipelint.__version__} from {Path(pipelint.__file__).parent}")
    report(score(set_dir, args.tree, args.shown), args.details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
