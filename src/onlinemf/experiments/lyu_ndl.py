"""Experiments of Lyu, Needell and Balzano 2020: online MF on Markovian data and network
dictionary learning."""

from __future__ import annotations

import copy
import os
import re
import time

import numpy as np

from ..estimators import NetworkDictionaryLearning
from ..graphs import path_motif
from ._registry import Context, PieceMissing, Result, pyplot, register, save_figure
from ._verdicts import (
    EXTENSION,
    NOT_MEASURED,
    SPEC,
    at_least,
    at_most,
    claim,
    count_band,
    differs_mark,
    judge,
    ordered,
)

# Figs. 10–12 captions (Example 7.2): ‖Â‖_F and ‖A − Â‖_F on A/max(A), ‖A‖_F = 2.8317 (the
# text beside them prints 3.0394 for depth 1, the caption of Fig. 10 3.0494)
PAPER_WAN = {
    1: (3.0494, 1.0275),
    2: (3.4296, 1.7241),
    3: (4.0459, 2.4928),
}


def _network(ctx):
    path = ctx.data_dir and os.path.join(ctx.data_dir, "wan", "twain_1.txt")
    if path and os.path.exists(path):
        return np.loadtxt(path), "WAN of Adventures of Huckleberry Finn (twain_1)", True
    import networkx as nx

    G = nx.les_miserables_graph()
    return nx.to_numpy_array(G, weight="weight"), "Les Misérables co-occurrence (networkx)", False


@register("lyu-wan", "004", "Network dictionaries and reconstruction of the Huckleberry Finn "
          "word adjacency network (Figs. 10–12)", rejudge=lambda res: _rejudge_wan(res),
          rules=7,  # the diagonal claim's quote and band reason mended since the run
          departures=(
              "The paper is inconsistent about its dictionary: Example 7.2's text learns 36 "
              "patches, the captions of Figs. 10–12 show 45; r = 45 is used. The text prints "
              "‖Â‖_F = 3.0394 where Fig. 10's caption prints 3.0494; the caption's is quoted.",
              "One seed (the implementation's check asks for the average of three)."))
def wan(ctx: Context) -> Result:
    A, src, real = _network(ctx)
    An = A / A.max()
    r = 45
    n_iter, batch, steps = ctx.pick((30, 100, 5000), (300, 100, 50_000), tiny=(3, 50, 300))
    res = Result()
    rows, traces, shares, recoded, absolute, split = [], [], [], [], [], []
    for depth in (1, 2, 3):
        est = NetworkDictionaryLearning(r, motif=path_motif(depth, depth), n_iter=n_iter,
                                        batch_size=batch, alpha=0.6, chain="glauber",
                                        random_state=ctx.seed)
        t0 = time.perf_counter()
        est.fit(An)
        t_fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        # one reconstruction chain, as the paper (n_chains=1; the library default runs 64)
        R = est.reconstruct(An, n_steps=steps, alpha=WAN_ALPHA, n_chains=1, chain="glauber",
                            code_tol=CODE_TOL).toarray()
        t_rec = time.perf_counter() - t0
        # the diagonal's share of the whole mass: a reconstruction inflated overall has a
        # larger trace without a more pronounced diagonal
        traces.append((_trace_share(R), _trace_share(An)))
        absolute.append((np.trace(R) / max(np.trace(An), 1e-300),
                         np.linalg.norm(R) / max(np.linalg.norm(An), 1e-300)))
        shares.append(_diagonal_shares(est, An, ctx.seed) + (traces[-1][0],))
        split.append(_diagonal_split(est, An, steps, ctx.seed, WAN_ALPHA))
        # the reconstruction's own λ: re-coded as learned (0.6) and without the penalty
        recoded.append({lam: _trace_share(est.reconstruct(
            An, n_steps=steps, alpha=lam, n_chains=1, chain="glauber",
            code_tol=CODE_TOL).toarray())
            for lam in RECODE_LAMBDAS})
        norm_r, err = np.linalg.norm(R), np.linalg.norm(An - R)
        paper = PAPER_WAN[depth] if real else ("—", "—")
        rows.append([f"depth-{depth} wedge ({2 * depth + 1}×{2 * depth + 1})",
                     f"{np.linalg.norm(An):.4f}", f"{norm_r:.4f}", paper[0], f"{err:.4f}",
                     paper[1], f"{t_fit:.1f}", f"{t_rec:.1f}"])
        _patch_figure(ctx, res, est, f"lyu_wan_patches_depth{depth}.png",
                      f"Figs. 10–12: the {r} network dictionary patches of the depth-{depth} "
                      f"wedge ({2 * depth + 1}×{2 * depth + 1}), by importance")
    res.tables.append(("Reconstruction of A/max(A): norms and error (paper values where the "
                       "real WAN was used)",
                       ["motif", "‖A‖_F", "‖Â‖_F", "paper ‖Â‖_F", "‖A − Â‖_F",
                        "paper ‖A − Â‖_F", "learn s", "reconstruct s"], rows))
    errs = [float(r_[4]) for r_ in rows]
    norms = [float(r_[2]) for r_ in rows]
    res.claims += _wan_claims(errs, norms if real else None, traces if real else None)
    if not real:
        why = ("no --data-dir given" if not ctx.data_dir else
               f"{os.path.join(ctx.data_dir, 'wan', 'twain_1.txt')} not found")
        res.notes.append(f"**Fell back to Les Misérables**: {why}; the paper's numbers "
                         "need the real WAN (`--data-dir ../shared/data`).")
    res.notes.append(
        f"The diagonal's share of the mass, tr/Σ, along the pipeline (A itself: "
        f"{traces[0][1]:.4f}): " + "; ".join(
            f"depth {d}: the sampled patches {p:.4f}, the learned patches (weighted by their "
            f"importance) {w:.4f}, Â {r_:.4f}" for d, (p, w, r_) in enumerate(shares, 1))
        + f". Â re-codes each sampled patch with the learned patches (λ = {WAN_ALPHA:g}, where "
        "learning used 0.6) and averages the results over the node pairs each chain state "
        "covers: a share that holds from the sampled to the learned patches and falls from "
        "them to Â "
        "is lost in that reconstruction, not in the learning. "
        + _recode_text(recoded, traces[0][1]) + " " + _absolute_text(absolute, traces))
    res.notes.append(_split_text(split, traces[0][1], [p for p, _, _ in shares], WAN_ALPHA))
    res.notes.append(f"Data: {src}, normalized by its maximum; r = {r}, λ = 0.6 to learn and "
                     f"{WAN_ALPHA:g} to reconstruct (the authors' code); {n_iter} online steps "
                     f"of {batch} "
                     f"Glauber states; reconstruction from {steps} steps (the paper uses "
                     "50000). One seed (the implementation's check asks for the average of "
                     "three).")
    return res


#: the reconstruction's code penalties λ tried beside the authors' 0.2: learning's, and none
RECODE_LAMBDAS = (0.6, 0.0)
#: the WAN reconstruction's code penalty λ (the authors' code) and code tolerance, which the
#: reconstruction taken apart (:func:`_diagonal_split`) uses as well
WAN_ALPHA, CODE_TOL = 0.2, 1e-3


def _trace_share(R) -> float:
    """The diagonal's share of a matrix's mass, tr(R)/ΣR."""
    return float(np.trace(R) / max(R.sum(), 1e-300))


