"""`pipelint server` when things go wrong: a rule that raises, a client that counts in UTF-16, no pygls."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from tests.test_server import SERIAL_MAP, codes, open_file, wait_for  # noqa: E402

in_module_loop = pytest.mark.asyncio(loop_scope="module")
FAILING_RULE_SERVER = Path(__file__).with_name("lsp_server_with_failing_rule.py")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("lsp-robustness")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[sys.executable, str(FAILING_RULE_SERVER)]))
async def client(lsp_client: LanguageClient, workspace: Path):
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("neovim"), root_uri=workspace.as_uri()))
    lsp_client.position_encoding = result.capabilities.position_encoding
    yield
    await lsp_client.shutdown_session()


@in_module_loop
async def test_a_rule_that_raises_gives_PL000_and_the_server_lives_on(client: LanguageClient, workspace: Path):
    uri = open_file(client, workspace / "train.py", SERIAL_MAP)
    found = await wait_for(client, uri, lambda ds: "PL000" in codes(ds))
    pl000 = next(d for d in found if d.code == "PL000")
    assert "PL101" in pl000.message and "deliberately broken" in pl000.message
    assert pl000.severity == types.DiagnosticSeverity.Error
    # The other rules still run, and the server answers the next edit.
    shuffled = SERIAL_MAP.replace("ds.batch(32)", "ds.batch(32).shuffle(100)")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=shuffled)]))
    await wait_for(client, uri, lambda ds: "PL203" in codes(ds) and "PL000" in codes(ds))


@in_module_loop
async def test_positions_are_in_the_clients_units(client: LanguageClient, workspace: Path):
    # Neovim offers UTF-8 and UTF-16 (it counts in bytes or in UTF-16 units, not in characters).
    source = SERIAL_MAP.replace("ds = ds.batch(32)", "s = '\U0001F600'; ds = ds.batch(32).shuffle(100)")
    uri = open_file(client, workspace / "emoji.py", source)
    found = await wait_for(client, uri, lambda ds: "PL203" in codes(ds))
    pl203 = next(d for d in found if d.code == "PL203")
    line = source.splitlines()[3]
    assert pl203.range.start.line == 3
    encoding = {types.PositionEncodingKind.Utf8: "utf-8", types.PositionEncodingKind.Utf16: "utf-16-le"}[
        client.position_encoding]
    unit = 1 if encoding == "utf-8" else 2

    def units(text: str) -> int:
        return len(text.encode(encoding)) // unit

    start = line.index("shuffle")
    assert pl203.range.start.character == units(line[:start]) > start
    assert pl203.range.end.character == units(line[:start + len("shuffle")])


def test_server_without_pygls_says_how_to_install_it():
    blocked = "import sys; sys.modules['pygls'] = None; from pipelint.cli import main; main(['server'])"
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == 'pipelint: error: `pipelint server` needs pygls: pip install "pipelint[server]"'


class RawClient:
    """JSON-RPC over the server's stdio by hand: a client library would refuse to send bad params."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "pipelint", "server"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def response(self, request_id: int) -> dict:
        while True:
            length = None
            while (line := self.process.stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None, "the server closed its output"
            message = json.loads(self.process.stdout.read(length))
            if message.get("id") == request_id and "method" not in message:
                return message


def test_malformed_and_unknown_requests_get_error_responses():
    client = RawClient()
    try:
        client.send({"id": 1, "method": "initialize", "params": {"capabilities": {}}})
        assert client.response(1)["result"]["serverInfo"]["name"] == "pipelint"
        client.send({"method": "initialized", "params": {}})
        client.send({"id": 2, "method": "textDocument/hover", "params": {"position": "nowhere"}})
        assert client.response(2)["error"]["code"] == -32602  # invalid params
        client.send({"id": 3, "method": "pipelint/noSuchMethod", "params": {}})
        assert client.response(3)["error"]["code"] == -32601  # method not found
        client.send({"id": 4, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///nowhere.py"}, "position": {"line": 0, "character": 0}}})
        assert client.response(4)["result"] is None  # and it still answers
        client.send({"id": 5, "method": "shutdown"})
        assert "error" not in client.response(5)
        client.send({"method": "exit"})
        assert client.process.wait(timeout=30) == 0
    finally:
        if client.process.poll() is None:
            client.process.kill()


@pytest.mark.parametrize("line, expected", [
    ("ds = ds.map(f)\n", "ds = ds.map(f)  # noqa: PL101\n"),
    ("ds = ds.map(f)   \n", "ds = ds.map(f)  # noqa: PL101   \n"),
    ("ds = ds.map(f)  # noqa: E501\n", "ds = ds.map(f)  # noqa: E501, PL101\n"),
    ("ds = ds.map(f)  # noqa: E501  # why\n", "ds = ds.map(f)  # noqa: E501, PL101  # why\n"),
    ("ds = ds.map(f)  # decode\n", "ds = ds.map(f)  # decode  # noqa: PL101\n"),
])
def test_noqa_action_PL101_joins_an_existing_noqa(line, expected):
    from pipelint.api import check_source
    from pipelint.server.app import _Text, noqa_edit
    from pygls.workspace.position_codec import PositionCodec
    from tests.test_server import apply_edits

    source = "import tensorflow as tf\nds = tf.data.TFRecordDataset(['a'])\n" + line + "ds = ds.prefetch(1)\n"
    (finding,) = [d for d in check_source(source) if d.code == "PL101"]
    edited = apply_edits(source, [noqa_edit(finding, _Text(source, PositionCodec()))])
    assert edited.splitlines(keepends=True)[2] == expected
    assert [d.code for d in check_source(edited)] == []
