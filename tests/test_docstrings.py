"""Docstrings a user reads: no citation of the project's internal spec documents in any
user-visible string of the library, no measured figures in docstrings (they live in the
benchmark output and CHANGELOG.md), and class docstrings of at most 150 lines."""

import ast
import inspect
import pathlib
import re

import pytest

import onlinemf

ROOT = pathlib.Path(onlinemf.__file__).parent
# the reproduction experiments write the report, whose wording is the report's own
LIBRARY = [p for p in sorted(ROOT.rglob("*.py")) if "experiments" not in p.parts]
SPEC = re.compile(r"\bspecs?\s*(00\d|§)|specs/")
MEASURED = re.compile(r"\b[Mm]easured\b|\d\.\d+\s?×(?!\s?\d)")


def _strings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _docstrings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                yield getattr(node, "name", "<module>"), doc


def _comments(path):
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "#" in line:
            yield i, line[line.index("#"):]


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_string_or_comment_cites_the_spec_documents(path):
    found = [(i, s[:80]) for i, s in list(_strings(path)) + list(_comments(path))
             if SPEC.search(s)]
    assert not found, found


@pytest.mark.parametrize("path", [p for p in LIBRARY if "benchmarking" not in p.parts],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_measured_figures_in_docstrings(path):
    found = [(name, line.strip()[:80]) for name, doc in _docstrings(path)
             for line in doc.splitlines() if MEASURED.search(line)]
    assert not found, found


@pytest.mark.parametrize("name", sorted(n for n in onlinemf.__all__
                                        if inspect.isclass(getattr(onlinemf, n))))
def test_class_docstrings_fit_in_150_lines(name):
    doc = inspect.getdoc(getattr(onlinemf, name)) or ""
    assert 0 < len(doc.splitlines()) <= 150, len(doc.splitlines())
