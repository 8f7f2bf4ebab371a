"""The language server: pygls (2.x) features on lsprotocol types, over stdio.

* Diagnostics: `textDocument/didOpen`/`didSave` check at once, `didChange` after a short quiet
  time (`DEBOUNCE_S`, restarted by each edit; edits during a check merge into one more check). Notebooks come through LSP 3.17 notebook sync: the
  whole notebook is checked as one program and each finding is published on its cell's document.
  A check whose document changed meanwhile is dropped (the newer one publishes).
* Checks run one at a time on a worker thread, so the server keeps reading messages (edits,
  cancellations) while one runs; the engine itself is loaded once and stays loaded.
* Code actions: each finding's fix (`quickfix`; safe ones preferred, unsafe ones labelled),
  "ignore with `# noqa: PLxxx`", and `source.fixAll.pipelint` (every safe fix, as `--fix`).
* Hover over a finding: the rule's docs and a link.
* Settings: the closest pyproject.toml / pipelint.toml above each document; a change to one
  (`workspace/didChangeWatchedFiles`, or saving it in the editor) reloads them and re-checks
  every open document.
"""
from __future__ import annotations

import asyncio
import bisect
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from lsprotocol import types
from pygls.exceptions import FeatureNotificationError, JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from pipelint import __version__
from pipelint.config import CONFIG_FILENAMES
from pipelint.target import DECLARING_FILE_GLOBS, is_declaring_file
from pipelint.diagnostics import Applicability, Diagnostic, Impact, Severity
from pipelint.server.linting import Cell, ConfigError, Linter

__all__ = ["DEBOUNCE_S", "FIX_ALL_KIND", "PipelintServer", "create_server"]

#: Quiet time after an edit before its check starts: the burst of notifications one editor action
#: sends (a fix applied as several changes, a multi-cursor edit) costs one check. Edits that arrive
#: while a check runs are merged too: only the newest version waits for the worker (a queued,
#: superseded check is cancelled), so typing never piles up checks.
DEBOUNCE_S = 0.02
FIX_ALL_KIND = "source.fixAll.pipelint"
SOURCE = "pipelint"
PYTHON_SUFFIXES = (".py", ".pyi")
_LSP_NEWLINE = re.compile(r"\r\n|\r|\n")
_NOQA_WITH_CODES = re.compile(r"#\s*noqa:\s*[\w\s,]*?[\w](?=\s*(?:#|$))", re.IGNORECASE)
_SEVERITY = {Severity.ERROR: types.DiagnosticSeverity.Error, Severity.WARNING: types.DiagnosticSeverity.Warning,
             Severity.INFO: types.DiagnosticSeverity.Information}
#: Findings that cost nothing on the target (shown where the configuration asks for them) rank below
#: those that do, whatever the code's severity: a migration is information, housekeeping a hint
#: (which editors leave out of their problem list).
_IMPACT_SEVERITY = {Impact.MINOR_CORRECTNESS: types.DiagnosticSeverity.Information,
                    Impact.MINOR_SPEED: types.DiagnosticSeverity.Information,
                    Impact.BREAKS_ON_UPGRADE: types.DiagnosticSeverity.Information,
                    Impact.HOUSEKEEPING: types.DiagnosticSeverity.Hint}

logger = logging.getLogger("pipelint.server")


class _Text:
    """A document's text split into lines as LSP counts them (`\\n`, `\\r\\n`, `\\r`), with the
    conversions between pipelint's 1-based code-point positions and the client's units."""

    def __init__(self, text: str, codec) -> None:
        self.text = text
        self.codec = codec
        self.starts = [0] + [m.end() for m in _LSP_NEWLINE.finditer(text)]
        self.lines = [text[start:end] for start, end in zip(self.starts, self.starts[1:] + [len(text)])]

    def position(self, line: int, column: int) -> types.Position:
        """pipelint's (1-based line, 1-based code-point column) -> an LSP position."""
        index = line - 1
        if index >= len(self.lines):
            return types.Position(line=len(self.lines) - 1, character=self.codec.client_num_units(self.lines[-1]))
        content = _LSP_NEWLINE.sub("", self.lines[index])
        return types.Position(line=index, character=self.codec.client_num_units(content[:max(0, column - 1)]))

    def at_offset(self, offset: int) -> types.Position:
        index = bisect.bisect_right(self.starts, offset) - 1
        return self.position(index + 1, offset - self.starts[index] + 1)

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(start=self.position(line, column), end=self.position(end_line, end_column))


def _edits(d: Diagnostic, text: _Text) -> list[types.TextEdit]:
    return [types.TextEdit(range=text.range(e.line, e.column, e.end_line, e.end_column), new_text=e.content)
            for e in d.fix.edits]


