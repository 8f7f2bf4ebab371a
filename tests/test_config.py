"""Configuration loading, validation and rule selection (pipelint.config)."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import pipelint.codes as code_table
import pipelint.rules as rules_pkg
from pipelint.codes import CodeInfo
from pipelint.config import (
    DEFAULT_EXCLUDE,
    CliOverrides,
    ConfigError,
    Settings,
    SettingsResolver,
    find_config_file,
    load_settings,
)
from pipelint.diagnostics import Impact, Severity
from pipelint.rules.base import EngineCode, Option, Rule

NO_OVERRIDES = CliOverrides()


def _rule(code: str, options: dict | None = None, base: type = Rule):
    return type(f"Fake{code}", (base,), {
        "code": code, "summary": "fake", "docs": "fake", "options": options or {},
    })


@pytest.fixture(autouse=True)
def fake_rules(monkeypatch):
    """A made-up code table (PL111 exists, PL202 is off by default) and rule classes for it."""
    table = {code: CodeInfo(code, f"fake-{code.lower()}", Severity.WARNING, Impact.SPEED)
             for code in ("PL000", "PL001", "PL002", "PL003", "PL101", "PL102", "PL111", "PL201")}
    table["PL202"] = CodeInfo("PL202", "fake-pl202", Severity.WARNING, Impact.SPEED, default_enabled=False)
    monkeypatch.setattr(code_table, "CODES", dict(sorted(table.items())))
    registry = {code: _rule(code, base=EngineCode) for code in ("PL000", "PL001", "PL002", "PL003")}
    registry["PL101"] = _rule("PL101", options={
        "max_depth": Option(int, 3, "depth"),
        "strict": Option(bool, False, "strict"),
        "names": Option(list[str], ["a"], "names"),
        "ratio": Option(float, 0.5, "ratio"),
    })
    registry["PL102"] = _rule("PL102")
    registry["PL111"] = _rule("PL111")
    registry["PL201"] = _rule("PL201")
    registry["PL202"] = _rule("PL202")
    monkeypatch.setattr(rules_pkg, "_REGISTRY", dict(sorted(registry.items())))
    return registry


ENGINE = {"PL000", "PL001", "PL002", "PL003"}
DEFAULT = ENGINE | {"PL101", "PL102", "PL111", "PL201"}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def settings_for(tmp_path: Path, toml: str | None = None, overrides: CliOverrides = NO_OVERRIDES,
                 name: str = "pyproject.toml") -> Settings:
    config = None
    if toml is not None:
        prefix = "[tool.pipelint]\n" if name == "pyproject.toml" else ""
        config = write(tmp_path / name, prefix + toml)
    return load_settings(config, overrides, tmp_path)


def enabled(settings: Settings, rel: str = "a.py") -> set[str]:
    return set(settings.enabled_codes(settings.root / rel))


# ---------------------------------------------------------------- selection


def test_defaults_without_config(tmp_path):
    s = settings_for(tmp_path)
    assert s.config_path is None and s.root == tmp_path
    assert s.select is None
    assert s.exclude == DEFAULT_EXCLUDE
    assert enabled(s) == DEFAULT


def test_prefix_selection(tmp_path):
    assert enabled(settings_for(tmp_path, 'select = ["PL1"]')) == ENGINE | {"PL101", "PL102", "PL111"}
    assert enabled(settings_for(tmp_path, 'select = ["PL10"]')) == ENGINE | {"PL101", "PL102"}
    assert enabled(settings_for(tmp_path, 'select = ["pl201"]')) == ENGINE | {"PL201"}


def test_default_disabled_rule_needs_full_code_or_all(tmp_path):
    assert "PL202" not in enabled(settings_for(tmp_path))
    assert "PL202" not in enabled(settings_for(tmp_path, 'select = ["PL2"]'))
    assert "PL202" not in enabled(settings_for(tmp_path, 'extend-select = ["PL20"]'))
    assert "PL202" in enabled(settings_for(tmp_path, 'select = ["PL202"]'))
    assert "PL202" in enabled(settings_for(tmp_path, 'extend-select = ["PL202"]'))
    assert enabled(settings_for(tmp_path, 'select = ["ALL"]')) == DEFAULT | {"PL202"}


def test_ignore_specificity(tmp_path):
    assert enabled(settings_for(tmp_path, 'select = ["PL1"]\nignore = ["PL1"]')) == ENGINE
    assert enabled(settings_for(tmp_path, 'select = ["PL101"]\nignore = ["PL1"]')) == ENGINE | {"PL101"}
    assert enabled(settings_for(tmp_path, 'select = ["PL1"]\nignore = ["PL101"]')) == ENGINE | {"PL102", "PL111"}
    assert enabled(settings_for(tmp_path, 'select = ["ALL"]\nignore = ["PL1"]')) == ENGINE | {"PL201", "PL202"}
    assert enabled(settings_for(tmp_path, 'ignore = ["ALL"]')) == ENGINE
    assert enabled(settings_for(tmp_path, 'ignore = ["PL10"]\nextend-select = ["PL102"]')) == DEFAULT - {"PL101"}


def test_engine_codes_only_ignored_by_full_code(tmp_path):
    assert ENGINE <= enabled(settings_for(tmp_path, 'ignore = ["PL0", "ALL"]'))
    assert enabled(settings_for(tmp_path, 'ignore = ["PL003"]')) == DEFAULT - {"PL003"}
    assert ENGINE <= enabled(settings_for(tmp_path, 'select = ["PL2"]'))


def test_cli_precedence(tmp_path):
    toml = 'select = ["PL1"]\nignore = ["PL102"]\nextend-select = ["PL201"]'
    s = settings_for(tmp_path, toml)
    assert enabled(s) == ENGINE | {"PL101", "PL111", "PL201"}
    # --select replaces the file's select; the file's ignore and extend-select still apply.
    s = settings_for(tmp_path, toml, CliOverrides(select=("PL10",)))
    assert s.select == ("PL10",)
    assert enabled(s) == ENGINE | {"PL101", "PL201"}
    # --ignore and --extend-select add.
    s = settings_for(tmp_path, toml, CliOverrides(ignore=("PL101",), extend_select=("PL202",)))
    assert s.ignore == ("PL102", "PL101")
    assert enabled(s) == ENGINE | {"PL111", "PL201", "PL202"}
    # Comma-separated CLI values are split.
    s = settings_for(tmp_path, None, CliOverrides(select=("PL101,PL201",)))
    assert enabled(s) == ENGINE | {"PL101", "PL201"}


def test_per_file_ignores(tmp_path):
    s = settings_for(tmp_path, """
