import numpy as np
import pytest

from onlinemf.datasets import (
    contaminate,
    make_nmf_synthetic,
    make_outlier_synthetic,
    make_topic_corpus,
    make_video,
    render_faces,
    tfidf_paper,
)


def test_nmf_synthetic_recipe():
    d = make_nmf_synthetic(2000, 50, 40, "gaussian", random_state=0)
    # E[v°] = K°(ϰ + σ√(2/π))² ≈ 996 for the paper's ϰ = 1, σ = 5 (spec 000 §4.3)
    assert abs(d.X_clean.mean() / 995.8 - 1) < 0.05
    assert 28 < d.snr_db < 33 and d.X.min() >= 0 and d.X.max() <= 4000
    out = make_nmf_synthetic(200, 50, 40, "outliers", random_state=0)
    changed = (out.X != np.clip(out.X_clean, 0, 4000)).sum(axis=1)
    assert np.all(changed <= 15) and changed.mean() > 13  # 0.3F entries per sample
    g = make_nmf_synthetic(2000, 50, 40, "gamma", random_state=0)
    assert abs(g.snr_db - 30) < 1.5


def test_contamination_counts():
    rng = np.random.default_rng(0)
    clean = rng.random((100, 40)) * 0.5 + 0.25
    X, R = contaminate(clean, 0.7, 0.1, rng, return_outliers=True)
    per_row = (R != 0).sum(axis=1)
    assert (per_row > 0).sum() == 70 and set(per_row[per_row > 0]) == {4}
    assert X.min() >= 0 and X.max() <= 1 and np.abs(R).max() <= 1


def test_outlier_synthetic_scale_fix():
    fixed = make_outlier_synthetic(500, 100, 49, random_state=0)
    literal = make_outlier_synthetic(500, 100, 49, sigma="variance", random_state=0)
    assert (fixed.X_clean >= 1).mean() < 0.05  # the recommended scale is not degenerate
    assert (literal.X_clean >= 1).mean() > 0.95  # the literal reading gives V° ≡ 1


def test_embedded_sets():
    faces, subject = render_faces(2, 64, size=19)
    assert faces.shape == (128, 361) and faces.min() >= 0 and faces.max() <= 255
    assert np.linalg.matrix_rank(faces[subject == 0]) > 3  # the lighting varies
    c = make_topic_corpus(300, random_state=0)
    T, keep = tfidf_paper(c.data, 50)
    assert T.shape == (300, 50) and T.min() >= 0 and len(set(c.target)) == 5
    frames, shape = make_video(30, (24, 32), random_state=0)
    bg, _ = make_video(30, (24, 32), random_state=0, background_only=True)
    assert frames.shape == (30, 768) and np.allclose(bg[0], bg[-1])
    assert 0 < (frames != bg).mean() < 0.5  # objects cover part of each frame


def test_topic_stream_and_sotu_reader(tmp_path):
    import gzip

    from onlinemf.datasets import load_sotu, make_topic_stream

    Y, terms, years, inten = make_topic_stream(40, random_state=0)
    assert Y.shape == (40, len(terms)) and np.allclose(inten.sum(axis=1), 1)
    assert np.argmax(inten[:, 0]) < np.argmax(inten[:, -1])  # topics peak at different times
    text = ("CONTENTS\n***\n\nState of the Union Address\nGeorge Washington\nJanuary 8, 1790\n"
            "Fellow citizens\n***\n\nState of the Union Address\nGeorge Washington\n"
            "December 8, 1790\nmore words\n***\n\nAddress\nX\nJanuary 1, 2015\nlate\n***\n"
            "END\n***\nfooter")
    p = tmp_path / "sotu.txt.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write(text)
    sotu = load_sotu(str(p))
    yrs, texts = sotu.years, sotu.data
    assert list(yrs) == [1790] and "Fellow citizens" in texts[0] and "more words" in texts[0]


