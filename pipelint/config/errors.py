"""The one exception the configuration raises."""
from __future__ import annotations


class ConfigError(Exception):
    """A configuration problem. `str(e)` is one line naming the file (or CLI flag) and the key."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))
