"""
Denoising faces with outliers
=============================

:class:`~onlinemf.OnlineRobustNMF` models each image as a nonnegative combination of atoms
plus a sparse outlier image. Fitted on corrupted faces, its low-rank part is a denoised face
and its outliers are the corruption (Zhao and Tan 2017, Section VII-D: CBCL faces with
uniform outliers on a fraction of the pixels).
"""


import matplotlib.pyplot as plt
import numpy as np
import scipy.io

from onlinemf import OnlineRobustNMF
from onlinemf.datasets import find_papers_data, render_faces

# %%
# The faces
# ---------
# The CBCL database: 2429 faces of 19 × 19 pixels in [0, 1], one face per column of ``M``.
# Without it, faces rendered under varying light (shipped with onlinemf) stand in.
cbcl = find_papers_data("cbcl_face", "CBCL_Face.mat")
if cbcl is not None:
    M = scipy.io.loadmat(cbcl)["M"]
    shape = (19, 19)
    faces = np.stack([M[:, i].reshape(shape, order="F").ravel() for i in range(M.shape[1])])
    print(f"CBCL: {faces.shape[0]} faces of {shape[0]}×{shape[1]} pixels")
else:
    faces, _ = render_faces(n_subjects=8, n_lights=64, size=24, random_state=0)
    faces = faces / faces.max()
    shape = (24, 24)
    print(f"CBCL not found: using {faces.shape[0]} rendered faces of 24×24 pixels")

# %%
# Corrupt them
# ------------
# In every image, 20% of the pixels get an outlier drawn uniformly from [−1, 1], and the
# result is clipped to [0, 1], as in the paper's experiments.
rng = np.random.default_rng(0)
hit = rng.random(faces.shape) < 0.2
noisy = np.clip(faces + hit * rng.uniform(-1, 1, faces.shape), 0, 1)


def psnr(a, b):
    return 10 * np.log10(1.0 / np.mean((a - b) ** 2))


# %%
# Fit and separate
# ----------------
model = OnlineRobustNMF(n_components=49, random_state=0).fit(noisy)
low_rank, outliers = model.decompose(noisy)
print(f"PSNR against the clean faces: corrupted {psnr(noisy, faces):.1f} dB, "
      f"denoised {psnr(np.clip(low_rank, 0, 1), faces):.1f} dB")

# %%
# Six faces: clean, corrupted, the low-rank part and the outliers, on one grey scale
# (outliers on their own, centred on zero).
show = [0, 1, 2, 3, 4, 5]
rows = [("clean", faces, "gray", 0, 1), ("corrupted", noisy, "gray", 0, 1),
        ("low-rank part", low_rank, "gray", 0, 1), ("outliers", outliers, "RdBu_r", -1, 1)]
fig, axes = plt.subplots(len(rows), len(show), figsize=(8, 6), layout="constrained")
for r, (label, data, cmap, lo, hi) in enumerate(rows):
    for c, i in enumerate(show):
        im = axes[r, c].imshow(data[i].reshape(shape), cmap=cmap, vmin=lo, vmax=hi)
        axes[r, c].set_xticks([])
        axes[r, c].set_yticks([])
    axes[r, 0].set_ylabel(label)
    fig.colorbar(im, ax=axes[r, :], shrink=0.8)
fig.suptitle("Online robust NMF on corrupted faces")
plt.show()
