"""The last private training loops moved onto the shared ones (issue 13) train bit for bit as before.

Each test keeps a verbatim copy of the old loop and compares losses and every weight after training:
cfg-subgrammars' ``train_tracked`` (``nn.train.train_lm`` with AdamW parameter groups and betas),
wicat's ``_stitched_steps`` (``train_lm`` with ``params=`` and a caller's ``generator=``), and bear's
``train`` / ``train_reasoner`` (``nn.mlp.fit`` with one-cycle ``pct_start``).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")


def _same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert sa.keys() == sb.keys()
    for k in sa:
        assert torch.equal(sa[k], sb[k]), k


# ----------------------------------------------------------------------------- cfg-subgrammars
def _old_train_tracked(model, sample, *, steps, lr, warmup, seed, every, val_kl, test_kl, template=None):
    from icml26.llm.cfg_subgrammars.experiment import average_state
    from icml26.nn.train import lm_loss

    avg = copy.deepcopy(model) if template is None else template
    decay = [q for q in model.parameters() if q.dim() >= 2]
    rest = [q for q in model.parameters() if q.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=lr, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: min(1.0, (t + 1) / max(1, warmup)))
    gen = torch.Generator().manual_seed(seed)
    v0 = val_kl(model)
    curve = [(0, v0)]
    best = [{"step": 0, "val": v0, "test": test_kl(model),
             "state": {k: v.clone() for k, v in model.state_dict().items()}}]
    ckpts = []
    for step in range(1, steps + 1):
        model.train()
        ids, tgt = sample(gen)
        loss = lm_loss(model, ids, target=tgt)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % every == 0 or step == steps:
            ckpts.append((step, {k: x.detach().clone() for k, x in model.state_dict().items()}))
            state = average_state([st for s, st in ckpts if s > 0.75 * step])
            avg.load_state_dict(state)
            v = val_kl(avg)
            curve.append((step, v))
            if v < best[-1]["val"]:
                best.append({"step": step, "val": v, "test": test_kl(avg), "state": state})
    model.eval()
    return {"curve": curve, "best": best}


def test_cfg_train_tracked_is_bit_identical_to_the_old_loop():
    from icml26.llm.cfg_subgrammars import experiment as E
    from icml26.llm.cfg_subgrammars.setting import make_model

    V, T = 11, 12
    g = torch.Generator().manual_seed(5)
    data = torch.randint(0, V, (64, T), generator=g)
    val = torch.randint(0, V, (16, T), generator=g)

    def sample(gen):
        ids = data[torch.randint(0, 64, (8,), generator=gen)]
        return ids, ids[:, 1:]

    def kl(m):  # any deterministic score of the model will do
        with torch.no_grad():
            logits, _ = m(val[:, :-1])
            return float(torch.nn.functional.cross_entropy(logits.reshape(-1, V), val[:, 1:].reshape(-1)))

    runs = []
    for fn in (_old_train_tracked, E.train_tracked):
        torch.manual_seed(0)
        m = make_model(V, 16, 1, 2, T)
        # the two weight-decay groups and betas (0.9, 0.95) of the authors' recipe, clipping at norm 1
        out = fn(m, sample, steps=14, lr=3e-2, warmup=3, seed=1, every=3, val_kl=kl, test_kl=kl)
        runs.append((m, out))
    (m0, a), (m1, b) = runs
    _same_state(m0, m1)
    assert a["curve"] == b["curve"]
    assert [(x["step"], x["val"], x["test"]) for x in a["best"]] == [(x["step"], x["val"], x["test"]) for x in b["best"]]
    for x, y in zip(a["best"], b["best"]):
        assert all(torch.equal(x["state"][k], y["state"][k]) for k in x["state"])


# ----------------------------------------------------------------------------- wicat
def _old_stitched_steps(model, data, params, steps, batch, lr, mask_ratio, gen):
    from icml26.science.wicat.method import _warmup_cosine, masked_mse, sample_mask

    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _warmup_cosine(steps))
    hist = []
    for _ in range(steps):
        s = int(torch.randint(0, len(data), (1,), generator=gen))
        sess, x_all = data[s]
        x = x_all[torch.randint(0, x_all.shape[0], (batch,), generator=gen)]
        m = sample_mask(batch, x.shape[1], x.shape[2], mask_ratio, 0.3, gen)
        _, rec = model(x, sess, m)
        loss = masked_mse(rec, x, m)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        hist.append(float(loss.detach()))
    return hist


def test_wicat_stitched_steps_are_bit_identical_to_the_old_loop():
    from icml26.science.wicat import method as M

    cfg = M.EncoderConfig(n_channels=4, n_patches=3, patch_len=4, d_model=8, n_layers=1, n_heads=2)
    rng = np.random.default_rng(0)
    wins = [torch.as_tensor(rng.standard_normal((20, 4, 3, 4)), dtype=torch.float32) for _ in range(2)]
    new_win = torch.as_tensor(rng.standard_normal((20, 4, 3, 4)), dtype=torch.float32)
    results = []
    for fn in (_old_stitched_steps, M._stitched_steps):
        torch.manual_seed(3)
        model = M.StitchedEncoder(cfg, 4, 2)
        gen = torch.Generator().manual_seed(3)
        data = [(i, w) for i, w in enumerate(wins)]
        h1 = fn(model, data, model.parameters(), 9, 6, 2e-3, 0.5, gen)
        model.eval()
        s = model.add_session()  # then the frozen-encoder adaptation of a new session's stitcher pair
        for p in model.enc.parameters():
            p.requires_grad_(False)
        h2 = fn(model, [(s, new_win)], [model.stitch_in[s], model.stitch_out[s]], 7, 6, 5e-3, 0.5, gen)
        results.append((model, h1, h2, gen.get_state()))
    (m0, a1, a2, g0), (m1, b1, b2, g1) = results
    assert a1 == b1 and a2 == b2
    _same_state(m0, m1)
    assert torch.equal(g0, g1)  # the caller's stream continued identically
    # params= is honoured: only the new pair's gradients were reset each step, so the other sessions'
    # stitchers keep the gradients of the last pretraining step (with every parameter handed to AdamW,
    # its zero_grad would have set them to None)
    for (name, p0), p1 in zip(m0.named_parameters(), m1.parameters()):
        assert (p0.grad is None) == (p1.grad is None), name
        if p0.grad is not None:
            assert torch.equal(p0.grad, p1.grad), name
    assert m1.stitch_in[0].grad is not None and m1.stitch_in[2].grad is not None


# ----------------------------------------------------------------------------- bear
def _old_bear_train(pool, cfg, *, steps, batch, lr, seed, p_sketch=0.5, locate_weight=3):
    from icml26.agents.bear import setting as S
    from icml26.agents.bear.model import build_model, collate, locate_batch, loss_of

    model = build_model(cfg, seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    rng = np.random.default_rng(seed + 12345)
    tasks = [s for s in pool.items if S.KIND[s] != "mc"] + (["locate"] * locate_weight if pool.locate else [])
    hist = []
    for step in range(steps):
        task = tasks[step % len(tasks)]
        if task == "locate":
            idx = rng.integers(len(pool.locate), size=batch)
            b = locate_batch([pool.locate[i] for i in idx])
        else:
            its, sks = pool.items[task], pool.sketches[task]
            idx = rng.integers(len(its), size=batch)
            use = rng.random(batch) < p_sketch
            b = collate([its[i] for i in idx], [sks[i] if u else np.zeros_like(sks[i]) for i, u in zip(idx, use)],
                        S.KIND[task])
        loss = loss_of(model, b)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        hist.append(float(loss.detach()))
    model.eval()
    return model, hist


def _old_train_reasoner(pool, d, *, steps, batch, lr, seed, jitter=1.0):
    import torch.nn.functional as F

    from icml26.agents.bear import setting as S
    from icml26.agents.bear.model import build_reasoner, percept_tokens

    its = [it for sk, v in pool.items.items() if sk in S.DIAGNOSABLE for it in v]
    reasoner = build_reasoner(d, seed)
    toks = [percept_tokens(it.skill, it.state, list(it.entities)) for it in its]
    feats = torch.from_numpy(np.stack([t[0] for t in toks]))
    roles = torch.from_numpy(np.stack([t[1] for t in toks]))
    frames = torch.from_numpy(np.stack([t[2] for t in toks]))
    skill = torch.tensor([S.SKILLS.index(it.skill) for it in its])
    y = torch.tensor([it.answer for it in its])
    opt = torch.optim.AdamW(reasoner.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    gen = torch.Generator().manual_seed(seed + 99)
    hist = []
    for _ in range(steps):
        idx = torch.randint(len(its), (batch,), generator=gen)
        f = feats[idx].clone()
        f[..., :2] += torch.randn(f[..., :2].shape, generator=gen) * (jitter / S.SIZE) * f[..., 2:]
        loss = F.cross_entropy(reasoner(skill[idx], f, roles[idx], frames[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        hist.append(float(loss.detach()))
    return reasoner.eval(), hist


@pytest.fixture(scope="module")
def bear_pool():
    from icml26.agents.bear import model as Mo
    from icml26.agents.bear import setting as S

    skills = [s for s in S.SKILLS if S.KIND[s] != "mc"][:2] + [s for s in S.SKILLS if s in S.DIAGNOSABLE][:2]
    return Mo.build_pool(skills, 4, seed=0, clutter=0.0)


def test_bear_train_is_bit_identical_to_the_old_loop(bear_pool):
    from icml26.agents.bear import model as Mo

    cfg = Mo.ModelConfig(d=16)
    m0, h0 = _old_bear_train(bear_pool, cfg, steps=6, batch=3, lr=3e-3, seed=1)
    m1, h1 = Mo.train(bear_pool, cfg, steps=6, batch=3, lr=3e-3, seed=1)
    assert h0 == h1
    _same_state(m0, m1)
    assert not m1.training


def test_bear_train_reasoner_is_bit_identical_to_the_old_loop(bear_pool):
    from icml26.agents.bear import model as Mo

    r0, h0 = _old_train_reasoner(bear_pool, 16, steps=8, batch=4, lr=3e-3, seed=2)
    r1, h1 = Mo.train_reasoner(bear_pool, 16, steps=8, batch=4, lr=3e-3, seed=2)
    assert len(h1) == 8 and h0 == h1
    _same_state(r0, r1)
