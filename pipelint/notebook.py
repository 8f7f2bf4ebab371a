"""Jupyter notebooks: read nbformat 4, turn the code cells into one Python text, map findings back
to (cell, line), and write fixed cells back into the JSON without touching anything else.

* Reading: `parse_notebook` takes the file's text; bad input raises `NotebookError` with a
  one-line reason. A notebook whose kernel language is not Python reads as `python=False`.
* Cells: each code cell's IPython syntax (line magics, `!cmd`, `x = !ls`, `obj?`, cell magics)
  is masked with Python of the same length (`mask_cell`), so every column stays where Jupyter
  shows it. `%%writefile`, `%%bash` and other non-Python cell magics drop the cell; `%%time`,
  `%%timeit`, `%%capture` keep the rest of the cell as Python.
* Program: the masked cells, in order, concatenated into one module (`Program`), so names flow
  across cells as in a kernel run top to bottom and one pipeline model serves the notebook. A cell
  that does not parse on its own is commented out in the program (its comments still suppress)
  and reported in that cell; every other cell is still analysed.
* Locations: `Program.locate(line)` turns a program line into (cell number, line in the cell);
  cell numbers are 1-based and count every cell, markdown included, as Jupyter and ruff do.
* Writing: `replace_sources` splices new `source` values into the original JSON text, so outputs,
  execution counts, metadata, ids, unknown keys, indentation and the final newline stay byte for
  byte; a list-form `source` is written one line per string, as nbformat writes it.
"""
from __future__ import annotations

import ast
import bisect
import json
import re
import warnings
from dataclasses import dataclass, field
from json.decoder import scanstring

from pipelint.target import OLD_KERAS_BANNER, api_evidence

__all__ = [
    "NOTEBOOK_SUFFIX", "CodeCell", "MaskedCell", "Notebook", "NotebookError", "Program",
    "RunnableCell", "build_program", "is_notebook_path", "mask_cell", "notebook_api_evidence", "parse_notebook",
    "raw_position",
    "replace_sources", "runnable_cells",
]

NOTEBOOK_SUFFIX = ".ipynb"
#: Cell magics whose body is Python that IPython runs (timed, captured, profiled...).
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "pipelint_profile"})
#: Line magics whose argument is a Python statement: `%time history = model.fit(ds)`.
_STATEMENT_LINE_MAGICS = frozenset({"time", "timeit", "prun"})

_NEWLINE = re.compile(r"\r\n|\r|\n")
# A line that may hold IPython syntax: cells without one (most) skip the line-by-line scan.
_MAYBE_IPYTHON = re.compile(r"^[ \t]*[!%?]|\?[ \t]*$|=[ \t]*[!%]", re.MULTILINE)
_ASSIGN_ESCAPE = re.compile(r"^(\s*[\w.\[\], ()*]+?\s*=\s*)([!%].*)$")
_LINE_MAGIC = re.compile(r"^%(\w+)([ \t]+)(\S.*)$")


class NotebookError(ValueError):
    """The file is not a notebook pipelint can read; the message is one line."""


def is_notebook_path(path: object) -> bool:
    return str(path).endswith(NOTEBOOK_SUFFIX)


@dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based position among ALL cells (markdown and raw too)
    source: str  # exactly as in the file, list items joined
    source_is_list: bool = True


@dataclass
class Notebook:
    cells: list[CodeCell]  # the code cells whose language is Python, in order
    python: bool = True  # False: the kernel's language is not Python (the notebook is skipped)
    #: Do the saved outputs show standalone Keras up to 2.3 imported (its banner on stderr)?
    printed_old_keras: bool = False
    #: Do they show a training log that names accuracy `acc` (Keras before 2.3 named the
    #: `"accuracy"` metric so; later releases print `accuracy`)?
    printed_acc: bool = False
    #: The most images (or files) Keras's loaders printed they found in the saved outputs
    #: ("Found 360 images belonging to 3 classes."); None where none printed a positive count.
    printed_images_found: int | None = None


def _language(metadata: object) -> str | None:
    if not isinstance(metadata, dict):
        return None
    for key, field_name in (("language_info", "name"), ("kernelspec", "language")):
        entry = metadata.get(key)
        if isinstance(entry, dict) and isinstance(entry.get(field_name), str):
            return entry[field_name].strip().lower()
    return None


