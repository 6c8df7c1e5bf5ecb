"""Sphinx configuration of the onlinemf documentation (``make docs`` builds it)."""

import os
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

import onlinemf  # noqa: E402

project = "onlinemf"
author = "The onlinemf developers"
copyright = "2026, The onlinemf developers"
release = onlinemf.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "onlinemf_docs",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "gallery/*.py", "gallery/*.json",
                    "gallery/*.zip", "gallery/*.md5"]
root_doc = "index"
default_role = "py:obj"

# -- API reference ------------------------------------------------------------------------
autosummary_generate = True
autosummary_ignore_module_all = False   # document exactly what each module's __all__ exports
autosummary_imported_members = True
autodoc_typehints = "none"              # the numpydoc sections say the types
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False     # the class template lists the members
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# warnings are errors (-W) and references are checked (-n): objects that the docstrings
# name but that have no page of their own (private helpers, third-party types)
nitpicky = True
nitpick_ignore = [
    # module constants and private helpers that docstrings name for the curious reader; they
    # render as code, without a page of their own
    ("py:data", "MU_MEMORY_ROWS"), ("py:data", "SGD_WARMUP_ROWS"),
    ("py:data", "MU_CODE_MAX_ITER"), ("py:data", "QUADRATIC_CODE_MAX_ITER"),
    ("py:data", "SUITES"), ("py:func", "auto_batch_size"), ("py:obj", "history_"),
    ("py:class", "ParallelPivotChains"), ("py:class", "ParallelGlauberChains"),
    ("py:func", "_huber_mm_steps"), ("py:func", "finite_matrix"), ("py:func", "piece_lock"),
    ("py:func", "onlinemf.experiments._verdicts.claim"), ("py:func", "lookup_table"),
    ("py:attr", "mu_exponent"), ("py:func", "rescale_into_box"), ("py:meth", "add"),
    ("py:meth", "step"),
]
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|scipy|sp|sklearn|dask|da|networkx|nx|zarr|h5py|matplotlib)\..*"),
]

_LITERAL = re.compile(r"(``.*?``|:math:`.*?`)")


def _escape_bars(app, what, name, obj, options, lines):
    """Docstrings write absolute values and set sizes as |x| in plain text, which reST reads
    as a substitution: escape the bars outside literals and math blocks."""
    in_math = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if in_math is not None:
            if line.strip() and indent <= in_math:
                in_math = None
            else:
                continue
        if line.lstrip().startswith(".. math::"):
            in_math = indent
            continue
        if "|" in line:
            parts = _LITERAL.split(line)
            lines[i] = "".join(p if j % 2 else p.replace("|", r"\|")
                               for j, p in enumerate(parts))


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)


# -- gallery ------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "reference_url": {"onlinemf": None},
    "doc_module": ("onlinemf",),
    "backreferences_dir": "gen_modules/backreferences",
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "show_memory": False,
    "copyfile_regex": "",
}

# -- HTML ---------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"onlinemf {release}"
html_static_path = ["_static"]

# MathJax served with the site (SVG output, one file, no fonts to fetch), so that the pages'
# mathematics renders offline too; the CDN copy Sphinx uses by default otherwise
try:
    import mathjax as _mathjax  # the django-static-mathjax distribution (the docs extra)

    _tex_svg = Path(_mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if _tex_svg.is_file():
        html_static_path.append(str(_tex_svg))
        mathjax_path = "tex-svg.js"
except ImportError:
    pass
html_css_files = ["onlinemf.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "icon_links": [{"name": "GitHub", "url": "https://github.com/onlinemf/onlinemf",
                    "icon": "fa-brands fa-github", "type": "fontawesome"}],
}
html_sidebars = {"index": [], "install": []}
html_show_sourcelink = False

# the reproduction pages and the benchmark page read these at build time
onlinemf_claims_csv = str(ROOT / "reports" / "paper" / "claims.csv")
onlinemf_bench_json = sorted(str(p) for p in
                             (ROOT / "benchmarks" / "results").glob("bench_*.json"))

os.environ.setdefault("ONLINEMF_DOCS_BUILD", "1")
