"""A Python file's bytes to its text, as Python reads them (PEP 263: a coding line or a BOM, else
UTF-8), for the engine and the project index alike: a module written in GBK or Latin-1 is read,
not skipped."""
from __future__ import annotations

import io
import tokenize

__all__ = ["decode", "decode_source"]


def decode(data: bytes) -> tuple[str, str, bool]:
    """(text, encoding, whether a UTF-8 byte-order mark led the file); raises ValueError with a
    one-line reason."""
    if b"\x00" in data:
        raise ValueError("file contains NUL bytes (binary file?)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise ValueError(str(error.msg if hasattr(error, "msg") else error)) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise ValueError(f"cannot decode as {encoding}: {error.reason if hasattr(error, 'reason') else error}") from None
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    return text, encoding, bom


def decode_source(data: bytes) -> str:
    """Decode per PEP 263 (coding line or BOM, else UTF-8); raises ValueError with a one-line reason."""
    return decode(data)[0]