def parse_notebook(text: str) -> Notebook:
    """Read a notebook's JSON text. Raises NotebookError (one line) for anything but nbformat 4."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"invalid JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise NotebookError("invalid JSON: nested too deeply") from None
    if not isinstance(data, dict) or ("cells" not in data and "nbformat" not in data):
        raise NotebookError("not a Jupyter notebook (a JSON object with `nbformat` and `cells` expected)")
    version = data.get("nbformat")
    if version != 4:
        shown = version if isinstance(version, (int, str)) and not isinstance(version, bool) else "missing"
        raise NotebookError(f"nbformat {shown} is not supported, only nbformat 4 "
                            "(convert with `jupyter nbconvert --to notebook --nbformat 4`)")
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("not a Jupyter notebook: `cells` is not a list")
    language = _language(data.get("metadata"))
    if language is not None and language != "python":
        return Notebook([], python=False)
    code_cells, printed_old_keras, printed_acc, found = [], False, False, []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotebookError(f"cell {number} is not a JSON object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            joined, is_list = "".join(source), True
        elif isinstance(source, str):
            joined, is_list = source, False
        else:
            raise NotebookError(f"cell {number}: `source` is neither a string nor a list of strings")
        metadata = cell.get("metadata")
        vscode = metadata.get("vscode") if isinstance(metadata, dict) else None
        cell_language = vscode.get("languageId") if isinstance(vscode, dict) else None
        if isinstance(cell_language, str) and cell_language.lower() != "python":
            continue  # a VS Code cell in another language (SQL, markdown...)
        code_cells.append(CodeCell(number, joined, is_list))
        printed = _printed(cell.get("outputs"))
        printed_old_keras = printed_old_keras or OLD_KERAS_BANNER in printed
        printed_acc = printed_acc or bool(_ACC_IN_LOG.search(printed))
        found.extend(int(count) for count in _FOUND_IN_LOG.findall(printed) if int(count) > 0)
    return Notebook(code_cells, printed_old_keras=printed_old_keras, printed_acc=printed_acc,
                    printed_images_found=max(found, default=None))


_ACC_IN_LOG = re.compile(r" - (?:val_)?acc: \d")
# What Keras's loaders print: `flow_from_directory` "Found 360 images belonging to 3 classes.",
# `flow_from_dataframe` "Found 360 validated image filenames ...", `image_dataset_from_directory`
# "Found 360 files belonging to 3 classes." (a count of 0 is a wrong path in that run, not a size).
_FOUND_IN_LOG = re.compile(r"\bFound (\d+) (?:validated image filenames|images|files)\b")


_ACCURACY_METRIC = re.compile(r"""metrics\s*=\s*\[[^\]]*['"]accuracy['"]""")
_ACC_METRIC = re.compile(r"""['"](?:val_)?acc['"]""")


def notebook_api_evidence(notebook: Notebook, code: str) -> str:
    """The `api_evidence` of a notebook whose cells' code is `code`: the code's own, or, where the
    code names nothing as old (TensorFlow 1.x, Keras 1's arguments), what the saved outputs show
    of standalone Keras up to 2.3 (its banner, or `acc` logged for `metrics=['accuracy']`)."""
    own = api_evidence(code)
    if own.startswith(("1.x ", "keras1 ")):
        return own
    if notebook.printed_old_keras:
        return f"keras1 `{OLD_KERAS_BANNER}` (printed)"
    # (a log that says `acc` of a model compiled with `"accuracy"` alone: Keras before 2.3 named it so)
    if notebook.printed_acc and _ACCURACY_METRIC.search(code) and not _ACC_METRIC.search(code):
        return "keras1 `acc` in the training log of `metrics=['accuracy']` (printed)"
    return own


def _printed(outputs: object) -> str:
    """A cell's saved stream outputs, joined."""
    texts = []
    for output in outputs if isinstance(outputs, list) else ():
        printed = output.get("text") if isinstance(output, dict) and output.get("output_type") == "stream" else None
        if isinstance(printed, list):
            printed = "".join(part for part in printed if isinstance(part, str))
        if isinstance(printed, str):
            texts.append(printed)
    return "".join(texts)


# ------------------------------------------------------------------------------------------------
# IPython syntax


@dataclass(frozen=True)
class MaskedCell:
    text: str  # Python: `\n` line ends, IPython syntax replaced by same-length Python
    lines: int
    #: (1-based line, 0-based start column, end column) of every masked region, in the cell's own
    #: columns; fixes must not touch them.
    masked: tuple[tuple[int, int, int], ...] = ()
    #: IPython removes a whole cell's leading indentation; the lines it was removed from.
    indent: int = 0
    dedented: frozenset[int] = frozenset()

    def shift(self, line: int) -> int:
        """Add to a column of this line of `text` to get the column in the cell as written."""
        return self.indent if line in self.dedented else 0


