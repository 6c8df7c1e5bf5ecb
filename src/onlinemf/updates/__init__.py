"""Dictionary update rules, every one an immutable state plus pure functions.

The protocol
------------
A *rule* is a frozen object that holds only settings. It has two methods:

* ``rule.init(components, ...) -> state`` — the state before the first step at the
  dictionary ``components`` (K, F) (some rules need more: the SVRG snapshot reads the data,
  the proximal SGD schedule the first mini-batch's codes);
* ``rule.update(state, components, ...batch...) -> (components, state)`` — one step on a
  mini-batch: the next dictionary and the next state.

A *state* is an immutable value (a frozen dataclass). ``update`` returns a new state and a new
dictionary and never writes into the old ones, so that a state can be kept, compared, pickled
or restored by reference: an estimator keeps one (``state_``) and a failed call simply leaves
the old one in place. The arrays of the running statistics are marked read-only.

Running statistics are one class, :class:`RunningAverage` (the sums A, B, c, ... and the rows
and batches seen), with a weight schedule for the newest batch: :class:`SampleMean` (every row
alike, optionally forgotten geometrically), :class:`PowerWeights` (w_t = t^(−β)) or
:class:`CumulativeSums` (plain sums).

The rules
---------
* :class:`ProjectedSGDUpdate` with :class:`RobbinsMonroSchedule` — projected stochastic
  gradient (Zhao, Tan and Xu 2016, arXiv:1608.00075); :class:`SGDState`;
* :class:`BCDSurrogateUpdate` / :class:`MultiplicativeSurrogateUpdate` — running surrogates of
  the squared loss and the β-divergences (the fast default of OnlineNMF);
* :class:`OutlierSurrogateUpdate` — sample-mean surrogate with outliers, its dictionary by PGD,
  accelerated PGD or ADMM (:func:`solve_surrogate_dictionary`; Zhao and Tan 2016,
  arXiv:1604.02634);
* :class:`OMFSurrogateUpdate` — online matrix factorization's t^(−β)-weighted statistics and
  block coordinate descent (:func:`bcd_dictionary`; Lyu, Needell and Balzano 2020,
  arXiv:1911.01931);
* :class:`PoissonMemoryLimitedUpdate` and :class:`PoissonSAUpdate` — the two rules of Poisson
  subspace tracking (Wang and Chi 2016, arXiv:1612.02425), rows by
  :func:`solve_poisson_rows`;
* :class:`SVRGUpdate` (state :class:`VRSnapshot`), :class:`SMMUpdate` and
  :class:`ProxSGDUpdate` (state :class:`ProxSGDState`) — variance-reduced stochastic MF and its
  SMM and proximal SGD baselines (Zhao, Haskell and Feng 2018, arXiv:1705.10679), with
  :func:`full_gradient`, :func:`vr_direction`, :func:`smm_dictionary` and the parameter
  helpers.

:class:`SGD` and :class:`Surrogate` are OnlineNMF's ``dictionary_update`` settings.
"""

from ._majorization import (
    BCDSurrogateUpdate,
    MultiplicativeSurrogateUpdate,
    anchored_state,
    batch_weight,
)
from ._poisson import (
    PoissonHistory,
    PoissonMemoryLimitedUpdate,
    PoissonSAUpdate,
    log_jensen_gap,
    poisson_row_objective,
    solve_poisson_rows,
)
from ._running import (
    CumulativeSums,
    PowerWeights,
    RunningAverage,
    SampleMean,
    SurrogateState,
)
from ._settings import SGD, Surrogate
from ._sgd import ProjectedSGDUpdate, RobbinsMonroSchedule, SGDState
from ._surrogate import (
    DICT_SOLVERS,
    OMFSurrogateUpdate,
    OutlierSurrogateUpdate,
    batch_terms,
    bcd_dictionary,
    solve_surrogate_dictionary,
)
from ._variance_reduction import (
    GradientTerms,
    ProxSGDState,
    ProxSGDUpdate,
    SMMUpdate,
    SVRGUpdate,
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

__all__ = ["SGD", "Surrogate",
           "RunningAverage", "SampleMean", "PowerWeights", "CumulativeSums", "SurrogateState",
           "RobbinsMonroSchedule", "ProjectedSGDUpdate", "SGDState",
           "BCDSurrogateUpdate", "MultiplicativeSurrogateUpdate", "batch_weight",
           "anchored_state",
           "OutlierSurrogateUpdate", "OMFSurrogateUpdate", "batch_terms",
           "DICT_SOLVERS", "solve_surrogate_dictionary", "bcd_dictionary",
           "PoissonMemoryLimitedUpdate", "PoissonSAUpdate", "PoissonHistory",
           "poisson_row_objective", "solve_poisson_rows", "log_jensen_gap",
           "SVRGUpdate", "VRSnapshot", "SMMUpdate", "ProxSGDUpdate", "ProxSGDState",
           "GradientTerms", "sampling_factor", "default_batch_params", "theta_min",
           "theoretical_step_size", "code_tolerance", "iter_chunks", "chunk_terms", "residual",
           "danskin_gradient_sum", "full_gradient", "vr_direction", "smm_dictionary"]
