"""Dictionary update rules, each written as explicit state plus a step.

* :class:`SGD` and :class:`Surrogate` — OnlineNMF's ``dictionary_update`` settings;

* :class:`ProjectedSGDUpdate` with :class:`RobbinsMonroSchedule` — projected stochastic
  gradient (Zhao, Tan and Xu 2016, arXiv:1608.00075); ``rule.init(components) -> state`` and
  ``rule.update(state, components, grad, n_batch) -> (components, state)``;
* :class:`SurrogateStats` with :func:`solve_surrogate_dictionary` / :func:`bcd_dictionary` —
  surrogate minimization from sufficient statistics (Zhao and Tan 2016, arXiv:1604.02634;
  Lyu, Needell and Balzano 2020, arXiv:1911.01931);
* :class:`BCDSurrogateUpdate` / :class:`MultiplicativeSurrogateUpdate` — running surrogates of
  the squared loss and the β-divergences (the fast default of OnlineNMF);
* :func:`solve_poisson_rows` — the rows of Poisson subspace tracking (Wang and Chi 2016,
  arXiv:1612.02425);
* :func:`full_gradient`, :func:`vr_direction`, :func:`smm_dictionary` and the parameter
  helpers — variance-reduced stochastic MF and its SMM baseline step (Zhao, Haskell and Feng
  2018, arXiv:1705.10679).

The estimator keeps the state in its fitted attributes, so a pickled estimator resumes exactly.
"""

from ._majorization import (
    BCDSurrogateUpdate,
    MultiplicativeSurrogateUpdate,
    SurrogateState,
    anchored_state,
    batch_weight,
)
from ._poisson import PoissonStats, log_jensen_gap, poisson_row_objective, solve_poisson_rows
from ._settings import SGD, Surrogate
from ._sgd import ProjectedSGDUpdate, RobbinsMonroSchedule, SGDState
from ._surrogate import (
    DICT_SOLVERS,
    SurrogateStats,
    WeightedStats,
    bcd_dictionary,
    solve_surrogate_dictionary,
)
from ._variance_reduction import (
    GradientTerms,
    ProxSGDSchedule,
    SMMStats,
    VRSnapshot,
    chunk_terms,
    code_tolerance,
    danskin_gradient_sum,
    default_batch_params,
    full_gradient,
    iter_chunks,
    residual,
    sampling_factor,
    smm_dictionary,
    theoretical_step_size,
    theta_min,
    vr_direction,
)

__all__ = ["SGD", "Surrogate", "RobbinsMonroSchedule", "ProjectedSGDUpdate", "SGDState",
           "SurrogateStats",
           "DICT_SOLVERS", "solve_surrogate_dictionary", "bcd_dictionary",
           "poisson_row_objective", "solve_poisson_rows", "log_jensen_gap", "PoissonStats",
           "GradientTerms", "sampling_factor", "default_batch_params", "theta_min",
           "theoretical_step_size", "code_tolerance", "iter_chunks", "chunk_terms", "residual",
           "danskin_gradient_sum", "full_gradient", "vr_direction", "smm_dictionary",
           "SMMStats", "WeightedStats", "VRSnapshot", "ProxSGDSchedule", "SurrogateState",
           "BCDSurrogateUpdate", "MultiplicativeSurrogateUpdate", "batch_weight",
           "anchored_state"]
