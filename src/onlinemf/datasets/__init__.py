"""Data: synthetic recipes of the papers, loaders of their real data sets, embedded sets."""

from ._synthetic import NOISE_FOR_LOSS, SyntheticNMF, make_nmf_synthetic

__all__ = ["NOISE_FOR_LOSS", "SyntheticNMF", "make_nmf_synthetic"]