def _absolute_text(absolute: list, traces: list) -> str:
    """The diagonal read in absolute terms per depth, tr(Â)/tr(A), beside ‖Â‖_F/‖A‖_F and
    ΣÂ/ΣA (``traces``: the shares tr/Σ of Â and A, from which the mass ratio follows), and
    what the claim's band would read on it: the second reading of 'more pronounced'."""
    verdict = _diagonal_band([(t, 1.0) for t, _ in absolute])[0]
    return ("Read in absolute terms instead, tr(Â)/tr(A): " + "; ".join(
        f"depth {d}: {t:.3f} (‖Â‖_F/‖A‖_F {f:.3f}, ΣÂ/ΣA {t * a / max(r, 1e-300):.3f})"
        for d, ((t, f), (r, a)) in enumerate(zip(absolute, traces), 1))
        + f", which the claim's band ({DIAGONAL_MARGIN:g}× at each depth) would read "
        f"'{verdict}'"
        + (": the diagonal grows, and the mass off it grows more, so its share falls (the "
           "claim reads the share)" if all(t > 1 and r < a for (t, _), (r, a)
                                           in zip(absolute, traces)) else "")
        + ". The claim keeps the share it was set with; this reading is shown beside it.")


def _recode_text(recoded: list, original: float) -> str:
    """Â's diagonal share per depth with the reconstruction's λ of :data:`RECODE_LAMBDAS`,
    and whether any of them reaches ``original``, A's own share."""
    best = max(v for by_lam in recoded for v in by_lam.values())
    text = ("Â's share with the reconstruction's own λ changed (the same chain length): "
            + "; ".join(f"depth {d}: " + ", ".join(f"λ = {lam:g}: {v:.4f}"
                                                   for lam, v in by_lam.items())
                        for d, by_lam in enumerate(recoded, 1)))
    if original <= 0:  # a network without self-loops: no diagonal to lose
        return text + "; A has no diagonal mass."
    return (text + f"; the largest, {best:.4f}, is {best / original:.0%} of A's "
            f"{original:.4f}, so " + ("the reconstruction's λ does not account for the lost "
                                      "diagonal." if best < original else
                                      "a λ other than the authors' keeps A's diagonal share."))


def _diagonal_shares(est, A, seed, n_states: int = 5000) -> tuple[float, float]:
    """The diagonal's share of the mass (trace over sum) of the k×k patches at
    ``n_states`` states of a fresh chain of the fitted NDL ``est`` on the normalized network
    A, and of its learned patches weighted by their importance: where along the pipeline a
    reconstruction's diagonal gains or loses weight."""
    from ..graphs import as_adjacency

    chain = est._chain(as_adjacency(A), est.motif_, seed)
    _, X = chain.sample_patches(n_states)
    k = est.motif_.shape[0]
    P = np.asarray(X).reshape(-1, k, k)
    sampled = float(np.trace(P, axis1=1, axis2=2).sum() / max(P.sum(), 1e-300))
    W, imp = est.patches_, est.importance_
    learned = float(imp @ np.trace(W, axis1=1, axis2=2) / max(imp @ W.sum(axis=(1, 2)),
                                                              1e-300))
    return sampled, learned


