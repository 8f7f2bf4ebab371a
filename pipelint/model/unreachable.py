"""Code no run reaches because a statement before it surely raises: it reads a name that nothing
in the module binds but a line commented out (`# base_dir = "data/"`), so Python stops there with
a NameError, and the rest of that block never runs (C1: a pipeline built or trained there is never
trained on). So does a line that is a bare name nothing binds (`ggwp`, or a file name pasted as
code: `asnaro1-srcnn-modelling.py`), and a Keras name the
module forgot to import (`model = Sequential()` in a script that imports other names from Keras
or TensorFlow, but not `Sequential`). Another name bound
nowhere at all is left alone: a snippet pasted without its setup (`model.fit(ds)` with no `model`)
reads as code meant to run.

Read with CPython's `ast` (load and store contexts are explicit there), then aligned with the
libcst statements the model holds (`syntax.aligned`).
"""
from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections import Counter
from dataclasses import dataclass

import libcst as cst

from pipelint.model.syntax import aligned, nodes_of

# Names every module has without binding them.
_ALWAYS_BOUND = frozenset(dir(builtins)) | frozenset(
    {"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__",
     "__path__", "__annotations__", "__dict__", "__class__", "__cached__"})
# Text that binds names no statement shows: the module's names are then not all in sight.
_HIDDEN_BINDINGS = re.compile(r"import\s+\*|\bexec\s*\(|\bglobals\s*\(|\blocals\s*\(|\bvars\s*\(|__builtins__|"
                              r"\bsetattr\s*\(|\bget_ipython\b")


# Names scripts import from Keras (`keras.models`, `keras.layers`, `keras.preprocessing.image`,
# `keras.callbacks`, `keras.optimizers`, `keras.utils`, `keras.applications`): read unbound in a
# module that imports from Keras or TensorFlow, each was meant to be imported and was not.
_KERAS_NAMES = frozenset({
    "Sequential", "Model", "load_model", "Input", "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose",
    "SeparableConv2D", "DepthwiseConv2D", "MaxPooling1D", "MaxPooling2D", "MaxPool2D", "AveragePooling2D",
    "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Flatten", "Dropout", "BatchNormalization", "Activation",
    "LeakyReLU", "LSTM", "GRU", "Bidirectional", "Embedding", "Reshape", "Concatenate", "UpSampling2D",
    "ZeroPadding2D", "ImageDataGenerator", "load_img", "img_to_array", "image_dataset_from_directory",
    "to_categorical", "Adam", "SGD", "RMSprop", "ModelCheckpoint", "EarlyStopping", "ReduceLROnPlateau",
    "VGG16", "VGG19", "ResNet50", "MobileNetV2", "InceptionV3", "Xception", "DenseNet121", "EfficientNetB0"})
# (also a file name pasted as the first line, `asnaro1-srcnn-modelling.py`: names joined by `-`, `+`,
# `.`, the first of which Python reads first)
_BARE_NAME_LINE = re.compile(r"(?m)^[ \t]*([A-Za-z_]\w*)(?:[ \t]*[-+.][ \t]*[A-Za-z_]\w*)*[ \t]*(?:#[^\n]*)?$")
_IMPORTS_KERAS = re.compile(r"^\s*(?:from\s+(?:tensorflow|keras)[\w.]*\s+import|import\s+(?:tensorflow|keras)\b)",
                            re.MULTILINE)


@dataclass(frozen=True)
class NeverReached:
    """What no run reaches: the ids of its libcst calls, and its 1-based source lines."""

    calls: frozenset[int] = frozenset()
    lines: frozenset[int] = frozenset()


