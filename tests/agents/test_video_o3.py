"""Known answers for the Video-o3 reproduction: the world, the reward, TDAM and the shared context."""

import numpy as np
import pytest
import torch

from icml26.agents.video_o3 import method as M
from icml26.agents.video_o3 import setting as S


# ---------------------------------------------------------------- the world
@pytest.mark.parametrize("seed", range(20))
def test_oracle_crop_holds_every_named_clue(seed):
    v = S.make_video(seed, hops=2, distractors=1, ans_len=1 + seed % 3)
    seen = set()
    for b in S.oracle_bins(v):
        seen.update(S.crop(v.frames, b))
    for m, o in zip(v.asked, v.answer):
        assert S.MOBJ0 + S.N_OBJ * m + o in seen
    # each marker event shows in exactly one global frame, as the shared salient symbol
    g = S.global_view(v.frames)
    assert sum(t == S.COARSE0 + S.N_OBJ // 4 for t in g) == len(v.salient)


@pytest.mark.parametrize("seed", range(8))
def test_marker_events_sit_on_the_grid_and_fill_one_crop(seed):
    """Ninth-session geometry: events start at a global frame (8 g), 16+ frames apart, and equal crop window g."""
    v = S.make_video(seed, hops=2, distractors=1, ans_len=1 + seed % 3)
    starts = [s for s, _ in v.salient]
    assert all(s % S.STRIDE == 0 and 0 < s and e == s + S.MARK_LEN <= S.T - S.STRIDE for s, e in v.salient)
    assert np.all(np.diff(starts) >= 2 * S.STRIDE)
    for (s, e), b in zip(v.salient, S.oracle_bins(v) + [None] * 3):
        if b is not None:
            assert S.crop_interval(b) == (s, e)
            assert S.crop(v.frames, b) == [S.fine_token(int(x)) for x in v.frames[s:e]]
    # reference episodes: 23-token prefix, 15 tokens a crop, 5-token answer
    tok, kin = S.oracle_episode(v)
    assert len(tok) == len(kin) == S.PREFIX_LEN + len(S.oracle_bins(v)) * (S.TURN_LEN + S.TOOL_LEN) + S.TURN_LEN
    assert (S.PREFIX_LEN, S.TOOL_LEN, S.N_BINS) == (23, 10, 16)


@pytest.mark.parametrize("seed", range(12))
def test_oracle_think_names_the_missing_markers(seed):
    v = S.make_video(seed, hops=1 + seed % 2, distractors=(seed // 2) % 2, ans_len=2)
    tok, kin = S.oracle_episode(v)
    thinks = [tok[i] for i in range(1, len(tok)) if kin[i] == 1 and kin[i - 1] != 1]
    bins = S.oracle_bins(v)
    assert len(thinks) == len(bins)
    for k, t in enumerate(thinks):
        missing = [m for m in v.asked if m not in v.salient_ids[:k]]
        assert missing  # a tool turn is only taken while a named marker is unseen
        assert t == (S.NEED_BOTH if len(missing) == 2 else S.NEED0 + missing[0])
    # the last crop shows the last missing marker, so the answer follows
    assert set(v.asked) <= set(v.salient_ids[:len(bins)])
    bare, _ = S.oracle_episode(v, think_missing=False)
    assert [x for x in bare if x in S.THINKS] == [S.THINK] * len(bins)
    assert M.format_score(_turns(tok)) == 1.0 and M.format_score(_turns(bare)) == 1.0


def _turns(tok):
    out, i = [], S.PREFIX_LEN
    while i < len(tok):
        out.append(tok[i:i + S.TURN_LEN])
        i += S.TURN_LEN + S.TOOL_LEN
    return out


def test_think_tokens_reject_bad_input():
    v = S.make_video(3, hops=1)
    with pytest.raises(ValueError, match="think"):
        S.tool_turn(0, think=S.ANS)
    with pytest.raises(ValueError, match="seen"):
        S.missing_think(v, set(v.asked))


def test_global_view_hides_marker_and_object():
    v = S.make_video(1, hops=1, distractors=0, ans_len=3)
    g = S.global_view(v.frames)
    assert len(g) == S.T // S.STRIDE
    assert all(S.COARSE0 <= t < S.BIN0 for t in g)


def test_crop_strategies_and_uniform():
    v = S.make_video(2)
    fine, coarse = S.crop(v.frames, 5, "fine"), S.crop(v.frames, 5, "coarse")
    assert len(fine) == len(coarse) == S.CROP_LEN
    medium = S.crop(v.frames, 5, "medium")
    assert fine == [S.fine_token(int(x)) for x in v.frames[40:48]]
    assert coarse[:2] == fine[::4] and coarse[2:] == [S.BLANK] * 6
    assert medium[:4] == fine[::2] and medium[4:] == [S.BLANK] * 4
    u = S.uniform_frames(v.frames, 16)
    assert len(u) == S.UNI_SLOTS and u[16:] == [S.BLANK] * (S.UNI_SLOTS - 16)
    with pytest.raises(ValueError, match="start_bin"):
        S.crop(v.frames, S.N_BINS)
    with pytest.raises(ValueError, match="strategy"):
        S.crop(v.frames, 0, "ultra")


# ---------------------------------------------------------------- the reward
def test_clue_score_known_values():
    assert M.clue_score([(0, 8)], [(0, 8)]) == pytest.approx(1.0)
    assert M.clue_score([(0, 8)], [(10, 18)]) == 0.0
    # crop 16 frames around an 8-frame clue: IoU = IoP = 1/2, IoG = 1
    assert M.clue_score([(0, 16)], [(4, 12)]) == pytest.approx((2 * 0.5 + 0.5 + 1) / 4)
    # overlapping crops merge before scoring
    assert M.clue_score([(0, 10), (5, 16)], [(4, 12)]) == pytest.approx(M.clue_score([(0, 16)], [(4, 12)]))
    assert M.clue_score([], [(0, 1)]) == 0.0


def test_turn_decay():
    assert M.turn_decay(0) == 1.0
    assert M.turn_decay(2) == pytest.approx(0.8)
    assert M.turn_decay(50) == 0.0
    with pytest.raises(ValueError, match="n_calls"):
        M.turn_decay(-1)


def test_format_score_rules():
    ans = S.answer_turn((1,), (3,))
    tool = S.tool_turn(4)
    assert M.format_score([tool, ans]) == 1.0
    assert M.format_score([ans, ans]) == 0.0        # a non-final answer breaks the structure
    assert M.format_score([tool, tool]) == 0.0      # no final answer
    bad_field = [S.THINK, S.GROUND, S.OBJ0, S.STRAT0, S.EGROUND]
    assert M.format_score([bad_field, ans]) == pytest.approx(0.5)
    half = [S.ANS, S.MARK0, S.OBJ0, S.MARK0 + 1, S.NONE]   # second pair malformed
    assert M.format_score([tool, half]) == pytest.approx(0.5)


def test_trajectory_reward_bonus_only_when_correct():
    v = S.make_video(4, hops=1, distractors=0, ans_len=2)
    bins = S.oracle_bins(v)
    turns = [S.tool_turn(b) for b in bins] + [S.answer_of(v)]
    r = M.trajectory_reward(turns, v)
    s = M.clue_score([S.crop_interval(b) for b in bins], v.clues)
    assert r["r_a"] == 1 and r["r_f"] == 1
    assert r["reward"] == pytest.approx(2 + (0.5 + 0.5 * s) * M.turn_decay(len(bins)))
    wrong = turns[:-1] + [S.answer_turn(v.asked, ((v.answer[0] + 1) % S.N_OBJ,))]
    rw = M.trajectory_reward(wrong, v)
    assert rw["beta"] == 0 and rw["reward"] == pytest.approx(1.0)
    # correct without any tool call: no bonus
    assert M.trajectory_reward([S.answer_of(v)], v)["reward"] == pytest.approx(2.0)
    # ablations
    assert M.trajectory_reward(turns, v, M.RewardConfig(use_clue=False))["beta"] == pytest.approx(
        0.5 * M.turn_decay(len(bins)))
    assert M.trajectory_reward(turns, v, M.RewardConfig(use_decay=False))["beta"] == pytest.approx(0.5 + 0.5 * s)


# ---------------------------------------------------------------- TDAM and the shared context
def test_tdam_mask_blocks_the_right_pairs():
    v = S.make_video(5, hops=1, distractors=1, ans_len=2)
    tok, kin = S.oracle_episode(v)
    kin_t = torch.tensor([kin])
    m = M.tdam_mask(kin_t)[0]
    k = torch.tensor(kin)
    nxt = torch.cat([k[1:], torch.zeros(1, dtype=torch.long)])
    for p in range(len(kin)):
        if nxt[p] == 1:
            assert not m[p][k == 2].any()
        elif nxt[p] == 3:
            assert not m[p][k == 4].any() and m[p][k == 2].all()
        else:
            assert m[p].all()


def test_tdam_attention_all_true_equals_causal():
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    x = torch.randint(0, S.VOCAB, (2, 20))
    ref, _ = model(x)
    M.set_extra_mask(model, torch.ones(2, 20, 20, dtype=torch.bool))
    got, _ = model(x)
    M.set_extra_mask(model, None)
    assert torch.allclose(ref, got, atol=1e-6)


def test_shared_cache_equals_reencoding():
    model = M.make_policy(d_model=16, n_layers=2, n_heads=2, seed=1)
    vids = S.draw_videos(3, 3)
    prefix = torch.tensor([S.prefix_tokens(v) for v in vids])
    turns = [torch.tensor([S.tool_turn(2)] * 3), torch.tensor([S.answer_of(v) for v in vids])]
    tools = [torch.tensor([[S.CROP, *S.crop(v.frames, 2), S.ECROP] for v in vids])]
    a = M.replay_turns(model, prefix, turns, tools, shared_cache=True)
    b = M.replay_turns(model, prefix, turns, tools, shared_cache=False)
    full, _ = model(torch.cat([prefix, turns[0], tools[0], turns[1]], 1))
    assert torch.allclose(a, b, atol=1e-5)
    P = prefix.shape[1]
    assert torch.allclose(a[:, :5], full[:, P - 1:P + 4], atol=1e-5)


def test_rollout_and_grpo_smoke():
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    ep = M.rollout(model, S.draw_videos(0, 3), max_turns=3, generator=torch.Generator().manual_seed(0))
    assert len(ep.turns) == 3 and all(1 <= len(t) <= 3 for t in ep.turns)
    hist = M.grpo_train(model, lambda rng: S.draw_videos(int(rng.integers(99)), 2), M.RewardConfig(), steps=1,
                        prompts=2, group=2, max_turns=2)
    assert len(hist["reward"]) == 1 and np.isfinite(hist["reward"][0])


def test_sft_learns_the_format_on_a_tiny_pool():
    pool = [(*S.oracle_episode(v), True) for v in S.draw_videos(0, 40)]
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    losses = M.train_sft(model, pool, steps=30, batch=8, tdam_ratio=0.5)
    assert losses[-1] < losses[0]
    with pytest.raises(ValueError, match="tdam_ratio"):
        M.train_sft(model, pool, steps=1, tdam_ratio=1.5)


def test_constant_schedule_is_prefix_consistent():
    """A constant-lr continuation's state after k steps does not depend on the total step count."""
    pool = [(*S.oracle_episode(v), True) for v in S.draw_videos(1, 12)]
    seen = {}

    def grab(k, mdl):
        if k == 2:
            seen["state"] = {n: t.clone() for n, t in mdl.state_dict().items()}

    a = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    M.train_sft(a, pool, steps=4, batch=4, lr=1e-3, seed=3, schedule="constant", on_step=grab)
    b = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    M.train_sft(b, pool, steps=2, batch=4, lr=1e-3, seed=3, schedule="constant")
    for n, t in b.state_dict().items():
        assert torch.equal(t, seen["state"][n]), n
    with pytest.raises(ValueError, match="schedule"):
        M.train_sft(b, pool, steps=1, schedule="linear")


def _hit_all(video, idx) -> bool:
    seen = {int(video.frames[i]) for i in idx}
    return all(S.N_OBJ + S.N_MARK + S.N_OBJ * m + o in seen for m, o in zip(video.asked, video.answer))


@pytest.mark.parametrize("ans_len", [1, 2, 3])
def test_uniform_single_pass_information_ceiling(ans_len):
    """Review: n evenly spaced fine frames see a 1-hop answer with probability ~ ans_len * n / T.

    This is the ceiling of the uniform control in claim 1 (n ~ 14, about the seeker's mean budget):
    an observer that reads those frames perfectly answers at most ~11/22/33% of 1-hop questions, and
    less with two hops, so the claim's +10-point margin over it is decided mostly by the world's design.
    """
    n = 14
    idx = np.floor((np.arange(n) + 0.5) * S.T / n).astype(int)
    rng = np.random.default_rng(ans_len)
    one_hop = [S.make_video(rng, hops=1, distractors=1, ans_len=ans_len) for _ in range(600)]
    rate = np.mean([_hit_all(v, idx) for v in one_hop])
    assert abs(rate - ans_len * n / S.T) < 0.06
    mixed = S.draw_videos(50_000 + ans_len, 400, ans_lens=(ans_len,))
    assert np.mean([_hit_all(v, idx) for v in mixed]) < 0.3
    # the reference trajectory's crops see every named clue (the seeker's ceiling is 1)
    assert all(_hit_all(v, [i for b in S.oracle_bins(v) for i in range(*S.crop_interval(b))]) for v in mixed)


# ---------------------------------------------------------------- the salience-guided single pass (review control)
def test_salient_single_pass_information_ceiling():
    """Review of the ninth session: at the seeker's budget the salience-guided pass's ceiling leaves < 0.1.

    Budget = ceil of the reference trajectories' mean crop frames on claim 1's sweep videos (seed 0); a perfect
    reader of the pass's frames answers 0.805, 1.0, 1.0 at clue lengths 1, 2, 3, so no seeker can beat this
    control by claim 1's 10-point margin averaged over the sweep: that half of the check cannot pass here.
    """
    ceil = []
    for L in (1, 2, 3):
        vids = S.draw_videos(50_000 + L, 400, ans_lens=(L,))
        budget = int(np.ceil(np.mean([len(S.oracle_bins(v)) * S.CROP_LEN for v in vids])))
        assert 12 <= budget <= 16
        ceil.append(np.mean([_hit_all(v, S.salient_indices(v.frames, budget)) for v in vids]))
    assert ceil == pytest.approx([0.805, 1.0, 1.0], abs=1e-9)
    assert 1.0 - np.mean(ceil) < 0.1


@pytest.mark.parametrize("seed", range(12))
def test_salient_indices_cover_every_event_when_the_budget_allows(seed):
    """With 8 frames per salient global frame the pass sees every marker event whole (a perfect reader answers)."""
    rng = np.random.default_rng(seed)
    v = S.make_video(rng, hops=1 + seed % 2, distractors=seed % 3 // 2, ans_len=1)
    g = np.asarray(S.global_view(v.frames))
    k = int((g == S.SALIENT).sum())
    assert k == len(v.salient)
    idx = S.salient_indices(v.frames, min(S.UNI_SLOTS, S.MARK_LEN * k))
    assert len(idx) == len(set(idx.tolist())) == min(S.UNI_SLOTS, S.MARK_LEN * k)
    assert np.all(np.diff(idx) > 0) and idx.min() >= 0 and idx.max() < S.T
    for s, e in v.salient:
        assert set(range(s, e)) <= set(idx.tolist())
    assert _hit_all(v, idx)


def test_salient_indices_budget_and_targets():
    v = S.make_video(3, hops=2, distractors=1, ans_len=2)
    for n in (1, 7, 14, S.UNI_SLOTS):
        idx = S.salient_indices(v.frames, n)
        assert len(idx) == n and len(set(idx.tolist())) == n
    # the targets are the marker events: a budget of 3 frames gives one frame to each event, none elsewhere
    idx = S.salient_indices(v.frames, 3)
    assert [int(np.searchsorted([s for s, _ in v.salient], i, side="right")) - 1 for i in idx] == [0, 1, 2]
    assert all(s <= i < e for i, (s, e) in zip(idx, v.salient))
    # three events fill the whole budget of 24 slots with their 8 frames each
    idx = S.salient_indices(v.frames, S.UNI_SLOTS)
    assert sorted(idx.tolist()) == sorted(i for s, e in v.salient for i in range(s, e))
    # one event: its 8 frames, and the remaining 16 spread evenly over the rest of the video
    one = S.make_video(4, hops=1, distractors=0, ans_len=2)
    (s1, e1), = one.salient
    idx = S.salient_indices(one.frames, S.UNI_SLOTS)
    inside = [i for i in idx if s1 <= i < e1]
    outside = np.array([i for i in idx if not s1 <= i < e1])
    assert inside == list(range(s1, e1)) and len(outside) == S.UNI_SLOTS - S.MARK_LEN
    assert outside.min() < S.T // 8 and outside.max() > S.T - S.T // 8   # spread over the whole video
    toks = S.salient_frames(v.frames, 10)
    assert len(toks) == S.UNI_SLOTS and toks[10:] == [S.BLANK] * (S.UNI_SLOTS - 10)
    with pytest.raises(ValueError, match="n"):
        S.salient_indices(v.frames, 0)
    with pytest.raises(ValueError, match="frames"):
        S.salient_indices(v.frames[:100], 4)
    with pytest.raises(ValueError, match="marker"):
        S.salient_indices(np.zeros(S.T, dtype=np.int64), 4)


def test_single_pass_rejects_bad_salient_flag():
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    vids = S.draw_videos(0, 2)
    assert M.answer_single_pass(model, vids, 8, salient=True).shape == (2,)
    with pytest.raises(TypeError, match="salient"):
        M.answer_single_pass(model, vids, 8, salient=1)



# ---------------------------------------------------------------- time-aligned initialisation
def test_sinusoidal_positions_known_values():
    pe = M.sinusoidal_positions(40, 8, std=0.02)
    c = 0.02 * np.sqrt(2.0)
    assert pe.shape == (40, 8)
    # position 0: sin 0 = 0 on even channels, cos 0 = 1 on odd channels
    assert torch.allclose(pe[0, 0::2], torch.zeros(4)) and torch.allclose(pe[0, 1::2], torch.full((4,), c))
    # channel pair 0 has frequency 1: position p holds (sin p, cos p)
    assert torch.allclose(pe[3, :2], torch.tensor([np.sin(3.0), np.cos(3.0)], dtype=torch.float32) * c, atol=1e-7)
    # every row has the same norm (sin^2 + cos^2 = 1 per pair)
    assert torch.allclose(pe.norm(dim=1), torch.full((40,), c * 2.0), atol=1e-6)
    for bad in ({"length": 0, "d_model": 8}, {"length": 4, "d_model": 7}, {"length": 4, "d_model": 8, "std": 0.0}):
        with pytest.raises(ValueError):
            M.sinusoidal_positions(**bad)


def test_global_position_points_at_the_global_view():
    v = S.make_video(5, hops=2, distractors=1, ans_len=2)
    pre, g = S.prefix_tokens(v), S.global_view(v.frames)
    assert [pre[M.global_position(i)] for i in range(len(g))] == g
    with pytest.raises(ValueError, match="frame"):
        M.global_position(S.T // S.STRIDE)


@pytest.mark.parametrize("init", ["aligned", "sin_aligned"])
def test_aligned_init_ties_each_bin_to_the_frame_it_starts_on(init):
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0, init=init)
    base = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    W, P = model.tok.weight, model.pos.weight
    for b in range(S.N_BINS):
        assert torch.equal(W[S.BIN0 + b], P[M.global_position(b)])
        # the crop window of bin b starts at global frame b and holds exactly one marker event's span
        lo, hi = S.crop_interval(b)
        assert lo == S.STRIDE * b and hi - lo == S.MARK_LEN
    # every other token embedding is the default draw
    other = torch.ones(S.VOCAB, dtype=torch.bool)
    other[S.BIN0:S.BIN0 + S.N_BINS] = False
    assert torch.equal(W[other], base.tok.weight[other])
    if init == "sin_aligned":
        assert torch.allclose(P, M.sinusoidal_positions(P.shape[0], 16))
    else:
        assert torch.equal(P, base.pos.weight)
    with pytest.raises(ValueError, match="init"):
        M.make_policy(d_model=16, n_layers=1, n_heads=2, init="xavier")


def _old_train_sft(model, pool, *, steps, batch=64, lr=3e-3, tdam_ratio=0.1, seed=0, schedule="cosine", on_step=None):
    """Copy of train_sft's private loop before the move onto icml26.nn.train.train_lm (issue 13)."""
    import numpy as np

    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    warm = max(1, steps // 10)
    if schedule == "constant":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    elif schedule == "anneal":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 - s / steps)
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: (s + 1) / warm if s < warm else 0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * (s - warm) / max(1, steps - warm))))
    model.train()
    losses = []
    for _ in range(steps):
        idx = torch.randint(len(pool), (batch,), generator=gen).tolist()
        tok, kin = M.pack([(pool[i][0], pool[i][1]) for i in idx])
        tool_use = torch.tensor([pool[i][2] for i in idx])
        rows = tool_use & (torch.rand(batch, generator=gen) < tdam_ratio)
        loss, _ = M.sft_loss(model, tok, kin, rows)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            model.eval()
            on_step(len(losses), model)
            model.train()
    model.eval()
    return losses


@pytest.mark.parametrize("schedule", ["cosine", "constant", "anneal"])
def test_train_sft_on_train_lm_is_bit_identical_to_the_old_loop(schedule):
    # issue 13: train_sft is train_lm with sft_loss as its hook; its own float64 cosine and the anneal stay callables
    pool = _pool_for_sft()
    runs = []
    for fn in (M.train_sft, _old_train_sft):
        model = M.make_policy(32, 1, seed=101, init="sin_aligned")
        seen = []
        losses = fn(model, pool, steps=12, batch=4, lr=2e-3, tdam_ratio=0.5, seed=102, schedule=schedule,
                    on_step=lambda k, mdl: seen.append((k, mdl.training)))
        runs.append((losses, seen, model.state_dict()))
    (l1, s1, p1), (l2, s2, p2) = runs
    assert l1 == l2 and s1 == s2 and [k for k, _ in s1] == list(range(1, 13))
    assert all(torch.equal(a, b) for a, b in zip(p1.values(), p2.values()))


def test_align_time_tokens_and_sinusoidal_positions_validate():
    from icml26.nn.transformer import LMConfig, TinyLM

    with pytest.raises(TypeError, match="model"):
        M.align_time_tokens("policy")
    with pytest.raises(ValueError, match="model"):
        M.align_time_tokens(TinyLM(LMConfig(vocab_size=20, d_model=16, n_layers=1, n_heads=2, max_len=64)))
    with pytest.raises(ValueError, match="model"):
        M.align_time_tokens(TinyLM(LMConfig(vocab_size=S.VOCAB, d_model=16, n_layers=1, n_heads=2, max_len=20)))
    m = M.make_policy(16, 1, seed=0)
    M.align_time_tokens(m)
    assert torch.equal(m.tok.weight[S.BIN0], m.pos.weight[M.global_position(0)])
    with pytest.raises(ValueError, match="std"):
        M.sinusoidal_positions(8, 4, std=0.0)
    with pytest.raises(TypeError, match="std"):
        M.sinusoidal_positions(8, 4, std="0.02")
    torch.testing.assert_close(M.sinusoidal_positions(8, 4, std=1), M.sinusoidal_positions(8, 4, std=1.0), rtol=0, atol=0)


def _pool_for_sft():
    return [(*S.oracle_episode(v), i % 3 != 0) for i, v in enumerate(S.draw_videos(101, 12))]


def _old_tdam_forward(self, x, past=None):
    """TDAMAttention.forward before it called nn.transformer.causal_attend (verbatim)."""
    import torch.nn.functional as F

    if self.extra is None:
        return type(self).__mro__[1].forward(self, x, past)
    b, t, d = x.shape
    q, k, v = self.qkv(x).split(d, dim=-1)
    q, k, v = (z.view(b, t, self.n_heads, self.head_dim).transpose(1, 2) for z in (q, k, v))
    if past is not None:
        k, v = torch.cat([past[0], k], 2), torch.cat([past[1], v], 2)
    s = k.shape[2]
    causal = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    mask = (causal[None] & self.extra[:, -t:, -s:])[:, None]
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return self.proj(y.transpose(1, 2).reshape(b, t, d)), (k, v)


def test_tdam_forward_on_the_shared_attention_core_is_bit_identical():
    torch.manual_seed(0)
    att = M.TDAMAttention(M.LMConfig(vocab_size=5, d_model=16, n_heads=2))
    x = torch.randn(2, 7, 16, requires_grad=True)
    extra = torch.rand(2, 12, 12) > 0.3
    extra |= torch.eye(12, dtype=torch.bool)  # every query may see itself
    past = (torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8))
    for p in (None, past):
        for ex in (None, extra):
            att.extra = ex
            y0, kv0 = _old_tdam_forward(att, x, p)
            g0 = torch.autograd.grad(y0.sum(), [x, *att.parameters()])
            y1, kv1 = att(x, p)
            g1 = torch.autograd.grad(y1.sum(), [x, *att.parameters()])
            assert torch.equal(y0, y1) and all(torch.equal(a, b) for a, b in zip(kv0, kv1))
            assert all(torch.equal(a, b) for a, b in zip(g0, g1))


