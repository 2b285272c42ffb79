"""Fixtures: every test runs in a folder of its own, with a key and a state folder of its own.

`shop` is a copy of examples/shop (agent.yaml, policy.co, shop/tools.py), made the current folder
and put on `sys.path` so that `shop.tools` imports.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples" / "shop"
SPEC = Path(__file__).resolve().parent / "spec"

@pytest.fixture(autouse=True)
def own_key_and_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's key and the state folder under the test's own folder; no agent named."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("STALWART_STATE", str(tmp_path / "state"))
    monkeypatch.delenv("STALWART_LICENCE", raising=False)
    monkeypatch.delenv("STALWART_AGENT", raising=False)


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shop, as the current folder, its tools importable (state reset)."""
    folder = tmp_path / "shop-agent"
    shutil.copytree(SHOP, folder, ignore=shutil.ignore_patterns(".stalwart", "__pycache__"))
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    for name in ("shop.tools", "shop"):
        sys.modules.pop(name, None)
    importlib.invalidate_caches()
    yield folder
    for name in ("shop.tools", "shop"):
        sys.modules.pop(name, None)