def _diagonal_split(est, G, n_steps: int, seed, alpha: float = WAN_ALPHA,
                    chunk: int = 1000) -> dict:
    """The reconstruction's two steps taken apart on a fresh Glauber chain of ``n_steps``
    states on G scaled as :meth:`NetworkDictionaryLearning.reconstruct` scales it (other
    draws than the reconstruction's): the sampled patches averaged over the node pairs they
    cover without coding (which gives G's own entries there), and coded with the learned
    patches (``alpha``, the reconstruction's λ; its solver and tolerance) before the same
    averaging (Â). Of each, the diagonal's share of the mass; from the first to the second,
    the factors by which coding multiplies the mass on the diagonal and off it (NaN where
    the uncoded mass is 0), and the share of the coded mass off the diagonal that lies on
    pairs G does not link."""
    A, top = est._normalized(G)
    n, k = A.shape[0], est.motif_.shape[0]
    chain = est._sampler(A / top, "glauber", 1,
                         np.random.default_rng([seed, 2]).integers(2**31))
    a_idx, b_idx = (i.ravel() for i in np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    raw, coded, count = np.zeros(n * n), np.zeros(n * n), np.zeros(n * n)
    for start in range(0, n_steps, chunk):
        states, X = chain.sample_patches(min(chunk, n_steps - start))
        X = np.asarray(X, dtype=float)
        flat = (states[:, a_idx] * n + states[:, b_idx]).ravel()
        count += np.bincount(flat, minlength=n * n)
        raw += np.bincount(flat, weights=X.ravel(), minlength=n * n)
        coded += np.bincount(flat, weights=est._coded_patches(X, alpha, CODE_TOL).ravel(),
                             minlength=n * n)
    seen = count > 0
    raw[seen] /= count[seen]
    coded[seen] /= count[seen]
    raw, coded = raw.reshape(n, n), coded.reshape(n, n)
    diag = np.eye(n, dtype=bool)
    linked = A.toarray() > 0

    def ratio(a, b):
        return float(a / b) if b > 0 else float("nan")
    off_coded = float(coded[~diag].sum())
    return dict(raw=_trace_share(raw), coded=_trace_share(coded),
                diagonal=ratio(np.trace(coded), np.trace(raw)),
                off=ratio(off_coded, raw[~diag].sum()),
                fill=ratio(coded[~diag & ~linked].sum(), off_coded))


def _split_text(split: list, original: float, sampled: list, alpha: float) -> str:
    """:func:`_diagonal_split` per depth (coded at λ = ``alpha``), and where along the
    reconstruction the diagonal's share moves away from A's ``original``, by the claim's
    margin :data:`DIAGONAL_MARGIN`: the averaging (the uncoded patches' share against A's,
    beside the ``sampled`` patches' own share per depth) or the coding (the coded share
    against the uncoded one)."""
    def factor(v):
        return "—" if not np.isfinite(v) else f"×{v:.3f}"

    def depth(d, s):
        fill = ("" if not np.isfinite(s["fill"]) else
                f", {s['fill']:.0%} of that on pairs A does not link")
        return (f"depth {d}: uncoded {s['raw']:.4f}, coded {s['coded']:.4f} (the diagonal's "
                f"mass {factor(s['diagonal'])}, the mass off it {factor(s['off'])}{fill})")
    text = ("The reconstruction taken apart on a fresh chain of as many states (the "
            "diagonal's share tr/Σ of the sampled patches averaged over the node pairs they "
            f"cover, uncoded, and coded with the learned patches at λ = {alpha:g} before that "
            f"averaging; A: {original:.4f}): "
            + "; ".join(depth(d, s) for d, s in enumerate(split, 1)) + ".")
    if original <= 0:  # a network without self-loops: no diagonal to lose
        return text + " A has no diagonal mass."
    margin = DIAGONAL_MARGIN
    if all(original / margin <= s["raw"] <= original * margin for s in split):
        text += (" Uncoded, the averaging gives A's own entries on the pairs covered and its "
                 "share is A's within the claim's margin at every depth")
        if all(p > original * margin for p in sampled):
            text += (": the sampled patches' larger share (" + ", ".join(
                f"{p:.4f}" for p in sampled) + ") weights each pair by how often the patches "
                "cover it, which the averaging undoes.")
        else:
            text += "."
    else:
        text += (" Uncoded, the averaging leaves a share beyond the claim's margin of A's at "
                 "some depth.")
    if all(s["coded"] * margin < s["raw"] for s in split):
        return text + (" The coding lowers the share by more than that margin at every "
                       "depth: it multiplies the mass off the diagonal by more than the "
                       "diagonal's, so the diagonal is lost in the coding.")
    return text + (" At some depth the coding lowers the share by no more than that margin, "
                   "or raises it.")


def _patch_figure(ctx: Context, res: Result, est, name: str, caption: str) -> None:
    """A fitted NDL's patches drawn by :func:`onlinemf.plotting.plot_ndl_patches` (most
    important first, titled with their importance, one colour scale and its colour bar)."""
    from ..plotting import plot_ndl_patches

    pyplot()  # the non-interactive backend, before the plotting module makes its figure
    save_figure(ctx, res, plot_ndl_patches(est, title=caption.split(": ", 1)[-1]), name,
                caption)


#: ‖A − Â‖_F two values closer than this are a tie (under 2% of ‖A‖_F = 2.8317)
WAN_TIE = 0.05


def _wan_claims(errs, norms=None, traces=None) -> list:
    """The claims of Figs. 10–12 from the three errors ‖A − Â‖_F (depth 1, 2, 3), and, on the
    real WAN, the norms ‖Â‖_F and the diagonal's shares (tr(Â)/ΣÂ, tr(A)/ΣA) per depth."""
    paper_e = " / ".join(f"{PAPER_WAN[d][1]}" for d in (1, 2, 3))
    out = [claim("error grows with the patch size",
                 "1.0275 < 1.7241 < 2.4928 (Figs. 10–12 captions; Example 7.2: errors "
                 "\"tend to drop as we … decrease the patch size\")",
                 " < ".join(f"{e:.4f}" for e in errs), *ordered(errs, tie=WAN_TIE),
                 why=f"the paper's three errors rise by 0.70 and 0.77; a tie margin of "
                     f"{WAN_TIE} is under 2% of ‖A‖_F = 2.8317")]
    if norms is None:
        return out + [claim(what, paper, "real WAN not available", NOT_MEASURED,
                            "needs the real WAN", source=SPEC,
                            why="the paper's numbers are of the real WAN") for what, paper in (
            ("‖A − Â‖_F within 25% of the paper's", paper_e),
            ("‖Â‖_F within 15% of the paper's", "3.0494 / 3.4296 / 4.0459"))]
    e_hits = sum(abs(e - PAPER_WAN[d][1]) <= 0.25 * PAPER_WAN[d][1]
                 for e, d in zip(errs, (1, 2, 3)))
    n_hits = sum(abs(v - PAPER_WAN[d][0]) <= 0.15 * PAPER_WAN[d][0]
                 for v, d in zip(norms, (1, 2, 3)))
    return out + [
        claim("‖A − Â‖_F within 25% of the paper's (an implementation check)",
              f"{paper_e} (Figs. 10–12 captions)", " / ".join(f"{e:.4f}" for e in errs),
              *count_band(e_hits, 3, 2), source=SPEC,
              why="the implementation's regression tolerance (the paper gives one run's "
                  "numbers and no tolerance)"),
        claim("‖Â‖_F within 15% of the paper's (an implementation check)",
              "3.0494 / 3.4296 / 4.0459 (Figs. 10–12 captions)",
              " / ".join(f"{v:.4f}" for v in norms), *count_band(n_hits, 3, 2), source=SPEC,
              why="the implementation's regression tolerance (the paper gives one run's "
                  "numbers and no tolerance)"),
        _diagonal_claim(traces),
    ]


#: a diagonal share within this factor of the original's is a tie, not "more pronounced"
DIAGONAL_MARGIN = 1.1
#: the diagonal claim's name
DIAGONAL = "pronounced diagonal: the diagonal's share of Â above A's, at each depth"


def _diagonal_band(pairs) -> tuple[str, str]:
    """The diagonal claim's band on (reconstruction's, original's) values per depth: each at
    least :data:`DIAGONAL_MARGIN` times the original's; partly at two depths of three."""
    return count_band(sum(r >= DIAGONAL_MARGIN * a for r, a in pairs), len(pairs), 2)


def _diagonal_claim(shares) -> list:
    """Example 7.2's "the diagonal entries in the reconstruction are more pronounced", from
    (tr(Â)/ΣÂ, tr(A)/ΣA) per depth (1, 2, 3); ``None`` where a kept run has no shares."""
    quote = ("\"the diagonal entries in the reconstruction are more pronounced, unlike the "
             "torus reconstruction in Example 7.1\" (Example 7.2, Figs. 10–12)")
    if shares is None:
        return claim(DIAGONAL, quote, "not measured: the kept run recorded tr(Â) > tr(A) only",
                     NOT_MEASURED, "needs the diagonal's share of each reconstruction",
                     why="a larger trace alone is what an Â inflated overall would show")
    return claim(DIAGONAL, quote, ", ".join(f"depth {d}: {r:.6g} vs {a:.6g}"
                                            for d, (r, a) in enumerate(shares, 1)),
                 *_diagonal_band(shares),
                 why="'more pronounced' read as the diagonal's share of the matrix's mass, "
                     f"tr(Â)/ΣÂ against tr(A)/ΣA, at least {DIAGONAL_MARGIN:g}× larger at "
                     "each depth (closer shares are a tie; a larger trace alone "
                     "would pass a reconstruction inflated overall, whose total mass ΣÂ "
                     "exceeds ΣA here)")


def _rejudge_wan(res: Result) -> Result:
    """A kept lyu-wan result judged by the current rules, from its table (errors, norms) and
    its diagonal claim's measured values."""
    rows = res.tables[0][2]
    errs = [float(r[4]) for r in rows]
    real = rows[0][3] != "—"
    import re

    old = {c[0]: c[2] for c in res.claims}
    shares = [(float(a), float(b)) for a, b in re.findall(
        r"depth \d: ([\d.e+-]+) vs ([\d.e+-]+)", old.get(DIAGONAL, ""))] or None
    res.claims = _wan_claims(errs, [float(r[2]) for r in rows] if real else None, shares)
    res.notes = [n.replace(" (B2 asks for the average of three)",
                           " (the implementation's check asks for the average of three)")
                 for n in res.notes]
    return res


#: the control stream of lyu-markov
IID = "i.i.d. states"


def _markov_claims(name, first, t_first, last, T, lowest_gap, growth) -> list:
    """Theorem 4.1 (ii)'s claim (the gap closes) and the implementation's bounded-step check,
    for one stream."""
    measured = (f"{first:.3g} at t = {t_first} → {last:.3g} at t = {T} "
                f"(never below {lowest_gap:.1g})")
    if name == IID:  # the theorem is the Markovian stream's; i.i.d. states are its control
        gap_claim = claim(f"{name}: f̂_t(W_t) − f_t(W_t) → 0",
                          "\"f_t(W_t) − f̂_t(W_t) → 0 as t → ∞ almost surely\" (Theorem 4.1 "
                          "(ii))", measured + " (a control)", NOT_MEASURED, "not judged",
                          why="Theorem 4.1 (ii) is one claim, judged on the Markovian stream; "
                              "the i.i.d. stream is the classical case it extends, shown as a "
                              "control and not counted a second time")
    else:
        gap_claim = claim(f"{name}: f̂_t(W_t) − f_t(W_t) → 0",
                          "\"f_t(W_t) − f̂_t(W_t) → 0 as t → ∞ almost surely\" (Theorem 4.1 "
                          "(ii))", measured,
                          judge(last <= 0.1 * first and lowest_gap >= -1e-9,
                                last <= 0.2 * first and lowest_gap >= -1e-9),
                          "reproduced if the final gap ≤ 10% of the first and f̂ ≥ f "
                          "throughout; partly if ≤ 20% (within ×2) and f̂ ≥ f throughout",
                          why="a finite run shows a limit as a gap that shrinks by an order of "
                              "magnitude; f̂_t ≥ f_t holds at every t (Proposition 7.1 (ii))")
    return [
        gap_claim,
        claim(f"{name}: t‖W_t − W_(t−1)‖_F bounded (κ₁ > 0)",
              "bounded (an implementation check of the step size the proofs use)",
              "max over the last quarter of the checkpoints / max over the second = "
              f"{growth:.2f}", *at_most(growth, 1.5, 3.0, "that ratio"), source=SPEC,
              why="a bounded sequence does not grow between the second and the last quarter "
                  "of the run; 1.5 allows noise"),
    ]


def _rejudge_markov(res: Result) -> Result:
    """A kept lyu-markov result judged by the current rules, from its table and the
    checkpoints its claims name."""
    import re

    firsts = {c[0].split(":")[0]: c[2] for c in res.claims if "→ 0" in c[0]}
    claims = []
    for name, first, _, last, low, growth in res.tables[0][2]:
        m = re.search(r"at t = (\d+) → \S+ at t = (\d+)", firsts[name])
        claims += _markov_claims(name, float(first), int(m.group(1)), float(last),
                                 int(m.group(2)), float(low), float(growth))
    res.claims = claims
    return res


def _markov_run(mats, chain, k, checkpoints, seed):
    """OMF along ``chain`` (state indices into ``mats``), read at the ``checkpoints`` (sorted
    steps ≥ 2): the surrogate f̂_t(W_t), the empirical loss f_t(W_t) (exact: the stream visits
    finitely many matrices) and t‖W_t − W_{t−1}‖_F. The steps between checkpoints go in one
    ``partial_fit`` call (one OMF step per matrix, as one call each would)."""
    from ..estimators import OnlineDictionaryLearning

    rows = mats[0].shape[0]
    est = OnlineDictionaryLearning(k, alpha=0.05, dict_l2=0.01, batch_size=rows,
                                   random_state=seed)
    out, prev = [], 0
    for t in checkpoints:
        if t - 1 > prev:
            est.partial_fit(np.vstack([mats[s] for s in chain[prev:t - 1]]))
        before = est.components_.copy()
        est.partial_fit(mats[chain[t - 1]])
        prev = t
        seen = np.bincount(chain[:t], minlength=len(mats))
        f_t = sum(c * est.empirical_loss(m) for c, m in zip(seen, mats) if c) / t
        out.append((t, est.surrogate_loss(), f_t,
                    t * float(np.linalg.norm(est.components_ - before))))
    return np.array(out)


@register("lyu-markov", "004 §9 B4", "Online MF on Markovian data: the surrogate and the "
          "empirical loss meet (Theorem 4.1 (ii)) on a sticky chain",
          rejudge=lambda res: _rejudge_markov(res))
def markov(ctx: Context) -> Result:
    from ..constraints import project_nonneg_l2_ball

    rng = np.random.default_rng(ctx.seed)
    n_states, rows, d, k = ctx.pick((4, 10, 20, 4), (5, 20, 40, 6), tiny=(3, 6, 10, 3))
    T = ctx.pick(1000, 30_000, tiny=200)
    atoms = project_nonneg_l2_ball(rng.random((k, d)))
    mats = [rng.gamma(0.5, 1.0, size=(rows, k)) @ atoms for _ in range(n_states)]
    checkpoints = sorted({int(v) for v in np.geomspace(10, T, 25)})
    chains = {}
    s, sticky = 0, []
    for _ in range(T):  # nearly periodic: stay with probability 0.95, else the next state
        sticky.append(s)
        if rng.random() > 0.95:
            s = (s + 1) % n_states
    chains["sticky chain (stay 0.95)"] = np.array(sticky)
    chains[IID] = rng.integers(n_states, size=T)
    res = Result()
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    rows_out = []
    for name, chain in chains.items():
        tr = _markov_run(mats, chain, k, checkpoints, ctx.seed)
        steps = tr[:, 3]
        gap = tr[:, 1] - tr[:, 2]
        axes[0].loglog(tr[:, 0], tr[:, 1], label=f"f̂_t, {name}")
        axes[0].loglog(tr[:, 0], tr[:, 2], "--", label=f"f_t, {name}")
        axes[1].loglog(tr[:, 0], np.maximum(gap, 1e-16), label=name)
        axes[2].loglog(tr[:, 0], steps, "o-", ms=3, label=name)
        q = len(steps) // 4
        growth = float(steps[3 * q:].max() / max(steps[q:2 * q].max(), 1e-300))
        rows_out.append([name, f"{gap[0]:.4g}", f"{gap[len(gap) // 2]:.4g}", f"{gap[-1]:.4g}",
                         f"{gap.min():.2g}", f"{growth:.2f}"])
        res.claims += _markov_claims(name, float(gap[0]), int(tr[0, 0]), float(gap[-1]), T,
                                     float(gap.min()), growth)
    axes[0].set(xlabel="t", title="surrogate and empirical loss")
    axes[1].set(xlabel="t", title="f̂_t(W_t) − f_t(W_t)")
    axes[2].set(xlabel="t", title="t‖W_t − W_(t−1)‖_F")
    for ax in axes:
        ax.legend(fontsize=6)
    save_figure(ctx, res, fig, "lyu_markov.png", "Surrogate versus empirical loss on a "
                "Markovian and an i.i.d. stream")
    res.tables.append(("Gap f̂_t − f_t at the first, middle and last checkpoint",
                       ["stream", "first", "middle", "last", "min", "step growth"], rows_out))
    res.notes.append(f"{n_states} fixed nonnegative {rows}×{d} matrices of rank {k}; the stream "
                     f"shows one per step for T = {T} steps; OMF with r = {k}, λ = 0.05, "
                     "κ₁ = 0.01, β = 1. f_t is exact: the stream visits finitely "
                     "many matrices, so f_t(W) = Σ_s (visits of s / t)·ℓ(X_s, W).")
    return res


# a prototype run of the one-sweep-per-frame protocol (the implementation's baseline), not
# the paper's: the paper shows images only
ISING_PROTOTYPE = {0.5: 0.1976, 2.26: 0.4557, 5.0: 0.6281}
ISING_TIE = 0.02  # relative reconstruction errors closer than this are a tie


def _ising_protocol(T, size, p, frames, per_frame, r, sampler, updates, seed):
    """Learn r atoms from ``frames`` Markov frames of an Ising chain at temperature T (one OMF
    step of ``per_frame`` random p×p patches per frame, ``updates`` sampler calls between
    frames), then reconstruct a fresh configuration of an independent chain from all its
    patches. Returns (relative error, sites wrong at 0.5, learn s, atoms, y, ŷ)."""
    from sklearn.feature_extraction.image import (
        extract_patches_2d,
        reconstruct_from_patches_2d,
    )

    from ..datasets import IsingLattice
    from ..estimators import OnlineDictionaryLearning

    rng = np.random.default_rng(seed)
    lat = IsingLattice(size, T, sampler=sampler, random_state=int(rng.integers(2**31)))
    odl = OnlineDictionaryLearning(r, alpha=1.0, batch_size=per_frame, random_state=seed)
    t0 = time.perf_counter()
    for _ in range(frames):  # the frames form a Markov chain; one OMF step per frame
        lat.run(updates)
        P = extract_patches_2d(lat.image(), (p, p), max_patches=per_frame,
                               random_state=int(rng.integers(2**31)))
        odl.partial_fit(P.reshape(per_frame, -1))
    t_fit = time.perf_counter() - t0
    fresh = IsingLattice(size, T, sampler=sampler, random_state=int(rng.integers(2**31)))
    fresh.run(frames * updates)
    y = fresh.image()
    Q = extract_patches_2d(y, (p, p)).reshape(-1, p * p)
    yhat = reconstruct_from_patches_2d((odl.transform(Q) @ odl.components_).reshape(-1, p, p),
                                       y.shape)
    rel = float(np.linalg.norm(y - yhat) / np.linalg.norm(y))
    wrong = float(np.mean((yhat >= 0.5) != (y >= 0.5)))
    order = np.argsort(-odl.code_sums_)[:16]
    atoms = np.block([[np.pad(odl.components_[order[4 * i + j]].reshape(p, p), 1)
                       for j in range(4)] for i in range(4)])
    return rel, wrong, t_fit, atoms, y, yhat


@register("lyu-ising", "004", "Dictionaries learned from Ising Gibbs chains at T = 0.5, 2.26, 5 "
          "(Figs. 4–7)", departures=(
              "The paper runs its chains '5×10^6 iterations', 'recording every 1000 "
              "iterations' into a 200 × 200 × 500 array (§5.3): those numbers disagree (5000 "
              "frames, not 500). This report's run of the paper's protocol keeps the 500 "
              "frames and the 1000 single-site updates between them, 5 × 10^5 updates in all "
              "(12.5 sweeps of the lattice).",
              "Each frame's step codes 1000 of its 20 × 20 patches drawn at random, as the "
              "authors' code does, where §5.3 codes all 32761 of them; the effect is not "
              "measured."))
def ising(ctx: Context) -> Result:
    size, p, frames, per_frame, r = ctx.pick((48, 8, 30, 200, 25), (200, 20, 125, 1000, 100),
                                             tiny=(16, 4, 5, 50, 16))
    temps = (0.5, 2.26, 5.0)
    # the simplified protocol (one checkerboard sweep per frame) and, at paper scale,
    # the paper's: 500 frames recorded every 1000 single-site heat-bath updates from i.i.d.
    # spins (the authors' code: 500 frames, 1000 random patches per step)
    protocols = [("checkerboard sweep per frame (a simplified protocol)", "checkerboard",
                  frames, 1)]
    if not ctx.quick:
        protocols.append(("paper: 1000 heat-bath updates per frame", "heat-bath", 500, 1000))
    res = Result()
    plt = pyplot()
    fig, axes = plt.subplots(3, 3, figsize=(9, 9))
    for pi, (label, sampler, n_frames, updates) in enumerate(protocols):
        rows, errs = [], []
        for ti, T in enumerate(temps):
            rel, wrong, t_fit, atoms, y, yhat = ctx.memo(
                f"lyu-ising-{sampler}-{T}", lambda T=T, sampler=sampler, n_frames=n_frames,
                updates=updates, ti=ti: _ising_protocol(T, size, p, n_frames, per_frame, r,
                                                        sampler, updates, ctx.seed + ti))
            errs.append(rel)
            rows.append([T, f"{rel:.4f}", f"{wrong:.4f}", f"{t_fit:.1f}"])
            if pi == 0:
                for ax, im, title in zip(axes[ti], (atoms, y, yhat),
                                         (f"T={T}: 16 atoms", "configuration",
                                          "reconstruction")):
                    ax.imshow(im, cmap="gray")
                    ax.set_title(title, fontsize=8)
                    ax.axis("off")
        res.tables.append((f"{label}: reconstruction of a fresh configuration",
                           ["T", "relative error", "sites wrong at 0.5", "learn s"], rows))
        if pi == 0 and len(protocols) > 1:  # the paper's protocol below judges the sentence
            verdict = (NOT_MEASURED, "not judged here: the paper's protocol below is judged")
        else:
            verdict = ordered(errs, tie=ISING_TIE)
        res.claims.append(claim(f"error ordered by temperature ({label})",
                                "\"most effective in reconstructing the original image at the "
                                "low temperature T = 0.5, and becomes less effective for "
                                "higher temperatures, especially at T = 5\" (§5.3, Figs. 5–7)",
                                " < ".join(f"{e:.3f}" for e in errs), *verdict,
                                why="the paper's words are an order over the three "
                                    f"temperatures; relative errors within {ISING_TIE} are "
                                    "a tie (the paper shows images, no numbers); one sentence "
                                    "is judged once, on the paper's own protocol where it "
                                    "runs"))
        if pi == 0 and not ctx.quick:  # the prototype's baselines hold at 200×200 only
            near = sum(abs(e - ISING_PROTOTYPE[T]) <= 0.05 for e, T in zip(errs, temps))
            res.claims.append(claim("relative errors within ±0.05 of the implementation's "
                                    "prototype run (the paper shows images only)",
                                    " / ".join(str(v) for v in ISING_PROTOTYPE.values())
                                    + " (a prototype run, not the paper's)",
                                    " / ".join(f"{e:.4f}" for e in errs),
                                    *count_band(near, 3, 2), source=SPEC,
                                    why="a regression check against a prototype of this "
                                        "protocol; the paper gives no number"))
    path = ctx.figure_path("lyu_ising.png")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    res.figures.append(("Atoms, a fresh configuration and its reconstruction per temperature "
                        "(the simplified protocol)", path))
    res.notes.append(f"Lattice {size}×{size}, periodic; {per_frame} random {p}×{p} patches in "
                     f"{{0, 1}} per frame and one OMF step, r = {r}, λ = 1; the fresh "
                     "configuration comes from an independent chain run as long. The paper's "
                     "protocol codes all 32761 patches of each frame; both protocols here use "
                     "1000 random ones per step, as the authors' code does.")
    return res


@register("lyu-torus", "004 Example 7.1, Fig. 8",
          "The 10×10 torus with the wedge motif: exact dictionary and reconstruction")
def torus(ctx: Context) -> Result:
    import networkx as nx

    from ..graphs import GlauberChain, as_adjacency, star_motif

    G = nx.grid_2d_graph(10, 10, periodic=True)
    A = as_adjacency(G)
    Ad = A.toarray()
    res = Result()
    n_hom = int(np.einsum("ab,ac->", Ad, Ad))
    res.claims.append(claim("#Hom(wedge, torus), n = 10",
                            "\"there are N = 9n² homomorphisms F → G\" = 900 (Example 7.1)",
                            f"{n_hom} (a paper erratum: Σ_v deg(v)² = 16n² = 1600)",
                            judge(n_hom == 900), "reproduced if = 9n² = 900",
                            why="the paper's count is exact; a wedge maps its centre to any of "
                                "the n² nodes and each leaf to any of its 4 neighbours, 16n² "
                                "in all, which the enumeration confirms: the paper's 9n² is "
                                "an erratum, not reproduced"))
    res.claims.append(claim("#Hom(wedge, torus) = Σ_v deg(v)² = 16n² (the corrected count)",
                            "16n² = 1600 (the erratum's correction, not the paper's number)",
                            str(n_hom), judge(n_hom == 1600), "reproduced if = 1600",
                            source=SPEC, why="the count of wedge homomorphisms into a "
                                             "4-regular graph on n² nodes"))
    F = star_motif(3)
    AF = F + F.T
    _, X = GlauberChain(A, F, random_state=ctx.seed).sample_patches(500)
    same = bool(np.all(X == AF.ravel()))
    res.claims.append(claim("every wedge patch equals A_F",
                            "\"the corresponding F-patch of G is always identical to A_F\" "
                            "(Example 7.1, eq. (43))", str(same),
                            judge(same), "reproduced if all 500 patches equal A_F",
                            why="the paper's 'always'"))
    ndl = NetworkDictionaryLearning(9, 3, motif="star", n_iter=50, batch_size=50, alpha=0.5,
                                    chain="glauber", random_state=ctx.seed).fit(G)
    D = ndl.components_
    cos = D @ AF.ravel() / (np.linalg.norm(D, axis=1) * np.linalg.norm(AF) + 1e-300)
    equal = ndl.importance_[cos > 1 - 1e-9]
    aligned = float(equal.sum())
    shared = ("" if len(equal) < 2 else f" (shared by {len(equal)} identical atoms: "
              + ", ".join(f"{x:.4f}" for x in equal) + ", where the paper's figure has one)")
    res.claims.append(claim("importance of the atoms equal to A_F",
                            "\"the importance of the bottom right dictionary is 1, as "
                            "expected\" (Example 7.1, Fig. 8)",
                            f"{aligned:.4f}{shared}",
                            *at_least(aligned, 0.99, 0.9, "importance"),
                            why="the paper prints 1 to two decimals; 0.99 is its rounding; "
                                "the importance is summed over the atoms equal to A_F, since "
                                "identical atoms split one atom's weight between them"))
    # B1 asks for exactness: a tight code tolerance (the default 1e-3 is for speed)
    R = ndl.reconstruct(G, n_steps=5000, alpha=0.0, code_tol=1e-12, n_chains=1,
                          chain="glauber")
    Rc = R.tocoo()
    err = float(np.abs(Rc.data - Ad[Rc.row, Rc.col]).max())
    res.claims.append(claim("max reconstruction error on visited entries (NNLS)",
                            "\"we obtain a perfect reconstruction\" (Example 7.1, Fig. 8)",
                            f"{err:.1e}", *at_most(err, 1e-8, None, "max error"),
                            why="'perfect' read as exact up to the solver's tolerance; a "
                                "reconstruction short of that is not perfect, so no partly"))
    _patch_figure(ctx, res, ndl, "lyu_torus_patches.png",
                  "Fig. 8: the 3×3 patches of the torus with their importance")
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.8), layout="constrained")
    top = max(float(Ad.max()), float(R.max()), 1e-12)
    for ax, M, title in zip(axes, (Ad, R.toarray()), ("original", "reconstructed")):
        im = ax.imshow(M, cmap="viridis", vmin=0.0, vmax=top, interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.colorbar(im, ax=list(axes), label="edge weight", shrink=0.9)
    save_figure(ctx, res, fig, "lyu_torus.png",
                "Fig. 8: original and reconstructed adjacency of the torus, on one colour scale")
    return res


def _gray_image(path=None, name="china.jpg", shrink=1):
    """A grayscale image in [0, 1]: from ``path`` when given, else one of scikit-learn's
    embedded sample images; every ``shrink``-th pixel."""
    if path:
        from matplotlib.image import imread

        img = np.asarray(imread(path), dtype=float)
    else:
        from sklearn.datasets import load_sample_image

        img = load_sample_image(name).astype(float)
    if img.ndim == 3:
        img = img[..., :3].mean(axis=2)
    img = img[::shrink, ::shrink]
    return (img - img.min()) / max(np.ptp(img), 1e-12)


def _find_images(data_dir):
    if not data_dir:
        return []
    folder = os.path.join(data_dir, "escher")
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if f.lower().endswith((".jpg", ".jpeg", ".png")))


