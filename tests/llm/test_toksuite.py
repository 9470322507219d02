"""Known-answer tests for the TokSuite reproduction (tokenizer suite, super vocabulary, scoring, perturbations)."""

import unicodedata

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tokenizers")

from icml26.llm.toksuite import experiment as E  # noqa: E402
from icml26.llm.toksuite import method as M  # noqa: E402
from icml26.llm.toksuite import setting as S  # noqa: E402

TEXTS = S.corpus(4)
SIZES = {"small": 280, "mid": 320, "large": 400}


@pytest.fixture(scope="module")
def suite():
    return M.train_suite(TEXTS, SIZES)


# ----------------------------------------------------------------------------- perturbations
def test_nfkc_inverts_styling_and_fullwidth():
    s = "The currency of Andorra is 2023"
    assert unicodedata.normalize("NFKC", S.math_bold(s)) == s
    assert unicodedata.normalize("NFKC", S.fullwidth_digits(s)) == s
    assert S.math_bold(s) != s and S.fullwidth_digits(s) != s
    assert S.math_bold("ş ı") == "ş ı"  # only ASCII letters have bold forms here


def test_strip_diacritics():
    assert S.strip_diacritics("La valuta di Andorra è") == "La valuta di Andorra e"
    assert S.strip_diacritics("ülkesinin resmî dili Arnavutça ş ğ ı") == "ulkesinin resmi dili Arnavutca s g i"


def test_noise_edits_the_entity_and_is_seeded():
    q, span = "The currency of Andorra is", (16, 23)
    for seed in range(20):
        a = S.noise(q, span, "en", np.random.default_rng(seed), rate=0.0)
        assert a != q  # one forced edit inside the entity
        assert a[:16] == q[:16]  # rate 0: nothing outside it
        assert a == S.noise(q, span, "en", np.random.default_rng(seed), rate=0.0)


def test_items_are_well_formed():
    items = S.perturb(S.build_items(6, seed=3), 6, seed=3)
    facts = {(fid): a for fid, _, _, _, a in S.facts(6)}
    for it in items:
        assert len(it.choices) == 4 and len(set(it.choices)) == 4
        if it.lang != "stem":
            assert it.choices[it.answer] == facts[it.id]
            assert it.question[it.span[0]:it.span[1]] in it.question
        for cat, text in it.perturbed.items():
            assert text != it.question and it.lang in S.APPLIES[cat]
    pow23 = next(it for it in items if it.id == "pow23")
    assert pow23.choices[pow23.answer] == "8" and "23" in pow23.choices  # the NFKC reading is an option


def test_shipped_facts_match_cldr():
    pytest.importorskip("babel", reason="babel rebuilds the shipped CLDR table")
    pytest.importorskip("unidecode", reason="unidecode romanises the shipped table")
    pytest.importorskip("homoglyphs", reason="homoglyphs gives the confusables table")
    assert S.build_facts() == S.load_facts()


# ----------------------------------------------------------------------------- tokenizers and super vocabulary
def test_bytes_member_is_raw_utf8(suite):
    tok = suite["bytes"]
    assert tok.vocab_size == 256 + 4
    assert M.bytes_per_token(tok, TEXTS) == 1.0
    for t in ("La valuta di Andorra è euro.", "安道尔的货币是欧元。", "𝐓𝐡𝐞"):
        assert len(tok.encode(t)) == len(t.encode("utf-8"))
        assert tok.decode(tok.encode(t)) == t


@pytest.mark.parametrize("name", ["bytes", "bpe_s", "bpe_l", "chars", "unigram", "wordpiece"])
def test_token_keys_spell_the_text(suite, name):
    """Concatenating the super-vocabulary keys of a tokenization gives back the text's bytes."""
    tok = suite[name]
    vocab = {i: t for t, i in tok.backend.get_vocab().items()}
    for text in TEXTS[:10]:
        ids = tok.encode(text)
        if tok.unk_id in ids:
            continue
        joined = b"".join(M.token_key(tok, vocab[i]) for i in ids)
        if name == "wordpiece":  # WordPiece drops spaces around punctuation: compare without spaces
            assert joined.replace(b" ", b"") == text.encode().replace(b" ", b"")
        else:
            assert joined.strip() == text.encode()


