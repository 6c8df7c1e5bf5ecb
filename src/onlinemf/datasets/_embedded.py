"""Embedded data sets (always available) and loaders of the papers' real data sets.

The real sets are read from a directory the user gives (``--data-dir``), in their published
formats (see ``shared/data/MANIFEST.md``); the project never downloads and never copies them.
Every ``load_*`` function returns a scikit-learn :class:`~sklearn.utils.Bunch`: ``data`` (rows
are samples), ``target`` and ``target_names`` where the set has labels, ``feature_names``
for a corpus, and ``DESCR``.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence

import numpy as np
from sklearn.utils import Bunch

__all__ = ["render_faces", "make_topic_corpus", "as_corpus", "load_bbc", "load_yaleb",
           "tfidf_paper", "find_data"]

# ---------------------------------------------------------------------------------- faces


def render_faces(n_subjects: int = 4, n_lights: int = 64, size: int = 32,
                 random_state=0) -> tuple[np.ndarray, np.ndarray]:
    """Render a small Yale-B-like face set: Lambertian faces under varying point lights.

    Each subject is a smooth height field (an ellipsoidal head with a nose, brow ridge, eye
    sockets and lips, its proportions drawn at random) with an albedo map (darker eyes, brows
    and lips), lit from ``n_lights`` directions spread over azimuth ±70° and elevation −35°…60°,
    plus a little ambient light. Attached shadows are those of the Lambertian model
    max(0, n·l), so low-elevation side lights shade half the face, as in Yale B.

    Returns
    -------
    images : ndarray of shape (n_subjects * n_lights, size * size), values in [0, 255]
    subject : ndarray of int, shape (n_subjects * n_lights,)
    """
    rng = np.random.default_rng(random_state)
    y, x = np.mgrid[-1:1:size * 1j, -1:1:size * 1j]
    az = np.deg2rad(np.linspace(-70, 70, 8))
    el = np.deg2rad(np.linspace(-35, 60, max(1, n_lights // 8)))
    A, E = np.meshgrid(az, el)
    lights = np.stack([np.sin(A) * np.cos(E), np.sin(E), np.cos(A) * np.cos(E)], -1)
    lights = lights.reshape(-1, 3)[:n_lights]
    images, subject = [], []
    for s in range(n_subjects):
        a, b = rng.uniform(0.65, 0.8), rng.uniform(0.85, 0.95)
        head = np.sqrt(np.clip(1 - (x / a) ** 2 - (y / b) ** 2, 0, None))

        def bump(cx, cy, sx, sy, h):
            return h * np.exp(-((x - cx) ** 2 / (2 * sx**2) + (y - cy) ** 2 / (2 * sy**2)))

        ex, ey = rng.uniform(0.25, 0.35), rng.uniform(-0.3, -0.15)
        z = (head + bump(0, 0.05, 0.08, 0.2, rng.uniform(0.25, 0.4))
             + bump(0, ey - 0.12, 0.45, 0.06, 0.1)
             - bump(-ex, ey, 0.1, 0.07, 0.15) - bump(ex, ey, 0.1, 0.07, 0.15)
             + bump(0, 0.45, 0.2, 0.05, 0.05))
        gy, gx = np.gradient(z * size / 6)
        n = np.stack([-gx, -gy, np.ones_like(z)], -1)
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        albedo = (0.8 + 0.15 * rng.random()
                  - 0.5 * bump(-ex, ey, 0.07, 0.04, 1) - 0.5 * bump(ex, ey, 0.07, 0.04, 1)
                  - 0.3 * bump(0, 0.47, 0.15, 0.03, 1) - 0.3 * bump(0, ey - 0.14, 0.4, 0.03, 1))
        inside = head > 0
        for light in lights:
            shade = np.clip(n @ light, 0, None)
            img = np.where(inside, albedo * (0.08 + 0.92 * shade), 0.05)
            images.append(np.clip(255 * img, 0, 255).ravel())
            subject.append(s)
    return np.array(images), np.array(subject)


def load_yaleb(data_dir: str) -> Bunch:
    """Deng Cai's ``YaleB_32x32.mat`` (Extended Yale B faces, 32 × 32).

    Returns
    -------
    Bunch
        ``data`` (2414, 1024): images in [0, 255] as rows in C order (upright when reshaped
        to ``images_shape``); ``target``: subject labels 1…38; ``images_shape`` (32, 32);
        ``DESCR``.
    """
    from scipy.io import loadmat

    d = loadmat(os.path.join(data_dir, "YaleB_32x32.mat"))
    fea = d["fea"].astype(float)
    imgs = fea.reshape(-1, 32, 32).transpose(0, 2, 1).reshape(-1, 1024)  # to C order
    return Bunch(data=imgs, target=d["gnd"].ravel(), images_shape=(32, 32),
                 DESCR="Extended Yale B faces, 32 × 32 (Deng Cai's YaleB_32x32.mat): one row "
                       "per image, in [0, 255]; target is the subject.")


# ---------------------------------------------------------------------------------- text

_TOPICS = {
    "business": "compani firm market share price profit growth economi bank sale investor "
                "stock deal rate oil dollar trade busi financi chief analyst quarter earn "
                "budget debt export",
    "sport": "game plai win player match team club england champion season coach cup "
             "goal injuri final leagu score victori rugbi cricket tenni olymp squad side",
    "tech": "peopl servic technolog user net phone mobil comput softwar internet network "
            "digit broadband onlin site search devic data music video consol game web "
            "program secur",
    "entertainment": "film show best music star award tv band album actor singer chart "
                     "festiv director oscar comedi theatr releas song record hollywood "
                     "prize seri audienc stage",
    "politics": "govern elect minist labour parti blair tori campaign law brown vote "
                "howard polici parliament council secretari tax immigr plan leader "
                "democrat mp reform public",
}
_COMMON = ("said year new time peopl just like week told make come work also say month day "
           "want expect report british world uk includ big million need right way ad set "
           "good").split()


def as_corpus(counts, terms: Sequence[str], labels=None,
              label_names: Sequence[str] | None = None, descr: str = "") -> Bunch:
    """A term-document corpus as a :class:`~sklearn.utils.Bunch`, documents as rows.

    Parameters
    ----------
    counts : ndarray or sparse matrix of shape (n_documents, n_terms)
    terms : sequence of str of length n_terms
    labels : array of int of shape (n_documents,), optional
    label_names : sequence of str, optional
        The name of each label value.
    descr : str
        What the corpus is.

    Returns
    -------
    Bunch
        ``data`` (the counts), ``feature_names`` (the terms), ``target`` (the labels),
        ``target_names`` and ``DESCR``. The names ``counts``, ``terms``, ``labels`` and
        ``label_names`` are kept as aliases of the same objects, for code written against
        the earlier ``Corpus`` class.
    """
    terms = list(terms)
    if counts.shape[1] != len(terms):
        raise ValueError(f"{len(terms)} terms for {counts.shape[1]} columns of counts")
    labels = None if labels is None else np.asarray(labels)
    if labels is not None and labels.shape[0] != counts.shape[0]:
        raise ValueError(f"{labels.shape[0]} labels for {counts.shape[0]} documents")
    label_names = None if label_names is None else list(label_names)
    return Bunch(data=counts, feature_names=terms, target=labels, target_names=label_names,
                 DESCR=descr, counts=counts, terms=terms, labels=labels,
                 label_names=label_names)


def make_topic_corpus(n_documents: int = 1000, doc_length: int = 150, purity: float = 0.75,
                      random_state=0) -> Bunch:
    """A BBC-News-like corpus drawn from five planted topics of Porter-stemmed news words.

    Each document picks one of five topics (business, sport, tech, entertainment, politics);
    each of its words comes from that topic's vocabulary with probability ``purity``, from
    another topic with probability (1 − purity)/2 and from a pool of common news words
    otherwise, with Zipf-like weights within each list. It stands in for BBCNews when the
    real set is not given.

    Returns
    -------
    Bunch
        As :func:`as_corpus`: ``data`` (n_documents, n_terms) counts, ``feature_names``,
        ``target`` (the planted topic), ``target_names``, ``DESCR``.
    """
    rng = np.random.default_rng(random_state)
    names = list(_TOPICS)
    vocab = sorted(set(_COMMON) | {w for t in _TOPICS.values() for w in t.split()})
    index = {w: i for i, w in enumerate(vocab)}

    def dist(words):
        p = np.zeros(len(vocab))
        ws = words.split() if isinstance(words, str) else words
        for r, w in enumerate(ws):
            p[index[w]] += 1.0 / (r + 2)
        return p / p.sum()

    topic_p = np.array([dist(_TOPICS[n]) for n in names])
    common_p = dist(_COMMON)
    labels = rng.integers(0, 5, size=n_documents)
    other = (labels + rng.integers(1, 5, size=n_documents)) % 5
    mix = (purity * topic_p[labels] + (1 - purity) / 2 * topic_p[other]
           + (1 - purity) / 2 * common_p)
    lengths = rng.poisson(doc_length, size=n_documents) + 10
    counts = np.array([rng.multinomial(n, p) for n, p in zip(lengths, mix)], dtype=float)
    return as_corpus(counts, vocab, labels, names,
                     "An embedded five-topic stand-in for BBC News: word counts of documents "
                     "drawn from planted topics of Porter-stemmed news words.")


def load_bbc(data_dir: str) -> Bunch:
    """BBC News (Greene and Cunningham 2006): ``bbc.mtx`` (terms × docs counts), ``bbc.terms``
    and ``bbc.classes``.

    Returns
    -------
    Bunch
        As :func:`as_corpus`: ``data`` (2225, 9635) sparse counts, documents as rows;
        ``feature_names`` (the stemmed terms); ``target`` (0…4) and ``target_names``
        (business, entertainment, politics, sport, tech); ``DESCR``.
    """
    from scipy.io import mmread

    counts = mmread(os.path.join(data_dir, "bbc.mtx")).T.tocsr()
    with open(os.path.join(data_dir, "bbc.terms"), encoding="utf-8") as fh:
        terms = [line.strip() for line in fh]
    cls = np.loadtxt(os.path.join(data_dir, "bbc.classes"), comments="%", dtype=int)
    labels = np.zeros(counts.shape[0], dtype=int)
    labels[cls[:, 0]] = cls[:, 1]
    return as_corpus(counts, terms, labels,
                     ["business", "entertainment", "politics", "sport", "tech"],
                     "BBC News (Greene and Cunningham 2006): term counts of 2225 articles "
                     "in five classes, documents as rows.")


def tfidf_paper(counts, n_terms: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """The TF-IDF of Zhao, Tan and Xu (2016, arXiv:1608.00075, Section VIII-E):
    v′ = (1 + log v)·log(n/df) for v ≠ 0, then the ``n_terms`` terms of largest ℓ1 norm.
    Returns (documents × kept terms, kept term indices)."""
    import scipy.sparse as sp

    C = sp.csr_matrix(counts)
    n = C.shape[0]
    df = np.asarray((C > 0).sum(axis=0)).ravel()
    idf = np.log(n / np.maximum(df, 1))
    T = C.copy().astype(float)
    T.data = 1.0 + np.log(T.data)
    T = T.multiply(idf[None, :]).tocsc()
    norms = np.asarray(abs(T).sum(axis=0)).ravel()
    keep = np.sort(np.argsort(-norms)[:n_terms])
    return T[:, keep].toarray(), keep


def find_data(data_dir: str | None, *parts: str) -> str | None:
    """Path of ``data_dir/parts…`` if it exists (also under a ``data/`` child), else None."""
    if not data_dir:
        return None
    for root in (data_dir, os.path.join(data_dir, "data")):
        path = os.path.join(root, *parts)
        if os.path.exists(path):
            return path
    return None


def find_papers_data(*parts: str) -> pathlib.Path | None:
    """Path of a file of the papers' data sets, or None when it is absent.

    The data sets' folder is ``$ONLINEMF_DATA_DIR`` when that is set, else the first
    ``shared/data`` folder found beside the working directory or one of its parents (a
    checkout next to the papers' data finds it from its own folders).
    """
    root = os.environ.get("ONLINEMF_DATA_DIR")
    if root is None:
        here = os.path.abspath(os.getcwd())
        while True:
            candidate = os.path.join(here, "shared", "data")
            if os.path.isdir(candidate):
                root = candidate
                break
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
    path = find_data(root, *parts)
    return None if path is None else pathlib.Path(path)


def make_topic_stream(n_years: int = 150, doc_length: int = 2000, random_state=0):
    """An embedded stand-in for the State of the Union stream: one document per "year", whose
    five planted topics (business, sport, tech, entertainment, politics) rise and fall as smooth
    bumps over time. Returns (counts (n_years, n_terms), terms, years, intensity (n_years, 5))."""
    rng = np.random.default_rng(random_state)
    names = list(_TOPICS)
    vocab = sorted(set(_COMMON) | {w for t in _TOPICS.values() for w in t.split()})
    index = {w: i for i, w in enumerate(vocab)}
    P = np.zeros((len(names) + 1, len(vocab)))
    for k, words in enumerate([_TOPICS[n].split() for n in names] + [_COMMON]):
        for r, w in enumerate(words):
            P[k, index[w]] += 1.0 / (r + 2)
    P /= P.sum(axis=1, keepdims=True)
    years = np.arange(n_years)
    centers = np.linspace(0.1, 0.9, len(names)) * n_years
    inten = np.exp(-0.5 * ((years[:, None] - centers[None]) / (0.12 * n_years)) ** 2) + 0.05
    inten /= inten.sum(axis=1, keepdims=True)
    mix = 0.8 * inten @ P[:-1] + 0.2 * P[-1]
    counts = np.array([rng.multinomial(doc_length, p) for p in mix], dtype=float)
    return counts, vocab, years, inten


def load_sotu(path: str, first: int = 1790, last: int = 2014) -> Bunch:
    """State of the Union addresses (Project Gutenberg text, see MANIFEST §7): one text per
    year in [first, last] (addresses of the same year merged).

    Returns
    -------
    Bunch
        ``data``: the texts (list of str), ``years``: the year of each (ndarray of int),
        ``DESCR``.
    """
    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as fh:
        parts = fh.read().split("***")[1:-2]
    by_year: dict[int, list[str]] = {}
    for part in parts:
        lines = part.strip("\n").split("\n")
        if len(lines) < 4:
            continue
        try:
            year = int(lines[2].strip()[-4:])
        except ValueError:
            continue
        if first <= year <= last:
            by_year.setdefault(year, []).append("\n".join(lines[3:]))
    years = sorted(by_year)
    return Bunch(data=[" ".join(by_year[y]) for y in years], years=np.array(years, dtype=int),
                 DESCR=f"State of the Union addresses {first}–{last}, one text per year.")


def load_20newsgroups(path: str, subset: str = "train") -> Bunch:
    """The 20 Newsgroups "bydate" split from its tarball (``20news-bydate.tar.gz``).

    Each message is decoded as latin-1 and its header block (everything before the first
    blank line) dropped, as scikit-learn's ``remove=('headers',)`` does; the label is the
    newsgroup folder. Read in place, never extracted.

    Parameters
    ----------
    path : str
        The tarball, or a folder holding it.
    subset : {"train", "test", "all"}

    Returns
    -------
    Bunch
        ``data``: the texts (list of str); ``target``: the label of each (ndarray of int);
        ``target_names``: newsgroup names, indexed by label (sorted); ``DESCR``.
    """
    import tarfile

    if subset not in ("train", "test", "all"):
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}")
    if os.path.isdir(path):
        path = os.path.join(path, "20news-bydate.tar.gz")
    parts = ("train", "test") if subset == "all" else (subset,)
    docs = []
    with tarfile.open(path) as tar:
        for member in tar:
            if not member.isfile():
                continue
            top, *rest = member.name.split("/")
            if len(rest) != 2 or top not in {f"20news-bydate-{p}" for p in parts}:
                continue
            raw = tar.extractfile(member).read().decode("latin-1")
            _, _, body = raw.partition("\n\n")
            docs.append((top, rest[0], rest[1], body))
    docs.sort(key=lambda d: (d[0], d[1], int(d[2]) if d[2].isdigit() else d[2]))
    groups = sorted({d[1] for d in docs})
    index = {g: i for i, g in enumerate(groups)}
    return Bunch(data=[d[3] for d in docs], target=np.array([index[d[1]] for d in docs]),
                 target_names=groups,
                 DESCR=f"20 Newsgroups, bydate split ({subset}), headers removed.")