#: how far above the better of the unlearned controls the learned atoms' reconstruction must
#: be, in dB: 3 dB halves the squared error ("reproduced"), 1 dB lowers it by a fifth ("partly")
ABOVE_CONTROL, ABOVE_CONTROL_PARTLY = 3.0, 1.0
#: the controls, atoms that nothing was learned into (same number, same set, same coder)
CONTROLS = ("random atoms", "unlearned patches")


def _image_claim(what, paper, psnr, controls, full, partial):
    """One of Fig. 3's reconstructions against the same coder with unlearned atoms
    (``controls``: name → PSNR, empty when the run did not measure them)."""
    why = ("the paper shows the images without a number and credits the reconstruction to the "
           f"dictionary's \"basic local geometry\": {full:g} dB is read as a close "
           f"reconstruction of an 8-bit image, {partial:g} dB as a visible but recognizable "
           "one, and atoms nothing was learned into must do clearly worse (as many random "
           "nonnegative unit-norm atoms, and as many patches of the training image drawn "
           "at random and scaled to unit norm, with the same coder; the better of the two): "
           f"{ABOVE_CONTROL:g} dB above it halves the squared error, "
           f"{ABOVE_CONTROL_PARTLY:g} dB lowers it by a fifth")
    band = (f"reproduced if PSNR ≥ {full:g} dB and ≥ {ABOVE_CONTROL:g} dB above the better "
            f"control; partly if ≥ {partial:g} dB and ≥ {ABOVE_CONTROL_PARTLY:g} dB above it")
    missing = [name for name in CONTROLS if name not in controls]
    if missing:
        return claim(what, paper, f"PSNR {psnr:.1f} dB; not measured: {', '.join(missing)}",
                     NOT_MEASURED, band, why=why)
    gain = psnr - max(controls.values())
    shown = ", ".join(f"{name} {v:.1f} dB" for name, v in controls.items())
    return claim(what, paper, f"PSNR {psnr:.1f} dB ({shown}; {gain:+.1f} dB over the better)",
                 judge(psnr >= full and gain >= ABOVE_CONTROL,
                       psnr >= partial and gain >= ABOVE_CONTROL_PARTLY), band, why=why)