@dataclass
class _ScanState:
    quote: str | None = None  # the open string's quote (' " ''' \"\"\"), if any
    depth: int = 0  # open brackets
    continued: bool = False  # the previous line ended with a backslash

    @property
    def at_statement_start(self) -> bool:
        return self.quote is None and self.depth == 0 and not self.continued


def _scan(line: str, state: _ScanState) -> None:
    """Advance the string/bracket/continuation state over one line of Python."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if state.quote is not None:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(state.quote, i):
                i += len(state.quote)
                state.quote = None
                continue
            i += 1
            continue
        if ch == "#":
            state.continued = False  # a backslash inside a comment continues nothing
            return
        if ch in "\"'":
            triple = line[i:i + 3]
            state.quote = triple if triple in ('"""', "'''") else ch
            i += len(state.quote)
            continue
        if ch in "([{":
            state.depth += 1
        elif ch in ")]}":
            state.depth = max(0, state.depth - 1)
        i += 1
    stripped = line.rstrip()
    if state.quote in ('"', "'"):
        # A one-quote string ends with its line unless the line ends with a backslash.
        state.continued = False
        if not stripped.endswith("\\"):
            state.quote = None
        return
    state.continued = state.quote is None and stripped.endswith("\\")


def _blank(length: int) -> str:
    return "_" * max(1, length)


def _mask_line(line: str) -> tuple[str, int] | None:
    """The masked line and the end column of the mask, or None when the line is plain Python."""
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    if not stripped or stripped.startswith("#"):
        return None
    if stripped[0] in "!%?":
        if stripped[0] == "%":
            magic = _LINE_MAGIC.match(stripped)
            if (magic and magic.group(1) in _STATEMENT_LINE_MAGICS and not magic.group(3).startswith("-")
                    and _parses("_;" + magic.group(3)) is None):
                # `%time x = f()` -> `_____;x = f()`: the statement is still Python, in place.
                cut = indent + 1 + len(magic.group(1)) + len(magic.group(2))
                return line[:indent] + "_" * (cut - indent - 1) + ";" + line[cut:], cut
        return line[:indent] + _blank(len(stripped.rstrip())), len(line.rstrip())
    code = stripped.rstrip()
    if code.endswith("?") and "#" not in code:
        return line[:indent] + _blank(len(code)), len(line.rstrip())  # `obj?`, `obj.method??`
    assign = _ASSIGN_ESCAPE.match(line)
    if assign:
        target, escape = assign.group(1), assign.group(2).rstrip()
        return target + _blank(len(escape)), len(target) + len(escape)  # `files = !ls`
    return None


def mask_cell(source: str) -> MaskedCell | None:
    """The cell as Python with its IPython syntax masked; None for a non-Python cell magic.

    Only lines where a statement starts are looked at, so `%` or `?` inside a string or a bracket
    is never touched. A masked line ending in a backslash continues the escape: its next lines
    become blank.
    """
    lines = _NEWLINE.split(source)
    if lines and lines[-1] == "":
        lines.pop()
    masked: list[tuple[int, int, int]] = []
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        name = first[2:].split(None, 1)[0] if len(first) > 2 else ""
        if name not in PYTHON_CELL_MAGICS:
            return None
        masked.append((1, 0, len(lines[0])))
        lines[0] = ""
    # Like IPython, drop the indentation of the first non-blank line from every line that has it
    # (a cell pasted from inside a block still runs).
    first_code = next((line for line in lines if line.strip()), "")
    indent = first_code[:len(first_code) - len(first_code.lstrip())]
    dedented = set()
    if indent:
        for index, line in enumerate(lines):
            if line.startswith(indent) and not (index == 0 and masked):
                lines[index] = line[len(indent):]
                dedented.add(index + 1)
    if not _MAYBE_IPYTHON.search("\n".join(lines)):
        return MaskedCell("".join(line + "\n" for line in lines), len(lines), tuple(masked), len(indent),
                          frozenset(dedented))
    state = _ScanState()
    escape_continues = False
    for index, line in enumerate(lines):
        number = index + 1
        if number == 1 and masked:
            continue
        if escape_continues:
            masked.append((number, 0, len(line) + (len(indent) if number in dedented else 0)))
            escape_continues = line.rstrip().endswith("\\")
            lines[index] = ""
            continue
        if state.at_statement_start:
            replaced = _mask_line(line)
            if replaced is not None:
                new_line, end = replaced
                shift = len(indent) if number in dedented else 0
                masked.append((number, _mask_start(line, new_line) + shift, end + shift))
                escape_continues = line.rstrip().endswith("\\") and not new_line.rstrip().endswith("\\")
                lines[index] = new_line
                line = new_line
        _scan(line, state)
    text = "".join(line + "\n" for line in lines)
    return MaskedCell(text, len(lines), tuple(masked), len(indent), frozenset(dedented))


