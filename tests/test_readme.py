"""The README's examples run as written (one after another, as a reader would paste them),
without a warning."""

import pathlib
import re
import warnings

import pytest

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_examples_run():
    pytest.importorskip("networkx")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 6
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102


def test_readme_is_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150
