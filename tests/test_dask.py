"""Dask arrays as streams (issue: data larger than memory): OnlineNMF fits a dask array block
by block, with the same steps as the same numbers in memory, and transforms it lazily."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")  # installed by the test extra; optional for users

from onlinemf import OnlineNMF, Surrogate  # noqa: E402


def _data(n=530, f=12, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, 4)) @ rng.random((4, f))


@pytest.mark.parametrize("loss", ["squared", "kl"])
def test_fit_on_a_dask_array_equals_fit_in_memory(loss):
    X = _data()
    Xd = da.from_array(X, chunks=(77, 5))  # row blocks not a multiple of the batch, split columns
    kw = dict(n_components=4, loss=loss, batch_size=10, max_iter=2, shuffle=False,
              random_state=0)
    mem, lazy = OnlineNMF(**kw).fit(X), OnlineNMF(**kw).fit(Xd)
    np.testing.assert_array_equal(mem.components_, lazy.components_)
    assert mem.scale_ == lazy.scale_ and mem.n_steps_ == lazy.n_steps_


def test_nndsvd_start_of_a_dask_array_equals_in_memory():
    X = _data()
    kw = dict(n_components=4, loss="kl", init="nndsvd", dictionary_update="surrogate",
              batch_size=10, max_iter=1, shuffle=False, random_state=0)
    mem, lazy = OnlineNMF(**kw).fit(X), OnlineNMF(**kw).fit(da.from_array(X, chunks=(77, 5)))
    np.testing.assert_allclose(mem.components_, lazy.components_, atol=1e-12)


def test_partial_fit_streams_blocks_with_batches_across_block_edges():
    X = _data(seed=1)
    mem = OnlineNMF(4, batch_size=16, random_state=0).partial_fit(X[:300]).partial_fit(X[300:])
    lazy = OnlineNMF(4, batch_size=16, random_state=0)
    lazy.partial_fit(da.from_array(X[:300], chunks=(45, 12)))
    lazy.partial_fit(da.from_array(X[300:], chunks=(33, 12)))
    np.testing.assert_array_equal(mem.components_, lazy.components_)


def test_transform_is_lazy_and_score_is_a_reduction():
    X = _data(seed=2)
    est = OnlineNMF(4, batch_size=10, random_state=0).fit(X)
    Xd = da.from_array(X, chunks=(100, 6))
    codes = est.transform(Xd)
    assert isinstance(codes, da.Array) and codes.shape == (X.shape[0], 4)
    np.testing.assert_allclose(codes.compute(), est.transform(X), rtol=1e-12)
    assert est.score(Xd) == pytest.approx(est.score(X), rel=1e-12)


def test_shuffled_fit_holds_a_bounded_buffer_of_blocks():
    """Each block is computed once per pass (plus once to start): never the whole array."""
    X = _data(n=600)
    computed = []

    def tap(block, block_info=None):
        computed.append(block_info[0]["chunk-location"][0])
        return block

    Xd = da.from_array(X, chunks=(100, 12)).map_blocks(tap, dtype=float)
    est = OnlineNMF(4, batch_size=10, max_iter=2, shuffle=2, random_state=0)
    with __import__("dask").config.set(scheduler="synchronous"):
        est.fit(Xd)
    assert np.isfinite(est.components_).all() and est.n_samples_seen_ == 2 * 600
    counts = np.bincount(computed, minlength=6)
    # max_iter passes + the first block + the scale reduction + the blocks holding the K rows
    # the atoms start from (init="samples")
    assert counts.max() <= 2 + 3
    with pytest.raises(ValueError, match="mark missing entries with NaN"):
        OnlineNMF(2).fit(Xd, mask=np.ones(X.shape, bool))


def test_transform_on_a_local_cluster_with_processes():
    distributed = pytest.importorskip("distributed")
    X = _data(seed=3)
    est = OnlineNMF(4, batch_size=10, random_state=0).fit(X)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        codes = est.transform(da.from_array(X, chunks=(128, 12))).compute()
    np.testing.assert_allclose(codes, est.transform(X), rtol=1e-12)


@pytest.mark.parametrize("name", ["OnlineRobustNMF", "OnlineDictionaryLearning",
                                  "PoissonSubspaceTracker"])
def test_other_estimators_stream_dask_arrays_and_transform_lazily(name):
    import onlinemf

    X = np.round(_data(n=230, f=9, seed=4) * 10)
    make = {"OnlineRobustNMF": lambda: onlinemf.OnlineRobustNMF(3, batch_size=10,
                                                                random_state=0),
            "OnlineDictionaryLearning": lambda: onlinemf.OnlineDictionaryLearning(
                3, batch_size=10, random_state=0),
            "PoissonSubspaceTracker": lambda: onlinemf.PoissonSubspaceTracker(
                3, random_state=0)}[name]
    mem = make().partial_fit(X)
    lazy = make().partial_fit(da.from_array(X, chunks=(37, 4)))
    np.testing.assert_array_equal(mem.components_, lazy.components_)
    codes = lazy.transform(da.from_array(X, chunks=(50, 9)))
    assert isinstance(codes, da.Array)
    # codes to the solvers' tolerance (the tracker's first BB step depends on the batch)
    np.testing.assert_allclose(codes.compute(), mem.transform(X), rtol=1e-6, atol=1e-9)
    refit = make().set_params(**({"max_iter": 2} if name != "PoissonSubspaceTracker" else {}))
    refit.fit(da.from_array(X, chunks=(60, 9)))
    assert np.isfinite(refit.components_).all()


def test_cli_reads_zarr_and_hdf5_lazily_and_streams_codes_to_zarr(tmp_path, capsys):
    h5py = pytest.importorskip("h5py")
    pytest.importorskip("zarr")
    from onlinemf.cli import main, read_matrix

    X = _data(n=300, f=10, seed=5)
    zpath, hpath = str(tmp_path / "X.zarr"), str(tmp_path / "X.h5")
    da.from_array(X, chunks=(64, 10)).to_zarr(zpath)
    with h5py.File(hpath, "w") as fh:
        fh.create_dataset("counts", data=X)
    assert isinstance(read_matrix(zpath), da.Array)
    assert isinstance(read_matrix(hpath, "counts"), da.Array)
    model, codes = str(tmp_path / "m.pkl"), str(tmp_path / "codes.zarr")
    assert main(["fit", zpath, "-k", "3", "--batch-size", "10", "--model", model,
                 "--codes", codes, "--scheduler", "synchronous"]) == 0
    out = da.from_zarr(codes).compute()
    assert out.shape == (300, 3) and np.isfinite(out).all()
    assert main(["transform", model, hpath, "--dataset", "counts", "--out",
                 str(tmp_path / "c.npy"), "--scheduler", "threads"]) == 0
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), out, rtol=1e-10)
    assert main(["fit", hpath, "--model", model]) == 2
    assert "--dataset NAME" in capsys.readouterr().err
    # a lazily read input is checkpointed as it streams: the same model as without
    import pickle

    with open(model, "rb") as fh:
        plain = pickle.load(fh).components_
    assert main(["fit", zpath, "-k", "3", "--batch-size", "10", "--model", model,
                 "--checkpoint", str(tmp_path / "c.ck"), "--checkpoint-every", "4"]) == 0
    with open(model, "rb") as fh:
        np.testing.assert_array_equal(pickle.load(fh).components_, plain)


def _slow(block):
    import time

    time.sleep(0.05)
    return block


def test_transform_survives_a_worker_killed_mid_computation():
    """A worker process of a LocalCluster is killed (SIGKILL) while the lazy transform runs:
    dask reschedules the lost tasks and the result equals the single-process one."""
    import os
    import signal
    import time

    distributed = pytest.importorskip("distributed")
    X = _data(n=3000, f=12, seed=6)
    est = OnlineNMF(4, batch_size=10, random_state=0).fit(X)
    Xd = da.from_array(X, chunks=(50, 12)).map_blocks(_slow, dtype=float)  # 60 slow tasks
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        future = client.compute(est.transform(Xd))
        time.sleep(0.6)  # some tasks done, some running
        assert not future.done()  # the kill lands mid-computation
        nanny = next(iter(cluster.workers.values()))
        os.kill(nanny.process.process.pid, signal.SIGKILL)
        codes = future.result(timeout=120)
    # block-wise coding equals whole-array coding to rounding
    np.testing.assert_allclose(codes, est.transform(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("method", ["vr", "smm", "sgd"])
def test_stochastic_mf_on_a_dask_array_equals_in_memory(method):
    from onlinemf import StochasticMF

    X = np.random.default_rng(7).random((300, 20))
    Xd = da.from_array(X, chunks=(100, 20))
    a = StochasticMF("odl", method, 5, max_iter=2, random_state=0).fit(X)
    b = StochasticMF("odl", method, 5, max_iter=2, random_state=0).fit(Xd)
    np.testing.assert_allclose(b.components_, a.components_, rtol=1e-10, atol=1e-12)
    assert b.objective(Xd) == pytest.approx(a.objective(X), rel=1e-10)  # a map-reduce pass
    codes = b.transform(Xd)
    assert type(codes).__name__ == "Array"  # lazy
    np.testing.assert_allclose(codes.compute(), a.transform(X), rtol=1e-9, atol=1e-12)


def test_stochastic_mf_refuses_bad_dask_input_by_name_and_keeps_its_state():
    from onlinemf import Problem, StochasticMF

    X = np.random.default_rng(8).random((120, 10))
    est = StochasticMF("odl", "vr", 3, max_iter=1, random_state=0).fit(X)
    before = est.components_.copy()
    bad = X.copy()
    bad[5, 3] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        est.partial_fit(da.from_array(bad, chunks=(40, 10)))
    with pytest.raises(ValueError, match="expecting 10 features"):
        est.partial_fit(da.from_array(X[:, :8], chunks=(40, 8)))
    np.testing.assert_array_equal(est.components_, before)
    with pytest.raises(ValueError, match="quadratic='data'"):
        StochasticMF(Problem("olrr", quadratic="data"), "vr", 3).fit(
            da.from_array(X, chunks=(40, 10)))


def test_vr_full_gradient_survives_a_worker_killed_mid_pass():
    """The VR snapshot's full gradient as dask tasks on a LocalCluster: a worker killed
    (SIGKILL) during the pass; dask reruns its tasks and the sum equals the in-memory one."""
    import os
    import signal
    import threading

    distributed = pytest.importorskip("distributed")
    from onlinemf.problems import make_problem
    from onlinemf.updates import full_gradient

    X = np.random.default_rng(9).random((3000, 12))
    P = make_problem("odl", 12).bind(X.shape[0])
    D = np.abs(np.random.default_rng(10).normal(size=(4, 12)))
    D /= np.linalg.norm(D, axis=1, keepdims=True)
    want = full_gradient(P, D, X, 1e-8, chunk_size=50)
    Xd = da.from_array(X, chunks=(50, 12)).map_blocks(_slow, dtype=float)  # 60 slow tasks
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        nanny = next(iter(cluster.workers.values()))
        killer = threading.Timer(0.6, os.kill, (nanny.process.process.pid, signal.SIGKILL))
        killer.start()
        got = full_gradient(P, D, Xd, 1e-8, chunk_size=50)
        killer.join()
    np.testing.assert_allclose(got.grad, want.grad, rtol=1e-9, atol=1e-12)
    assert got.count == want.count == 3000


def test_decompose_score_and_inverse_transform_of_dask_arrays():
    from onlinemf import OnlineRobustNMF, PoissonSubspaceTracker, StochasticMF

    X = _data(n=300, f=12, seed=11)
    Xd = da.from_array(X, chunks=(100, 12))
    rob = OnlineRobustNMF(3, batch_size=20, random_state=0).fit(X)
    low, out = rob.decompose(Xd)
    assert type(low).__name__ == type(out).__name__ == "Array"  # lazy
    want_low, want_out = rob.decompose(X)
    np.testing.assert_allclose(low.compute(), want_low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.compute(), want_out, rtol=1e-9, atol=1e-12)
    assert rob.score(Xd) == pytest.approx(rob.score(X), rel=1e-9)  # a map-reduce pass
    smf = StochasticMF("orpca", "vr", 3, max_iter=1, random_state=0).fit(X)
    low, out = smf.decompose(Xd)
    np.testing.assert_allclose(low.compute(), smf.decompose(X)[0], rtol=1e-9, atol=1e-12)
    codes = rob.transform(Xd)
    back = rob.inverse_transform(codes)
    assert type(back).__name__ == "Array"
    np.testing.assert_allclose(back.compute(), rob.inverse_transform(rob.transform(X)),
                               rtol=1e-9, atol=1e-12)
    counts = np.random.default_rng(12).poisson(5 * X)
    pst = PoissonSubspaceTracker(3, random_state=0).fit(counts)
    assert pst.score(da.from_array(counts, chunks=(100, 12))) == pytest.approx(
        pst.score(counts), rel=1e-6)  # codes solved per block, to the solver's tolerance


def test_ndl_chains_run_as_dask_tasks_with_the_same_result_on_any_scheduler():
    import dask
    import networkx as nx

    from onlinemf import NetworkDictionaryLearning

    G = nx.karate_club_graph()
    fits = {}
    for scheduler in ("synchronous", "threads", "processes"):
        with dask.config.set(scheduler=scheduler):
            fits[scheduler] = NetworkDictionaryLearning(
                6, 4, n_iter=5, batch_size=20, n_chains=3, random_state=0).fit(G).components_
    np.testing.assert_array_equal(fits["threads"], fits["synchronous"])
    np.testing.assert_array_equal(fits["processes"], fits["synchronous"])
    one = NetworkDictionaryLearning(6, 4, n_iter=5, batch_size=20, random_state=0).fit(G)
    assert one.dictionary_learner_.batch_size == 20  # one chain: the paper's stream
    assert not np.array_equal(one.components_, fits["synchronous"])  # three chains pooled


@pytest.mark.parametrize("loss", ["kl", "huber"])
def test_batch_nmf_on_a_dask_array_is_a_map_reduce_pass_per_iteration(loss):
    from onlinemf.baselines import batch_nmf

    X = _data(n=400, f=12, seed=13)
    a = batch_nmf(X, 4, loss, max_iter=40, tol=1e-6, random_state=0)
    b = batch_nmf(da.from_array(X, chunks=(100, 12)), 4, loss, max_iter=40, tol=1e-6,
                  random_state=0)
    assert a.n_iter == b.n_iter
    np.testing.assert_allclose(b.components, a.components, rtol=1e-8)
    np.testing.assert_allclose(b.codes, a.codes, rtol=1e-8)
    np.testing.assert_allclose(b.history["objective"], a.history["objective"], rtol=1e-10)


def test_batch_reference_runs_its_full_passes_on_dask_blocks():
    from onlinemf.baselines import batch_reference
    from onlinemf.problems import make_problem

    X = np.random.default_rng(14).random((200, 10))
    P = make_problem("odl", 10).bind(200)
    D0 = np.abs(np.random.default_rng(15).normal(size=(3, 10)))
    # the same iterates as in memory without warm starts (dask blocks are solved cold)
    a, fa = batch_reference(P, X, D0, max_iter=5, chunk_size=50, warm_start=False)
    b, fb = batch_reference(P, da.from_array(X, chunks=(50, 10)), D0, max_iter=5,
                            chunk_size=50)
    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(fb, fa, rtol=1e-12)


def test_batch_methods_that_need_memory_refuse_dask_arrays_by_name():
    from onlinemf.baselines import batch_poisson_factorization, batch_robust_nmf

    Xd = da.from_array(_data(n=60, f=6), chunks=(20, 6))
    with pytest.raises(ValueError, match="outlier matrix as large as the data"):
        batch_robust_nmf(Xd, 2)
    with pytest.raises(ValueError, match="needs Y in memory"):
        batch_poisson_factorization(Xd, 2)


# ----------------------------------------------------------------------------- CSR chunks
def _sparse_counts(n=600, f=30, seed=0):
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    return sp.random(n, f, density=0.15, format="csr", random_state=seed,
                     data_rvs=lambda m: rng.poisson(2.0, m) + 1.0)


def test_a_corpus_in_csr_chunks_streams_like_the_csr_matrix_in_memory():
    """A dask array whose chunks are CSR (a corpus too large for memory, stored sparse):
    OnlineNMF's stream, start, warm-up, codes and score are those of the CSR matrix."""
    X = _sparse_counts()
    Xd = da.from_array(X, chunks=(130, 30), asarray=False)
    kw = dict(n_components=4, loss="kl", dictionary_update=Surrogate(warmup=250), batch_size=50,
              random_state=0)
    mem, lazy = OnlineNMF(**kw).partial_fit(X), OnlineNMF(**kw).partial_fit(Xd)
    assert lazy._warmup == 250 and not lazy._warming_up  # sparse input: the text defaults
    assert lazy.scale_ == mem.scale_ == float(X.data.max())
    np.testing.assert_array_equal(lazy.components_, mem.components_)
    codes = lazy.transform(Xd)
    assert isinstance(codes, da.Array) and isinstance(codes._meta, np.ndarray)
    # the codes are solved block by block (130 rows here, 4096 in memory): products of other
    # shapes round differently, by an ulp at most
    np.testing.assert_allclose(codes.compute(), mem.transform(X), rtol=1e-12)
    assert lazy.score(Xd) == pytest.approx(mem.score(X), rel=1e-12)
    # auto on CSR chunks is the sparse auto (NNDSVD start, warm-up, and batches sized by
    # the nonzeros of a row, read from the first block), not the dense one
    auto = OnlineNMF(4, loss="kl", random_state=0)
    assert auto.batch_size_for(Xd) == auto.batch_size_for(X[:130]) > \
        auto.batch_size_for(X[:130].toarray())
    assert auto.fit(Xd)._warmup > 0


