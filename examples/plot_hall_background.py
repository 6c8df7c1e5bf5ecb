"""
Background subtraction on the hall video
========================================

Frames of a surveillance video, one frame per row, are a static background (low rank) plus
people walking by (sparse). :class:`~onlinemf.OnlineRobustNMF` learns the background online
and returns the moving foreground as its outliers (Zhao and Tan 2017, Section VII-F, on the
airport hall sequence of Li et al. 2004).
"""


import matplotlib.pyplot as plt
import numpy as np

from onlinemf import OnlineRobustNMF
from onlinemf.datasets import find_papers_data, make_video

# %%
# The video
# ---------
# 200 grey frames of 144 × 176 pixels, halved to 72 × 88 to keep this example fast. Without
# the data folder, a synthetic video of blocks moving over a textured background stands in.
hall = find_papers_data("hall", "hall1-200_decoded_gray_uint8.npz")
if hall is not None:
    frames = np.load(hall)["frames"].astype(float) / 255.0          # (200, 144, 176)
    frames = frames.reshape(200, 72, 2, 88, 2).mean(axis=(2, 4))   # 2 × 2 pixel averages
    shape = frames.shape[1:]
    X = frames.reshape(len(frames), -1)
    print(f"hall video: {X.shape[0]} frames of {shape[0]}×{shape[1]} pixels")
else:
    X, shape = make_video(n_frames=200, shape=(48, 64), random_state=0)
    X = X / X.max()
    print(f"hall video not found: using a synthetic video of {X.shape[0]} frames of "
          f"{shape[0]}×{shape[1]} pixels")

# %%
# Learn the background
# --------------------
# A few atoms suffice for a static scene under slowly changing light; the outliers take what
# they cannot explain.
model = OnlineRobustNMF(n_components=5, random_state=0).fit(X)
background, foreground = model.decompose(X)

# %%
# Three frames, their background and the magnitude of their foreground. Someone who
# stands still for most of the clip is part of the background, as a low-rank model implies.
show = [40, 110, 180]
fig, axes = plt.subplots(3, len(show), figsize=(9, 6.5), layout="constrained")
for c, t in enumerate(show):
    axes[0, c].imshow(X[t].reshape(shape), cmap="gray", vmin=0, vmax=1)
    axes[0, c].set_title(f"frame {t}")
    axes[1, c].imshow(background[t].reshape(shape), cmap="gray", vmin=0, vmax=1)
    im = axes[2, c].imshow(np.abs(foreground[t]).reshape(shape), cmap="magma", vmin=0,
                           vmax=0.5)
for ax in axes.flat:
    ax.set_xticks([])
    ax.set_yticks([])
for r, label in enumerate(["frame", "background (low rank)", "|foreground| (outliers)"]):
    axes[r, 0].set_ylabel(label)
fig.colorbar(im, ax=axes[2, :], shrink=0.8)
plt.show()
