"""Codes the engine itself reports. They are rules only in name: no check runs for them."""
from pipelint.rules.base import EngineCode


class InternalError(EngineCode):
    code = "PL000"
    summary = "pipelint itself failed on this file; the other rules and files were still checked."
    docs = """\
## What it does
Reports an exception raised inside pipelint (a rule or the pipeline model) while checking a file.

## Why is this bad?
It is a bug in pipelint, not in your code: the named rule skipped this file, so findings may be
missing. Please report it with the file (or a reduced version of it).
"""


class ParseError(EngineCode):
    code = "PL001"
    summary = "The file is not valid Python, so no rule could check it."
    docs = """\
## What it does
Reports a syntax error, at the position where the parser stopped. In a notebook it is reported
in the cell that does not parse (IPython syntax such as `%magic`, `!cmd` and `obj?` is not an
error), and every other cell is still checked.

## Why is this bad?
Nothing in the file (or the cell) was checked. Fix the syntax error, or exclude the file.
"""


class UnreadableFile(EngineCode):
    code = "PL002"
    summary = "The file could not be read or decoded (binary content, bad encoding, permissions)."
    docs = """\
## What it does
Reports a file that could not be read, or whose bytes are not text in the encoding its PEP 263
coding line (or UTF-8) declares, or that contains NUL bytes; and a `.ipynb` file that is not a
notebook pipelint reads (invalid JSON, not a notebook, an nbformat other than 4, a cell `source`
that is neither a string nor a list of strings), with the reason.

## Why is this bad?
Nothing in the file was checked. Fix the encoding, or exclude the file.
"""


class InvalidSuppression(EngineCode):
    code = "PL003"
    summary = "A `# noqa` or `# pipelint: ignore[...]` comment names a code that does not exist."
    docs = """\
## What it does
Reports a suppression comment naming a rule code that pipelint does not know.

## Why is this bad?
A typo in a suppression silently suppresses nothing, so the finding it was meant for still fires
(or a later one is not suppressed as intended).

## Example
```python
ds = ds.map(parse)  # noqa: PL1O1
```

## Use instead
```python
ds = ds.map(parse)  # noqa: PL101
```
"""
