"""Data: synthetic recipes of the papers, loaders of their real data sets, embedded sets, and
the Ising lattice whose Gibbs chains make the frames of the Ising experiment of Lyu, Needell
and Balzano (2020, arXiv:1911.01931).

The ``load_*`` functions return a scikit-learn :class:`~sklearn.utils.Bunch` (``data`` with
samples as rows, ``target``/``target_names`` where there are labels, ``feature_names`` for a
corpus, ``DESCR``); ``load_video`` and ``load_mnist`` return None when the files are absent.
"""

from ._embedded import (
    as_corpus,
    find_data,
    find_papers_data,
    load_20newsgroups,
    load_bbc,
    load_sotu,
    load_yaleb,
    make_topic_corpus,
    make_topic_stream,
    render_faces,
    tfidf_paper,
)
from ._ising import CRITICAL_T, IsingLattice
from ._outliers import contaminate, load_cbcl, load_video, make_outlier_synthetic, make_video
from ._smf import (
    expressed_variance,
    load_mnist,
    make_smf_synthetic,
    weighted_expressed_variance,
)
from ._synthetic import NOISE_FOR_LOSS, SyntheticNMF, make_nmf_synthetic

__all__ = ["NOISE_FOR_LOSS", "as_corpus", "SyntheticNMF", "find_data", "find_papers_data",
           "load_20newsgroups",
           "load_bbc", "load_sotu",
           "load_yaleb", "make_nmf_synthetic", "make_smf_synthetic", "load_mnist",
           "expressed_variance", "weighted_expressed_variance", "make_topic_corpus",
           "make_topic_stream",
           "render_faces", "tfidf_paper", "CRITICAL_T", "IsingLattice", "contaminate",
           "load_cbcl", "load_video", "make_outlier_synthetic", "make_video"]
