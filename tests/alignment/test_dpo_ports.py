"""The three papers' preference loops, ported onto icml26.alignment._dpo, give bit-identical losses and weights.

Each test keeps a copy of the paper's loop as it was before the port (issue 13) and compares it with
the ported function on a tiny model: same batch draws, RNG use, optimizer, clipping and reduction.
"""

import copy

import numpy as np
import pytest
import torch

from icml26.alignment._preferences import dpo_loss, ipo_loss, simpo_loss
from icml26.nn.lm import token_logprobs
from icml26.nn.transformer import LMConfig, TinyLM


def _lm(seed=0, vocab=10):
    torch.manual_seed(seed)
    return TinyLM(LMConfig(vocab_size=vocab, d_model=16, n_layers=1, n_heads=2, max_len=24))


def _same(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


# ----------------------------------------------------------------------------- repo
def _repo_old(ref_model, prompts, chosen, rejected, *, loss, behaviour_chosen=None, behaviour_rejected=None,
              steps, batch, lr, beta, gamma, seed, lam=0.5, alpha=1.0, c_ref=1.0, window="vectorised"):
    from icml26.alignment.repo.method import repo_det_loss, repo_loss

    hp = {"beta": beta, "gamma": gamma, "lam": lam, "alpha": alpha, "c_ref": c_ref, "window": window}

    def batch_loss(kind, lp_c, lp_r, m_c, m_r, ref_c, ref_r, beh_c, beh_r):
        if kind in ("repo", "repo_nofuture"):
            return repo_loss(lp_c, lp_r, beh_c, beh_r, ref_c, ref_r, m_c, m_r, lam=lam, alpha=alpha, c_ref=c_ref,
                             window=window, future=kind == "repo")
        if kind == "repo_det":
            return repo_det_loss(lp_c, lp_r, ref_c, ref_r, m_c, m_r, lam=lam, alpha=alpha, c_ref=c_ref, window=window)
        mc, mr = m_c.float(), m_r.float()
        pc, pr = (lp_c * mc).sum(1), (lp_r * mr).sum(1)
        rc, rr = (ref_c * mc).sum(1), (ref_r * mr).sum(1)
        if kind == "dpo":
            return dpo_loss(pc, pr, rc, rr, beta=hp["beta"])
        if kind == "ipo":
            return ipo_loss(pc, pr, rc, rr, mc.sum(1), mr.sum(1), beta=hp["beta"])
        return simpo_loss(pc, pr, mc.sum(1), mr.sum(1), beta=hp["beta"], gamma=hp["gamma"])

    def pad(rows, T):
        out = torch.zeros(len(rows), T)
        for i, r in enumerate(rows):
            out[i, :len(r)] = torch.as_tensor(list(r), dtype=torch.float32)
        return out

    n = len(prompts)
    with torch.no_grad():
        ref_c, m_c = token_logprobs(ref_model, prompts, chosen)
        ref_r, m_r = token_logprobs(ref_model, prompts, rejected)
    beh_c = pad(behaviour_chosen, ref_c.shape[1]) if behaviour_chosen is not None else None
    beh_r = pad(behaviour_rejected, ref_r.shape[1]) if behaviour_rejected is not None else None
    policy = copy.deepcopy(ref_model)
    policy.train()
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    hist = []
    for _ in range(steps):
        idx = torch.randperm(n, generator=gen)[:min(batch, n)].tolist()
        lp_c, _ = token_logprobs(policy, [prompts[i] for i in idx], [chosen[i] for i in idx])
        lp_r, _ = token_logprobs(policy, [prompts[i] for i in idx], [rejected[i] for i in idx])
        Tc, Tr = lp_c.shape[1], lp_r.shape[1]
        sel = torch.tensor(idx)
        args = (lp_c, lp_r, m_c[sel, :Tc], m_r[sel, :Tr], ref_c[sel, :Tc], ref_r[sel, :Tr],
                beh_c[sel, :Tc] if beh_c is not None else None, beh_r[sel, :Tr] if beh_r is not None else None)
        lval = batch_loss(loss, *args).mean()
        opt.zero_grad(set_to_none=True)
        lval.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt.step()
        hist.append(float(lval.detach()))
    policy.eval()
    return policy, hist


@pytest.mark.parametrize("loss", ["repo", "repo_det", "repo_nofuture", "dpo", "ipo", "simpo"])
@pytest.mark.parametrize("window", ["vectorised", "loop"])
def test_repo_train_preference_is_bit_identical_to_its_former_loop(loss, window):
    from icml26.alignment.repo.method import train_preference

    rng = np.random.default_rng(100)
    n = 9
    prompts = [list(rng.integers(1, 10, int(rng.integers(2, 4)))) for _ in range(n)]  # ragged prompts
    chosen = [list(rng.integers(1, 10, int(rng.integers(1, 5)))) for _ in range(n)]
    rejected = [list(rng.integers(1, 10, int(rng.integers(1, 5)))) for _ in range(n)]
    beh_c = [list(-rng.random(len(c))) for c in chosen]
    beh_r = [list(-rng.random(len(r))) for r in rejected]
    kw = dict(loss=loss, behaviour_chosen=beh_c, behaviour_rejected=beh_r, steps=4, batch=5, lr=3e-3, beta=0.7,
              gamma=0.3, seed=101, alpha=1.5, window=window)
    ref = _lm(100)
    new_pol, new_hist = train_preference(ref, prompts, chosen, rejected, **kw)
    old_pol, old_hist = _repo_old(ref, prompts, chosen, rejected, **kw)
    assert new_hist == old_hist and _same(new_pol, old_pol)


# ----------------------------------------------------------------------------- cong
def _cong_old_loop(model, n, loss_fn, *, steps, batch, lr, seed):
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + np.cos(np.pi * (s - warm) / max(1, steps - warm))))
    model.train()
    hist = []
    for step in range(steps):
        idx = torch.randint(0, n, (min(batch, n),), generator=gen)
        loss = loss_fn(idx, step / steps)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        hist.append(float(loss.detach()))
    model.eval()
    return hist


