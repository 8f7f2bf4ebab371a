"""Neovim, headless, with the real `pipelint server`: the editor setup in docs/editors.md, tried.

Skipped where `nvim` is not installed (`apt-get install neovim`). The Lua script uses
`vim.lsp.start` (Neovim 0.8+) or, on 0.7, `vim.lsp.start_client` + `buf_attach_client`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_server import CLEAN, SERIAL_MAP

pytest.importorskip("pygls")
NVIM = shutil.which("nvim")
DRIVER = Path(__file__).with_name("nvim_drive.lua")


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed")
def test_neovim_gets_PL101_hover_and_quick_fix(tmp_path):
    source = tmp_path / "train.py"
    source.write_text(SERIAL_MAP)
    out = tmp_path / "steps.txt"
    env = dict(os.environ, PIPELINT_NVIM_OUT=str(out), PIPELINT_PYTHON=sys.executable, PIPELINT_FILE=str(source))
    subprocess.run([NVIM, "--headless", "-u", "NONE", "-n", "-c", f"luafile {DRIVER}"], cwd=tmp_path, env=env,
                   timeout=120, check=True, capture_output=True)
    steps = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in out.read_text().splitlines()}
    assert steps["open"] == "true PL101"
    assert steps["hover"] == "### PL101 map-without-parallelism"
    assert steps["actions"].startswith("Fix PL101 (map-without-parallelism) | Ignore PL101 on this line")
    assert steps["fixed"].startswith("true ")
    assert steps["line"] + "\n" == CLEAN.splitlines(keepends=True)[2]
