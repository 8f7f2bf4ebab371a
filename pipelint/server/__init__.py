"""`pipelint server`: pipelint as a Language Server (LSP 3.17) over stdio, for editors.

`linting` is what the server asks of the linter (settings per document, findings for a buffer or a
notebook's cells, fix all), free of LSP types; `app` is the server on pygls and lsprotocol (the
`server` extra: `pip install "pipelint[server]"`), loaded only by `pipelint server`.
"""
from __future__ import annotations

__all__ = ["serve"]


def serve() -> None:
    """Run the language server on stdin/stdout (raises ImportError without the `server` extra)."""
    from pipelint.server.app import serve as run

    run()