def test_super_vocabulary_shares_rows(suite):
    sv, maps = M.super_vocabulary(suite)
    assert len(sv) == len(set(sv))
    for name, tok in suite.items():
        assert maps[name].shape == (tok.vocab_size,)
        assert len(set(maps[name].tolist())) == tok.vocab_size  # each V_i maps injectively into SV
    # the byte 'a' of the byte model and of the BPE models is one SV entry
    a_bytes = maps["bytes"][suite["bytes"].backend.token_to_id("a")]
    a_bpe = maps["bpe_l"][suite["bpe_l"].backend.token_to_id("a")]
    assert a_bytes == a_bpe and sv[a_bytes] == b"a"
    assert maps["bytes"][0] == maps["unigram"][0] == sv.index(b"\x00<pad>")


def test_member_is_a_slice_of_the_superset(suite):
    """With tied embeddings, a freshly sliced member's logits are the superset's logits at its SV columns."""
    from icml26.nn.transformer import LMConfig, TinyLM

    sv, maps = M.super_vocabulary(suite)
    torch.manual_seed(0)
    sup = TinyLM(LMConfig(vocab_size=len(sv), d_model=32, n_layers=1, n_heads=4, max_len=64)).eval()
    m = maps["bpe_s"]
    member = M.init_from_superset(sup, m).eval()
    ids = torch.tensor([suite["bpe_s"].encode(TEXTS[0], bos=True)])
    with torch.no_grad():
        got, _ = member(ids)
        want, _ = sup(torch.as_tensor(m)[ids])
    torch.testing.assert_close(got, want[..., torch.as_tensor(m)])
    with pytest.raises(ValueError, match="mapping"):
        M.init_from_superset(sup, np.array([len(sv)]))


# ----------------------------------------------------------------------------- scoring and metric
def test_sequence_logprobs_matches_cross_entropy(suite):
    from icml26.nn.transformer import LMConfig, TinyLM

    tok = suite["chars"]
    torch.manual_seed(1)
    model = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=32, n_layers=1, n_heads=4, max_len=128)).eval()
    seqs = [tok.encode(t, bos=True) for t in TEXTS[:5]]
    lp = M.sequence_logprobs(model, seqs, chunk=2)
    for s, v in zip(seqs, lp):
        x = torch.tensor([s])
        with torch.no_grad():
            logits, _ = model(x[:, :-1])
        ce = torch.nn.functional.cross_entropy(logits[0], x[0, 1:], reduction="sum")
        assert v == pytest.approx(-float(ce), rel=1e-5)


def test_score_choices_prefers_what_the_model_prefers(suite):
    """A model trained on one fact puts its option on top; the score is the per-byte option log-likelihood."""
    from icml26.nn.train import train_lm
    from icml26.nn.transformer import LMConfig, TinyLM

    tok = suite["bpe_l"]
    sent = torch.tensor([tok.encode("The currency of Andorra is Euro.", bos=True)])
    torch.manual_seed(0)
    model = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=32, n_layers=1, n_heads=4, max_len=64))
    train_lm(model, lambda g: sent, steps=60, lr=1e-2, warmup=1)
    s = M.score_choices(model, tok, ["The currency of Andorra is"], [["Dram", "Euro"]], [" "])
    assert s.shape == (1, 2) and s[0].argmax() == 1
    full = M.sequence_logprobs(model, [tok.encode("The currency of Andorra is Euro", bos=True),
                                       tok.encode("The currency of Andorra is", bos=True)])
    assert s[0, 1] == pytest.approx((full[0] - full[1]) / len(" Euro"), rel=1e-5)


