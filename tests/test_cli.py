import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

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
                 "--model", model, "--codes", codes, "--param", "code_step=fista"]) == 0
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
    ctx = Context("quick", str(tmp_path), None)
    results = run_experiments(["zhao-topics"], ctx)
    assert set(REGISTRY) >= {"zhao-synthetic", "zhao-sensitivity", "zhao-topics",
                             "zhao-huber-faces"}
    path = write_report(results, ctx)
    text = open(path, encoding="utf-8").read()
    assert "| what | paper | measured | agrees |" in text and "7.14" in text
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
