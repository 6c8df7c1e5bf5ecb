"""
Topics of BBC News with online NMF
==================================

Online NMF with the Kullback–Leibler divergence finds topics in a corpus of word counts
(Zhao, Tan and Xu 2017, Section VIII-E). We fit :class:`~onlinemf.OnlineNMF` on the BBC News
articles (Greene and Cunningham 2006: 2225 articles in five sections) and show the words that
weigh most in each topic.
"""

# %%
# The data
# --------
# ``bbc.mtx`` holds terms × documents counts; an estimator wants documents as rows. Without
# the data folder, a planted five-topic corpus that ships with onlinemf stands in for it.

import matplotlib.pyplot as plt
import numpy as np
import scipy.io

from onlinemf import OnlineNMF
from onlinemf.datasets import find_papers_data, make_topic_corpus, tfidf_paper

bbc = find_papers_data("bbc", "bbc.mtx")
if bbc is not None:
    counts = scipy.io.mmread(bbc).T.tocsr()                      # documents × terms
    terms = find_papers_data("bbc", "bbc.terms").read_text().split()
    print(f"BBC News: {counts.shape[0]} documents, {counts.shape[1]} terms")
else:
    corpus = make_topic_corpus(n_documents=1000, random_state=0)
    counts, terms = corpus.counts, list(corpus.terms)
    print("BBC News not found: using the embedded planted five-topic corpus "
          f"({counts.shape[0]} documents, {counts.shape[1]} terms)")

# %%
# Fit
# ---
# As in the paper, the counts are weighted by TF-IDF, (1 + log v)·log(n/df), and the 2000
# terms of largest weight are kept; the KL divergence then fits the nonnegative weights.
X, kept = tfidf_paper(counts, n_terms=2000)
terms = [terms[i] for i in kept]
model = OnlineNMF(n_components=5, loss="kl", random_state=0).fit(X)
print(f"{X.shape[0]} documents × {X.shape[1]} terms, {model.n_iter_} passes")

# %%
# The topics
# ----------
# Each row of ``components_`` is a topic: a nonnegative weight per term.
n_top = 8
fig, axes = plt.subplots(1, 5, figsize=(13, 3.6), layout="constrained")
for k, ax in enumerate(axes):
    top = np.argsort(model.components_[k])[::-1][:n_top]
    weights = model.components_[k, top]
    ax.barh(range(n_top), weights[::-1], color="C0")
    ax.set_yticks(range(n_top), [terms[i] for i in top[::-1]])
    ax.set_title(f"topic {k + 1}")
    ax.set_xticks([])
fig.suptitle("Top terms of each topic (online NMF, KL divergence, TF-IDF)")
plt.show()