[tool.pipelint.per-file-ignores]
"tests/*.py" = ["PL1"]
"__init__.py" = ["PL201"]
"gen/" = ["ALL"]
"!src/**" = ["PL111"]
""".replace("[tool.pipelint.per-file-ignores]", "[per-file-ignores]"), name="pipelint.toml")
    assert enabled(s, "tests/test_x.py") == DEFAULT - {"PL101", "PL102", "PL111"}
    assert enabled(s, "pkg/sub/__init__.py") == DEFAULT - {"PL201", "PL111"}
    assert enabled(s, "src/pkg/__init__.py") == DEFAULT - {"PL201"}
    assert enabled(s, "src/mod.py") == DEFAULT
    assert enabled(s, "gen/deep/x.py") == set()  # per-file-ignores may silence engine codes too
    assert enabled(s, "other.py") == DEFAULT - {"PL111"}


def test_per_file_ignores_relative_to_config_dir(tmp_path):
    write(tmp_path / "proj" / "pyproject.toml", '[tool.pipelint.per-file-ignores]\n"tests/*" = ["PL101"]\n')
    resolver = SettingsResolver(CliOverrides(), cwd=tmp_path)
    path = tmp_path / "proj" / "tests" / "t.py"
    write(path, "")
    assert "PL101" not in resolver.for_path(path).enabled_codes(path)
    other = write(tmp_path / "proj" / "src" / "tests" / "t.py", "")
    assert "PL101" in resolver.for_path(other).enabled_codes(other)


# ---------------------------------------------------------------- rule options


def test_rule_options(tmp_path):
    s = settings_for(tmp_path, """
