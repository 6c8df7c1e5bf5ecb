"""Data: synthetic recipes of the papers, loaders of their real data sets, embedded sets."""

from ._embedded import (
    Corpus,
    find_data,
    load_20newsgroups,
    load_bbc,
    load_sotu,
    load_yaleb,
    make_topic_corpus,
    make_topic_stream,
    render_faces,
    tfidf_paper,
)
from ._smf import expressed_variance, load_mnist, make_smf_synthetic
from ._synthetic import NOISE_FOR_LOSS, SyntheticNMF, make_nmf_synthetic

__all__ = ["NOISE_FOR_LOSS", "Corpus", "SyntheticNMF", "find_data", "load_20newsgroups",
           "load_bbc", "load_sotu",
           "load_yaleb", "make_nmf_synthetic", "make_smf_synthetic", "load_mnist",
           "expressed_variance", "make_topic_corpus", "make_topic_stream",
           "render_faces", "tfidf_paper"]
