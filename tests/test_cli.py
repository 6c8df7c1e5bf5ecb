import pickle

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from onlinemf import OnlineNMF
from onlinemf.cli import main, read_matrix
from onlinemf.experiments import REGISTRY, Context, run_experiments, write_report


@pytest.fixture
def data(tmp_path, rng):
    X = rng.random((200, 6)) @ rng.random((6, 15))
    paths = {}
    for ext in ("npy", "csv", "mtx", "npz"):
        p = tmp_path / f"X.{ext}"
        if ext == "npy":
            np.save(p, X)
        elif ext == "csv":
            np.savetxt(p, X, delimiter=",")
        elif ext == "mtx":
            scipy.io.mmwrite(p, sp.csr_matrix(X))
        else:
            np.savez(p, X=X)
        paths[ext] = str(p)
    return X, paths


def test_readers_agree(data):
    X, paths = data
    for ext, p in paths.items():
        M = read_matrix(p)
        M = M.toarray() if sp.issparse(M) else M
        np.testing.assert_allclose(M, X, rtol=1e-12, err_msg=ext)


def test_fit_then_transform(tmp_path, data, capsys):
    X, paths = data
    model, codes, codes2 = (str(tmp_path / n) for n in ("m.pkl", "c.npy", "c2.npy"))
    assert main(["fit", paths["mtx"], "-k", "4", "--batch-size", "10", "--passes", "2",
                 "--model", model, "--codes", codes, "--param", "coder=fista"]) == 0
    assert main(["transform", model, paths["npy"], "--out", codes2]) == 0
    np.testing.assert_allclose(np.load(codes), np.load(codes2), rtol=1e-10)
    assert np.load(codes).shape == (200, 4)


def test_cli_reports_bad_input(tmp_path, data, capsys):
    X, paths = data
    bad = tmp_path / "neg.npy"
    np.save(bad, -X)
    assert main(["fit", str(bad), "--model", str(tmp_path / "m.pkl")]) == 2
    assert "Negative values" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "missing.npy")]) == 2


def test_registry_and_report(tmp_path):
    # the quick scale (the demo's) on an experiment that runs in seconds there; the report
    # below is written from a tiny-scale run
    quick = run_experiments(["lyu-torus"], Context("quick", str(tmp_path / "quick"), None))
    assert quick[0].scale == "quick" and quick[0].claims
    ctx = Context("tiny", str(tmp_path), None)
    results = run_experiments(["zhao-topics"], ctx)
    assert set(REGISTRY) >= {"zhao-synthetic", "zhao-sensitivity", "zhao-topics",
                             "zhao-huber-faces"}
    path = write_report(results, ctx)
    text = open(path, encoding="utf-8").read()
    assert ("| what | source | paper (its words and place) | measured | verdict | band, and "
            "why |") in text and "7.14" in text
    with pytest.raises(ValueError, match="unknown experiment"):
        run_experiments(["nope"], ctx)


def test_ndl_command(tmp_path):
    import networkx as nx

    edges = tmp_path / "karate.txt"
    nx.write_edgelist(nx.karate_club_graph(), edges, data=False)
    out = tmp_path / "ndl"
    assert main(["ndl", str(edges), "-k", "4", "--motif", "wedge", "--n-iter", "10",
                 "--batch-size", "30", "--reconstruct", "500", "--out", str(out)]) == 0
    imp = np.loadtxt(out / "importance.txt")
    assert imp.shape == (4,) and np.all(np.diff(imp) <= 0) and abs(imp.sum() - 1) < 1e-6
    assert np.load(out / "patches.npy").shape == (4, 3, 3)
    assert (out / "patches.png").exists()
    R = sp.load_npz(out / "reconstruction.npz")
    assert R.shape == (34, 34) and R.nnz > 0


