"""Batch and earlier online methods the papers compare against."""

from ._poisson import GROUSE, batch_poisson_factorization
from ._robust import ORPCA, batch_robust_nmf
from ._smf import batch_reference
from ._zhao import (
    BATCH_LOSSES,
    BatchResult,
    OnlineHuberSGD,
    OnlineISNMF,
    RobustSANMF,
    batch_nmf,
)

__all__ = ["BATCH_LOSSES", "GROUSE", "ORPCA", "BatchResult", "OnlineHuberSGD", "OnlineISNMF",
           "batch_reference",
           "RobustSANMF", "batch_nmf", "batch_poisson_factorization",
           "batch_robust_nmf"]
