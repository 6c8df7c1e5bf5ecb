"""
Tracking a Poisson subspace with missing counts
===============================================

Count vectors arrive one at a time, each drawn from a Poisson law whose rate lies in an
unknown nonnegative low-dimensional subspace, and a share of their entries is never
observed. :class:`~onlinemf.PoissonSubspaceTracker` estimates the subspace as the counts
arrive, with memory that does not grow with the stream (Wang and Chi 2016, Section 3.2).
The data are generated, as in the paper's synthetic experiments.
"""

import matplotlib.pyplot as plt
import numpy as np

from onlinemf import PoissonSubspaceTracker

# %%
# A planted subspace
# ------------------
# N = 100 features, rank K = 10, 1000 time steps; D has nonnegative entries scaled so that
# rates are of order ten.
rng = np.random.default_rng(0)
n_features, rank, n_steps = 100, 10, 1000
D = rng.random((n_features, rank)) * 2.0
A = rng.random((n_steps, rank))
Y = rng.poisson(A @ D.T).astype(float)


def subspace_error(estimate, truth):
    """‖(I − P_est) truth‖_F / ‖truth‖_F: the share of the true subspace the estimate misses."""
    q, _ = np.linalg.qr(estimate.T)
    residual = truth - q @ (q.T @ truth)
    return np.linalg.norm(residual) / np.linalg.norm(truth)


# %%
# Track, with 0%, 50% and 80% of the counts missing
# --------------------------------------------------
# Missing entries are NaN; each ``update`` returns the code and the estimated rate of one
# count vector.
curves = {}
for missing in [0.0, 0.5, 0.8]:
    Yobs = Y.copy()
    Yobs[rng.random(Y.shape) < missing] = np.nan
    tracker = PoissonSubspaceTracker(n_components=rank, random_state=0)
    errors = []
    for t, y in enumerate(Yobs):
        tracker.update(y)
        if t % 25 == 0:
            errors.append((t, subspace_error(tracker.components_, D)))
    curves[missing] = np.array(errors)
    print(f"{missing:.0%} missing: final subspace error {errors[-1][1]:.3f}")

# %%
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for missing, curve in curves.items():
    ax.plot(curve[:, 0], curve[:, 1], label=f"{missing:.0%} of the counts missing")
ax.set_xlabel("time step t")
ax.set_ylabel("normalized subspace error")

ax.legend()
ax.set_title("Memory-limited Poisson subspace tracking")
plt.show()