def test_relative_drop_and_bootstrap():
    assert M.relative_drop(0.8, 0.6) == pytest.approx(0.25)
    assert M.relative_drop(0.5, 0.75) == pytest.approx(-0.5)
    assert np.isnan(M.relative_drop(0.0, 0.0))
    with pytest.raises(ValueError, match="acc_clean"):
        M.relative_drop(1.5, 0.2)
    c = np.array([1, 1, 1, 0, 1, 1, 0, 1], float)
    p = np.array([1, 0, 1, 0, 0, 1, 0, 1], float)
    lo, hi = M.bootstrap_drop(c, p, c, p, n_boot=200, seed=0)
    assert lo == hi == 0.0  # a model compared with itself
    lo, hi = M.bootstrap_drop(c, p, n_boot=500, seed=0)
    assert lo <= M.relative_drop(c.mean(), p.mean()) <= hi
    with pytest.raises(ValueError, match="clean_b"):
        M.bootstrap_drop(c, p, c, None)


# ----------------------------------------------------------------------------- hand-written checks
def _ms(alg, size, n=3):
    return [{"spread/algorithms": a, "spread/bpe_sizes": b, "clean_acc_min": 0.9} for a, b in zip(alg, size)][:n]


def test_design_over_size_check():
    assert E.check_design_over_size(_ms([0.3, 0.35, 0.4], [0.1, 0.12, 0.05])).status == "reproduced"
    assert E.check_design_over_size(_ms([0.1, 0.1, 0.1], [0.3, 0.2, 0.3])).status == "not-reproduced"
    gated = [dict(m, clean_acc_min=0.3) for m in _ms([0.3, 0.35, 0.4], [0.1, 0.12, 0.05])]
    assert E.check_design_over_size(gated).status == "not-checkable"


def test_effect_over_noise_check():
    names = ["bytes", "bpe_l", "unigram"]
    ms = [{**{f"mean_drop/{n}": base + 0.01 * s for n, base in zip(names, (0.1, 0.5, 0.3))}, "clean_acc_min": 0.9}
          for s in range(3)]
    assert E.check_effect_over_noise(ms).status == "reproduced"
    assert E.check_effect_over_noise(E.control_effect_over_noise(ms)).status == "not-reproduced"


def test_cached_suite_is_read_back(tmp_path):
    """A second call reads the fitted files back, so Unigram/WordPiece ids are the same in a seed re-run."""
    a = M.cached_suite(TEXTS, SIZES, tmp_path)
    b = M.cached_suite(TEXTS, SIZES, tmp_path)
    for name in M.SUITE:
        assert a[name].backend.to_str() == b[name].backend.to_str()
        assert a[name].kind == M.train_suite(TEXTS, SIZES, members=[name])[name].kind


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_profiles_use_the_shipped_fit(tmp_path, profile):
    """Each profile's corpus has a shipped fit, read back the same whatever the cache directory (machine)."""
    from icml26.llm.toksuite import PAPER

    prof = PAPER.profiles[profile]
    texts = S.corpus(int(prof["n_territories"]))
    sizes = {k: int(prof[f"vocab_{k}"]) for k in ("small", "mid", "large")}
    shipped = M.shipped_suite(texts, sizes)
    assert shipped is not None, "run method.write_fits for this profile's corpus"
    a = M.cached_suite(texts, sizes, tmp_path / "machine_a")
    b = M.cached_suite(texts, sizes, tmp_path / "machine_b")
    assert not (tmp_path / "machine_a").exists()  # nothing fitted, nothing written
    fresh = M.train_suite(texts, sizes)
    for name in M.SUITE:
        assert a[name].backend.to_str() == b[name].backend.to_str() == shipped[name].backend.to_str()
        assert a[name].kind == fresh[name].kind
        assert a[name].vocab_size == fresh[name].vocab_size
        if name in ("bytes", "chars", "bpe_s", "bpe_m", "bpe_l"):  # deterministic trainers: the shipped fit is theirs
            assert a[name].encode_batch(texts) == fresh[name].encode_batch(texts)