@pytest.mark.parametrize("name", ["OnlineRobustNMF", "OnlineDictionaryLearning",
                                  "PoissonSubspaceTracker", "StochasticMF"])
def test_other_estimators_read_csr_chunks_as_their_rows(name):
    import onlinemf

    X = _sparse_counts(n=240, f=12, seed=1)
    make = {"OnlineRobustNMF": lambda: onlinemf.OnlineRobustNMF(3, batch_size=10,
                                                                random_state=0),
            "OnlineDictionaryLearning": lambda: onlinemf.OnlineDictionaryLearning(
                3, batch_size=10, random_state=0),
            "PoissonSubspaceTracker": lambda: onlinemf.PoissonSubspaceTracker(
                3, random_state=0),
            "StochasticMF": lambda: onlinemf.StochasticMF("onmf", "smm", 3, batch_size=10,
                                                          random_state=0)}[name]
    mem = make().partial_fit(X)
    lazy = make().partial_fit(da.from_array(X, chunks=(70, 12), asarray=False))
    np.testing.assert_allclose(lazy.components_, mem.components_, rtol=1e-12, atol=1e-14)


def test_reductions_over_csr_chunks_count_their_implicit_zeros():
    from onlinemf._dask import dask_nanmax, dask_nanmean

    X = _sparse_counts(n=200, f=10, seed=2)
    Xd = da.from_array(X, chunks=(60, 10), asarray=False)
    assert dask_nanmax(Xd) == float(X.max())
    assert dask_nanmean(Xd) == pytest.approx(float(X.toarray().mean()), rel=1e-12)
    neg = da.from_array(-X, chunks=(60, 10), asarray=False)
    assert dask_nanmax(neg) == 0.0  # the implicit zeros are the largest entries


