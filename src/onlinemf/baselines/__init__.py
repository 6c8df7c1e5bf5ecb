"""Batch and earlier online methods the papers compare against."""

from ._zhao import (
    BATCH_LOSSES,
    BatchResult,
    OnlineHuberSGD,
    OnlineISNMF,
    RobustSANMF,
    batch_nmf,
)

__all__ = ["BATCH_LOSSES", "BatchResult", "OnlineHuberSGD", "OnlineISNMF", "RobustSANMF",
           "batch_nmf"]