#: the training image's PSNR thresholds (reproduced, partly), dB
TRAIN_PSNR = (20.0, 15.0)


def _image_claims(psnr_train: float, psnr_other: float, controls_train: dict | None = None,
                  controls_other: dict | None = None) -> list:
    """Fig. 3's two reconstructions, from their PSNRs (dB) and those of the controls."""
    return [_image_claim("reconstruction of the training image",
                         "original and reconstruction side by side, no number (Fig. 3)",
                         psnr_train, controls_train or {}, *TRAIN_PSNR),
            _image_claim("another image with the same dictionary",
                         "\"they are able to approximately reconstruct Renoir's painting as "
                         "well\" (Fig. 3)", psnr_other, controls_other or {}, 18.0, 14.0)]


def _rejudge_image(res: Result) -> Result:
    """A kept lyu-image result judged by the current rules, from its measured PSNRs."""
    (a, ca), (b, cb) = (_parse_image_claim(c[2]) for c in res.claims)
    res.claims = _image_claims(a, b, ca, cb)
    return res


def _parse_image_claim(text: str) -> tuple[float, dict]:
    """A reconstruction claim's measured PSNR and its controls' (name → dB)."""
    controls = {name: float(m.group(1)) for name in CONTROLS
                if (m := re.search(re.escape(name) + r" ([-\d.]+) dB", text))}
    return float(text.split()[1]), controls