def _mask_start(old: str, new: str) -> int:
    """First column where the masked line differs from the original."""
    for column, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return column
    return min(len(old), len(new))


def _parse(text: str) -> ast.Module | SyntaxError:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError as error:
        return error
    except (RecursionError, MemoryError, ValueError):
        return SyntaxError("too deeply nested to parse")


def _parses(text: str) -> SyntaxError | None:
    found = _parse(text)
    return found if isinstance(found, SyntaxError) else None


# ------------------------------------------------------------------------------------------------
# The program: every Python code cell, masked, in order


@dataclass
class CellError:
    cell: CodeCell
    line: int  # in the cell
    column: int  # 1-based
    message: str


@dataclass
class Program:
    text: str
    cells: list[CodeCell]  # the cells in the program, in order
    starts: list[int]  # the program line where each cell begins (1-based)
    masks: list[MaskedCell]
    errors: list[CellError] = field(default_factory=list)
    #: Set by `check_syntax`: the cells (by number) commented out because they do not parse.
    broken: set[int] = field(default_factory=set)
    tree: ast.Module | None = None

    def locate(self, line: int) -> tuple[int, int]:
        """(cell position in `cells`, line in that cell) of a program line."""
        index = max(0, bisect.bisect_right(self.starts, line) - 1)
        return index, line - self.starts[index] + 1

    def cell_text(self, index: int) -> str:
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else None
        lines = self.text.splitlines(keepends=True)
        return "".join(lines[self.starts[index] - 1:end])

    def check_syntax(self) -> None:
        """Parse the program; comment out each cell that does not parse on its own and record its
        error, so that the others are still analysed. Sets `tree`."""
        tree = _parse(self.text)
        if isinstance(tree, ast.Module) and self._statements_stay_in_cells(tree):
            self.tree = tree
            return
        for index, mask in enumerate(self.masks):
            cell_error = _parses(mask.text)
            if cell_error is not None:
                self._comment_out(index, cell_error)
        for _ in range(len(self.cells) + 1):
            # Cells that parse alone may still clash together (a late `from __future__ import`).
            error = _parses(self.text)
            if error is None:
                break
            index, _ = self.locate(error.lineno or 1)
            if self.cells[index].number in self.broken:
                break
            self._comment_out(index, error, shift=self.starts[index] - 1)

    def _statements_stay_in_cells(self, tree: ast.Module) -> bool:
        """Does every top-level statement start and end in one cell (a cell that ends inside an
        open `def` or bracket does not parse on its own, even if the next cell completes it)?"""
        for node in tree.body:
            decorators = getattr(node, "decorator_list", None)
            first = decorators[0].lineno if decorators else node.lineno
            if self.locate(first)[0] != self.locate(node.end_lineno or first)[0]:
                return False
        return True

    def _comment_out(self, index: int, error: SyntaxError, shift: int = 0) -> None:
        cell = self.cells[index]
        self.broken.add(cell.number)
        self.tree = None
        message = f"SyntaxError: {error.msg}".replace("\n", " ") if error.msg else "SyntaxError"
        mask = self.masks[index]
        line = min(max(1, (error.lineno or 1) - shift), max(1, mask.lines))
        self.errors.append(CellError(cell, line, (error.offset or 1) + mask.shift(line), message))
        lines = self.text.splitlines(keepends=True)
        start = self.starts[index] - 1
        for position in range(start, start + self.masks[index].lines):
            # Commented out, not removed: the line count stays and `# noqa` comments still count.
            lines[position] = "#" + lines[position]
        self.text = "".join(lines)


def build_program(notebook: Notebook) -> Program:
    """The notebook's Python cells, masked and concatenated (syntax is not checked yet)."""
    cells, starts, masks, parts = [], [], [], []
    line = 1
    for cell in notebook.cells:
        mask = mask_cell(cell.source)
        if mask is None:
            continue  # %%bash, %%writefile...: not Python
        cells.append(cell)
        starts.append(line)
        masks.append(mask)
        parts.append(mask.text)
        line += mask.lines
    return Program("".join(parts), cells, starts, masks)