def minimal_edit(old: str, new: str, text: _Text) -> types.TextEdit:
    """One edit turning `old` into `new`, covering only what differs (the cursor stays put)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    return types.TextEdit(range=types.Range(start=text.at_offset(start), end=text.at_offset(end_old)),
                          new_text=new[start:end_new])


def noqa_edit(d: Diagnostic, text: _Text) -> types.TextEdit:
    """Add `# noqa: CODE` to the finding's line, or the code to a `# noqa: ...` already there."""
    index = d.line - 1
    line = _LSP_NEWLINE.sub("", text.lines[index]) if index < len(text.lines) else ""
    existing = _NOQA_WITH_CODES.search(line)
    if existing:
        column = existing.end()
        insert = f", {d.code}"
    else:
        column = len(line.rstrip())
        insert = f"  # noqa: {d.code}"
    where = text.position(d.line, column + 1)
    return types.TextEdit(range=types.Range(start=where, end=where), new_text=insert)


def hover_markdown(d: Diagnostic) -> str:
    from pipelint.rules import all_rules

    rule = all_rules().get(d.code)
    if rule is None:
        return f"**{d.code} {d.name}**\n\n{d.message}\n\n[Rule docs]({d.url})"
    fix = f"{rule.fixable.value} fix" if rule.fixable else "no automatic fix"
    # The docs' `##` sections become `####`: under the hover's own title they read as subsections.
    docs = "\n".join("##" + line if line.startswith("## ") else line for line in rule.docs.strip().splitlines())
    return (f"### {d.code} {rule.name}\n\n*{rule.severity.value}, {fix}*\n\n{d.message}\n\n---\n\n"
            f"{docs}\n\n[{d.code} in the rule docs]({d.url})")


