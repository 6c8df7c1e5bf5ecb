"""The public API type-checks: the package ships ``py.typed``, so its annotations are a promise."""

import pathlib

from mypy import api

import onlinemf

ROOT = pathlib.Path(onlinemf.__file__).parent
# the modules that define the public classes and functions
PUBLIC = ["__init__.py", "plotting.py", "losses.py", "problems.py", "_params.py",
          "datasets/__init__.py", "coders/_settings.py", "updates/_settings.py",
          *(f"estimators/{p.name}" for p in (ROOT / "estimators").glob("*.py"))]


def test_public_api_is_mypy_clean():
    assert (ROOT / "py.typed").exists()
    out, err, status = api.run(["--ignore-missing-imports", "--follow-imports=silent",
                                "--no-error-summary", "--cache-dir", "/dev/null",
                                *(str(ROOT / p) for p in PUBLIC)])
    assert status == 0, out + err