def test_suite_key_and_write_fits(tmp_path):
    k = M.suite_key(TEXTS, SIZES)
    assert k == M.suite_key(list(TEXTS), dict(reversed(list(SIZES.items()))))  # order of sizes is irrelevant
    assert k != M.suite_key(TEXTS, {**SIZES, "large": SIZES["large"] + 1})
    assert k != M.suite_key(TEXTS[:-1], SIZES)
    suite = M.train_suite(TEXTS, SIZES)
    path = tmp_path / "fits.json.gz"
    M.write_fits([(TEXTS, SIZES, suite)], path=path)
    back = M.shipped_suite(TEXTS, SIZES, path=path)
    for name in M.SUITE:  # (Unigram scores may print differently after a round trip; the fit is the same)
        assert back[name].backend.get_vocab() == suite[name].backend.get_vocab()
        assert back[name].encode_batch(TEXTS) == suite[name].encode_batch(TEXTS)
    assert M.shipped_suite(TEXTS[:-1], SIZES, path=path) is None
    with pytest.raises(ValueError, match="suites"):
        M.write_fits([(TEXTS, SIZES, {"bytes": suite["bytes"]})], path=path)
    with pytest.raises(TypeError, match="sizes"):
        M.suite_key(TEXTS, [300, 400, 800])


def test_effect_over_noise_has_no_partly_tier():
    """A spread between 1 x and 2 x the seed std is not a reproduction (the issue's rule has no 'partly' tier)."""
    names = ["bytes", "bpe_l", "unigram"]
    noise = [0.0, 0.1, 0.2]  # per-seed offsets: std 0.1 for every member
    ms = [{**{f"mean_drop/{n}": base + noise[s] for n, base in zip(names, (0.30, 0.45, 0.40))}, "clean_acc_min": 0.9}
          for s in range(3)]  # spread 0.15: above 1 x std, below 2 x std
    assert E.check_effect_over_noise(ms).status == "not-reproduced"


def _noise_rows(bytes_drop, bpe_l_drop, gate=0.9):
    return [{"drop/bytes/noise": a, "drop/bpe_l/noise": b, "clean_acc_min": gate}
            for a, b in zip(bytes_drop, bpe_l_drop)]


def test_bytes_resist_noise_rule_is_the_pre_registered_count():
    ms = _noise_rows([0.40, 0.45, 0.50], [0.60, 0.70, 0.49])  # 2/3 seeds below by >= 0.01
    assert E.check_bytes_resist_noise(ms).status == "reproduced"
    assert E.check_bytes_resist_noise(_noise_rows([0.40, 0.70, 0.50], [0.60, 0.60, 0.49])).status == "not-reproduced"
    assert E.check_bytes_resist_noise(E.contradict_bytes_resist_noise(ms)).status != "reproduced"
    assert E.check_bytes_resist_noise(E.control_bytes_resist_noise(ms)).status != "reproduced"
    assert E.check_bytes_resist_noise(_noise_rows([0.40, 0.45, 0.50], [0.60, 0.70, 0.49], gate=0.5)).status \
        == "not-checkable"


def test_normalisers_lose_stem_is_not_decided():
    """Part (b) cannot pass (NFKC's full-width drop is 0 by construction) and part (a) is capped by design."""
    from icml26.llm.toksuite import PAPER

    claim = next(c for c in PAPER.claims if c.id == "normalisers-lose-stem")
    ms = [{"stem_acc/unigram_nfkc": 0.3, "stem_acc/unigram": 0.8, "drop/unigram/stem": 0.5,
           "drop/unigram_nfkc/stem": 0.0, "clean_acc_min": 0.9} for _ in range(3)]
    v = PAPER.verdict(claim, ms)
    assert v.status == "not-checkable" and "would say partly" in v.evidence


def test_chance_corrected_drop():
    m = {"acc_clean/x/noise": 0.75, "acc/x/noise": 0.25}
    assert E.check_util_chance_corrected(m, "x", "noise") == pytest.approx(1.0)
    m = {"acc_clean/x/noise": 1.0, "acc/x/noise": 0.625}
    assert E.check_util_chance_corrected(m, "x", "noise") == pytest.approx(0.5)
    assert np.isnan(E.check_util_chance_corrected({"acc_clean/x/noise": 0.25, "acc/x/noise": 0.25}, "x", "noise"))


