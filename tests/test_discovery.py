"""File discovery (pipelint.discovery): excludes, .gitignore, symlinks, explicit files."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipelint.config import CliOverrides, ConfigError, SettingsResolver
from pipelint.discovery import discover

NO_OVERRIDES = CliOverrides()


def touch(root: Path, *rels: str) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n", encoding="utf-8")


def found(tmp_path: Path, paths=(".",), overrides: CliOverrides = NO_OVERRIDES, force_exclude=False,
          config: Path | None = None):
    resolver = SettingsResolver(overrides, config_path=config, cwd=tmp_path)
    result = discover(list(paths), resolver, force_exclude=force_exclude)
    return [p.as_posix() for p in result.files], result.errors


def test_walk_finds_py_and_pyi_sorted(tmp_path):
    touch(tmp_path, "b.py", "a/z.pyi", "a/y.py", "notes.txt", "a/data.json", "c/d/e.py")
    files, errors = found(tmp_path)
    assert files == ["a/y.py", "a/z.pyi", "b.py", "c/d/e.py"]
    assert errors == []


def test_paths_keep_given_form_and_dedupe(tmp_path):
    touch(tmp_path, "pkg/a.py", "pkg/b.py")
    files, _ = found(tmp_path, ["pkg", "./pkg/a.py", "pkg/../pkg/a.py", str(tmp_path / "pkg" / "b.py")])
    assert files == ["pkg/a.py", "pkg/b.py"]
    files, _ = found(tmp_path, [str(tmp_path / "pkg")])
    assert files == [(tmp_path / "pkg" / "a.py").as_posix(), (tmp_path / "pkg" / "b.py").as_posix()]


def test_default_excludes(tmp_path):
    touch(tmp_path, "src/ok.py", "build/x.py", "src/build/y.py", ".venv/lib/z.py", "venv/z.py",
          "__pycache__/c.py", "foo.egg-info/m.py", ".git/hooks/h.py", "node_modules/n.py",
          "dist/d.py", "pkg/site-packages/s.py", ".ipynb_checkpoints/k.py")
    files, _ = found(tmp_path)
    assert files == ["src/ok.py"]


def test_exclude_replaces_and_extend_exclude_adds(tmp_path):
    touch(tmp_path, "build/x.py", "gen/g.py", "src/gen/h.py", "src/m_pb2.py", "src/ok.py")
    (tmp_path / "pyproject.toml").write_text('[tool.pipelint]\nexclude = ["gen"]\n', encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["build/x.py", "src/m_pb2.py", "src/ok.py"]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pipelint]\nextend-exclude = ["src/gen", "*_pb2.py"]\n', encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["gen/g.py", "src/ok.py"]
    files, _ = found(tmp_path, overrides=CliOverrides(exclude=(), extend_exclude=("src",)))
    assert files == ["build/x.py", "gen/g.py"]


def test_explicit_files_and_force_exclude(tmp_path):
    touch(tmp_path, "build/x.py", "gen/y.py", "ok.py", "script")
    (tmp_path / ".gitignore").write_text("gen/\n", encoding="utf-8")
    files, _ = found(tmp_path, ["build/x.py", "gen/y.py", "ok.py", "script"])
    assert files == ["build/x.py", "gen/y.py", "ok.py", "script"]
    files, _ = found(tmp_path, ["build/x.py", "gen/y.py", "ok.py"], force_exclude=True)
    assert files == ["ok.py"]
    # An explicitly given excluded directory is walked unless force_exclude.
    files, _ = found(tmp_path, ["build"])
    assert files == ["build/x.py"]
    files, _ = found(tmp_path, ["build"], force_exclude=True)
    assert files == []
    # force-exclude in the config file.
    (tmp_path / "pipelint.toml").write_text("force-exclude = true\n", encoding="utf-8")
    files, _ = found(tmp_path, ["build/x.py", "ok.py"])
    assert files == ["ok.py"]


def test_site_packages_given_explicitly_is_walked(tmp_path):
    touch(tmp_path, ".venv/lib/python3.11/site-packages/pkg/mod.py",
          ".venv/lib/python3.11/site-packages/pkg/__pycache__/mod.py")
    files, _ = found(tmp_path, [".venv/lib/python3.11/site-packages"])
    assert files == [".venv/lib/python3.11/site-packages/pkg/mod.py"]


def test_gitignore_root_nested_and_negation(tmp_path):
    touch(tmp_path, "keep.py", "skip.py", "logs/a.py", "pkg/gen_a.py", "pkg/gen_keep.py",
          "pkg/sub/gen_b.py", "pkg/local.py", "other/local.py", "anchored/x.py", "pkg/anchored/x.py")
    (tmp_path / ".gitignore").write_text("# comment\nskip.py\nlogs/\ngen_*.py\n/anchored\n", encoding="utf-8")
    (tmp_path / "pkg" / ".gitignore").write_text("!gen_keep.py\nlocal.py\n", encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["keep.py", "other/local.py", "pkg/anchored/x.py", "pkg/gen_keep.py"]
    # respect-gitignore = false turns it off.
    (tmp_path / "pipelint.toml").write_text("respect-gitignore = false\n", encoding="utf-8")
    files, _ = found(tmp_path)
    assert "skip.py" in files and "logs/a.py" in files and "pkg/local.py" in files


def test_gitignore_above_walked_dir_inside_repo(tmp_path):
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("secret.py\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("src/gen/\n", encoding="utf-8")
    touch(tmp_path, "src/a.py", "src/gen/b.py", "src/secret.py")
    files, _ = found(tmp_path, ["src"])
    assert files == ["src/a.py"]


def test_symlink_loop(tmp_path):
    touch(tmp_path, "pkg/a.py")
    try:
        os.symlink(tmp_path / "pkg", tmp_path / "pkg" / "loop", target_is_directory=True)
        os.symlink(tmp_path, tmp_path / "pkg" / "up", target_is_directory=True)
        os.symlink(tmp_path / "missing.py", tmp_path / "pkg" / "dangling.py")
    except (OSError, NotImplementedError):
        pytest.skip("symlinks not supported")
    files, errors = found(tmp_path)
    assert files == ["pkg/a.py"]
    assert errors == []


def test_symlinked_dir_followed_once(tmp_path):
    touch(tmp_path, "real/a.py")
    try:
        os.symlink(tmp_path / "real", tmp_path / "link", target_is_directory=True)
    except (OSError, NotImplementedError):
        pytest.skip("symlinks not supported")
    files, _ = found(tmp_path, ["link"])
    assert files == ["link/a.py"]
    files, _ = found(tmp_path)
    assert len(files) == 1


def test_missing_path_reported_and_rest_continues(tmp_path):
    touch(tmp_path, "a.py")
    files, errors = found(tmp_path, ["missing/path", "a.py"])
    assert files == ["a.py"]
    assert errors == ["missing/path: No such file or directory"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions, non-root")
def test_unreadable_directory(tmp_path):
    touch(tmp_path, "a.py", "locked/b.py")
    (tmp_path / "locked").chmod(0)
    try:
        files, errors = found(tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert files == ["a.py"]
    assert errors == ["locked: Permission denied"]


def test_non_ascii_and_spaces(tmp_path):
    touch(tmp_path, "dätä dir/ünï cödé.py", "my project/main file.py", "skip me/x.py")
    (tmp_path / ".gitignore").write_text("skip me/\n", encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["dätä dir/ünï cödé.py", "my project/main file.py"]
    files, _ = found(tmp_path, ["dätä dir/ünï cödé.py"])
    assert files == ["dätä dir/ünï cödé.py"]


def test_nested_config_excludes(tmp_path):
    touch(tmp_path, "a/gen/x.py", "b/gen/y.py", "b/ok.py")
    (tmp_path / "b" / "pipelint.toml").write_text('extend-exclude = ["gen"]\n', encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["a/gen/x.py", "b/ok.py"]


def test_config_error_propagates(tmp_path):
    touch(tmp_path, "sub/a.py")
    (tmp_path / "sub" / "pipelint.toml").write_text("select = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'select' must be a list of strings"):
        found(tmp_path)


def test_force_exclude_nested_gitignore_negation(tmp_path):
    touch(tmp_path, "pkg/gen_a.py", "pkg/gen_keep.py")
    (tmp_path / ".gitignore").write_text("gen_*.py\n", encoding="utf-8")
    (tmp_path / "pkg" / ".gitignore").write_text("!gen_keep.py\n", encoding="utf-8")
    files, _ = found(tmp_path, ["pkg/gen_a.py", "pkg/gen_keep.py"], force_exclude=True)
    assert files == ["pkg/gen_keep.py"]


def test_many_files_fast(tmp_path):
    for d in range(40):
        touch(tmp_path, *(f"d{d}/sub/m{i}.py" for i in range(50)))
    (tmp_path / ".gitignore").write_text("*_skip.py\n", encoding="utf-8")
    files, _ = found(tmp_path)
    assert len(files) == 2000


def test_explicit_gitignored_dir_is_walked(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text(".venv/\nvendor/\n", encoding="utf-8")
    touch(tmp_path, ".venv/lib/site-packages/pkg/m.py", "vendor/lib/v.py", "vendor/lib/skip.py", "a.py")
    (tmp_path / "vendor" / ".gitignore").write_text("skip.py\n", encoding="utf-8")
    files, _ = found(tmp_path)
    assert files == ["a.py"]
    files, _ = found(tmp_path, [".venv/lib/site-packages", "vendor"])
    assert files == [".venv/lib/site-packages/pkg/m.py", "vendor/lib/v.py"]
    files, _ = found(tmp_path, ["vendor"], force_exclude=True)
    assert files == []


def test_a_vendored_copy_of_tensorflows_model_garden_is_not_walked(tmp_path):
    """`models/official` beside `models/research` (a copy of tensorflow/models) and an Object
    Detection API copy are TensorFlow's code (pool 2035: 6 findings on them judged false, the rest
    not worth acting on); given explicitly, they are checked."""
    touch(tmp_path, "train.py", "models/official/core/input_reader.py", "models/research/slim/nets.py",
          "models/README.py", "object_detection/protos/a.py", "object_detection/builders/b.py",
          "object_detection/model_lib.py", "my/official/own.py", "my/object_detection/detect.py")
    files, _ = found(tmp_path)
    # an `official` without `research` beside it, an `object_detection` without protos and
    # builders: the project's own
    assert files == ["models/README.py", "my/object_detection/detect.py", "my/official/own.py", "train.py"]
    files, _ = found(tmp_path, ["models/official"])
    assert files == ["models/official/core/input_reader.py"]
