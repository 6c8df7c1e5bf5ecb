import numpy as np

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
    T, keep = tfidf_paper(c.counts, 50)
    assert T.shape == (300, 50) and T.min() >= 0 and len(set(c.labels)) == 5
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
    yrs, texts = load_sotu(str(p))
    assert list(yrs) == [1790] and "Fellow citizens" in texts[0] and "more words" in texts[0]
