"""
Fitting an array larger than memory with dask
=============================================

An online estimator needs only one mini-batch at a time, so it can learn from an array that
does not fit in memory. Given a :class:`dask.array.Array`, :class:`~onlinemf.OnlineNMF`
streams it block by block from its store and never loads it whole. Here the store is a
small zarr array written on the fly; a real one would be larger than the machine's memory,
and the code would not change.
"""

import tempfile
from pathlib import Path

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

from onlinemf import OnlineNMF
from onlinemf.datasets import make_nmf_synthetic

# %%
# A zarr array on disk
# --------------------
# 10000 samples of Poisson counts around 10 planted nonnegative components, written in
# chunks of 1000 rows.
data = make_nmf_synthetic(10000, 100, 10, noise="poisson", random_state=0)
store = Path(tempfile.mkdtemp()) / "counts.zarr"
da.from_array(data.X, chunks=(1000, 100)).to_zarr(str(store))
del data

X = da.from_zarr(str(store))          # lazy: nothing is read yet
print(X)

# %%
# Fit from the store
# ------------------
# ``fit`` reads one block at a time (shuffling within a bounded buffer of blocks), and
# ``transform`` returns a lazy dask array that would stream to another store with
# ``codes.to_zarr(...)``.
model = OnlineNMF(n_components=10, loss="kl", random_state=0).fit(X)
codes = model.transform(X)
print(f"{model.n_iter_} passes; codes: {type(codes).__name__} of shape {codes.shape}")

# %%
# The stream is the same from the store as from memory
# -----------------------------------------------------
# ``partial_fit`` takes the rows in order, one mini-batch step after another: from the zarr
# store or from the same rows in memory, it takes the same steps. (``fit`` shuffles only
# within a buffer of blocks from a store, against all rows in memory, so its draws differ.)
streamed = OnlineNMF(n_components=10, loss="kl", random_state=0).partial_fit(X)
in_memory = OnlineNMF(n_components=10, loss="kl", random_state=0).partial_fit(X.compute())
gap = np.abs(streamed.components_ - in_memory.components_).max()
print(f"one pass of partial_fit: largest difference between the dictionaries {gap:.1e}")

fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained")
h = model.history_
ax.plot(h["n_samples"], h["objective"])
ax.set_xlabel("samples processed")
ax.set_ylabel("objective (KL)")
ax.set_yscale("log")
ax.set_title(f"fit streamed from zarr ({model.n_iter_} passes)")
im = bx.imshow(model.components_, aspect="auto", cmap="viridis")
bx.set_xlabel("feature")
bx.set_ylabel("component")
bx.set_title("components_ learned from the store")
fig.colorbar(im, ax=bx)
plt.show()