def _cong_old_dpo(model, p, c, rj, *, beta, steps, batch, lr, seed):
    with torch.no_grad():
        ref_c = token_logprobs(model.eval(), p, c)[0].sum(1)
        ref_r = token_logprobs(model.eval(), p, rj)[0].sum(1)
    policy = copy.deepcopy(model)

    def seq_lp(idx, y):
        seq = torch.cat([p[idx], y[idx]], 1)
        lg = policy(seq[:, :-1])[0][:, p.shape[1] - 1:].log_softmax(-1)
        return lg.gather(2, y[idx][..., None]).squeeze(2).sum(1)

    def loss_fn(idx, prog):
        return dpo_loss(seq_lp(idx, c), seq_lp(idx, rj), ref_c[idx], ref_r[idx], beta=beta).mean()

    return policy, _cong_old_loop(policy, len(p), loss_fn, steps=steps, batch=batch, lr=lr, seed=seed)


@pytest.mark.parametrize("steps", [3, 25])
def test_cong_dpo_train_is_bit_identical_to_its_former_loop(steps):
    from icml26.alignment.cong.method import dpo_train

    rng = np.random.default_rng(102)
    p = torch.as_tensor(rng.integers(1, 10, (40, 5)))
    c, rj = torch.as_tensor(rng.integers(1, 10, (40, 4))), torch.as_tensor(rng.integers(1, 10, (40, 4)))
    kw = dict(beta=0.5, steps=steps, batch=16, lr=3e-3, seed=103)
    new_pol, new_hist = dpo_train(_lm(102), p, c, rj, **kw)
    old_pol, old_hist = _cong_old_dpo(_lm(102), p, c, rj, **kw)
    assert new_hist == old_hist and _same(new_pol, old_pol)


def test_cong_sft_loop_is_bit_identical_to_its_former_loop():
    from icml26.alignment.cong.method import _loop

    torch.manual_seed(104)
    x, y = torch.randn(30, 4), torch.randn(30)
    runs = []
    for loop in (_loop, _cong_old_loop):
        torch.manual_seed(105)
        m = torch.nn.Linear(4, 1)
        hist = loop(m, 30, lambda idx, prog, m=m: ((m(x[idx]).squeeze(1) - y[idx]) ** 2).mean() * (1 + prog),
                    steps=23, batch=8, lr=0.05, seed=106)
        runs.append((hist, m))
    assert runs[0][0] == runs[1][0] and _same(runs[0][1], runs[1][1])


# ----------------------------------------------------------------------------- mash
def _mash_masked(model, traces):
    lp, m = token_logprobs(model, [list(t.prompt) for t in traces], [list(t.completion) for t in traces])
    extra = torch.zeros_like(m)
    for i, t in enumerate(traces):
        extra[i, :len(t.mask)] = torch.as_tensor(t.mask, dtype=torch.bool)
    return lp, m & extra


def _mash_old_sft(model, traces, *, steps, lr, batch, seed):
    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(traces), (min(batch, len(traces)),), generator=gen).tolist()
        lp, m = _mash_masked(model, [traces[i] for i in idx])
        loss = -(lp * m).sum() / m.sum().clamp(min=1)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


def _mash_old_label_dpo(model, answer, abstain, known, *, steps, lr, beta, batch, seed):
    ref = copy.deepcopy(model).eval()
    chosen = [a if k else b for a, b, k in zip(answer, abstain, known)]
    rejected = [b if k else a for a, b, k in zip(answer, abstain, known)]
    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def seq(mdl, ts):
        lp, m = _mash_masked(mdl, ts)
        return (lp * m).sum(1)

    losses = []
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(chosen), (min(batch, len(chosen)),), generator=gen).tolist()
        c, r = [chosen[i] for i in idx], [rejected[i] for i in idx]
        with torch.no_grad():
            rc, rr = seq(ref, c), seq(ref, r)
        loss = dpo_loss(seq(model, c), seq(model, r), rc, rr, beta=beta).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


def _traces(rng, n):
    from icml26.llm.mash.method import Trace

    out = []
    for _ in range(n):
        L = int(rng.integers(1, 6))
        out.append(Trace(tuple(int(x) for x in rng.integers(1, 10, int(rng.integers(2, 4)))),
                         tuple(int(x) for x in rng.integers(1, 10, L)), tuple(bool(b) for b in rng.random(L) < 0.7)))
    return out


def test_mash_sft_and_label_dpo_are_bit_identical_to_their_former_loops():
    from icml26.llm.mash.method import Trace, label_dpo, sft

    rng = np.random.default_rng(107)
    answer = _traces(rng, 11)
    abstain = [Trace(a.prompt, t.completion, t.mask) for a, t in zip(answer, _traces(rng, 11))]
    known = [bool(b) for b in rng.random(11) < 0.5]
    a, b = _lm(107), _lm(107)
    assert sft(a, answer, steps=4, lr=3e-3, batch=5, seed=108) == \
        _mash_old_sft(b, answer, steps=4, lr=3e-3, batch=5, seed=108)
    assert _same(a, b)
    a, b = _lm(109), _lm(109)
    kw = dict(steps=5, lr=3e-3, beta=0.3, batch=6, seed=110)
    assert label_dpo(a, answer, abstain, known, **kw) == _mash_old_label_dpo(b, answer, abstain, known, **kw)
    assert _same(a, b)