# ------------------------------------------------------------------------------------------------
# Running a notebook's code (the probe's `pipelint profile notebook.ipynb`)

_MASKED_LINE = re.compile(r"^([ \t]*)_+$")
_MASKED_VALUE = re.compile(r"^([ \t]*[\w.\[\], ()*]+?\s*=\s*)_+$")
_MASKED_PREFIX = re.compile(r"^([ \t]*)_+;")


@dataclass(frozen=True)
class RunnableCell:
    number: int
    code: str | None  # Python to execute; None: the cell is skipped (see `note`)
    note: str = ""  # what was left out, for the user


def runnable_cells(notebook: Notebook) -> list[RunnableCell]:
    """The code cells as plain Python, in order, for running without IPython: magics and shell
    escapes become `pass` (an escape's value, `files = !ls`, becomes None), `%time stmt` runs
    `stmt`, non-Python cell magics and cells that do not parse are skipped; each with a note."""
    cells = []
    for cell in notebook.cells:
        mask = mask_cell(cell.source)
        if mask is None:
            magic = cell.source.lstrip().split(None, 1)[0]
            cells.append(RunnableCell(cell.number, None, f"cell {cell.number}: `{magic}` cell skipped"))
            continue
        lines = mask.text.splitlines()
        skipped = []
        for line_number, start, end in mask.masked:
            index = line_number - 1
            original = _NEWLINE.split(cell.source)[index].strip()
            line = lines[index]
            if _MASKED_PREFIX.match(line):
                lines[index] = _MASKED_PREFIX.sub(r"\1", line)
            elif _MASKED_VALUE.match(line):
                lines[index] = _MASKED_VALUE.sub(r"\1None", line)
            elif _MASKED_LINE.match(line):
                lines[index] = _MASKED_LINE.sub(r"\1pass", line)
            if original:
                skipped.append(original.split(None, 1)[0] if original.startswith("%") else original[:40])
        code = "".join(line + "\n" for line in lines)
        error = _parses(code)
        if error is not None:
            cells.append(RunnableCell(cell.number, None, f"cell {cell.number}: skipped, it does not parse "
                                                         f"(line {error.lineno}: {error.msg})"))
            continue
        note = f"cell {cell.number}: skipped {', '.join(f'`{s}`' for s in skipped)}" if skipped else ""
        cells.append(RunnableCell(cell.number, code, note))
    return cells


# ------------------------------------------------------------------------------------------------
# The JSON text: where each cell's `source` is, and writing new ones


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class _SourceSpan:
    start: int  # offset of the value in the JSON text
    end: int
    items: list[tuple[int, int]] | None  # offsets of each string of a list-form source


def _skip(text: str, index: int) -> int:
    return _WHITESPACE.match(text, index).end()


def _expect(text: str, index: int, char: str) -> int:
    if index >= len(text) or text[index] != char:
        raise NotebookError(f"unexpected JSON at offset {index}")
    return index + 1


def _object_members(text: str, index: int, on_member) -> int:
    """Walk the object at `index`, calling on_member(key, value_offset) -> end offset; return its end."""
    index = _expect(text, _skip(text, index), "{")
    index = _skip(text, index)
    if text.startswith("}", index):
        return index + 1
    while True:
        index = _skip(text, index)
        key, index = scanstring(text, _expect(text, index, '"'))
        index = _skip(text, _expect(text, _skip(text, index), ":"))
        index = _skip(text, on_member(key, index))
        if text.startswith(",", index):
            index += 1
            continue
        return _expect(text, index, "}")


def _value_end(text: str, index: int) -> int:
    return _DECODER.raw_decode(text, index)[1]


def source_spans(text: str) -> list[_SourceSpan | None]:
    """For each cell (in order), where its `source` value sits in the notebook's JSON text."""
    spans: list[_SourceSpan | None] = []

    def member(key: str, index: int) -> int:
        if key != "cells" or not text.startswith("[", index):
            return _value_end(text, index)
        spans.clear()
        index = _skip(text, index + 1)
        if text.startswith("]", index):
            return index + 1
        while True:
            found: list[_SourceSpan] = []

            def cell_member(cell_key: str, at: int) -> int:
                end = _value_end(text, at)
                if cell_key == "source":
                    items = None
                    if text.startswith("[", at):
                        items, position = [], _skip(text, at + 1)
                        while text.startswith('"', position):
                            item_end = _value_end(text, position)
                            items.append((position, item_end))
                            position = _skip(text, item_end)
                            position = _skip(text, position + 1) if text.startswith(",", position) else position
                    found.append(_SourceSpan(at, end, items))
                return end

            index = _object_members(text, index, cell_member)
            spans.append(found[-1] if found else None)
            index = _skip(text, index)
            if text.startswith(",", index):
                index = _skip(text, index + 1)
                continue
            return _expect(text, index, "]")

    _object_members(text, 0, member)
    return spans


