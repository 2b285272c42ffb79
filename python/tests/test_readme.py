"""The README's first Python example runs as written, from the shop's folder, and prints what its
comments say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT


def test_the_readme_example_runs(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## The Python package"):]
    program = re.search(r"```python\n(.*?)```", section, re.S)
    assert program is not None
    exec(compile(program.group(1), "README.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == "confirm ask refund {'order_id': '4411', 'amount': 40.0}\nconfirm ['write']\n"
