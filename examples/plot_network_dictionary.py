"""
Network dictionary of Huckleberry Finn's word adjacency network
===============================================================

:class:`~onlinemf.NetworkDictionaryLearning` samples k-node paths from a network by a Markov
chain, reads the k × k adjacency patch along each, and learns the patches that recur: the
*network dictionary* (Lyu, Needell and Balzano 2020, Section 6). The network here is the
word adjacency network of Mark Twain's *Adventures of Huckleberry Finn*: 211 function words,
weighted by how often one follows another, the network of the paper's Figure 1.
"""


import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from onlinemf import NetworkDictionaryLearning
from onlinemf.datasets import find_papers_data

# %%
# The network
# -----------
# A dense 211 × 211 matrix of co-occurrence counts, symmetrized here. Without the data
# folder, the co-appearance network of the characters of *Les Misérables* (shipped with
# networkx) stands in.
wan = find_papers_data("wan", "twain_1.txt")
if wan is not None:
    A = np.loadtxt(wan)
    G = nx.from_numpy_array(A + A.T)
    print(f"Huckleberry Finn WAN: {G.number_of_nodes()} words, {G.number_of_edges()} edges")
else:
    G = nx.les_miserables_graph()
    print("WAN data not found: using networkx's Les Misérables network "
          f"({G.number_of_nodes()} characters, {G.number_of_edges()} edges)")

# %%
# Learn 16 patches of paths of 10 nodes
# -------------------------------------
ndl = NetworkDictionaryLearning(n_components=16, motif_size=10, random_state=0).fit(G)

# %%
# The patches, most important first, on one colour scale. Entry (i, j) of a patch is the
# typical weight between the i-th and j-th nodes of a sampled path; the path's own edges are
# the first off-diagonal.
order = np.argsort(-ndl.importance_)
vmax = ndl.patches_.max()
fig, axes = plt.subplots(4, 4, figsize=(8, 8.4), layout="constrained")
for ax, k in zip(axes.flat, order):
    im = ax.imshow(ndl.patches_[k], cmap="Greys", vmin=0, vmax=vmax)
    ax.set_title(f"importance {ndl.importance_[k]:.3f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(im, ax=axes, shrink=0.6, label="patch entry")
fig.suptitle("Network dictionary patches, by importance")
plt.show()