def _line_indent(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[:len(line) - len(line.lstrip(" \t"))]


def _ensure_ascii(text: str) -> bool:
    """Did the writer escape non-ASCII characters (`\\u00e9`) rather than write them (nbformat)?"""
    return text.isascii() and re.search(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])", text) is not None


def _split_source(source: str) -> list[str]:
    lines = source.splitlines(keepends=True)
    # str.splitlines also breaks at \f, \v, \x1c..., which nbformat would too; keep them in one item
    # unless they end a line, so that an unchanged line is written exactly as before.
    merged: list[str] = []
    for part in lines:
        if merged and not merged[-1].endswith(("\n", "\r")):
            merged[-1] += part
        else:
            merged.append(part)
    return merged


def _render_source(text: str, span: _SourceSpan, source: str, as_list: bool, ascii_only: bool) -> str:
    dump = lambda value: json.dumps(value, ensure_ascii=ascii_only)  # noqa: E731
    if not as_list:
        return dump(source)
    lines = _split_source(source)
    if not lines:
        return "[]"
    original = text[span.start:span.end]
    if "\n" not in original and span.items:
        return "[" + ", ".join(dump(line) for line in lines) + "]"
    key_indent = _line_indent(text, span.start)
    if span.items:
        item_indent = _line_indent(text, span.items[0][0])
    else:
        item_indent = key_indent + (key_indent[:1] or " ")
    return "[\n" + ",\n".join(item_indent + dump(line) for line in lines) + "\n" + key_indent + "]"


def replace_sources(text: str, new_sources: dict[int, str]) -> str:
    """The notebook text with the `source` of the cells numbered in `new_sources` replaced."""
    if not new_sources:
        return text
    spans = source_spans(text)
    data = json.loads(text)
    ascii_only = _ensure_ascii(text)
    pieces = []
    position = 0
    for number in sorted(new_sources):
        span = spans[number - 1] if 0 < number <= len(spans) else None
        if span is None:
            raise NotebookError(f"cell {number} has no `source` to replace")
        as_list = not isinstance(data["cells"][number - 1].get("source"), str)
        pieces.append(text[position:span.start])
        pieces.append(_render_source(text, span, new_sources[number], as_list, ascii_only))
        position = span.end
    pieces.append(text[position:])
    return "".join(pieces)


def raw_position(text: str, cell_number: int, line: int, column: int,
                 spans: list[_SourceSpan | None] | None = None) -> tuple[int, int]:
    """Where (cell, line, 1-based column) sits in the notebook's JSON text: (line, column), 1-based.

    Code scanning and PR annotations place a finding on a line of the file as stored; for a
    notebook that is the JSON string holding the cell's line (nbformat writes one per line).
    """
    spans = source_spans(text) if spans is None else spans
    span = spans[cell_number - 1] if 0 < cell_number <= len(spans) else None
    if span is None:
        return 1, 1
    data_lines: list[tuple[int, str]]  # (offset of the JSON string, its decoded text)
    if span.items is not None:
        data_lines = [(start, json.loads(text[start:end])) for start, end in span.items]
    else:
        data_lines = [(span.start, json.loads(text[span.start:span.end]))]
    # Walk to the cell's line `line` through the strings (a string may hold several lines).
    current = 1  # the cell line that starts the current string (nbformat starts one per line)
    for offset, value in data_lines:
        starts = [0] + [m.end() for m in _NEWLINE.finditer(value) if m.end() < len(value)]
        if current + len(starts) > line:
            prefix = value[:starts[line - current] + max(0, column - 1)]
            escaped = json.dumps(prefix, ensure_ascii=_ensure_ascii(text))[1:-1]
            row = text.count("\n", 0, offset) + 1
            col = offset - (text.rfind("\n", 0, offset) + 1) + 2 + len(escaped)
            return row, col
        current += len(starts) if _NEWLINE.search(value[-1:]) else len(starts) - 1
    last = data_lines[-1][0] if data_lines else span.start
    return text.count("\n", 0, last) + 1, 1
