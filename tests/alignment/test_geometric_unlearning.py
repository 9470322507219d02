"""Known-answer tests for Geometric Unlearning (arXiv:2605.01735): subspace, masks, losses, baselines."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from icml26.alignment.geometric_unlearning import method as M
from icml26.alignment.geometric_unlearning import setting as S
from icml26.nn.transformer import LMConfig, TinyLM


def test_safe_subspace_matches_sklearn_pca():
    sk = pytest.importorskip("sklearn.decomposition", reason="scikit-learn cross-checks the torch PCA")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 6)) @ np.diag([5, 3, 2, 1, 0.5, 0.1])
    mu, v, proto = M.safe_subspace(x, k=3, proto_k=5)
    pca = sk.PCA(n_components=3).fit(x)
    np.testing.assert_allclose(mu.numpy(), x.mean(0), atol=1e-5)
    # same subspace: projectors agree
    p_ours = v.numpy() @ v.numpy().T
    p_sk = pca.components_.T @ pca.components_
    np.testing.assert_allclose(p_ours, p_sk, atol=1e-4)
    d = ((x - x.mean(0)) ** 2).mean(1)
    np.testing.assert_allclose(proto.numpy(), x[np.argsort(d)[:5]].mean(0), atol=1e-5)


def test_geometric_losses_known_answers():
    v = torch.eye(4)[:, :2]  # safe subspace = first two axes
    mu = torch.zeros(4)
    inside = torch.tensor([[1.0, 2.0, 0.0, 0.0]])
    out = M.geometric_losses(inside, mu, v, proto=inside[0])
    assert abs(float(out["dir"])) < 1e-6 and float(out["energy"]) == 0.0 and float(out["proto"]) == 0.0
    orth = torch.tensor([[0.0, 0.0, 3.0, 4.0]])
    out = M.geometric_losses(orth, mu, v, proto=torch.zeros(4))
    assert math.isclose(float(out["energy"]), 25 / 4, rel_tol=1e-6)  # ||z_danger||^2 / H
    assert math.isclose(float(out["dir"]), 1.0, abs_tol=1e-6)         # cos(zc, 0) = 0
    assert math.isclose(float(out["proto"]), 25 / 4, rel_tol=1e-6)


def test_geometric_losses_gradient():
    torch.manual_seed(0)
    z = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    v, _ = torch.linalg.qr(torch.randn(5, 2, dtype=torch.float64))
    mu, proto = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    f = lambda t: sum(M.geometric_losses(t, mu, v, proto).values())  # noqa: E731
    assert torch.autograd.gradcheck(f, (z,))


def test_forget_token_mask_window_decay_and_tail():
    valid = torch.ones(1, 12, dtype=torch.bool)
    valid[0, 10:] = False
    m = M.forget_token_mask([[(3, 4)]], valid, window=2, decay=2.0, tail_to_eos=False)
    want = torch.zeros(12)
    want[4] = 1
    for d in (1, 2):
        want[4 - d] = want[4 + d] = math.exp(-d / 2)
    torch.testing.assert_close(m[0], want)
    m = M.forget_token_mask([[(3, 4)]], valid, window=2, decay=2.0, tail_to_eos=True)
    assert m[0, 4:10].eq(1).all() and m[0, 10:].eq(0).all() and m[0, 3] == math.exp(-0.5)
    assert M.forget_token_mask([[]], valid).sum() == 0


def test_find_name_hits_and_tail():
    ids = torch.tensor([[1, 5, 6, 7, 5, 6], [1, 2, 3, 4, 0, 0]])
    assert M.find_name_hits(ids, [[5, 6]]) == [[(1, 2), (4, 5)], []]
    t = M.tail_mask([[(1, 2)], []], torch.ones(2, 6, dtype=torch.bool))
    assert t[0].tolist() == [0, 0, 0, 1, 1, 1] and t[1].sum() == 0


def test_masked_kl_zero_for_equal_logits_and_matches_formula():
    a = torch.randn(2, 3, 7)
    w = torch.ones(2, 3)
    assert float(M.masked_kl(a, a, w, 3.0)) == pytest.approx(0.0, abs=1e-6)
    b = torch.randn(2, 3, 7)
    p, q = torch.softmax(b / 2, -1), torch.softmax(a / 2, -1)
    want = float((p * (p.log() - q.log())).sum(-1).mean() * 4)
    assert float(M.masked_kl(a, b, w, 2.0)) == pytest.approx(want, rel=1e-5)


def test_matched_retain_and_early_stop():
    assert M.matched_retain([1.0, 0.5, 0.1, 0.0], [1.0, 0.9, 0.8, 0.3], 0.0, tol=0.1) == 0.8
    assert M.matched_retain([1.0, 0.5], [1.0, 0.9], 0.0, tol=0.05) == 0.0
    ok = {"val_forget": 0.0, "val_retain": 0.9}
    bad = {"val_forget": 0.2, "val_retain": 0.9}
    assert M.early_stop_met([bad, ok, ok, ok]) and not M.early_stop_met([ok, bad, ok, ok])


def test_npo_at_reference_equals_2_over_beta_log2_and_ga_sign():
    world = S.make_world(n_known=3, n_unknown=1, n_forget=1, seed=0)
    model = S.new_model(world, S.ModelConfig(d_model=16, n_layers=1, n_heads=2))
    pairs = [(world.encode_prompt("who is x ?"), world.encode_answer("i don't know ."))]
    ids, tgt = S.pad_pairs(world, pairs)
    batch = M.UnlearnBatch(ids, ids > 0, ids, tgt, ids, tgt, ids, tgt, ids > 0, [[5]], world.tok.unk_id)
    fi = ri = torch.tensor([0])
    out = M.baseline_loss("npo", model, model, batch, fi, ri, npo_beta=0.1)
    assert float(out["forget"]) == pytest.approx(2 / 0.1 * math.log(2), rel=1e-5)  # log pi = log pi_ref
    ga = M.baseline_loss("ga", model, model, batch, fi, ri)
    gd = M.baseline_loss("graddiff", model, model, batch, fi, ri)
    assert float(ga["forget"]) < 0 and float(ga["retain"]) == 0
    assert float(gd["total"]) == pytest.approx(0.0, abs=1e-5)  # same rows: -NLL + NLL


def test_split_attention_matches_fused_attention():
    cfg = LMConfig(vocab_size=11, d_model=16, n_layers=2, n_heads=4, max_len=12)
    torch.manual_seed(0)
    fused = TinyLM(cfg)
    split = TinyLM(cfg, mixer=S.SplitProjAttention)
    sd = {}
    for k, v in fused.state_dict().items():
        if ".attn.qkv." in k:
            for part, name in zip(v.chunk(3, dim=0), ("q_proj", "k_proj", "v_proj")):
                sd[k.replace("qkv", name)] = part
        elif ".attn.proj." in k:
            sd[k.replace("proj", "o_proj")] = v
        else:
            sd[k] = v
    split.load_state_dict(sd)
    x = torch.randint(0, 11, (2, 9))
    torch.testing.assert_close(split(x)[0], fused(x)[0])


def test_gu_loss_runs_and_lora_only_is_trained():
    world = S.make_world(n_known=4, n_unknown=2, n_forget=1, seed=1)
    teacher = S.new_model(world, S.ModelConfig(d_model=16, n_layers=2, n_heads=2)).eval()
    cfg = M.GUConfig(k=2, proto_k=2)
    student = M.with_lora(teacher, cfg, seed=0)
    name = world.forget[0]
    prompts = [S.SYNTHETIC_TEMPLATES[t].format(n=name) for t in range(3)]
    p_ids, p_valid = world.tok.pad([world.encode_prompt(q) for q in prompts])
    ref = [(world.encode_prompt(q), world.encode_answer(S.REFUSAL)) for q in prompts]
    r_ids, r_tgt = S.pad_pairs(world, ref)
    batch = M.UnlearnBatch(p_ids, p_valid, r_ids, r_tgt, r_ids, r_tgt, r_ids, r_tgt, r_ids > 0,
                           [world.name_ids(name)], world.tok.unk_id)
    sub = [M.safe_subspace(torch.randn(6, 16), 2, 2) for _ in cfg.target_layers]
    out = M.gu_loss(student, teacher, batch, torch.tensor([0, 1, 2]), torch.tensor([0]), sub, cfg, step=0)
    assert torch.isfinite(out["total"]) and float(out["retain"]) == pytest.approx(0.0, abs=1e-6)  # B = 0 at init
    out["total"].backward()
    names = [n for n, p in student.named_parameters() if p.grad is not None]
    assert names and all("lora" in n for n in names)
    late = M.gu_loss(student, teacher, batch, torch.tensor([0]), torch.tensor([0]), sub, cfg, step=cfg.forget_end_step)
    assert float(late["total"]) == pytest.approx(cfg.w_lora_reg * sum(
        float(p.pow(2).sum()) for n, p in student.named_parameters() if "lora" in n), rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("bad", [dict(k=0), dict(basis="pca"), dict(w_dir=-1.0), dict(lr=0.0)])
def test_config_rejects_bad_values(bad):
    with pytest.raises((ValueError, TypeError), match=next(iter(bad))):
        M.GUConfig(**bad)


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="anchors"):
        M.safe_subspace(np.array([[np.nan, 1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="forget_level"):
        M.matched_retain([0.1], [0.9], float("nan"))
    with pytest.raises(ValueError, match="names"):
        M.find_name_hits(torch.zeros(1, 3, dtype=torch.long), [])
    with pytest.raises(ValueError, match="kind"):
        M.baseline_loss("rmu", None, None, None, None, None)


def _comparison_rows(gu, controls, n_seeds=5):
    """Rows for check_beats_controls: ``gu`` and each control given as (trace_forget, trace_retain)."""
    from icml26.alignment.geometric_unlearning import experiment as E

    rows = []
    for _ in range(n_seeds):
        m = {"original/qa_acc": 1.0, "original/unknown_refusal": 1.0}
        for name, (tf, tr) in {"gu": gu, **{k: controls.get(k, gu) for k in E.EQUAL_DATA}}.items():
            m[f"{name}/trace_forget"], m[f"{name}/trace_retain"] = list(tf), list(tr)
            m[f"{name}/forget_acc"], m[f"{name}/retain_acc"] = tf[-1], tr[-1]
            m[f"{name}/matched_retain"] = M.matched_retain(tf, tr, gu[0][-1], tol=0.05)
        rows.append(m)
    return rows


def test_beats_controls_is_a_weakest_link_over_controls():
    """A control that beats GU in every seed decides the claim, even when GU only ties the others at 0
    (neither reaches the forget level): ties are not wins (review of the full run)."""
    from icml26.alignment.geometric_unlearning import experiment as E

    never = ([1.0, 0.8, 0.8], [1.0, 1.0, 1.0])        # never reaches forget <= 0.10
    strong = ([1.0, 0.0, 0.0], [1.0, 0.5, 0.9])       # reaches it with retain 0.9
    rows = _comparison_rows(never, {"npo_syn": strong})
    assert E.check_beats_controls(rows).status == "not-reproduced"
    rows = _comparison_rows(strong, {"npo_syn": ([1.0, 0.0, 0.0], [1.0, 0.2, 0.4])})
    v = E.check_beats_controls(rows)
    assert v.status == "partly"  # beats NPO, only ties the rest: no worse, not better than them
    rows = _comparison_rows(strong, {k: ([1.0, 0.0, 0.0], [1.0, 0.2, 0.4]) for k in E.EQUAL_DATA})
    assert E.check_beats_controls(rows).status == "reproduced"


def test_split_attention_is_the_shared_module():
    from icml26.nn.transformer import SplitProjAttention

    assert S.SplitProjAttention is SplitProjAttention
    world = S.make_world(n_known=4, n_unknown=2, n_forget=1, seed=1)
    model = S.new_model(world, S.ModelConfig(d_model=16, n_layers=1, n_heads=2))
    assert isinstance(model.blocks[0].attn, SplitProjAttention)


def test_pretrain_cache_reads_back_what_it_trained(tmp_path, monkeypatch):
    """The first call trains and stores (core.cache), the second reads the same weights and losses back."""
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    monkeypatch.delenv("ICML26_NO_CACHE", raising=False)
    key = {"n_known": 4, "n_unknown": 2, "n_forget": 1}
    world = S.make_world(**key, seed=1)
    cfg = S.ModelConfig(d_model=16, n_layers=1, n_heads=2, steps=5, batch=4)
    trained, losses = S.pretrain(world, cfg, seed=101, world_key=key)
    assert len(list((tmp_path / "geometric_unlearning").glob("pretrained-*.pt"))) == 1
    read, losses2 = S.pretrain(world, cfg, seed=101, world_key=key)
    assert read is not trained and not read.training and losses2 == losses and len(losses) == 5
    for k, v in trained.state_dict().items():
        assert torch.equal(read.state_dict()[k], v)
    fresh, losses3 = S.pretrain(world, cfg, seed=101, world_key=key, cache=False)  # the same training, not stored
    assert losses3 == losses and all(torch.equal(fresh.state_dict()[k], v) for k, v in trained.state_dict().items())
    other, _ = S.pretrain(world, cfg, seed=102, world_key=key)  # another seed: another entry
    assert len(list((tmp_path / "geometric_unlearning").glob("pretrained-*.pt"))) == 2
    assert not torch.equal(other.tok.weight, trained.tok.weight)
