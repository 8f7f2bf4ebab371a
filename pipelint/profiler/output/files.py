"""Report files written whole: the running account rewrites them every interval (run/account.py)."""
from __future__ import annotations

import os
import tempfile


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` so that a reader (or a kill mid-write) sees the old file or the new
    one, never half of one: a temporary file in the same directory, then os.replace."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; the report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    """The process's umask, read without changing it (Linux), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