[tool.pipelint.rules.PL101]
max_depth = 5
names = ["x", "y"]
ratio = 1
""")
    assert s.options_for("PL101") == {"max_depth": 5, "strict": False, "names": ["x", "y"], "ratio": 1.0}
    assert settings_for(tmp_path).options_for("PL101") == {
        "max_depth": 3, "strict": False, "names": ["a"], "ratio": 0.5}
    assert s.options_for("PL102") == {}


@pytest.mark.parametrize(("body", "fragment"), [
    ("max_depth = true", "option 'max_depth' must be of type int"),
    ("max_depth = 1.5", "option 'max_depth' must be of type int"),
    ("strict = 1", "option 'strict' must be of type bool"),
    ('names = [1]', "option 'names'"),
    ('ratio = "x"', "option 'ratio'"),
    ("nope = 1", "unknown option 'nope'"),
])
def test_rule_option_errors(tmp_path, body, fragment):
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, "[tool.pipelint.rules.PL101]\n" + body)
    message = str(info.value)
    assert fragment in message
    assert "pyproject.toml" in message and "PL101" in message
    assert "\n" not in message


def test_rule_options_unknown_code(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown rule code 'PL999' in 'rules' \(pyproject.toml\)"):
        settings_for(tmp_path, "[tool.pipelint.rules.PL999]\nx = 1")


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(("toml", "expected"), [
    ('selct = ["PL1"]', "pyproject.toml: [tool.pipelint] unknown key 'selct'"),
    ('ignore = "PL101"', "pyproject.toml: [tool.pipelint] 'ignore' must be a list of strings"),
    ("select = [1]", "pyproject.toml: [tool.pipelint] 'select' must be a list of strings"),
    ('exclude = "build"', "pyproject.toml: [tool.pipelint] 'exclude' must be a list of strings"),
    ('select = ["PL999"]', "unknown rule code 'PL999' in 'select' (pyproject.toml)"),
    ('ignore = ["XY"]', "unknown rule code 'XY' in 'ignore' (pyproject.toml)"),
    ('extend-select = ["PL3"]', "unknown rule code 'PL3' in 'extend-select' (pyproject.toml)"),
    ('per-file-ignores = {"a.py" = ["PL9"]}', "unknown rule code 'PL9' in 'per-file-ignores' (pyproject.toml)"),
    ('per-file-ignores = {"a.py" = "PL1"}',
     "pyproject.toml: [tool.pipelint] 'per-file-ignores' entry 'a.py' must be a list of strings"),
    ('per-file-ignores = ["x"]', "pyproject.toml: [tool.pipelint] 'per-file-ignores' must be a table"),
    ("respect-gitignore = 1", "pyproject.toml: [tool.pipelint] 'respect-gitignore' must be a boolean"),
])
def test_config_errors(tmp_path, toml, expected):
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, toml)
    assert str(info.value).startswith(expected)


def test_pipelint_toml_error_names_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, 'ignore = "PL101"', name="pipelint.toml")
    assert str(info.value) == "pipelint.toml: 'ignore' must be a list of strings"
    with pytest.raises(ConfigError, match=r"^pipelint.toml: unknown key 'tool'$"):
        settings_for(tmp_path, '[tool.pipelint]\nselect = ["PL1"]', name="pipelint.toml")


def test_invalid_toml(tmp_path):
    with pytest.raises(ConfigError) as info:
        settings_for(tmp_path, "select = [", name="pipelint.toml")
    message = str(info.value)
    assert message.startswith("pipelint.toml: invalid TOML")
    assert "\n" not in message


def test_cli_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"^unknown rule code 'PL999' in --select$"):
        settings_for(tmp_path, None, CliOverrides(select=("PL999",)))
    with pytest.raises(ConfigError, match="--ignore"):
        settings_for(tmp_path, None, CliOverrides(ignore=("nope",)))
    with pytest.raises(ConfigError, match="--extend-select"):
        settings_for(tmp_path, None, CliOverrides(extend_select=("PL7",)))


def test_missing_explicit_config(tmp_path):
    with pytest.raises(ConfigError, match="No such file or directory"):
        SettingsResolver(CliOverrides(), config_path=tmp_path / "nope.toml", cwd=tmp_path)


# ---------------------------------------------------------------- finding configs


def test_find_config_file(tmp_path):
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_config_file(deep) is None or not str(find_config_file(deep)).startswith(str(tmp_path))
    write(tmp_path / "pyproject.toml", "[tool.pipelint]\n")
    assert find_config_file(deep) == tmp_path / "pyproject.toml"
    # A pyproject.toml without [tool.pipelint] is skipped.
    write(tmp_path / "a" / "pyproject.toml", "[project]\nname = 'x'\n[tool.other]\npipelint = 1\n")
    assert find_config_file(deep) == tmp_path / "pyproject.toml"
    # pipelint.toml wins over pyproject.toml in the same directory.
    write(tmp_path / "a" / "b" / "pyproject.toml", "[tool.pipelint]\n")
    write(tmp_path / "a" / "b" / "pipelint.toml", "")
    assert find_config_file(deep) == tmp_path / "a" / "b" / "pipelint.toml"


def test_closest_config_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.pipelint]\nselect = ["PL1"]\n')
    write(tmp_path / "sub" / "pipelint.toml", 'select = ["PL2"]\n')
    top = write(tmp_path / "x.py", "")
    nested = write(tmp_path / "sub" / "deeper" / "y.py", "")
    resolver = SettingsResolver(CliOverrides(ignore=("PL111",)), cwd=tmp_path)
    s_top = resolver.for_path(top)
    s_nested = resolver.for_path(nested)
    assert s_top.config_path == tmp_path / "pyproject.toml" and s_top.root == tmp_path
    assert s_nested.config_path == tmp_path / "sub" / "pipelint.toml"
    assert s_nested.root == tmp_path / "sub"
    assert enabled(s_top) == ENGINE | {"PL101", "PL102"}
    assert enabled(s_nested) == ENGINE | {"PL201"}
    # Cached: the same object for every file under the same config.
    assert resolver.for_path(tmp_path / "sub" / "z.py") is s_nested
    assert resolver.for_directory(tmp_path / "sub" / "deeper") is s_nested
    # --config wins for every file.
    fixed = SettingsResolver(CliOverrides(), config_path=tmp_path / "pyproject.toml", cwd=tmp_path)
    assert fixed.for_path(nested).config_path == tmp_path / "pyproject.toml"


def test_resolver_error_propagates(tmp_path):
    write(tmp_path / "sub" / "pipelint.toml", "bogus = 1\n")
    resolver = SettingsResolver(CliOverrides(), cwd=tmp_path)
    with pytest.raises(ConfigError, match="unknown key 'bogus'"):
        resolver.for_path(write(tmp_path / "sub" / "a.py", ""))


def test_invalid_pyproject_mentioning_pipelint(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.pipelint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        find_config_file(tmp_path)


# ---------------------------------------------------------------- excludes


def test_exclude_defaults_replace_extend(tmp_path):
    s = settings_for(tmp_path)
    assert s.is_excluded(tmp_path / "build", is_dir=True)
    assert s.is_excluded(tmp_path / "pkg" / "build" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "foo.egg-info", is_dir=True)
    assert not s.is_excluded(tmp_path / "src" / "x.py", is_dir=False)

    s = settings_for(tmp_path, 'exclude = ["generated"]')
    assert not s.is_excluded(tmp_path / "build" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "a" / "generated" / "x.py", is_dir=False)

    s = settings_for(tmp_path, 'extend-exclude = ["src/gen/", "*_pb2.py", "/abs/never"]')
    assert s.is_excluded(tmp_path / "build" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "src" / "gen" / "x.py", is_dir=False)
    assert not s.is_excluded(tmp_path / "other" / "src" / "gen" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "a" / "m_pb2.py", is_dir=False)

    s = settings_for(tmp_path, 'exclude = ["a"]', CliOverrides(exclude=("b",), extend_exclude=("c",)))
    assert s.exclude == ("b",) and s.extend_exclude == ("c",)
    assert not s.is_excluded(tmp_path / "a" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "b" / "x.py", is_dir=False)
    assert s.is_excluded(tmp_path / "c" / "x.py", is_dir=False)


def test_settings_pickle_roundtrip(tmp_path):
    s = settings_for(tmp_path, '[tool.pipelint.rules.PL101]\nnames = ["q"]\n[tool.pipelint.per-file-ignores]\n"t/*" = ["PL1"]')
    enabled(s, "t/a.py")  # fill caches
    s.is_excluded(tmp_path / "x.py", is_dir=False)
    clone = pickle.loads(pickle.dumps(s))
    assert clone == s
    assert enabled(clone, "t/a.py") == enabled(s, "t/a.py")
    assert clone.options_for("PL101")["names"] == ["q"]


def test_non_ascii_and_space_paths(tmp_path):
    root = tmp_path / "prój ect"
    write(root / "pipelint.toml",
          'extend-exclude = ["ünï cödé"]\n[per-file-ignores]\n"dätä files/*.py" = ["PL101"]\n')
    resolver = SettingsResolver(CliOverrides(), cwd=tmp_path)
    f = write(root / "dätä files" / "a b.py", "")
    s = resolver.for_path(f)
    assert s.config_path == root / "pipelint.toml"
    assert "PL101" not in s.enabled_codes(f)
    assert s.is_excluded(root / "ünï cödé" / "x.py", is_dir=False)


# ---------------------------------------------------------------- matching on pathspec, the upward walk


def test_exclude_pattern_names_the_entry_not_what_lies_below_it():
    from pipelint.config.matching import ExcludeMatcher

    matcher = ExcludeMatcher(("src/gen", "build/", "*.egg-info"))
    assert matcher.match("gen", "src/gen", None, is_dir=True)
    # Inside an explicitly given excluded directory, its entries are not excluded by it.
    assert not matcher.match("x.py", "src/gen/x.py", None, is_dir=False)
    assert matcher.match("build", "a/build", None, is_dir=True)
    assert not matcher.match("build", "a/build", None, is_dir=False)  # trailing slash: directories only
    assert matcher.match("pkg.egg-info", "pkg.egg-info", None, is_dir=True)


def test_exclude_bang_and_hash_are_literal_characters():
    from pipelint.config.matching import ExcludeMatcher

    matcher = ExcludeMatcher(("!keep*", "#notes*", "gen\\"))
    assert matcher.match("!keep.py", "!keep.py", None, is_dir=False)
    assert not matcher.match("keep.py", "keep.py", None, is_dir=False)
    assert matcher.match("#notes.py", "#notes.py", None, is_dir=False)
    assert matcher.match("gen\\", "gen\\", None, is_dir=False)  # git rejects it; taken literally


def test_closest_ancestor_asks_each_directory_once(tmp_path):
    from pipelint.ancestors import ClosestAncestor, ancestors

    deep = tmp_path / "a" / "b" / "c"
    asked: list[str] = []

    def has_marker(directory: str) -> str | None:
        asked.append(directory)
        return directory if directory == str(tmp_path / "a") else None

    closest = ClosestAncestor(has_marker)
    assert closest.find(str(deep)) == str(tmp_path / "a")
    assert closest.find(str(deep / "d")) == str(tmp_path / "a")
    assert closest.find(str(tmp_path / "a" / "b")) == str(tmp_path / "a")
    assert sorted(asked) == sorted({str(deep), str(deep.parent), str(tmp_path / "a"), str(deep / "d")})
    assert list(ancestors(str(deep), stop=str(tmp_path / "a"))) == [
        str(deep), str(deep.parent), str(tmp_path / "a")]