def _image_later(res: Result, ctx: Context) -> Result:
    """A lyu-image result with the what-if reading (:func:`_image_what_if`) where its piece
    is kept, against the result's PSNR and controls of the training image (as its claim
    states them), in place of any earlier reading."""
    psnr, controls = _parse_image_claim(res.claims[0][2])
    res.notes = [n for n in res.notes if not n.startswith(WHAT_IF)]
    try:
        w = _what_if_piece(ctx, lambda: _image_pair(ctx)[0])
    except PieceMissing:
        return res
    res.notes.append(_what_if_note(ctx, w, psnr, controls))
    res.claims[0] = _alpha_edge(res.claims[0], w["alpha"])
    return res


def _alpha_edge(row: list, alpha: dict) -> list:
    """The training image's claim ``row`` flagged where the authors' code's ℓ1 weight
    (``alpha``: the what-if's PSNRs at α = :data:`AUTHORS_ALPHA`, learned and controls),
    judged by the same band, gives another verdict (the claim's own stands)."""
    other = _image_claim(row[0], row[1], alpha["learned"],
                         {name: alpha[name] for name in CONTROLS}, *TRAIN_PSNR)[3]
    mark = differs_mark(other, row[3], "the ℓ1 weight's")
    if not mark or "with the authors' code's α" in row[2]:
        return row
    return [row[0], row[1], row[2] + f"; with the authors' code's α = {AUTHORS_ALPHA:g} it "
            f"reads {other}" + mark, *row[3:]]


#: the patch side (10×10 patches, as the paper's) and the coder's ℓ1 weight of the run
PATCH, ALPHA = 10, 0.1
#: the authors' code's ℓ1 weight (its α = 2, λ = 4; the paper states none)
AUTHORS_ALPHA = 2.0
#: the what-if's learning budget, as a multiple of the run's steps
MORE_STEPS = 10


def _image_pair(ctx: Context) -> tuple:
    """The training image, the other image and their names: the paper's paintings from
    ``--data-dir``/escher when present, else scikit-learn's two sample photographs."""
    found = _find_images(ctx.data_dir)
    shrink = ctx.pick(4, 1, tiny=8)
    if len(found) >= 2:
        first, second = (_gray_image(p, shrink=shrink) for p in found[:2])
        return first, second, [os.path.basename(p) for p in found[:2]]
    first, second = (_gray_image(name=n, shrink=shrink) for n in ("china.jpg", "flower.jpg"))
    return first, second, ["china.jpg (scikit-learn)", "flower.jpg (scikit-learn)"]


def _image_budget(ctx: Context) -> tuple[int, int]:
    """The run's number of atoms r and of learning steps (the paper's 500 at its scale)."""
    return ctx.pick(49, 100, tiny=9), ctx.pick(200, 500, tiny=20)


