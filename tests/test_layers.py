"""The package's layers (DESIGN.md): nothing imports upward, no package imports another's
private module, and the units form no cycle."""

import ast
import pathlib

import onlinemf

ROOT = pathlib.Path(onlinemf.__file__).parent
# a unit imports only units of strictly lower rank: nothing upward, and no cycle
RANK = {"_params": 0, "_version": 0, "_sparse": 0, "_steps": 0, "_io": 0, "_history": 0, "_dask": 0,
        "_threads": 0,
        "_validation": 1, "_state_file": 1, "_batches": 1, "_checkpoint": 2,
        "losses": 1, "constraints": 1, "problems": 2, "coders": 2,
        "updates": 3, "graphs": 3, "datasets": 3, "metrics": 4,
        "baselines": 5, "estimators": 5, "": 6, "testing": 6, "plotting": 6,
        "experiments": 7, "benchmarking": 7, "cli": 8, "__main__": 9}


def _imports():
    """(importing module's parts, imported module's parts) for every relative import."""
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
                for alias in node.names:
                    sub = ROOT.joinpath(*target, alias.name)
                    full = (target + [alias.name]
                            if sub.with_suffix(".py").exists() or sub.is_dir() else target)
                    yield parts, full, alias.name


def _unit(parts):
    return "" if not parts or parts[0] == "__init__" else parts[0]


def test_every_unit_has_a_rank():
    units = {_unit(list(p.relative_to(ROOT).with_suffix("").parts)) for p in ROOT.rglob("*.py")}
    assert units <= set(RANK), units - set(RANK)


def test_nothing_imports_upward():
    bad = [("/".join(a), "/".join(b)) for a, b, _ in _imports()
           if _unit(a) != _unit(b) and RANK[_unit(a)] <= RANK[_unit(b)]]
    assert not bad, bad


def test_no_private_module_of_another_package():
    bad = []
    for a, b, name in _imports():
        if _unit(a) == _unit(b):
            continue
        if any(p.startswith("_") for p in b[1:]) or (name.startswith("_") and
                                                     name != "__version__"):
            bad.append(("/".join(a), "/".join(b), name))
    assert not bad, bad
