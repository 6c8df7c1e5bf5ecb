"""Evaluation measures shared by estimators, experiments and benchmarks: the objective and
stationarity of a stochastic matrix factorization problem (Zhao, Haskell and Feng 2018, "A
Unified Framework for Stochastic Matrix Factorization via Variance Reduction",
arXiv:1705.10679) and the network reconstruction measures of network dictionary learning
(Lyu, Needell and Balzano 2020, "Online Matrix Factorization for Markovian Data and
Applications to Network Dictionary Learning", JMLR 21; arXiv:1911.01931)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .coders import solve_codes_accurate
from .graphs import as_adjacency
from .updates import full_gradient

__all__ = ["gradient_mapping", "evaluate", "binarize", "edge_recovery", "denoising_auc"]


def gradient_mapping(problem, D, grad, eta: float) -> np.ndarray:
    """Γ_{f′,η}(D) = (D − prox_{ηψ+δ_C}(D − η∇g(D)))/η, the proximal gradient mapping of Zhao,
    Haskell and Feng (2018); D is ε-stationary when ‖Γ‖²_F ≤ ε."""
    return (D - problem.prox_dictionary(D - eta * grad, eta)) / eta


def evaluate(problem, D, X, *, eta: float = 1.0, tol: float = 1e-8, max_iter: int = 5000,
             chunk_size: int = 2048, map_fn=map, scale_tol: bool = False,
             codes0=None, keep_codes: bool = False) -> dict:
    """f(D) = (1/n)Σℓ(x_i, D) + ψ(D) with accurately solved codes, ∇g(D), and the squared
    stationarity measure ‖Γ_{f′,η}(D)‖²_F, in one pass. ``codes0`` (n, K) warm-starts the
    solves (e.g. the codes of an earlier evaluation, ``keep_codes=True`` returns them as
    "codes"); the result is the same to the tolerance."""
    terms = full_gradient(problem, D, X, tol, chunk_size=chunk_size, max_iter=max_iter,
                          map_fn=map_fn, solver=solve_codes_accurate, scale_tol=scale_tol,
                          codes0=codes0, keep_codes=keep_codes)
    grad = terms.mean_grad
    gamma = gradient_mapping(problem, D, grad, eta)
    out = {"objective": terms.loss / terms.count + problem.psi(D), "grad": grad,
           "stationarity": float(np.sum(gamma * gamma)), "curvature": terms.curvature}
    if keep_codes:  # (a dask X is reduced block by block: no codes come back)
        out["codes"] = np.vstack(terms.codes) if terms.codes else None
    return out


def binarize(R: sp.spmatrix) -> sp.csr_matrix:
    """Edges of a reconstruction for a simple graph: where round(R) > 0."""
    R = sp.csr_matrix(R)
    out = (R >= 0.5).astype(float)
    out.eliminate_zeros()
    return out


def edge_recovery(A, R) -> float:
    """|E(G) ∩ E(Ĝ)| / |E(G)| with Ĝ = :func:`binarize` (R)."""
    E = as_adjacency(A) > 0
    hit = E.multiply(binarize(R) > 0)
    return float(hit.nnz / max(E.nnz, 1))


def denoising_auc(original, noisy, R, pairs, mode: str) -> float:
    """How well the reconstruction R of the noisy graph ranks true pairs above false ones.

    ``mode="add"``: among the noisy graph's edges, the original edges (positives) against the
    added ones (negatives). ``mode="remove"``: among the noisy graph's non-edges, the removed
    edges (positives) against the true non-edges (negatives). Scores are R (symmetrized).
    """
    from sklearn.metrics import roc_auc_score

    R = sp.csr_matrix(R)
    S = R.maximum(R.T).tocsr()
    O = (as_adjacency(original) > 0)
    N = (as_adjacency(noisy) > 0)
    n = O.shape[0]
    if mode == "add":
        i, j = sp.triu(N, k=1).nonzero()
        labels = np.asarray(O[i, j]).ravel()
    else:
        full = np.ones((n, n), bool)
        full[N.toarray()] = False
        i, j = np.nonzero(np.triu(full, k=1))
        labels = np.asarray(O[i, j]).ravel()
    scores = np.asarray(S[i, j]).ravel()
    return float(roc_auc_score(labels.astype(int), scores))
