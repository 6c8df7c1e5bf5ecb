"""Code solvers: per-sample problems solved for a whole mini-batch at once.

* :func:`solve_codes` — min_{h ∈ H} d(x ‖ hD) for any divergence (projected Armijo, 1/L,
  FISTA, Polyak; Zhao, Tan and Xu 2016, arXiv:1608.00075).
* :func:`solve_codes_outliers` — min_{h ≥ 0, |r| ≤ M} ½‖x − hD − r‖² + λ‖r‖₁ (alternating
  PGD, its accelerated form, or ADMM; Zhao and Tan 2016, arXiv:1604.02634).
* :func:`solve_codes_bsum` — min_{h ∈ H, r ∈ R} ½‖x − hD − r‖² + φ(h) + ϕ(r) for the
  stochastic matrix factorization problems of Zhao, Haskell and Feng (2018,
  arXiv:1705.10679; BSUM, eqs. 5–6);
  :func:`solve_codes_accurate` solves them tightly for evaluation (semismooth Newton for the
  robust problems); :func:`solve_codes_newton_capped` is that Newton method called as BSUM
  is, an algorithm's code solver for the robust problems.
"""

from .._steps import bb_step, spectral_lipschitz, spectral_norm_sq
from ._accurate import (
    newton_applicable,
    solve_codes_accurate,
    solve_codes_newton,
    solve_codes_newton_capped,
)
from ._bsum import BSUMResult, solve_codes_bsum
from ._divergence import STEP_RULES, CodeResult, initial_codes, solve_codes
from ._outliers import (
    OUTLIER_SOLVERS,
    OutlierCodeResult,
    outlier_loss,
    solve_codes_outliers,
)
from ._settings import CODE_STEPS, CodeSolver

__all__ = ["CodeSolver", "CODE_STEPS", "STEP_RULES", "CodeResult", "initial_codes",
           "solve_codes", "spectral_norm_sq",
           "OUTLIER_SOLVERS", "OutlierCodeResult", "outlier_loss",
           "solve_codes_outliers",
           "BSUMResult", "solve_codes_bsum", "solve_codes_accurate", "solve_codes_newton",
           "solve_codes_newton_capped", "newton_applicable", "spectral_lipschitz", "bb_step"]
