"""Known answers for FedVPA-GP's pieces (arXiv:2605.30873)."""

import math

import numpy as np
import pytest
import torch

from icml26.alignment.fedvpa_gp.method import (FedConfig, assign_labels, collapse_index, fedavg,
                                               gaussian_kl_standard, kmeans_purity, mixture_kl_mc,
                                               orthogonal_loss, orthonormal_prototypes, pair_margins,
                                               train_federated)
from icml26.alignment.fedvpa_gp.setting import embed, make_federation


def test_standard_kl_closed_form():
    mu = torch.tensor([[0.0, 0.0], [1.0, -2.0]])
    lv = torch.tensor([[0.0, 0.0], [math.log(4.0), 0.0]])
    kl = gaussian_kl_standard(mu, lv)
    assert kl[0].item() == pytest.approx(0.0)
    assert kl[1].item() == pytest.approx(0.5 * (1 + 4 - math.log(4) - 1) + 0.5 * 4)


def test_mixture_kl_one_component_is_unbiased_for_the_gaussian_kl():
    """With one component the MC estimator averages to the closed-form KL between Gaussians."""
    g = torch.Generator().manual_seed(0)
    d, S = 3, 200_000
    mu_q, lv_q = torch.tensor([0.5, -1.0, 0.2]), torch.tensor([0.3, -0.5, 0.0])
    mu_p, lv_p = torch.tensor([[0.0, 0.5, 0.0]]), torch.tensor([[0.0, 0.2, -0.3]])
    z = mu_q + (0.5 * lv_q).exp() * torch.randn(S, d, generator=g)
    est = mixture_kl_mc(z, mu_q.expand(S, d), lv_q.expand(S, d), mu_p, lv_p, torch.zeros(1)).mean().item()
    vq, vp = lv_q.exp(), lv_p[0].exp()
    exact = 0.5 * (lv_p[0] - lv_q + (vq + (mu_q - mu_p[0]) ** 2) / vp - 1).sum().item()
    assert est == pytest.approx(exact, abs=0.02)