def test_every_loader_returns_a_bunch(tmp_path):
    """Each loader, on small files in the published formats, returns a Bunch whose ``data``
    has the samples as rows."""
    import gzip
    import io
    import tarfile

    import scipy.io
    import scipy.sparse as sp
    from sklearn.utils import Bunch

    from onlinemf.datasets import (
        load_20newsgroups,
        load_bbc,
        load_cbcl,
        load_mnist,
        load_video,
        load_yaleb,
    )

    rng = np.random.default_rng(0)
    # BBC: terms × documents counts, terms, 0-based classes
    counts = sp.random(6, 4, density=0.6, random_state=0, format="csr")
    counts.data = np.ceil(counts.data * 5)
    (tmp_path / "bbc").mkdir()
    scipy.io.mmwrite(tmp_path / "bbc" / "bbc.mtx", counts)
    (tmp_path / "bbc" / "bbc.terms").write_text("\n".join(f"t{i}" for i in range(6)) + "\n")
    (tmp_path / "bbc" / "bbc.classes").write_text("%comment\n0 1\n1 0\n2 4\n3 2\n")
    bbc = load_bbc(str(tmp_path / "bbc"))
    np.testing.assert_array_equal(bbc.data.toarray(), counts.toarray().T)
    assert bbc.feature_names == [f"t{i}" for i in range(6)]
    assert list(bbc.target) == [1, 0, 4, 2] and bbc.target_names[4] == "tech"
    assert bbc.counts is bbc.data and bbc.terms is bbc.feature_names  # the earlier names
    # CBCL: M is 361 × n, each column a face in Fortran order
    M = rng.random((361, 3))
    scipy.io.savemat(tmp_path / "cbcl.mat", {"M": M})
    cbcl = load_cbcl(str(tmp_path / "cbcl.mat"))
    assert cbcl.data.shape == (3, 361) and cbcl.images_shape == (19, 19)
    np.testing.assert_allclose(cbcl.data[1].reshape(19, 19), M[:, 1].reshape(19, 19, order="F"))
    # Yale B: fea is n × 1024 in Fortran order, gnd the subjects
    fea = rng.random((2, 1024)) * 255
    scipy.io.savemat(tmp_path / "YaleB_32x32.mat", {"fea": fea, "gnd": np.array([[3], [7]])})
    yb = load_yaleb(str(tmp_path))
    np.testing.assert_allclose(yb.data[0].reshape(32, 32), fea[0].reshape(32, 32, order="F"))
    assert list(yb.target) == [3, 7] and yb.images_shape == (32, 32)
    # the hall video: frames (n, h, w)
    (tmp_path / "hall").mkdir()
    frames = rng.integers(0, 255, size=(4, 3, 5)).astype(np.uint8)
    np.savez(tmp_path / "hall" / "hall1-200_decoded_gray_uint8.npz", frames=frames)
    hall = load_video(str(tmp_path), "hall")
    assert hall.data.shape == (4, 15) and hall.frame_shape == (3, 5)
    np.testing.assert_array_equal(hall.data[2].reshape(3, 5), frames[2])
    assert load_video(str(tmp_path), "escalator") is None  # not there
    # MNIST: the idx file (16-byte header) of 28 × 28 images
    (tmp_path / "mnist").mkdir()
    pixels = rng.integers(0, 256, size=(2, 784)).astype(np.uint8)
    with gzip.open(tmp_path / "mnist" / "t10k-images-idx3-ubyte.gz", "wb") as fh:
        fh.write(bytes(16) + pixels.tobytes())
    mnist = load_mnist(str(tmp_path))
    np.testing.assert_allclose(mnist.data, pixels / 255.0)
    assert load_mnist(str(tmp_path / "nowhere")) is None
    # 20 Newsgroups: a tarball of bydate folders
    tar_path = tmp_path / "20news-bydate.tar.gz"
    with tarfile.open(tar_path, "w:gz") as tar:
        for part, group, name, body in [("train", "sci.space", "2", "orbit"),
                                        ("train", "rec.autos", "1", "engine"),
                                        ("test", "sci.space", "9", "moon")]:
            raw = f"From: x\nSubject: y\n\n{body}\n".encode()
            info = tarfile.TarInfo(f"20news-bydate-{part}/{group}/{name}")
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
    news = load_20newsgroups(str(tmp_path))
    assert news.target_names == ["rec.autos", "sci.space"]
    assert [t.strip() for t in news.data] == ["engine", "orbit"]
    assert list(news.target) == [0, 1]
    assert len(load_20newsgroups(str(tar_path), subset="all").data) == 3
    for bunch in (bbc, cbcl, yb, hall, mnist, news):
        assert isinstance(bunch, Bunch) and bunch.DESCR


def test_as_corpus_checks_its_parts():
    from onlinemf.datasets import as_corpus

    c = as_corpus(np.ones((3, 2)), ["a", "b"], [0, 1, 0], ["x", "y"])
    assert c.feature_names == ["a", "b"] and list(c.target) == [0, 1, 0]
    with pytest.raises(ValueError, match="3 terms for 2 columns"):
        as_corpus(np.ones((3, 2)), ["a", "b", "c"])
    with pytest.raises(ValueError, match="2 labels for 3 documents"):
        as_corpus(np.ones((3, 2)), ["a", "b"], [0, 1])


def test_find_papers_data_reads_the_environment_then_walks_up(tmp_path, monkeypatch):
    from onlinemf.datasets import find_papers_data

    data = tmp_path / "shared" / "data" / "bbc"
    data.mkdir(parents=True)
    (data / "bbc.mtx").write_text("x")
    deep = tmp_path / "repo" / "examples"
    deep.mkdir(parents=True)
    monkeypatch.delenv("ONLINEMF_DATA_DIR", raising=False)
    monkeypatch.chdir(deep)
    assert find_papers_data("bbc", "bbc.mtx") == data / "bbc.mtx"
    assert find_papers_data("bbc", "absent.mtx") is None
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setenv("ONLINEMF_DATA_DIR", str(other))
    assert find_papers_data("bbc", "bbc.mtx") is None
