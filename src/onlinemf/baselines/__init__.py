"""Batch and earlier online methods the papers compare against."""

from ._robust import ORPCA, batch_robust_nmf
from ._zhao import (
    BATCH_LOSSES,
    BatchResult,
    OnlineHuberSGD,
    OnlineISNMF,
    RobustSANMF,
    batch_nmf,
)

__all__ = ["BATCH_LOSSES", "ORPCA", "BatchResult", "OnlineHuberSGD", "OnlineISNMF",
           "RobustSANMF", "batch_nmf", "batch_robust_nmf"]