def test_mixture_kl_matches_brute_force_logsumexp():
    rng = np.random.default_rng(1)
    z, mq, lq = rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), 0.1 * rng.normal(size=(2, 2))
    mp, lp = rng.normal(size=(3, 2)), 0.2 * rng.normal(size=(3, 2))
    w = np.array([0.2, 0.3, 0.5])

    def logn(x, m, lv):
        return float(np.sum(-0.5 * ((x - m) ** 2 / np.exp(lv) + lv + np.log(2 * np.pi))))

    want = [logn(z[c], mq[c], lq[c]) - np.log(sum(w[j] * np.exp(logn(z[c], mp[j], lp[j])) for j in range(3)))
            for c in range(2)]
    got = mixture_kl_mc(z, mq, lq, mp, lp, np.log(w)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_excluded_component_is_ignored():
    rng = np.random.default_rng(2)
    z, mq, lq = rng.normal(size=(1, 2)), rng.normal(size=(1, 2)), np.zeros((1, 2))
    mp, lp = rng.normal(size=(2, 2)), np.zeros((2, 2))
    both = mixture_kl_mc(z, mq, lq, mp[:1], lp[:1], np.zeros(1))
    masked = mixture_kl_mc(z, mq, lq, mp, lp, np.array([[0.0, -np.inf]]))
    np.testing.assert_allclose(masked.numpy(), both.numpy())


def test_prototypes_are_orthonormal_at_scale():
    P = orthonormal_prototypes(torch.randn(2, 8, generator=torch.Generator().manual_seed(0)), 5.0)
    np.testing.assert_allclose((P @ P.T).numpy(), 25 * np.eye(2), atol=1e-4)
    Pu = P / 5.0
    loss = orthogonal_loss(5.0 * Pu[[1, 0]], Pu, np.array([1, 0]), scale=5.0, gamma=0.1)
    np.testing.assert_allclose(loss.numpy(), 0.0, atol=1e-8)


def test_fedavg_is_the_sample_weighted_mean():
    out = fedavg([{"a": np.array([1.0, 2.0])}, {"a": np.array([3.0, 6.0])}], np.array([1.0, 3.0]))
    np.testing.assert_allclose(out["a"], [2.5, 5.0])


def test_fedavg_equals_flower_aggregate():
    aggregate = pytest.importorskip("flwr.server.strategy.aggregate", reason="flwr (optional) not installed")
    rng = np.random.default_rng(3)
    states = [{"w": rng.normal(size=(3, 2)), "b": rng.normal(size=2)} for _ in range(4)]
    n = [5, 8, 13, 2]
    ours = fedavg(states, np.array(n, dtype=float))
    theirs = aggregate.aggregate([([s["w"], s["b"]], k) for s, k in zip(states, n)])
    np.testing.assert_allclose(ours["w"], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours["b"], theirs[1], rtol=1e-12)


def test_collapse_index_and_purity_known_answers():
    mu = np.array([[0.0, 0.0]] * 4)
    assert collapse_index(mu, np.zeros((4, 2))) == 0.0
    means = np.array([[5.0, 0], [5.1, 0], [0, 5.0], [0, 5.2]])
    assert kmeans_purity(means, np.array([0, 0, 1, 1])) == 1.0
    lab = assign_labels(means, np.array([[0.0, 1.0], [1.0, 0.0]]))
    np.testing.assert_array_equal(lab, [1, 1, 0, 0])


def test_conflict_pairs_split_the_types():
    fed = make_federation(4, 4, seed=0, frac_type0=0.5)
    u = fed.utilities
    for c in fed.clients:
        a, b = c.conflict[:, 0], c.conflict[:, 1]
        assert np.all(u[c.kind, a] > u[c.kind, b])
        assert np.all(u[1 - c.kind, a] < u[1 - c.kind, b])
    assert embed(fed.items[:3]).shape == (3, 64)


def test_federated_training_is_deterministic_and_lowers_ce():
    """The FedAvg BT model: same seed, same parameters; its training CE falls."""
    fed = make_federation(6, 6, seed=1)
    tr = np.stack([c.train for c in fed.clients])
    cfg = FedConfig(model="bt", rounds=3, clients_per_round=6, local_epochs=2)
    a = train_federated(fed.h, tr, cfg, seed=0)
    b = train_federated(fed.h, tr, cfg, seed=0)
    np.testing.assert_allclose(a["params"]["w"].numpy(), b["params"]["w"].numpy())
    assert a["ce_final"] < a["ce_init"]
    m = pair_margins(fed.h, tr, a["params"])
    assert m.shape == (6, 6)


def test_bad_config_is_refused():
    with pytest.raises(ValueError, match="model"):
        FedConfig(model="nope")
    with pytest.raises(ValueError, match="prior_weights"):
        FedConfig(prior_weights="x")
    with pytest.raises(TypeError, match="cfg"):
        train_federated(np.zeros((3, 2)), np.zeros((1, 1, 2), dtype=int), {"model": "gp"})


def test_oracle_labels_need_kinds_and_report_agreement():
    fed = make_federation(6, 4, seed=2)
    tr = np.stack([c.train for c in fed.clients])
    cfg = FedConfig(model="gp", labels="oracle", rounds=2, clients_per_round=4, local_epochs=1)
    with pytest.raises(ValueError, match="kinds"):
        train_federated(fed.h, tr, cfg)
    out = train_federated(fed.h, tr, cfg, kinds=fed.kinds)
    assert out["label_agreement"] == [1.0, 1.0]
    with pytest.raises(ValueError, match="labels"):
        FedConfig(labels="x")


def test_local_finetune_on_the_shared_loop_is_bit_identical_to_the_old_loop():
    """Issue 13: local_finetune trains with nn.mlp.fit; a copy of its old private loop gives the same heads."""
    import torch.nn.functional as F

    from icml26.alignment.fedvpa_gp.method import local_finetune

    rng = np.random.default_rng(105)
    H = rng.normal(size=(30, 6)).astype(np.float32)
    pairs = rng.integers(0, 30, size=(4, 9, 2))
    params = {"w": torch.from_numpy(rng.normal(size=6).astype(np.float32))}

    def old(steps, lr):
        Ht = torch.as_tensor(H, dtype=torch.float32)
        pt = torch.as_tensor(pairs, dtype=torch.long)
        w = params["w"].detach().unsqueeze(0).repeat(len(pt), 1).requires_grad_(True)
        opt = torch.optim.Adam([w], lr=lr)
        dh = Ht[pt[..., 0]] - Ht[pt[..., 1]]
        for _ in range(steps):
            loss = F.softplus(-torch.einsum("cnh,ch->cn", dh, w)).mean(1).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        return w.detach().numpy()

    torch.manual_seed(3)
    want = old(17, 0.05)
    state = torch.get_rng_state()
    torch.manual_seed(3)
    got = local_finetune(H, pairs, params, steps=17, lr=0.05)
    assert torch.get_rng_state().equal(state)
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, np.tile(params["w"].numpy(), (4, 1)))  # it did train