# ---------------------------------------------------------------- the SFT restart rule (issue 18, fourth pass)
def _fake_attempts(scores):
    calls = []

    def build(k):
        calls.append(k)
        return {"attempt": k, "score": scores[k]}

    return build, (lambda r: r["score"]), calls


def test_restart_rule_keeps_a_first_run_above_the_floor():
    build, score, calls = _fake_attempts([0.9, 0.95])
    res, restarts, sc = M.restart_below_floor(build, score, floor=0.8, max_restarts=2)
    assert calls == [0] and restarts == 0 and sc == [0.9] and res["attempt"] == 0


def test_restart_rule_restarts_below_the_floor_until_one_passes():
    build, score, calls = _fake_attempts([0.02, 0.7, 0.85, 0.99])
    res, restarts, sc = M.restart_below_floor(build, score, floor=0.8, max_restarts=3)
    assert calls == [0, 1, 2] and restarts == 2 and res["attempt"] == 2 and sc == [0.02, 0.7, 0.85]
    # a score exactly at the floor passes
    build, score, calls = _fake_attempts([0.5, 0.8])
    assert M.restart_below_floor(build, score, floor=0.8, max_restarts=3)[0]["attempt"] == 1 and calls == [0, 1]


def test_restart_rule_stops_at_k_and_keeps_the_best_attempt():
    build, score, calls = _fake_attempts([0.3, 0.6, 0.5, 0.99])
    res, restarts, sc = M.restart_below_floor(build, score, floor=0.8, max_restarts=2)
    assert calls == [0, 1, 2] and restarts == 2 and res["attempt"] == 1 and sc == [0.3, 0.6, 0.5]
    build, score, calls = _fake_attempts([0.4, 0.4])
    assert M.restart_below_floor(build, score, floor=0.8, max_restarts=1)[0]["attempt"] == 0  # earliest on ties
    build, score, calls = _fake_attempts([0.1, 0.9])
    res, restarts, _ = M.restart_below_floor(build, score, floor=0.8, max_restarts=0)
    assert calls == [0] and restarts == 0 and res["attempt"] == 0


