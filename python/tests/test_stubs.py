"""The type stubs (`stalwart_agents/*.pyi`) say what the package has, name for name and
signature for signature (mypy's stubtest, with no stub missing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_stubs_match_the_package() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "stalwart_agents", "--allowlist",
         str(HERE / "stubtest-allowlist.txt")],
        capture_output=True, text=True, check=False,
    )
    assert (ran.returncode, ran.stdout.strip().splitlines()[-1:]) == (0, ["Success: no issues found in 11 modules"]), ran.stdout
