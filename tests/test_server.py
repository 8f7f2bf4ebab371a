"""`pipelint server` driven as an editor drives it: pytest-lsp starts the real server (`python -m
pipelint server`) as a subprocess and talks LSP to it over stdio.

One server per module (starting one loads libcst and the rules: about a second); each test works
on documents of its own in a workspace of its own files.
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

SERIAL_MAP = """\
import tensorflow as tf

ds = tf.data.TFRecordDataset(["a.tfrecord"]).map(parse_record)
ds = ds.batch(32).prefetch(tf.data.AUTOTUNE)
"""
CLEAN = SERIAL_MAP.replace("map(parse_record)", "map(parse_record, num_parallel_calls=tf.data.AUTOTUNE)")
# Within this long of an edit the diagnostics must be current (the bound; the server's
# own target is 100 ms on a 1,000-line file, measured by benchmarks/server_latency.py).
EDIT_DEADLINE_S = 0.5


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lsp-workspace")
    (root / "pyproject.toml").write_text("[tool.pipelint]\nselect = [\"ALL\"]\n")
    return root


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "pipelint", "server"]))
async def client(lsp_client: LanguageClient, workspace: Path):
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)

    capabilities = pytest_lsp.client_capabilities("visual-studio-code")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities, root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
    yield
    await lsp_client.shutdown_session()


async def wait_for(client: LanguageClient, uri: str, predicate, timeout: float = 30.0):
    """Wait until the diagnostics published for `uri` satisfy `predicate`; return them."""
    deadline = time.monotonic() + timeout
    while True:
        found = client.diagnostics.get(uri)
        if found is not None and predicate(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri} within {timeout} s; last: {found}")
        await asyncio.sleep(0.01)


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def open_file(client: LanguageClient, path: Path, text: str, language: str = "python") -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP text edits (all ASCII here, so characters are code units) as a client does."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: types.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


async def test_PL101_on_open_quick_fix_then_gone_after_edit(client: LanguageClient, workspace: Path):
    uri = open_file(client, workspace / "train.py", SERIAL_MAP)
    found = await wait_for(client, uri, lambda ds: "PL101" in codes(ds))
    pl101 = next(d for d in found if d.code == "PL101")
    assert pl101.source == "pipelint" and pl101.severity == types.DiagnosticSeverity.Warning
    assert (pl101.range.start.line, pl101.range.start.character, pl101.range.end.character) == (2, 45, 48)
    assert pl101.code_description.href.endswith("#pl101-map-without-parallelism")

    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=pl101.range,
        context=types.CodeActionContext(diagnostics=[pl101])))
    fix = next(a for a in actions if a.title.startswith("Fix PL101"))
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    fixed = apply_edits(SERIAL_MAP, fix.edit.changes[uri])
    assert fixed == CLEAN

    # The editor applies the fix as an incremental change; the finding is gone within the deadline.
    edit = fix.edit.changes[uri][0]
    started = time.monotonic()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
    await wait_for(client, uri, lambda ds: "PL101" not in codes(ds))
    assert time.monotonic() - started < EDIT_DEADLINE_S


async def test_noqa_action_and_fix_all(client: LanguageClient, workspace: Path):
    uri = open_file(client, workspace / "noqa.py", SERIAL_MAP)
    found = await wait_for(client, uri, lambda ds: "PL101" in codes(ds))
    pl101 = next(d for d in found if d.code == "PL101")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=pl101.range,
        context=types.CodeActionContext(diagnostics=[pl101])))
    noqa = next(a for a in actions if a.title.startswith("Ignore PL101"))
    silenced = apply_edits(SERIAL_MAP, noqa.edit.changes[uri])
    assert "map(parse_record)  # noqa: PL101\n" in silenced

    only_fix_all = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=pl101.range,
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"])))
    assert [a.kind for a in only_fix_all] == ["source.fixAll.pipelint"]
    assert apply_edits(SERIAL_MAP, only_fix_all[0].edit.changes[uri]) == CLEAN

    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=silenced)]))
    await wait_for(client, uri, lambda ds: "PL101" not in codes(ds))


async def test_hover_shows_the_rule_docs(client: LanguageClient, workspace: Path):
    uri = open_file(client, workspace / "hover.py", SERIAL_MAP)
    found = await wait_for(client, uri, lambda ds: "PL101" in codes(ds))
    pl101 = next(d for d in found if d.code == "PL101")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pl101.range.start))
    text = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert text.startswith("### PL101 map-without-parallelism")
    for section in ("What it does", "Why is this bad?", "Use instead"):
        assert section in text
    assert "docs/rules.md#pl101-map-without-parallelism" in text
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)))
    assert nothing is None


def notebook_cell(uri: str, index: int) -> str:
    return f"vscode-notebook-cell:{uri.removeprefix('file:')}#cell{index}"


async def test_notebook_cells_get_their_own_diagnostics(client: LanguageClient, workspace: Path):
    notebook_uri = (workspace / "flowers.ipynb").as_uri()
    sources = [
        ("# Flowers", types.NotebookCellKind.Markup, "markdown"),
        ("import tensorflow as tf\n", types.NotebookCellKind.Code, "python"),
        ("%matplotlib inline\nds = tf.data.TFRecordDataset(['a.tfrecord'])\n", types.NotebookCellKind.Code, "python"),
        ("ds = ds.map(parse_record)\nds = ds.prefetch(tf.data.AUTOTUNE)\n", types.NotebookCellKind.Code, "python"),
        ("print(ds)\n", types.NotebookCellKind.Code, "python"),
        ("model.fit(ds)\n", types.NotebookCellKind.Code, "python"),  # (a dataset nobody reads gets no finding)
    ]
    cell_uris = [notebook_cell(notebook_uri, i) for i in range(len(sources))]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=notebook_uri, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=kind, document=cell_uri)
                   for cell_uri, (_, kind, _) in zip(cell_uris, sources)]),
        cell_text_documents=[types.TextDocumentItem(uri=cell_uri, language_id=language, version=1, text=text)
                             for cell_uri, (text, _, language) in zip(cell_uris, sources)]))
    # The dataset is built in cell 3 and mapped in cell 4: names flow across cells.
    found = await wait_for(client, cell_uris[3], lambda ds: "PL101" in codes(ds))
    pl101 = next(d for d in found if d.code == "PL101")
    assert (pl101.range.start.line, pl101.range.start.character) == (0, 8)
    assert len(client.diagnostics[cell_uris[2]]) == 0  # `%matplotlib inline` is not an error
    assert cell_uris[0] not in client.diagnostics  # markdown is not code

    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=cell_uris[3]), range=pl101.range,
        context=types.CodeActionContext(diagnostics=[pl101])))
    fix = next(a for a in actions if a.title.startswith("Fix PL101"))
    assert list(fix.edit.changes) == [cell_uris[3]]
    fixed_cell = apply_edits(sources[3][0], fix.edit.changes[cell_uris[3]])
    assert fixed_cell.startswith("ds = ds.map(parse_record, num_parallel_calls=tf.data.AUTOTUNE)\n")

    # A syntax error typed into cell 5 is reported in cell 5; the others are still checked.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=2),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell_uris[4], version=2),
                changes=[types.TextDocumentContentChangeWholeDocument(text="print(ds\n")])]))))
    broken = await wait_for(client, cell_uris[4], lambda ds: "PL001" in codes(ds))
    assert broken[0].range.start.line == 0
    assert "PL101" in codes(client.diagnostics[cell_uris[3]])

    # Cell 4 deleted: its findings go; closing the notebook clears every cell.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(uri=notebook_uri, version=3),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=3, delete_count=1),
                did_close=[types.TextDocumentIdentifier(uri=cell_uris[3])])))))
    await wait_for(client, cell_uris[3], lambda ds: len(ds) == 0)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=notebook_uri),
        cell_text_documents=[types.TextDocumentIdentifier(uri=u) for u in cell_uris if u != cell_uris[3]]))
    await wait_for(client, cell_uris[4], lambda ds: len(ds) == 0)


async def test_config_change_is_picked_up(client: LanguageClient, workspace: Path):
    # The server registers its watchers after `initialized`, asynchronously: wait for them.
    deadline = time.monotonic() + 10
    while not any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations) \
            and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    watched = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = {w["globPattern"] if isinstance(w, dict) else w.glob_pattern
             for r in watched for w in (r.register_options["watchers"] if isinstance(r.register_options, dict)
                                        else r.register_options.watchers)}
    # Configuration files, and the files that declare the project's TensorFlow (requirements.txt...).
    assert {"**/pyproject.toml", "**/pipelint.toml", "**/requirements*.txt", "**/setup.py",
            "**/Dockerfile*"} <= globs
    project = workspace / "project"
    project.mkdir()
    config = project / "pipelint.toml"
    config.write_text('select = ["ALL"]\n')
    uri = open_file(client, project / "train.py", SERIAL_MAP)
    await wait_for(client, uri, lambda ds: "PL101" in codes(ds))

    config.write_text('select = ["ALL"]\nignore = ["PL101"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
    await wait_for(client, uri, lambda ds: "PL101" not in codes(ds))

    config.write_text('select = ["ALL"\n')  # broken TOML: one message, no findings, no crash
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
    await wait_for(client, uri, lambda ds: len(ds) == 0)
    deadline = time.monotonic() + 10
    while not any("pipelint.toml" in m.message for m in client.messages) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert any(m.type == types.MessageType.Error and "pipelint.toml" in m.message for m in client.messages)

    config.write_text('select = ["ALL"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
    await wait_for(client, uri, lambda ds: "PL101" in codes(ds))


async def test_unknown_request_gets_an_error_response(client: LanguageClient):
    from pygls.exceptions import JsonRpcMethodNotFound

    with pytest.raises(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("pipelint/noSuchMethod", {})
    # ...and the server still answers.
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri="file:///nowhere.py"),
        position=types.Position(line=0, character=0))) is None


async def test_a_changed_requirements_file_changes_the_target(client: LanguageClient, workspace: Path):
    """The project's TensorFlow comes from its requirements.txt: editing the pin re-checks the
    open documents (a stateless serial map is reported on TensorFlow 2.4 only)."""
    project = workspace / "pinned"
    project.mkdir()
    requirements = project / "requirements.txt"
    requirements.write_text("tensorflow==2.4.1\n")
    uri = open_file(client, project / "train.py", STATELESS_SERIAL_MAP)
    await wait_for(client, uri, lambda ds: "PL101" in codes(ds))
    requirements.write_text("tensorflow==2.8.0\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=requirements.as_uri(), type=types.FileChangeType.Changed)]))
    await wait_for(client, uri, lambda ds: "PL101" not in codes(ds))


STATELESS_SERIAL_MAP = """\
import tensorflow as tf

ds = tf.data.Dataset.list_files("images/*.png").map(lambda x: tf.image.resize(tf.io.decode_png(tf.io.read_file(x)), [224, 224]))
model.fit(ds.batch(32).prefetch(tf.data.AUTOTUNE))
"""