def test_restart_rule_validates_inputs():
    build, score, _ = _fake_attempts([0.5])
    with pytest.raises(ValueError, match="max_restarts"):
        M.restart_below_floor(build, score, floor=0.8, max_restarts=-1)
    with pytest.raises(ValueError, match="floor"):
        M.restart_below_floor(build, score, floor=float("nan"), max_restarts=1)
    with pytest.raises(TypeError, match="callable"):
        M.restart_below_floor(None, score, floor=0.8, max_restarts=1)
    with pytest.raises(ValueError, match="non-finite"):
        M.restart_below_floor(lambda k: k, lambda r: float("nan"), floor=0.8, max_restarts=1)


def test_sft_attempt_seeds_and_validation_stream_are_distinct():
    from icml26.agents.video_o3 import experiment as E

    assert E.attempt_seed(3, 0) == 3
    assert len({E.attempt_seed(s, k) for s in range(5) for k in range(3)}) == 15
    # the validation videos are none of the SFT gate's held-out questions
    val = S.draw_videos(E.VAL_BASE + 1, 50)
    held = S.draw_videos(60_000 + 1, 50)
    assert all(not np.array_equal(a.frames, b.frames) for a in val for b in held)


def test_grpo_without_reward_scaling_runs_and_validates():
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    hist = M.grpo_train(model, lambda rng: S.draw_videos(int(rng.integers(99)), 2), M.RewardConfig(), steps=1,
                        prompts=2, group=2, max_turns=2, scale_rewards=False)
    assert len(hist["reward"]) == 1 and np.isfinite(hist["reward"][0])
    with pytest.raises(TypeError, match="scale_rewards"):
        M.grpo_train(model, lambda rng: S.draw_videos(0, 2), M.RewardConfig(), steps=1, prompts=2, group=2,
                     scale_rewards=1)


