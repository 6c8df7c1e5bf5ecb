"""Public estimators (thin scikit-learn classes: one loss + one coder + one update rule)."""

from ._data_parallel import fit_data_parallel
from ._network_dictionary_learning import NetworkDictionaryLearning
from ._online_dictionary_learning import OnlineDictionaryLearning
from ._online_nmf import OnlineNMF
from ._online_robust_nmf import OnlineRobustNMF
from ._poisson_tracker import PoissonSubspaceTracker
from ._robust_settings import Penalty, RobustSolver
from ._smf_settings import SMFCoder, SMFStep
from ._stochastic_mf import StochasticMF

__all__ = [
    "NetworkDictionaryLearning",
    "OnlineDictionaryLearning",
    "OnlineNMF",
    "OnlineRobustNMF",
    "Penalty",
    "PoissonSubspaceTracker",
    "RobustSolver",
    "SMFCoder",
    "SMFStep",
    "StochasticMF",
    "fit_data_parallel",
]
