"""Re-parsing an edited document: only the top-level statements an edit touches.

An editor sends the whole text after each keystroke; libcst's parse of a 1,000-line module costs
about as much as the rest of a check. `Reparser` keeps the last module of one document and the
text of each of its top-level statements (libcst's own split of the text: a statement's code
with the comments and blank lines before it). An edit changes one span of the text; the
statements around that span are parsed again, alone, and spliced between the unchanged ones,
which stay the same nodes. Anything it cannot place (an edit in the module's first or last
lines, a span that no longer parses alone) falls back to parsing the whole text.
"""
from __future__ import annotations

import libcst as cst


class Reparser:
    def __init__(self) -> None:
        self._source: str | None = None
        self._module: cst.Module | None = None
        self._header = ""  # the text before the first statement (libcst's `Module.header`)
        self._pieces: list[str] = []  # each top-level statement's text, in order

    def parse(self, source: str) -> cst.Module:
        """The libcst module of `source` (raises what `cst.parse_module` raises)."""
        module = self._spliced(source) if self._module is not None else None
        if module is None:
            module = cst.parse_module(source)
            self._keep(source, module)
        return module

    def _keep(self, source: str, module: cst.Module, pieces: list[str] | None = None) -> None:
        if pieces is None:
            header = "".join(module.code_for_node(line) for line in module.header)
            pieces = [module.code_for_node(statement) for statement in module.body]
            footer = "".join(module.code_for_node(line) for line in module.footer)
            if header + "".join(pieces) + footer != source:
                self._module = None  # (a text libcst does not split this way: parse it whole)
                return
            self._header = header
        self._source, self._module, self._pieces = source, module, pieces

    @staticmethod
    def _first_block(module: cst.Module) -> int:
        """The index of the first top-level statement with an indented block."""
        return next((index for index, statement in enumerate(module.body)
                     if isinstance(getattr(statement, "body", None), cst.IndentedBlock)), len(module.body))

    def _spliced(self, source: str) -> cst.Module | None:
        old, module = self._source, self._module
        if source == old:
            return module
        # The changed span: what lies between the common prefix and the common suffix.
        limit = min(len(old), len(source))
        start = 0
        while start < limit and old[start] == source[start]:
            start += 1
        end = 0
        while end < limit - start and old[-1 - end] == source[-1 - end]:
            end += 1
        old_end = len(old) - end
        # The statements holding it, and the one before (an edit at a statement's first
        # character may continue the statement above it).
        offset = len(self._header)
        first = last = None
        for index, piece in enumerate(self._pieces):
            if first is None and offset + len(piece) > start:
                first = index
            if offset < max(old_end, start + 1):
                last = index
            offset += len(piece)
        if first is None or last is None or start < len(self._header) or old_end > offset:
            return None  # in the module's header or footer
        first = max(first - 1, 0)
        before = len(self._header) + sum(len(piece) for piece in self._pieces[:first])
        footer = len(old) - offset
        after = sum(len(piece) for piece in self._pieces[last + 1:])
        text = source[before:len(source) - footer - after]
        while not text.endswith(("\n", "\r")) and last + 1 < len(self._pieces):
            # (the edit joined the last line to the statement after it: that one is part of it)
            last += 1
            after -= len(self._pieces[last])
            text = source[before:len(source) - footer - after]
        if not text.endswith(("\n", "\r")) or first <= self._first_block(module):
            # (the file's last newline, or the first indented block, from which libcst infers
            # the module's indentation and line ending: parse it whole)
            return None
        try:
            part = cst.parse_module(text, config=module.config_for_parsing)
        except (cst.ParserSyntaxError, RecursionError):
            return None
        if part.footer or not part.body or (part.default_indent, part.default_newline) != (
                module.default_indent, module.default_newline):
            # (trailing lines belong to the statement after; a block's indentation is stored
            # relative to the module's default, which the part inferred on its own)
            return None
        body = list(part.body)
        body[0] = body[0].with_changes(leading_lines=(*part.header, *body[0].leading_lines))
        new = module.with_changes(body=(*module.body[:first], *body, *module.body[last + 1:]))
        pieces = [*self._pieces[:first], *(part.code_for_node(s) for s in body), *self._pieces[last + 1:]]
        self._keep(source, new, pieces)
        return new