def never_reached(module: cst.Module, source: str) -> NeverReached:
    """The statements that follow, in the module's body or in a function's (top-level, or a
    method of a top-level class), a simple statement reading a name the module never binds and
    surely meant to (bound in a commented-out line, or a Keras name in a module that imports from
    Keras). Nothing where the module may bind names out of sight."""
    commented = _bound_in_comments(source)
    # (substring tests first: only a module that trains can lose its training to a forgotten import)
    called = [name for name in _KERAS_NAMES if f"{name}(" in source] if ".fit" in source else []
    if called and _IMPORTS_KERAS.search(source):
        called = [name for name in called if re.search(rf"(?<![\w.]){name}\(", source) and not re.search(
            rf"(?:\bimport\b[^\n]*|\bas\s+|\bdef\s+|\bclass\s+|^\s+|,\s*)\b{name}\b|\b{name}\s*=[^=]", source, re.M)]
    else:
        called = []
    # (a line that is a bare name, `ggwp`: it does nothing but raise where nothing binds the name)
    # (in a module that trains, a name the text shows nowhere else: one bound somewhere is no
    # crash, and most such lines are the last argument of a call written over several lines)
    lines = Counter(name for name in _BARE_NAME_LINE.findall(source) if not keyword.iskeyword(name)) \
        if ".fit" in source else Counter()
    bare = [name for name, count in lines.items() if source.count(name) == count]
    if not commented and not called and not bare or _HIDDEN_BINDINGS.search(source):
        return NeverReached()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return NeverReached()
    bound = _bound_names(tree) | _ALWAYS_BOUND
    meant = (commented | set(called) | set(bare)) - bound
    if not meant:
        return NeverReached()
    calls: set[int] = set()
    lines: set[int] = set()
    for cst_block, ast_block in _blocks(module, tree):
        pairs = aligned(cst_block, ast_block) or []
        for position, (statement, smalls) in enumerate(pairs):
            # (only simple statements: a compound one may catch, loop or branch around the read)
            if isinstance(statement, cst.SimpleStatementLine) and any(
                    name in meant for small in smalls for name in _unbound_reads(small, bound)):
                for later, later_smalls in pairs[position + 1:]:
                    calls.update(id(call) for call in nodes_of(later, cst.Call))
                    lines.update(range(later_smalls[0].lineno, (later_smalls[-1].end_lineno or 0) + 1))
                break
    return NeverReached(frozenset(calls), frozenset(lines))


def _bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds anywhere, in any scope (a name bound in one function and read
    in another counts as bound: this errs toward code that runs)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound


def _unbound_reads(statement: ast.stmt, bound: set[str]) -> list[str]:
    """The names this simple statement, run, reads that nothing binds (not in a lambda's body,
    which runs later if ever)."""
    found = []
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            found.append(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _bound_in_comments(source: str) -> set[str]:
    """Names that a commented-out line of code binds (`# base_dir = "data/"`)."""
    names: set[str] = set()
    for line in source.splitlines():
        text = line.strip()
        if not text.startswith("#") or "=" not in text:
            continue
        code = text.lstrip("#").strip()
        try:
            parsed = ast.parse(code)
        except (SyntaxError, ValueError):
            continue
        names.update(node.id for node in ast.walk(parsed)
                     if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
    return names


def _blocks(module: cst.Module, tree: ast.Module):
    """(libcst statements, ast statements) of the module's body and of each top-level function's
    and top-level class's methods' bodies."""
    yield list(module.body), tree.body
    pairs = aligned(list(module.body), tree.body) or []
    for statement, smalls in pairs:
        if isinstance(statement, cst.FunctionDef) and isinstance(smalls[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _function_block(statement, smalls[0])
        elif isinstance(statement, cst.ClassDef) and isinstance(smalls[0], ast.ClassDef) \
                and isinstance(statement.body, cst.IndentedBlock):
            for inner, inner_smalls in aligned(list(statement.body.body), smalls[0].body) or []:
                if isinstance(inner, cst.FunctionDef) and isinstance(inner_smalls[0], (ast.FunctionDef,
                                                                                        ast.AsyncFunctionDef)):
                    yield from _function_block(inner, inner_smalls[0])


def _function_block(function: cst.FunctionDef, node: ast.FunctionDef | ast.AsyncFunctionDef):
    if isinstance(function.body, cst.IndentedBlock):
        yield list(function.body.body), node.body
