"""Code solvers: per-sample problems solved for a whole mini-batch at once.

* :class:`CodeSolver` — min_{h ∈ H} d(x ‖ hD) for any divergence by projected (sub)gradient
  descent with a step rule (spectral projected gradient, projected Armijo, 1/L, FISTA,
  Barzilai–Borwein, Polyak, the multiplicative update, an exact line search, or ADMM for ℓ1
  and ℓ2; Zhao, Tan and Xu 2016, arXiv:1608.00075): ``CodeSolver(step).solve(loss, D, X)``.
  Each rule is an object of the step-rule protocol (:class:`StepRule`) run by one driver.
* :func:`solve_codes_outliers` — min_{h ≥ 0, |r| ≤ M} ½‖x − hD − r‖² + λ‖r‖₁ (alternating
  PGD, its accelerated form, or ADMM; Zhao and Tan 2016, arXiv:1604.02634).
* :func:`solve_codes_bsum` — min_{h ∈ H, r ∈ R} ½‖x − hD − r‖² + φ(h) + ϕ(r) for the
  stochastic matrix factorization problems of Zhao, Haskell and Feng (2018,
  arXiv:1705.10679; BSUM, eqs. 5–6);
  :func:`solve_codes_accurate` solves them tightly for evaluation (semismooth Newton for the
  robust problems); :func:`solve_codes_newton_capped` is that Newton method called as BSUM
  is, an algorithm's code solver for the robust problems.

Every solver returns a :class:`CodeResult`.
"""

from .._steps import bb_step, spectral_lipschitz, spectral_norm_sq
from ._accurate import (
    newton_applicable,
    solve_codes_accurate,
    solve_codes_newton,
    solve_codes_newton_capped,
)
from ._bsum import solve_codes_bsum
from ._divergence import STEP_RULES
from ._outliers import OUTLIER_SOLVERS, outlier_loss, solve_codes_outliers
from ._problem import initial_codes
from ._result import CodeResult
from ._rules import StepRule
from ._settings import (
    CODE_STEPS,
    MU_CODE_MAX_ITER,
    MU_STEP_ITER,
    QUADRATIC_CODE_MAX_ITER,
    CodeSolver,
    code_step_for,
    mu_step_iterations,
)

__all__ = ["CodeSolver", "CODE_STEPS", "STEP_RULES", "StepRule", "CodeResult", "code_step_for",
           "MU_CODE_MAX_ITER", "MU_STEP_ITER", "QUADRATIC_CODE_MAX_ITER", "mu_step_iterations",
           "initial_codes", "spectral_norm_sq",
           "OUTLIER_SOLVERS", "outlier_loss", "solve_codes_outliers",
           "solve_codes_bsum", "solve_codes_accurate", "solve_codes_newton",
           "solve_codes_newton_capped", "newton_applicable", "spectral_lipschitz", "bb_step"]