# ------------------------------------------------------------------ data-parallel fitting
def _parallel(X, loss="squared", **kw):
    from onlinemf import fit_data_parallel

    est = OnlineNMF(4, loss=loss, random_state=0, max_iter=2, max_no_improvement=None, **kw)
    return fit_data_parallel(est, X, blocks_per_step=3)


@pytest.mark.parametrize("loss", ["squared", "kl"])
def test_data_parallel_steps_equal_the_online_steps_on_the_same_batches(loss):
    # three blocks of 90 rows a step against partial batches of 270 rows in memory: the
    # statistics of a batch are the sums of its blocks'
    X = _data(n=810, f=12, seed=3)
    kw = dict(shuffle=False, dictionary_update=Surrogate(warmup=0))
    par = _parallel(da.from_array(X, chunks=(90, 12)), loss, **kw)
    mem = OnlineNMF(4, loss=loss, random_state=0, max_iter=2, max_no_improvement=None,
                    batch_size=270, **kw).fit(X)
    assert par.n_steps_ == mem.n_steps_ == 6 and par.n_iter_ == 2
    np.testing.assert_allclose(par.components_, mem.components_, rtol=1e-9, atol=1e-12)


def _sparse_chunks(X, rows):
    import scipy.sparse as sp

    return da.from_array(X.toarray(), chunks=(rows, X.shape[1])).map_blocks(
        sp.csr_matrix, dtype=float, meta=sp.csr_matrix((0, X.shape[1])))