def _learn_patches(image, r: int, n_iter: int, seed, alpha: float = ALPHA):
    """Online dictionary learning of ``r`` atoms from ``n_iter`` steps of 10 i.i.d. random
    10×10 patches of ``image`` (the paper's Fig. 3 protocol)."""
    from sklearn.feature_extraction.image import extract_patches_2d

    from ..estimators import OnlineDictionaryLearning

    rng = np.random.default_rng(seed)
    odl = OnlineDictionaryLearning(r, alpha=alpha, batch_size=10, random_state=seed)
    for _ in range(n_iter):
        P = extract_patches_2d(image, (PATCH, PATCH), max_patches=10,
                               random_state=int(rng.integers(2**31)))
        odl.partial_fit(P.reshape(-1, PATCH * PATCH))
    return odl


def _controls(odl, image, seed) -> dict:
    """``odl`` with atoms nothing was learned into, as many, nonnegative and of unit norm,
    so that a reconstruction is credited to what was learned: random ones, and patches of
    the training ``image`` drawn at random."""
    from sklearn.feature_extraction.image import extract_patches_2d

    r, p = odl.components_.shape[0], PATCH
    random_atoms = np.abs(np.random.default_rng([seed, 3]).standard_normal((r, p * p)))
    patches = extract_patches_2d(image, (p, p), max_patches=r,
                                 random_state=int(np.random.default_rng([seed, 4])
                                                  .integers(2**31))).reshape(r, p * p)
    models = {}
    for name, atoms in zip(CONTROLS, (random_atoms, patches)):
        models[name] = copy.deepcopy(odl)
        models[name].components_ = atoms / np.maximum(
            np.linalg.norm(atoms, axis=1, keepdims=True), 1e-12)
    return models


def _reconstruct(model, image) -> tuple:
    """Every 10×10 patch of ``image`` coded by ``model`` and averaged back: the image and
    its PSNR (dB)."""
    from sklearn.feature_extraction.image import (
        extract_patches_2d,
        reconstruct_from_patches_2d,
    )

    Q = extract_patches_2d(image, (PATCH, PATCH)).reshape(-1, PATCH * PATCH)
    rec = reconstruct_from_patches_2d((model.transform(Q) @ model.components_).reshape(
        -1, PATCH, PATCH), image.shape)
    return rec, -10 * np.log10(max(float(np.mean((rec - image) ** 2)), 1e-300))


def _image_what_if(image, r: int, n_iter: int, seed) -> dict:
    """The training image's reconstruction PSNR (dB) under two changes to the run, one at a
    time: ``MORE_STEPS`` times the learning steps, and the authors' code's ℓ1 weight
    (learned atoms and both controls coded with it)."""
    longer = _learn_patches(image, r, MORE_STEPS * n_iter, seed)
    out = {"steps": {"learned": _reconstruct(longer, image)[1]}}
    odl = _learn_patches(image, r, n_iter, seed, alpha=AUTHORS_ALPHA)
    out["alpha"] = {name: _reconstruct(model, image)[1]
                    for name, model in {"learned": odl, **_controls(odl, image, seed)}.items()}
    return out


#: how the what-if reading's note begins
WHAT_IF = "What moves the training image's margin over its controls"


def _what_if_piece(ctx: Context, image) -> dict:
    """The what-if piece (:func:`_image_what_if`; ``image()`` makes the training image where
    it is computed); raises PieceMissing where it is not kept in a kept-only read."""
    r, n_iter = _image_budget(ctx)
    return ctx.memo("lyu-image-what-if", lambda: _image_what_if(image(), r, n_iter, ctx.seed))


def _what_if_note(ctx: Context, w: dict, psnr: float, controls: dict) -> str:
    """The training image's claim under the what-if changes (``w``: the piece of
    :func:`_image_what_if`), against its measured PSNR and controls."""
    _, n_iter = _image_budget(ctx)
    best = max(controls.values())
    steps = w["steps"]["learned"]
    alpha = w["alpha"]
    a_best = max(alpha[name] for name in CONTROLS)
    return (f"{WHAT_IF} (an untimed piece): "
            f"with {MORE_STEPS}× the learning steps ({MORE_STEPS * n_iter} × 10 patches) the "
            f"learned atoms reach {steps:.1f} dB against {psnr:.1f} dB, {steps - best:+.1f} dB "
            f"over the better control ({best:.1f} dB, unchanged: its atoms are not learned); "
            f"with the authors' code's ℓ1 weight α = {AUTHORS_ALPHA:g} in place of {ALPHA:g} "
            f"(the paper states none), learned {alpha['learned']:.1f} dB, "
            + ", ".join(f"{name} {alpha[name]:.1f} dB" for name in CONTROLS)
            + f": {alpha['learned'] - a_best:+.1f} dB over the better.")


@register("lyu-image", "004 Fig. 3",
          "A dictionary of 10×10 image patches, and reconstructions of the image and of another",
          rejudge=lambda res: _rejudge_image(res), later=lambda res, ctx: _image_later(res, ctx),
          departures=("Without the paper's Escher and Renoir images in the data folder, "
                      "scikit-learn's sample photographs stand in for them; the PSNR "
                      "thresholds are the implementation's (the paper shows images only).",
                      "The coder's ℓ1 weight is α = 0.1, this implementation's choice: the "
                      "paper states none, and the authors' code uses α = 2. A note reads the "
                      "training image with α = 2 beside the run; the verdicts rest on 0.1."))
def image_dictionary(ctx: Context) -> Result:
    import sklearn.feature_extraction.image  # noqa: F401  (imported outside the timing)

    first, second, names = _image_pair(ctx)
    r, n_iter = _image_budget(ctx)
    t0 = time.perf_counter()
    odl = _learn_patches(first, r, n_iter, ctx.seed)  # 10 i.i.d. random patches per step
    t_learn = time.perf_counter() - t0
    res = Result()
    models = {"learned": odl, **_controls(odl, first, ctx.seed)}
    recon, psnr = [], {name: [] for name in models}
    for img in (first, second):
        for name, model in models.items():
            rec, value = _reconstruct(model, img)
            psnr[name].append(value)
            if name == "learned":
                recon.append((rec, value))
    controls = [{name: psnr[name][i] for name in CONTROLS} for i in range(2)]
    res.claims += _image_claims(recon[0][1], recon[1][1], *controls)
    res.tables.append(("Setting", ["images", "atoms", "steps × patches", "learning time (s)"],
                       [[" → ".join(names), str(r), f"{n_iter} × 10", f"{t_learn:.1f}"]]))
    res.tables.append(("Reconstruction PSNR (dB): the learned atoms against as many atoms "
                       "nothing was learned into (nonnegative, unit norm), same coder",
                       ["image", "learned", *CONTROLS, "learned − the better control"],
                       [[name, *(f"{psnr[m][i]:.1f}" for m in models),
                         f"{psnr['learned'][i] - max(controls[i].values()):+.1f}"]
                        for i, name in enumerate(names)]))
    from ..plotting import plot_ndl_patches

    plt = pyplot()
    importance = odl.code_sums_ / max(float(odl.code_sums_.sum()), 1e-300)
    save_figure(ctx, res, plot_ndl_patches(
        odl.components_.reshape(r, PATCH, PATCH), importance, cmap="gray",
        title="10×10 image patches by importance (share of the code mass)"),
        "lyu_image_atoms.png", "Fig. 3: the learned patch dictionary, by importance")
    fig, axes = plt.subplots(1, 3, figsize=(11, 4.2), layout="constrained")
    panels = [(first, "original"), (recon[0][0], f"reconstruction ({recon[0][1]:.1f} dB)"),
              (recon[1][0], f"other image ({recon[1][1]:.1f} dB)")]
    for ax, (im, title) in zip(axes, panels):
        ax.imshow(im, cmap="gray")
        ax.set_title(title, fontsize=8)
        ax.axis("off")
    save_figure(ctx, res, fig, "lyu_image.png",
                "Fig. 3: the image and its reconstruction, and a second image reconstructed "
                "with the same dictionary")
    res.notes.append("The paper's paintings (Escher's Cycle, Renoir's Two Sisters) are read from "
                     "`--data-dir`/escher when present; otherwise scikit-learn's two sample "
                     f"photographs (grayscale{', every 4th pixel' if ctx.quick else ''}).")
    return _image_later(res, ctx)