def test_ndl_command_with_the_pivot_chain(tmp_path):
    import networkx as nx

    edges = tmp_path / "karate.txt"
    nx.write_edgelist(nx.karate_club_graph(), edges, data=False)
    out = tmp_path / "ndl"
    assert main(["ndl", str(edges), "-k", "4", "--motif", "path", "--motif-size", "5",
                 "--chain", "pivot", "--n-iter", "5", "--batch-size", "30", "--out",
                 str(out)]) == 0
    assert np.load(out / "patches.npy").shape == (4, 5, 5)


def test_cli_refuses_bad_files_and_paths_before_fitting(tmp_path, data, capsys):
    import pickle

    X, paths = data
    empty_npy, empty_npz = tmp_path / "e.npy", tmp_path / "e.npz"
    np.save(empty_npy, np.zeros((0, 3)))
    np.savez(empty_npz)
    regular = tmp_path / "file.txt"
    regular.write_text("x")
    corrupt, foreign = tmp_path / "bad.pkl", tmp_path / "list.pkl"
    corrupt.write_bytes(b"\x80\x04garbage")
    foreign.write_bytes(pickle.dumps([1, 2, 3]))
    cases = [
        (["fit", str(empty_npy), "--model", str(tmp_path / "m.pkl")], "no data matrix"),
        (["fit", str(empty_npz), "--model", str(tmp_path / "m.pkl")], "no arrays"),
        (["fit", paths["npy"], "--model", str(regular / "m.pkl")], "not an existing folder"),
        (["fit", paths["npy"], "--model", str(tmp_path)], "is a folder"),
        (["fit", paths["npy"], "--model", str(tmp_path / "m.pkl"), "--codes",
          str(tmp_path / "nope" / "c.npy")], "not an existing folder"),
        (["fit", paths["npy"], "--param", "foo=1"], "no parameter 'foo'"),
        (["fit", paths["npy"], "--param", "foo"], "KEY=VALUE"),
        (["transform", str(corrupt), paths["npy"], "--out", str(tmp_path / "c.npy")],
         "not a readable model"),
        (["transform", str(foreign), paths["npy"], "--out", str(tmp_path / "c.npy")],
         "does not hold an onlinemf model"),
        (["transform", str(foreign), paths["npy"], "--out", str(tmp_path)], "is a folder"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "m.pkl").exists()


#: (estimator, input, options) of the SIGKILL test: every estimator, every input kind once
KILLED_RUNS = [
    ("nmf", "npy", ["--loss", "kl", "--passes", "2", "--batch-size", "20"]),
    ("nmf", "zarr", ["--passes", "2", "--batch-size", "20"]),
    ("robust-nmf", "h5", ["--passes", "2", "--batch-size", "20"]),
    ("odl", "zarr", ["--passes", "3", "--batch-size", "10"]),
    ("poisson", "csv", []),
    ("smf", "mtx", ["--passes", "3"]),
]


@pytest.mark.parametrize("name, kind, options", KILLED_RUNS)
def test_fit_resumes_after_sigkill_to_the_same_model(tmp_path, rng, name, kind, options):
    """`fit --checkpoint` killed mid-run with SIGKILL, then `--resume`: the final model equals
    the uninterrupted run's, bit for bit (and the estimator's own fit's)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from onlinemf._state_file import STATE_FORMAT

    # rows for a fit of several seconds, long enough to be killed mid-run (the per-row cost
    # differs by estimator)
    n = {"poisson": 800, "smf": 1000, "odl": 1000}.get(name, 3000)
    X = rng.random((n, 40)) @ rng.random((40, 60))
    data = _write_input(X, tmp_path, kind)
    common = [*data, "--estimator", name, "-k", "8", *options, "--checkpoint-every", "1",
              "--quiet"]
    full = tmp_path / "full.pkl"
    assert main(["fit", *common, "--model", str(full)]) == 0
    ckpt, model = tmp_path / "run.ckpt", tmp_path / "run.pkl"
    argv = [sys.executable, "-m", "onlinemf", "fit", *common, "--model", str(model),
            "--checkpoint", str(ckpt)]
    proc = subprocess.Popen(argv)
    deadline = time.time() + 120
    while not ckpt.exists() and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert ckpt.exists() and not model.exists()
    with open(ckpt, "rb") as fh:
        assert pickle.load(fh)["format"] == STATE_FORMAT  # whole, and written mid-run
    assert main(["fit", *common, "--model", str(model), "--checkpoint", str(ckpt),
                 "--resume"]) == 0
    with open(full, "rb") as a, open(model, "rb") as b:
        A, B = pickle.load(a), pickle.load(b)
    np.testing.assert_array_equal(A.components_, B.components_)
    assert A.n_iter_ == B.n_iter_ and A.get_params() == B.get_params()
    if hasattr(A, "state_") and A.state_ is not None:
        assert A.n_steps_ == B.n_steps_ and A.n_samples_seen_ == B.n_samples_seen_


def test_reproduce_writes_as_it_goes_and_resumes_after_sigkill(tmp_path, capsys):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "rep"
    argv = [sys.executable, "-m", "onlinemf", "reproduce", "lyu-torus", "lyu-ising",
            "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    first = out / "results" / "lyu-torus.pkl"
    deadline = time.time() + 120
    while not first.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    report = (out / "report.md").read_text()
    assert "## lyu-torus" in report  # the finished experiment's section is already there
    assert main(["reproduce", "lyu-torus", "lyu-ising", "--out", str(out), "--resume"]) == 0
    said = capsys.readouterr().out
    assert "kept lyu-torus" in said and "running lyu-ising" in said
    report = (out / "report.md").read_text()
    assert "## lyu-torus" in report and "## lyu-ising" in report
    from onlinemf.experiments._verdicts import VERDICTS

    lines = (out / "claims.csv").read_text().splitlines()
    assert lines[0] == "experiment,claim,source,paper,measured,band,verdict,scale"
    assert {line.split(",")[0] for line in lines[1:]} == {"lyu-torus", "lyu-ising"}
    assert all(any(line.endswith(f",{v},quick") for v in VERDICTS) for line in lines[1:])
    # one experiment at a time still builds the whole report from the kept results
    assert main(["reproduce", "lyu-ising", "--out", str(out), "--resume"]) == 0
    report = (out / "report.md").read_text()
    assert report.index("## lyu-ising") < report.index("## lyu-torus")  # registry order


def test_reproduce_list_shows_what_an_output_folder_holds(tmp_path, capsys):
    out = str(tmp_path / "rep")
    assert main(["reproduce", "lyu-torus", "--scale", "tiny", "--out", out]) == 0
    capsys.readouterr()
    assert main(["reproduce", "--list", "--scale", "tiny", "--out", out]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert " done " in lines["lyu-torus"] and " done " not in lines["lyu-wan"]
    assert main(["reproduce", "--list", "--scale", "paper", "--out", out]) == 0
    assert " done " not in capsys.readouterr().out  # another scale


def test_kept_only_assembles_the_finished_panels_and_a_resume_completes_the_rest(
        tmp_path, capsys):
    """A long experiment is reported panel by panel while its runs go on: --kept-only
    computes nothing, reports a panel whose pieces are missing as not measured, and the
    partial result never stands in for the experiment in a later --resume run."""
    import os

    out = tmp_path / "rep"
    argv = ["reproduce", "zhf-stepsize", "--scale", "tiny", "--out", str(out)]
    assert main(argv) == 0
    full = (out / "claims.csv").read_text().splitlines()[1:]
    # (the step sweep's rows are shown, not judged: a panel not run says "not yet run")
    assert len(full) == 2 and not any("not yet run" in line for line in full)
    pieces = out / "pieces"
    onmf = [p for p in os.listdir(pieces) if "-onmf-" in p]
    assert onmf
    for p in onmf:  # as if the ONMF panel had not run yet
        os.remove(pieces / p)
    os.remove(out / "results" / "zhf-stepsize.pkl")
    before = set(os.listdir(pieces))
    assert main(argv + ["--kept-only"]) == 0
    assert set(os.listdir(pieces)) == before  # nothing computed
    rows = (out / "claims.csv").read_text().splitlines()[1:]
    measured = [r for r in rows if "VR-ODL" in r]
    missing = [r for r in rows if "VR-ONMF" in r]
    assert len(measured) == len(missing) == 1
    assert "not yet run" not in measured[0] and "not yet run" in missing[0]
    assert "**Partial**" in (out / "report.md").read_text()
    capsys.readouterr()
    assert main(["reproduce", "--list", "--scale", "tiny", "--out", str(out)]) == 0
    assert " partial " in next(line for line in capsys.readouterr().out.splitlines()
                               if line.startswith("zhf-stepsize"))
    # an experiment with nothing kept is not assembled at all (and says so)
    assert main(["reproduce", "zhf-fig2", "--scale", "tiny", "--out", str(out),
                 "--kept-only"]) == 0
    assert "not assembled" in capsys.readouterr().out
    assert "## zhf-fig2" not in (out / "report.md").read_text()
    assert not (out / "figures" / "zhf_fig2.png").exists()
    # --resume runs the experiment again (the ONMF panel), not the partial result (--jobs
    # only sets the workers of untimed batch references)
    assert main(argv + ["--resume", "--jobs", "2"]) == 0
    rows = (out / "claims.csv").read_text().splitlines()[1:]
    assert len(rows) == 2 and not any("not yet run" in r for r in rows)
    assert "**Partial**" not in (out / "report.md").read_text()
    assert any("-onmf-" in p for p in os.listdir(pieces))


def test_cli_fit_is_the_estimators_fit(tmp_path, rng):
    """`onlinemf fit` without --passes runs OnlineNMF.fit itself: the same model, bit for
    bit, converged by the same rule; --passes N is exactly N passes."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    X = rng.poisson(rng.random((300, 4)) @ rng.random((4, 12)) * 20).astype(float)
    path = tmp_path / "X.npy"
    np.save(path, X)
    model = tmp_path / "m.pkl"
    assert main(["fit", str(path), "-k", "4", "--loss", "kl", "--random-state", "5",
                 "--model", str(model)]) == 0
    with open(model, "rb") as fh:
        cli = pickle.load(fh)
    api = OnlineNMF(4, loss="kl", random_state=5).fit(X)
    np.testing.assert_array_equal(cli.components_, api.components_)
    assert cli.n_iter_ == api.n_iter_ > 1 and cli.converged_ == api.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert main(["fit", str(path), "-k", "4", "--loss", "kl", "--passes", "2",
                     "--model", str(model)]) == 0
    with open(model, "rb") as fh:
        assert pickle.load(fh).n_iter_ == 2
    # checkpointed, it is still the estimator's fit, stopped by the same rule
    assert main(["fit", str(path), "-k", "4", "--loss", "kl", "--random-state", "5",
                 "--checkpoint", str(tmp_path / "c.pkl"), "--checkpoint-every", "3",
                 "--model", str(model)]) == 0
    with open(model, "rb") as fh:
        kept = pickle.load(fh)
    np.testing.assert_array_equal(kept.components_, api.components_)
    assert kept.n_iter_ == api.n_iter_ and kept.converged_ == api.converged_


# --------------------------------------------------------------------------- every estimator
@pytest.fixture
def small(tmp_path, rng):
    X = rng.random((80, 3)) @ rng.random((3, 8))
    path = tmp_path / "small.npy"
    np.save(path, X)
    return X, str(path)


#: each estimator the CLI fits: its options and the estimator they stand for
CLI_ESTIMATORS = {
    "nmf": (["--passes", "2"], lambda: __import__("onlinemf").OnlineNMF(
        3, loss="squared", batch_size="auto", max_iter=2, max_no_improvement=None,
        random_state=0, verbose=0)),
    "robust-nmf": (["--passes", "2"], lambda: __import__("onlinemf").OnlineRobustNMF(
        3, max_iter=2, max_no_improvement=None, random_state=0, verbose=0)),
    "odl": (["--passes", "2"], lambda: __import__("onlinemf").OnlineDictionaryLearning(
        3, max_iter=2, max_no_improvement=None, random_state=0, verbose=0)),
    "smf": (["--passes", "2"], lambda: __import__("onlinemf").StochasticMF(
        n_components=3, max_iter=2, random_state=0)),
    "poisson": ([], lambda: __import__("onlinemf").PoissonSubspaceTracker(3, random_state=0)),
}


def _write_input(X, tmp_path, kind: str) -> list[str]:
    """X stored as ``kind`` (npy, csv, mtx, or the lazily read zarr and HDF5, in blocks of
    rows); the data argument(s) of the command line."""
    path = tmp_path / f"X.{kind}"
    if kind == "npy":
        np.save(path, X)
    elif kind == "csv":
        np.savetxt(path, X, delimiter=",", fmt="%.17g")
    elif kind == "mtx":
        scipy.io.mmwrite(path, sp.csr_matrix(X), precision=17)
    elif kind == "zarr":
        zarr = pytest.importorskip("zarr")
        z = zarr.open_array(str(path), mode="w", shape=X.shape, chunks=(30, X.shape[1]),
                            dtype=X.dtype)
        z[:] = X
    else:
        h5py = pytest.importorskip("h5py")
        with h5py.File(path, "w") as fh:
            fh.create_dataset("X", data=X)
        return [str(path), "--dataset", "X"]
    return [str(path)]


@pytest.mark.parametrize("kind", ["npy", "csv", "mtx", "zarr", "h5"])
@pytest.mark.parametrize("name", list(CLI_ESTIMATORS))
def test_fit_every_estimator_from_the_command_line(tmp_path, small, name, kind):
    """`fit --estimator NAME` is that estimator's own fit, from every input the command line
    reads: the same dictionary, bit for bit, with and without --checkpoint."""
    X, _ = small
    options, make = CLI_ESTIMATORS[name]
    data = _write_input(X, tmp_path, kind)
    api = make().fit(read_matrix(*data[:1], dataset=data[2] if kind == "h5" else None))
    for ckpt in ([], ["--checkpoint", str(tmp_path / "c.ckpt"), "--checkpoint-every", "2"]):
        model, codes = tmp_path / "m.pkl", tmp_path / "c.npy"
        assert main(["fit", *data, "--estimator", name, "-k", "3", *options, "--model",
                     str(model), "--codes", str(codes), "--quiet", *ckpt]) == 0
        with open(model, "rb") as fh:
            cli = pickle.load(fh)
        assert type(cli) is type(api)
        np.testing.assert_array_equal(cli.components_, api.components_, err_msg=str(ckpt))
        assert cli.get_params() == api.get_params()
        assert np.load(codes).shape == (80, 3)


def test_cli_errors_name_the_options_typed(tmp_path, small, capsys):
    X, path = small
    m = ["--model", str(tmp_path / "m.pkl")]
    cases = [
        (["fit", path, "--passes", "0", *m], "--passes must be at least 1"),
        (["fit", path, "-k", "0", *m], "-k/--n-components must be at least 1"),
        (["fit", path, "--batch-size", "-3", *m], "--batch-size must be"),
        (["fit", path, "--param", "tol=-1", *m], "--param tol must be"),
        (["fit", path, "--estimator", "poisson", "--passes", "2", *m],
         "--passes does not apply to --estimator poisson"),
        (["fit", path, "--estimator", "poisson", "--batch-size", "5", *m],
         "--batch-size does not apply"),
        (["fit", path, "--estimator", "robust-nmf", "--loss", "kl", *m],
         "--loss applies to --estimator nmf only"),
        (["fit", path, "--estimator", "smf", "--param", "loss=kl", *m],
         "StochasticMF has no parameter 'loss'"),
        (["fit", path, "--estimator", "odl", "--resume", *m],
         "--resume needs --checkpoint PATH"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert "max_iter" not in err and "'batch_size'" not in err, err
    assert not (tmp_path / "m.pkl").exists()


def test_fit_rewords_the_pass_cap_warning_in_the_options_terms(tmp_path, rng, capsys):
    X = rng.random((30, 4))
    path = tmp_path / "X.npy"
    np.save(path, X)
    assert main(["fit", str(path), "-k", "2", "--param", "tol=0", "--param",
                 "max_no_improvement=1000000", "--model", str(tmp_path / "m.pkl")]) == 0
    err = capsys.readouterr().err
    assert "--passes N" in err and "--param max_iter=N" in err


# --------------------------------------------------------------------------- files
def test_csv_with_a_header_and_empty_cells(tmp_path, rng, capsys):
    from onlinemf import PoissonSubspaceTracker

    Y = rng.poisson(3.0, size=(40, 5)).astype(float)
    holes = [(0, 1), (7, 4), (20, 0)]
    lines = ["a,b,c,d,e"]
    for i, row in enumerate(Y):
        lines.append(",".join("" if (i, j) in holes else f"{v:g}" for j, v in enumerate(row)))
    path = tmp_path / "counts.csv"
    path.write_text("\n".join(lines) + "\n")
    M = read_matrix(str(path))
    expected = Y.copy()
    for i, j in holes:
        expected[i, j] = np.nan
    np.testing.assert_array_equal(M, expected)  # NaN where the cells are empty
    model = tmp_path / "m.pkl"
    assert main(["fit", str(path), "--estimator", "poisson", "-k", "2", "--model",
                 str(model), "--quiet"]) == 0
    with open(model, "rb") as fh:
        cli = pickle.load(fh)
    api = PoissonSubspaceTracker(2, random_state=0).fit(expected)
    np.testing.assert_array_equal(cli.components_, api.components_)
    assert main(["fit", str(path), "--estimator", "robust-nmf", "--model",
                 str(tmp_path / "r.pkl")]) == 2
    err = capsys.readouterr().err
    assert f"{path} has 3 empty cell(s)" in err and "OnlineRobustNMF" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3,x\n")
    with pytest.raises(ValueError, match=r"line 3, column 2: 'x' is not a number"):
        read_matrix(str(bad))
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("1,2,3\n4,5\n")
    with pytest.raises(ValueError, match="line 2: 2 cells where the first row has 3"):
        read_matrix(str(ragged))


def _terms_by_documents(rng, n_terms=400, n_docs=80):
    """Counts of Zipf-distributed terms (rows) in documents of similar length (columns)."""
    p = 1.0 / np.arange(1, n_terms + 1)
    return np.array([rng.multinomial(300, p / p.sum()) for _ in range(n_docs)]).T.astype(float)


def test_transpose_and_the_warning_for_a_transposed_file(tmp_path, rng, capsys):
    C = _terms_by_documents(rng)
    tbd, dbt = tmp_path / "tbd.mtx", tmp_path / "dbt.mtx"
    scipy.io.mmwrite(tbd, sp.csr_matrix(C))
    scipy.io.mmwrite(dbt, sp.csr_matrix(C.T))
    m1, m2 = tmp_path / "m1.pkl", tmp_path / "m2.pkl"
    common = ["-k", "3", "--passes", "2", "--loss", "kl", "--quiet"]
    assert main(["fit", str(tbd), *common, "--model", str(m1)]) == 0
    assert "looks like features × samples" in capsys.readouterr().err
    assert main(["fit", str(tbd), "--transpose", *common, "--model", str(m1)]) == 0
    assert main(["fit", str(dbt), *common, "--model", str(m2)]) == 0
    assert "looks like" not in capsys.readouterr().err  # neither warns
    with open(m1, "rb") as a, open(m2, "rb") as b:
        A, B = pickle.load(a), pickle.load(b)
    assert A.components_.shape == (3, 400)  # documents are the samples
    np.testing.assert_array_equal(A.components_, B.components_)
    codes = tmp_path / "c.npy"
    assert main(["transform", str(m1), str(tbd), "--transpose", "--out", str(codes)]) == 0
    assert np.load(codes).shape == (80, 3)
    assert main(["transform", str(m1), str(tbd), "--out", str(codes)]) == 2
    assert "try --transpose" in capsys.readouterr().err


def test_progress_bar_follows_the_fit_without_changing_it(rng):
    import io

    from onlinemf.cli import _Progress, _show_progress, build_parser

    pytest.importorskip("tqdm")

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    args = build_parser().parse_args(["fit", "x.npy"])
    quiet = build_parser().parse_args(["fit", "x.npy", "--quiet"])
    assert _show_progress(args, Terminal()) and not _show_progress(quiet, Terminal())
    assert not _show_progress(args, io.StringIO())  # not a terminal
    X = rng.random((400, 10))
    est = OnlineNMF(3, max_iter=3, max_no_improvement=None, random_state=0)
    out = Terminal()
    with _Progress(est, 1200, enabled=True, file=out, interval=0.01):
        est.fit(X)
    text = out.getvalue()
    last = f"objective {est.history_['objective'][-1]:.6g}"
    assert last in text and "1.20k/1.20k" in text
    plain = OnlineNMF(3, max_iter=3, max_no_improvement=None, random_state=0).fit(X)
    np.testing.assert_array_equal(est.components_, plain.components_)


def test_topics_command(tmp_path, rng, capsys):
    from onlinemf.plotting import format_topics

    C = _terms_by_documents(rng).T  # documents × terms
    data, vocab, model = tmp_path / "d.npy", tmp_path / "terms.txt", tmp_path / "m.pkl"
    np.save(data, C)
    terms = [f"w{i}" for i in range(C.shape[1])]
    vocab.write_text("\n".join(terms) + "\n")
    assert main(["fit", str(data), "-k", "3", "--passes", "1", "--model", str(model),
                 "--quiet"]) == 0
    capsys.readouterr()
    png = tmp_path / "topics.png"
    assert main(["topics", str(model), "--vocab", str(vocab), "-n", "4", "--plot",
                 str(png)]) == 0
    out = capsys.readouterr().out.splitlines()
    with open(model, "rb") as fh:
        fitted = pickle.load(fh)
    assert out[:3] == format_topics(fitted, terms, 4).splitlines()
    assert len(out[0].split(":")[1].split()) == 4 and png.stat().st_size > 0
    short = tmp_path / "short.txt"
    short.write_text("a\nb\n")
    assert main(["topics", str(model), "--vocab", str(short)]) == 2
    assert "has 2 terms but the model has 400 features" in capsys.readouterr().err
    holes = tmp_path / "holes.txt"
    holes.write_text("a\n\nb\n")
    assert main(["topics", str(model), "--vocab", str(holes)]) == 2
    assert "line 2 is blank" in capsys.readouterr().err


def test_model_file_commands_warn_that_models_are_pickles(capsys):
    for command in ("transform", "topics", "fit"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "pickles" in out and "sources you trust" in out, command


def test_a_checkpoint_of_another_format_is_refused_by_name(tmp_path, rng, capsys):
    """A checkpoint records its format and the version that wrote it; a resume from one of
    another format (here: the layout before formats were recorded) fails with a message
    naming both, and changes nothing."""
    import pickle

    from onlinemf._state_file import STATE_FORMAT
    from onlinemf._version import __version__

    data = tmp_path / "X.npy"
    np.save(data, rng.random((200, 6)))
    ckpt, model = tmp_path / "c.ckpt", tmp_path / "m.pkl"
    common = [str(data), "-k", "2", "--passes", "1", "--batch-size", "20", "--model", str(model),
              "--checkpoint", str(ckpt)]
    assert main(["fit", *common]) == 0
    with open(ckpt, "rb") as fh:
        kept = pickle.load(fh)
    assert kept["format"] == STATE_FORMAT and kept["version"] == __version__
    old = {k: v for k, v in kept.items() if k not in ("format", "version")}
    with open(ckpt, "wb") as fh:
        pickle.dump(old, fh)
    before = ckpt.read_bytes()
    model.unlink()
    assert main(["fit", *common, "--resume"]) == 2
    err = capsys.readouterr().err
    assert "format 0" in err and f"format {STATE_FORMAT}" in err
    assert ckpt.read_bytes() == before and not model.exists()