# ----------------------------------------------------------------------------- keys, fits and the on-disk cache
def test_profile_suite_keys_are_pinned():
    """The shipped fits are found by these keys: a change of suite_key (or of a profile's corpus) loses them."""
    from icml26.llm.toksuite import PAPER

    want = {"quick": "33ca60b39f9e6755", "full": "d0cddf838c083cf7"}
    for name, key in want.items():
        prof = PAPER.profiles[name]
        sizes = {k: int(prof[f"vocab_{k}"]) for k in ("small", "mid", "large")}
        assert M.suite_key(S.corpus(int(prof["n_territories"])), sizes) == key


@pytest.mark.parametrize("sizes, exc, match", [
    ({"small": 280, "mid": 320}, TypeError, r"sizes\['large'\]"),
    ({"small": 280, "mid": 320, "large": 400, "huge": 900}, ValueError, "huge"),
    ({"small": 280, "mid": 320.0, "large": 400}, TypeError, r"sizes\['mid'\]"),
    ({"small": True, "mid": 320, "large": 400}, TypeError, r"sizes\['small'\]"),
    ({"small": 5, "mid": 320, "large": 400}, ValueError, r"sizes\['small'\]"),
    ([280, 320, 400], TypeError, "sizes"),
])
def test_suite_key_validates_sizes(sizes, exc, match):
    with pytest.raises(exc, match=match):
        M.suite_key(TEXTS, sizes)
    with pytest.raises(exc, match=match):
        M.train_suite(TEXTS, sizes)


def test_shipped_suite_paths(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="path"):
        M.shipped_suite(TEXTS, SIZES, path=tmp_path / "missing.json.gz")
    with pytest.raises(TypeError, match="path"):
        M.shipped_suite(TEXTS, SIZES, path=3)
    assert M.shipped_suite(TEXTS, SIZES) is None  # the shipped file has no fit of this small corpus
    monkeypatch.setattr(M, "FITS", tmp_path / "absent.json.gz")
    assert M.shipped_suite(TEXTS, SIZES) is None  # a build without the shipped file: no shipped fits


def test_shipped_members_have_the_suite_kinds():
    from icml26.llm.toksuite import PAPER

    prof = PAPER.profiles["quick"]
    sizes = {k: int(prof[f"vocab_{k}"]) for k in ("small", "mid", "large")}
    shipped = M.shipped_suite(S.corpus(int(prof["n_territories"])), sizes)
    assert {name: tok.kind for name, tok in shipped.items()} == {name: kind for name, (kind, _, _) in M.SUITE.items()}


def test_cached_suite_first_fit_wins(tmp_path, monkeypatch):
    """A fit already on disk is read back and never replaced (parallel workers agree on one fit)."""
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path / "root"))
    monkeypatch.delenv("ICML26_NO_CACHE", raising=False)
    first = M.cached_suite(TEXTS, SIZES, shipped=False)
    files = list((tmp_path / "root" / "toksuite").glob("suite-*.json"))
    assert len(files) == 1
    other = M.train_byte_level(TEXTS, None).backend.to_str()  # plant another "fit" in its place
    import json

    files[0].write_text(json.dumps({name: other for name in M.SUITE}), encoding="utf-8")
    again = M.cached_suite(TEXTS, SIZES, shipped=False)
    assert all(again[name].backend.to_str() == other for name in M.SUITE)
    assert {n: t.kind for n, t in again.items()} == {n: t.kind for n, t in first.items()}
    files[0].write_text("{not json", encoding="utf-8")  # an unreadable file is refitted
    assert M.cached_suite(TEXTS, SIZES, shipped=False)["bytes"].vocab_size == 260
    monkeypatch.setenv("ICML26_NO_CACHE", "1")
    assert M.cached_suite(TEXTS, SIZES, tmp_path / "elsewhere", shipped=False)["bytes"].vocab_size == 260
    assert not (tmp_path / "elsewhere").exists()
    with pytest.raises(TypeError, match="cache_dir"):
        M.cached_suite(TEXTS, SIZES, 3, shipped=False)