def _embedded_networks():
    import networkx as nx

    return [("Zachary karate club", nx.karate_club_graph()),
            ("Les Misérables co-occurrence", nx.les_miserables_graph()),
            ("Florentine families", nx.florentine_families_graph()),
            ("Davis southern women (bipartite)", nx.davis_southern_women_graph())]


def _data_networks(data_dir):
    folder = data_dir and os.path.join(data_dir, "synthetic_networks")
    if not folder or not os.path.isdir(folder):
        return []
    out = []
    for f in sorted(os.listdir(folder)):
        if f.endswith(".txt"):
            edges = np.loadtxt(os.path.join(folder, f), delimiter=",", dtype=np.int64)
            out.append((f.replace("true_edgelist_for_", "").replace(".txt", ""), edges))
    return out


def _network_claim(what: str, acc: float, measured: str) -> list:
    """An edge-recovery claim: not the seed paper's (its version has no network
    reconstruction numbers), from a later version of the work."""
    return claim(what, "high (a later version of the paper, on Facebook networks; not in "
                 "the seed paper)", measured, *at_least(acc, 0.9, 0.75, "accuracy"),
                 source=EXTENSION,
                 why="the later version reports high recovery without a number comparable "
                     "here; 0.9 is read as high")


def _rejudge_networks(res: Result) -> Result:
    """A kept lyu-networks result judged by the current rules, from its measured values."""
    res.claims = [_network_claim(c[0], float(c[2].split()[0]), c[2]) for c in res.claims]
    return res


@register("lyu-networks", "004, later version",
          "Reconstruction and denoising of real networks by NDL (edge recovery, denoising AUC)",
          rejudge=lambda res: _rejudge_networks(res))
def networks(ctx: Context) -> Result:
    from ..graphs import as_adjacency, corrupt_network
    from ..metrics import denoising_auc, edge_recovery

    nets = [(name, G) for name, G in _embedded_networks()]
    if not ctx.quick:
        nets += _data_networks(ctx.data_dir)
    k, r = ctx.pick((6, 25), (21, 25), tiny=(4, 9))
    n_iter, steps = ctx.pick((30, 5000), (100, 50_000), tiny=(3, 300))
    # at paper scale, a chain long enough to visit the large networks' edges too: recovery
    # with the paper's steps is bounded by the share it visits (0.07–0.31 on 5000 nodes)
    long_steps = ctx.pick(None, 20 * steps, tiny=None)
    res = Result()
    rows, long_rows, par_rows = [], [], []
    for name, G in nets:
        A = (as_adjacency(G, kind="edges" if isinstance(G, np.ndarray) else None) > 0)
        A = A.astype(float).maximum(A.T.astype(float)).tocsr()

        def fitted(M):
            return NetworkDictionaryLearning(r, k, n_iter=n_iter, batch_size=100, alpha=0.2,
                                             chain="glauber", random_state=ctx.seed).fit(M)

        def visited_share(R, A=A):
            # the share of true edges the reconstruction chain visited at all: an upper bound
            # on the recovery, set by n_steps against the size of the network
            return float(A.multiply(abs(R) > 0).nnz / max(A.nnz, 1))

        t0 = time.perf_counter()
        ndl = fitted(A)
        R = ndl.reconstruct(A, n_steps=steps, n_chains=1, chain="glauber")
        acc = edge_recovery(A, R)
        visited = visited_share(R)
        aucs = []
        for mode in ("add", "remove"):
            noisy, pairs = corrupt_network(A, 0.1, mode, random_state=ctx.seed)
            R_noisy = fitted(noisy).reconstruct(noisy, n_steps=steps, n_chains=1,
                                                     chain="glauber")
            aucs.append(denoising_auc(A, noisy, R_noisy, pairs, mode))
        rows.append([name, str(A.shape[0]), str(A.nnz // 2), f"{visited:.3f}", f"{acc:.3f}",
                     f"{aucs[0]:.3f}", f"{aucs[1]:.3f}", f"{time.perf_counter() - t0:.1f}"])
        res.claims.append(_network_claim(f"{name}: edges recovered after binarization", acc,
                                         f"{acc:.3f} ({visited:.3f} of the edges visited by "
                                         f"the {steps}-step chain)"))
        # the authors' reconstruction beside the paper's single chain: the same number of
        # patches from 64 pivot chains advanced together, which start spread over the network
        t1 = time.perf_counter()
        R_par = ndl.reconstruct(A, n_steps=steps, n_chains=64, chain="pivot")
        acc_par, vis_par = edge_recovery(A, R_par), visited_share(R_par)
        par_rows.append([name, f"{visited:.3f} → {vis_par:.3f}", f"{acc:.3f} → {acc_par:.3f}",
                         f"{time.perf_counter() - t1:.1f}"])
        res.claims.append(_network_claim(f"{name}: edges recovered with the authors' 64 pivot "
                                         f"reconstruction chains ({steps} patches, same "
                                         "dictionary)", acc_par,
                                         f"{acc_par:.3f} ({vis_par:.3f} visited)"))
        if long_steps and visited < 0.9:
            t1 = time.perf_counter()
            R_long = ndl.reconstruct(A, n_steps=long_steps, n_chains=1, chain="glauber")
            acc_long, vis_long = edge_recovery(A, R_long), visited_share(R_long)
            long_rows.append([name, f"{visited:.3f} → {vis_long:.3f}",
                              f"{acc:.3f} → {acc_long:.3f}",
                              f"{acc / max(visited, 1e-12):.3f} → "
                              f"{acc_long / max(vis_long, 1e-12):.3f}",
                              f"{time.perf_counter() - t1:.1f}"])
            res.claims.append(_network_claim(f"{name}: edges recovered by a chain that visits "
                                             f"them ({long_steps} steps, same dictionary)",
                                             acc_long,
                                             f"{acc_long:.3f} ({vis_long:.3f} visited)"))
    res.tables.append((f"Reconstruction by 64 pivot chains advanced together (the authors' code) "
                       f"({steps} patches in all), against the paper's one chain (same "
                       "dictionary)", ["network", "visited (1 → 64 chains)",
                                       "edge recovery (1 → 64 chains)", "reconstruct s"],
                       par_rows))
    if long_rows:
        res.tables.append((f"The large networks again, reconstructed by a {long_steps}-step "
                           f"chain instead of {steps} (same dictionary)",
                           ["network", "visited", "edge recovery", "recovered among visited",
                            "reconstruct s"], long_rows))
    res.tables.append((f"NDL with a path motif of k = {k} nodes, r = {r} atoms, {steps} "
                       "reconstruction steps; denoising: 10% of |E| edges added or removed, "
                       "AUC of the reconstructed weights",
                       ["network", "nodes", "edges", "visited", "edge recovery", "AUC (added)",
                        "AUC (removed)", "time (s)"], rows))
    res.notes.append("Embedded networks are those networkx ships; with `--data-dir` and "
                     "`--scale paper`, the paper repository's BA/ER/WS networks (5000 nodes) are "
                     "added. The seed paper reports no reconstruction or denoising numbers "
                     "for these networks (a later version of the work does): these claims are "
                     "counted apart, as extensions. "
                     "'visited' is the share of true edges the reconstruction chain reached: "
                     "recovery cannot exceed it, so on the 5000-node networks the paper's "
                     "50000 steps bound it, not the dictionary.")
    return res