class _Published:
    """What was last published for one document (a file or a notebook cell)."""

    def __init__(self, version: int | None, text: _Text, pairs: list[tuple[types.Diagnostic, Diagnostic]]) -> None:
        self.version, self.text, self.pairs = version, text, pairs


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, but a request whose params do not fit its method gets an error response
    (pygls only logs it, and the client would wait for an answer forever)."""

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise  # pygls logs it and goes on reading


class PipelintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "pipelint", __version__, protocol_cls=_Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="*", cells=[types.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.linter: Linter | None = None
        self.published: dict[str, _Published] = {}  # by document (or cell) URI
        self.pending: dict[str, asyncio.Task] = {}  # by document or notebook URI
        # One check at a time, off the event loop: messages keep flowing while it runs.
        self.checks = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pipelint-lint")
        self.shown_errors: set[str] = set()

    def report_server_error(self, error: Exception, source) -> None:
        """Errors outside a request: a failure in one of our notification handlers is shown to
        the user (something did not update); malformed input is only logged (a request among it
        has had its error response)."""
        logger.error("%s", error)
        if source is FeatureNotificationError:
            self.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Error, message=f"pipelint server: {error}"))

    # ---- paths and settings

    def root(self) -> Path:
        root = self.workspace.root_path
        return Path(root) if root else Path.cwd()

    def get_linter(self) -> Linter:
        if self.linter is None:
            self.linter = Linter(self.root())
        return self.linter

    def path_of(self, uri: str, default_name: str) -> Path:
        """The file a document stands for: its path, or for an unsaved buffer a name in the root."""
        path = to_fs_path(uri) if urlparse(uri).scheme == "file" else None
        return Path(path) if path else self.root() / default_name

    def config_error(self, error: ConfigError) -> None:
        message = f"pipelint: configuration error: {error}"
        logger.warning(message)
        if message not in self.shown_errors:
            self.shown_errors.add(message)
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))

    # ---- scheduling

    def schedule(self, key: str, check, delay: float) -> None:
        """Run `check()` (a coroutine function) after `delay`, replacing one still waiting for `key`."""
        previous = self.pending.pop(key, None)
        if previous is not None and not previous.done():
            previous.cancel()

        async def later() -> None:
            if delay:
                await asyncio.sleep(delay)
            await check()

        self.pending[key] = asyncio.get_running_loop().create_task(later())

    async def off_loop(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self.checks, function, *args)

    # ---- Python files

    def is_python(self, document) -> bool:
        return document.language_id == "python" or PurePosixPath(urlparse(document.uri).path).suffix in PYTHON_SUFFIXES

    async def check_text_document(self, uri: str) -> None:
        document = self.workspace.text_documents.get(uri)
        if document is None or not self.is_python(document):
            return
        version, source = document.version, document.source
        try:
            found = await self.off_loop(self.get_linter().check_python, source, self.path_of(uri, "untitled.py"))
        except ConfigError as error:
            self.config_error(error)
            found = []
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return  # closed or edited meanwhile: the newer check publishes
        self.publish(uri, version, source, found)

    def publish(self, uri: str, version: int | None, source: str, found: list[Diagnostic]) -> None:
        text = _Text(source, self.workspace.position_codec)
        pairs = [(self.to_lsp(d, text), d) for d in found]
        self.published[uri] = _Published(version, text, pairs)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[lsp for lsp, _ in pairs]))

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @staticmethod
    def to_lsp(d: Diagnostic, text: _Text) -> types.Diagnostic:
        return types.Diagnostic(
            range=text.range(d.line, d.column, d.end_line, d.end_column),
            severity=_IMPACT_SEVERITY.get(d.impact, _SEVERITY[d.severity]), code=d.code, source=SOURCE, message=d.message,
            code_description=types.CodeDescription(href=d.url),
            data={"name": d.name, "impact": d.impact.value, "fix": d.fix.applicability.value if d.fix else None},
        )

    # ---- notebooks

    def notebook_cells(self, notebook: types.NotebookDocument) -> list[tuple[str, Cell]]:
        cells = []
        for cell in notebook.cells:
            document = self.workspace.text_documents.get(cell.document)
            source = document.source if document is not None else ""
            language = document.language_id if document is not None and document.language_id else "python"
            kind = "code" if cell.kind == types.NotebookCellKind.Code else "markdown"
            cells.append((cell.document, Cell(kind, source, language)))
        return cells

    async def check_notebook(self, notebook_uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return
        version = notebook.version
        cells = self.notebook_cells(notebook)
        metadata = notebook.metadata if isinstance(notebook.metadata, dict) else None
        path = self.path_of(notebook_uri, "untitled.ipynb")
        try:
            findings = await self.off_loop(self.get_linter().check_notebook, [c for _, c in cells], path, metadata)
        except ConfigError as error:
            self.config_error(error)
            findings = None
        current = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if current is None or current.version != version:
            return
        code_cells = [index for index, (_, cell) in enumerate(cells) if cell.kind == "code"]
        for index, (uri, cell) in enumerate(cells):
            if cell.kind != "code":
                continue
            found = list(findings.by_cell.get(index, [])) if findings else []
            if findings and findings.whole and index == code_cells[0]:
                found = list(findings.whole) + found  # the notebook as a whole: shown on its first cell
            document = self.workspace.text_documents.get(uri)
            self.publish(uri, document.version if document else None, cell.text, found)

    # ---- code actions

    async def current(self, uri: str) -> _Published | None:
        """The findings of the document as it is now (checked again if it changed since)."""
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        published = self.published.get(uri)
        if published is not None and published.version == document.version:
            return published
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is not None:
            await self.check_notebook(notebook.uri)
        else:
            await self.check_text_document(uri)
        published = self.published.get(uri)
        return published if published is not None and published.version == document.version else None

    async def fix_all_edits(self, uri: str) -> list[types.TextEdit]:
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return []
        codec = self.workspace.position_codec
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        if notebook is None:
            fixed = await self.off_loop(self.get_linter().fix_python, document.source,
                                        self.path_of(uri, "untitled.py"))
            return [] if fixed is None else [minimal_edit(document.source, fixed, _Text(document.source, codec))]
        cells = self.notebook_cells(notebook)
        index = next(i for i, (cell_uri, _) in enumerate(cells) if cell_uri == uri)
        metadata = notebook.metadata if isinstance(notebook.metadata, dict) else None
        changed = await self.off_loop(self.get_linter().fix_notebook, [c for _, c in cells],
                                      self.path_of(notebook.uri, "untitled.ipynb"), metadata)
        if index not in changed:
            return []  # only this cell's fixes: the action was asked of this cell's document
        return [minimal_edit(document.source, changed[index], _Text(document.source, codec))]


def _wants(only: list[str] | None, kind: str) -> bool:
    """Does the client's `only` filter admit `kind` (a kind admits its sub-kinds)?"""
    return only is None or any(kind == wanted or kind.startswith(wanted + ".") for wanted in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    start_a, end_a = (a.start.line, a.start.character), (a.end.line, a.end.character)
    start_b, end_b = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return start_a <= end_b and start_b <= end_a


def _settles_settings(name: str) -> bool:
    """Does a change to a file of this name change settings: a configuration file, or one that
    declares the project's TensorFlow/Keras?"""
    return name in CONFIG_FILENAMES or is_declaring_file(name)


def create_server() -> PipelintServer:
    server = PipelintServer()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PipelintServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            # Configuration, and the files that declare the project's TensorFlow (a target's source).
            watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}")
                        for name in dict.fromkeys((*CONFIG_FILENAMES, *DECLARING_FILE_GLOBS))]
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
                    id="pipelint-config-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
            except Exception as error:  # noqa: BLE001 - saving a config file in the editor still reloads
                logger.warning("cannot watch configuration files: %s", error)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PipelintServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.schedule(uri, lambda: ls.check_text_document(uri), 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PipelintServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.schedule(uri, lambda: ls.check_text_document(uri), DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PipelintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        if _settles_settings(PurePosixPath(urlparse(uri).path).name):
            reload_settings(ls)  # for clients that do not watch files
            return
        ls.schedule(uri, lambda: ls.check_text_document(uri), 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PipelintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.clear(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: PipelintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.schedule(uri, lambda: ls.check_notebook(uri), 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: PipelintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        structure = params.change.cells.structure if params.change.cells else None
        for closed in (structure.did_close or []) if structure else []:
            ls.clear(closed.uri)  # a deleted cell keeps no findings
        ls.schedule(uri, lambda: ls.check_notebook(uri), DEBOUNCE_S)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: PipelintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        ls.schedule(uri, lambda: ls.check_notebook(uri), 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: PipelintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        task = ls.pending.pop(params.notebook_document.uri, None)
        if task is not None:
            task.cancel()
        for cell in params.cell_text_documents:
            ls.clear(cell.uri)

    def reload_settings(ls: PipelintServer) -> None:
        ls.get_linter().reload_settings()
        ls.shown_errors.clear()
        for uri, document in list(ls.workspace.text_documents.items()):
            if ls.workspace.get_notebook_document(cell_uri=uri) is None and ls.is_python(document):
                ls.schedule(uri, lambda uri=uri: ls.check_text_document(uri), 0)
        for notebook_uri in list(ls.workspace.notebook_documents):
            ls.schedule(notebook_uri, lambda uri=notebook_uri: ls.check_notebook(uri), 0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: PipelintServer, params: types.DidChangeWatchedFilesParams) -> None:
        if any(_settles_settings(PurePosixPath(urlparse(change.uri).path).name) for change in params.changes):
            reload_settings(ls)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    async def code_action(ls: PipelintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        only = params.context.only
        published = await ls.current(uri)
        if published is None:
            return []
        actions: list[types.CodeAction] = []
        if _wants(only, types.CodeActionKind.QuickFix):
            for lsp, d in published.pairs:
                if not _overlaps(lsp.range, params.range):
                    continue
                if d.fix is not None:
                    safe = d.fix.applicability is Applicability.SAFE
                    actions.append(types.CodeAction(
                        title=f"Fix {d.code} ({d.name})" + ("" if safe else " [unsafe fix: review it]"),
                        kind=types.CodeActionKind.QuickFix, diagnostics=[lsp], is_preferred=safe,
                        edit=types.WorkspaceEdit(changes={uri: _edits(d, published.text)})))
                if d.code != "PL000":
                    actions.append(types.CodeAction(
                        title=f"Ignore {d.code} on this line (# noqa: {d.code})",
                        kind=types.CodeActionKind.QuickFix, diagnostics=[lsp],
                        edit=types.WorkspaceEdit(changes={uri: [noqa_edit(d, published.text)]})))
        if _wants(only, FIX_ALL_KIND) and any(d.fix is not None and d.fix.applicability is Applicability.SAFE
                                               for _, d in published.pairs):
            edits = await ls.fix_all_edits(uri)
            if edits:
                actions.append(types.CodeAction(
                    title="pipelint: fix all safe findings", kind=FIX_ALL_KIND,
                    edit=types.WorkspaceEdit(changes={uri: edits})))
        return actions

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: PipelintServer, params: types.HoverParams) -> types.Hover | None:
        published = ls.published.get(params.text_document.uri)
        if published is None:
            return None
        at = (params.position.line, params.position.character)
        for lsp, d in published.pairs:
            if (lsp.range.start.line, lsp.range.start.character) <= at <= (lsp.range.end.line, lsp.range.end.character):
                return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                                value=hover_markdown(d)), range=lsp.range)
        return None

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PipelintServer, params: None) -> None:
        for task in ls.pending.values():
            task.cancel()
        ls.checks.shutdown(wait=False, cancel_futures=True)

    return server


def serve() -> None:
    """Serve on stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="pipelint server: %(levelname)s: %(message)s")
    create_server().start_io()