def test_data_parallel_fit_is_the_same_on_a_local_cluster_and_survives_a_lost_worker():
    """The model depends on the blocks and their order, not on the scheduler: a
    LocalCluster of two worker processes, one of them SIGKILLed mid-fit, gives the
    single-process model (dense squared loss; CSR chunks with KL after an SGD warm-up)."""
    import os
    import signal
    import threading
    import time

    import dask

    distributed = pytest.importorskip("distributed")
    dense = da.from_array(_data(n=720, f=12, seed=4), chunks=(40, 12))
    sparse = _sparse_chunks(_sparse_counts(n=600, f=30, seed=2), 50)
    kl = dict(loss="kl", dictionary_update=Surrogate(warmup=200))
    with dask.config.set(scheduler="synchronous"):
        ref_dense, ref_sparse = _parallel(dense), _parallel(sparse, **kl)
    dense = dense.map_blocks(_slow, dtype=float)  # the same blocks, slow enough to kill mid-fit
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        nanny = next(iter(cluster.workers.values()))
        killed_at = []

        def kill():
            os.kill(nanny.process.process.pid, signal.SIGKILL)
            killed_at.append(time.perf_counter())

        killer = threading.Timer(0.3, kill)
        killer.start()
        got_dense = _parallel(dense)
        ended_at = time.perf_counter()
        killer.join()
        assert killed_at and killed_at[0] < ended_at  # the kill landed mid-fit
        got_sparse = _parallel(sparse, **kl)
    assert got_dense.n_steps_ == ref_dense.n_steps_
    np.testing.assert_allclose(got_dense.components_, ref_dense.components_, rtol=1e-10)
    np.testing.assert_allclose(got_sparse.components_, ref_sparse.components_, rtol=1e-10)


def test_data_parallel_fit_refuses_what_it_cannot_do_by_name_and_keeps_the_state():
    from onlinemf import fit_data_parallel

    X = _data()
    Xd = da.from_array(X, chunks=(100, 12))
    est = OnlineNMF(4, random_state=0, max_iter=1).fit(X)
    before = est.components_.copy()
    with pytest.raises(ValueError, match="surrogate dictionary update"):
        fit_data_parallel(est.set_params(loss="huber"), Xd)
    with pytest.raises(ValueError, match="history"):
        fit_data_parallel(est.set_params(loss="squared", history="paper"), Xd)
    with pytest.raises(ValueError, match="blocks_per_step"):
        fit_data_parallel(est, Xd, blocks_per_step=0)
    with pytest.raises(TypeError, match="dask array"):
        fit_data_parallel(est, X)
    np.testing.assert_array_equal(est.components_, before)
    bad = Xd.copy()
    bad[5, 3] = -1.0
    with pytest.raises(ValueError, match="negative"):
        fit_data_parallel(est.set_params(history="online"), bad, blocks_per_step=2)
    np.testing.assert_array_equal(est.components_, before)