def test_rollout_rows_leave_the_batch_without_changing_any_row():
    """Fifth session: finished rows leave the batch; each greedy row's episode is what it is alone."""
    pool = [(*S.oracle_episode(v), True) for v in S.draw_videos(0, 40)]
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    M.train_sft(model, pool, steps=100, batch=8, lr=1e-2)
    vids = S.draw_videos(5, 12)
    ep = M.rollout(model, vids, greedy=True)
    assert len({len(t) for t in ep.turns}) > 1  # some rows finished before others
    for i, v in enumerate(vids):
        one = M.rollout(model, [v], greedy=True)
        assert one.turns[0] == ep.turns[i] and one.visual_tokens[0] == ep.visual_tokens[i]
        n = int(one.model_mask[0].sum())
        assert int(ep.model_mask[i].sum()) == n
        assert torch.equal(ep.tokens[i][ep.model_mask[i]], one.tokens[0][one.model_mask[0]])
    # positions after a row's end are PAD
    for i, t in enumerate(ep.turns):
        end = S.PREFIX_LEN + len(t) * S.TURN_LEN + (len(t) - 1) * S.TOOL_LEN
        assert (ep.tokens[i, end:] == S.PAD).all()


def _rollout_keeping_every_row(model, videos, generator, temperature=1.0, max_turns=5):
    """Reference for the sampled branch: the batch never shrinks; a finished row keeps drawing from
    zero logits (as ``rollout`` draws for it) and is fed what it drew, which nothing reads."""
    b = len(videos)
    seq_len = S.PREFIX_LEN
    logits, cache = model(torch.tensor([S.prefix_tokens(v) for v in videos]))
    last = logits[:, -1]
    done = torch.zeros(b, dtype=torch.bool)
    turns = [[] for _ in range(b)]
    for turn in range(max_turns):
        toks = []
        for k in range(S.TURN_LEN):
            lg = last.float() / temperature
            lg[done] = 0.0
            nxt = torch.multinomial(lg.softmax(-1), 1, generator=generator).squeeze(1)
            toks.append(nxt)
            logits, cache = model(nxt[:, None], cache=cache, start=seq_len + k)
            last = logits[:, -1]
        seq_len += S.TURN_LEN
        step = torch.stack(toks, 1)
        tool = torch.full((b, S.TOOL_LEN), S.BLANK, dtype=torch.long)
        for i in range(b):
            if done[i]:
                continue
            turns[i].append(step[i].tolist())
            kind, _, f = M.parse_turn(step[i].tolist())
            if kind == "answer":
                done[i] = True
            elif kind == "tool" and "bin" in f:
                tool[i] = torch.tensor([S.CROP, *S.crop(videos[i].frames, f["bin"], f.get("strategy", "fine")), S.ECROP])
            else:  # a malformed call: the tool returns an empty crop
                tool[i] = torch.tensor([S.CROP] + [S.BLANK] * S.CROP_LEN + [S.ECROP])
        if turn == max_turns - 1 or bool(done.all()):
            break
        logits, cache = model(tool, cache=cache, start=seq_len)
        last = logits[:, -1]
        seq_len += S.TOOL_LEN
    return turns


def test_sampled_rollout_matches_a_batch_that_keeps_every_row():
    """The sampled branch (GRPO's and the GRPO gate's rollouts): finished rows leave the batch and its cache
    while every row still draws, so each episode equals the one of a batch that never shrinks, same stream."""
    pool = [(*S.oracle_episode(v), True) for v in S.draw_videos(0, 40)]
    model = M.make_policy(d_model=16, n_layers=1, n_heads=2, seed=0)
    M.train_sft(model, pool, steps=60, batch=8, lr=1e-2)
    vids = S.draw_videos(7, 16)
    for temperature in (1.0, 0.7):
        ep = M.rollout(model, vids, temperature=temperature, generator=torch.Generator().manual_seed(3))
        ref = _rollout_keeping_every_row(model, vids, torch.Generator().manual_seed(3), temperature=temperature)
        assert len({len(t) for t in ep.turns}) > 1  # rows left the batch at different turns
        assert ep.turns == ref
