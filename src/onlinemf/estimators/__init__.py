"""Public estimators (thin scikit-learn classes: one loss + one coder + one update rule)."""

from ._online_nmf import OnlineNMF

__all__ = ["OnlineNMF"]
