"""Known answers for the VCG-Bench port: the released example, edit distances, matching, patches,
the renderer's strictness and the shared colour-component scorer."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

pytest.importorskip("rapidfuzz", reason="vcg-bench's XED uses rapidfuzz (extra: agents)")
pytest.importorskip("zss", reason="vcg-bench's tree edit distance uses zss (extra: agents)")

from icml26.agents.vcg_bench import method as M  # noqa: E402
from icml26.agents.vcg_bench import setting as S  # noqa: E402



def _example():
    ex = M.released_example()
    return ex["diagram.xml"], json.loads(ex["model_output.json"]), ex["instruction.txt"]


# ----------------------------------------------------------------------------- the released example
def test_released_noop_example_scores_as_the_authors_formulas_give():
    xml, out, inst = _example()
    new, applied = M.apply_patch(xml, out)
    assert new == xml and applied == 0
    assert M.execution_success(new) == 1.0  # the real Draw.io file renders in our subset
    for kind in ("tree", "token", "character"):
        assert M.xml_edit_distance(xml, new, kind) == 0.0
    ep = M.edit_precision(xml, new, inst)
    assert ep == {"edit_precision": 1.0, "correct": 1.0, "no_unintended": 1.0}
    # MJTC: compact JSON, non-ASCII kept, len // 4 (89 characters)
    assert M.patch_token_count(out) == 22
    assert M.token_count(xml) == len(xml) // 4


def test_metadata_counts_on_the_released_xml():
    xml, _, _ = _example()
    stored = json.loads(M.released_example()["task1_metadata.json"])
    got = M.xml_metadata(xml)
    # same fields as the authors' metadata.json; the stored values (102/49/0/845) were computed from another
    # Gemini generation than the bundled diagram.xml (see data/PROVENANCE.md), so we check the bundled
    # diagram against counts made by hand (and by the standard library's ElementTree, as the authors do)
    assert set(got) <= set(stored)
    assert got == {"element_count": 132, "node_count": 52, "edge_count": 6, "xml_token_count": 1174}


# ----------------------------------------------------------------------------- distances
def test_xml_edit_distance_known_answers():
    a, b = '<a x="1"><b/></a>', '<a x="2"><b/></a>'
    assert M.xml_edit_distance(a, b, "tree") == pytest.approx(1 / 3)  # [a, x=1, b] vs [a, x=2, b]
    assert M.xml_edit_distance("kitten", "sitting", "character") == pytest.approx(3 / 7)
    # unparsable falls back to tokens: tags first, then words
    assert M.xml_edit_distance("<a>one two", "<a>one three", "tree") == pytest.approx(1 / 3)
    assert M.tree_edit_distance(a, a) == 0
    assert M.tree_edit_distance(a, b) == 1  # one relabel
    assert M.tree_edit_distance('<a><b/><c/></a>', '<a><b/></a>') == 1  # one deletion


def test_edit_precision_formula():
    t = S.make_triple(np.random.default_rng(3))
    n = len(M._cell_attrs(t.xml))
    victim = [c for c in t.cells if c.vertex][0].id
    removed = "\n".join(line for line in t.xml.splitlines() if f'id="{victim}"' not in line)
    hit = M.edit_precision(t.xml, removed, f"delete {victim}")
    # the authors' rule takes every id that occurs as a substring: "delete v0" also names root cell "0"
    assert hit["correct"] == pytest.approx(0.5) and hit["edit_precision"] == pytest.approx(0.7 * 0.5 + 0.3)
    hit = M.edit_precision(t.xml.replace('id="0"', 'id="root"').replace('parent="0"', 'parent="root"'),
                           removed.replace('id="0"', 'id="root"').replace('parent="0"', 'parent="root"'),
                           f"delete {victim}")
    assert hit["edit_precision"] == pytest.approx(1.0)
    miss = M.edit_precision(t.xml, removed, "delete nothing named")
    assert miss["correct"] == 1.0 and miss["no_unintended"] == pytest.approx(1 - 1 / n)
    assert miss["edit_precision"] == pytest.approx(0.7 + 0.3 * (1 - 1 / n))
    # the authors' id-based rule does not see a recolouring (copying the input scores 1.0); attribute_changes does
    assert M.edit_precision(t.xml, t.xml, t.text)["edit_precision"] == 1.0
    t = next(t for t in S.make_triples(20, 3) if not set(t.target_id) & {"0", "1"})  # no root id inside
    assert M.edit_precision(t.xml, t.target_xml, t.target_id)["correct"] == 0.0
    assert M.edit_precision(t.xml, t.target_xml, t.target_id, attribute_changes=True)["edit_precision"] == 1.0


# ----------------------------------------------------------------------------- structural fidelity
def test_structural_fidelity_identity_and_brute_force():
    rng = np.random.default_rng(0)
    ref = np.c_[rng.uniform(0, 300, (4, 2)), rng.uniform(25, 60, (4, 2))]
    same = M.structural_fidelity(ref, ref)
    assert same["mean_iou"] == pytest.approx(1.0) and same["f1"] == pytest.approx(1.0)
    gen = ref[[2, 0, 3]] + rng.normal(0, 5, (3, 4)) * [1, 1, 0, 0]
    got = M.structural_fidelity(ref, gen, reference_types=["node"] * 4, generated_types=["node"] * 3)
    c = lambda r, g: min(np.linalg.norm((r[:2] + r[2:] / 2) - (g[:2] + g[2:] / 2)) / 200, 1.0)  # noqa: E731
    best = min(itertools.permutations(range(4), 3), key=lambda p: sum(c(ref[p[j]], gen[j]) for j in range(3)))
    ious = [M.box_iou(ref[best[j]], gen[j]) for j in range(3) if c(ref[best[j]], gen[j]) < 0.5]
    assert got["matched"] == len(ious)
    assert got["mean_iou"] == pytest.approx(np.mean(ious))
    assert M.structural_fidelity(ref, []) == {"mean_iou": 0.0, "matched": 0.0, "f1": 0.0}
    assert M.box_iou([0, 0, 2, 2], [1, 1, 2, 2]) == pytest.approx(1 / 7)


# ----------------------------------------------------------------------------- patches
def test_apply_patch_exact_whitespace_and_first_occurrence():
    xml = "<r>\n  <c id='1'/>\n  <c id='1'/>\n</r>"
    out, k = M.apply_patch(xml, {"changes": [{"original_fragment": "<c id='1'/>", "modified_fragment": "<d/>"}]})
    assert out == "<r>\n  <d/>\n  <c id='1'/>\n</r>" and k == 1
    out, k = M.apply_patch("<a>  <b   x='1'/></a>", [{"original_fragment": "<b x='1'/>", "modified_fragment": "<z/>"}])
    assert out == "<a>  <z/></a>" and k == 1  # the whitespace-tolerant fallback
    out, k = M.apply_patch("<a>\n<b/>\n\n<c/></a>", [{"original_fragment": "<b/> <c/>", "modified_fragment": "<z/>"}])
    assert out == "<a>\n<z/></a>" and k == 1
    out, k = M.apply_patch(xml, [{"original_fragment": "<absent/>", "modified_fragment": "<z/>"},
                                 {"original_fragment": "", "modified_fragment": "<z/>"}])
    assert out == xml and k == 0
    with pytest.raises(ValueError, match="patch"):
        M.apply_patch(xml, "{not json")


def test_compiled_patch_reproduces_the_target_and_xdrfr():
    from icml26.agents.vcg_bench.arms import compile_patch

    for t in S.make_triples(10, 5):
        patch = compile_patch(t.xml, t.target_id, t.new_colour)
        new, k = M.apply_patch(t.xml, patch)
        assert k == 1 and new == t.target_xml
        assert M.xdrfr(t.requirements, new, t.xml) == 1.0
        assert M.xdrfr(t.requirements, t.xml, t.xml) < 1.0  # copying the input misses the edit
        assert M.xml_edit_distance(t.xml, new) > 0


# ----------------------------------------------------------------------------- renderer and parser
def test_renderer_is_strict():
    t = S.make_triple(np.random.default_rng(1))
    assert M.execution_success(t.xml) == 1.0
    bad_parent = t.xml.replace('parent="1"', 'parent="nope"', 1)
    dup = t.xml.replace('id="v1"', 'id="v0"', 1)
    broken = t.xml[: len(t.xml) // 2]
    for x in (bad_parent, dup, broken, "<foo/>"):
        assert M.execution_success(x) == 0.0
        with pytest.raises(S.DiagramError):
            S.render(x)


def test_colour_parser_finds_every_box():
    for t in S.make_triples(8, 2):
        img = S.render(t.xml, scale=0.5)
        comps = S.colour_components(img)
        for c in t.cells:
            if c.vertex:
                name = S.colour_name(c.style["fillColor"])
                assert any(n == name for n, _, _ in comps), (name, comps)


def test_image_scorer_oracle_and_copy():
    for t in S.make_triples(6, 4):
        src, tgt = S.render(t.xml), S.render(t.target_xml)
        boxes = {c.id: S.pixel_box(c.geom, 0.5) for c in t.target_cells if c.vertex}
        cols = {c.id: S.colour_name(c.style["fillColor"]) for c in t.target_cells if c.vertex}
        good = M.image_requirements(tgt, tgt, boxes, t.target_id, t.new_colour, t.old_colour, cols)
        copy = M.image_requirements(src, tgt, boxes, t.target_id, t.new_colour, t.old_colour, cols)
        assert good == {"req_rate": 1.0, "all_met": 1.0, "ssim_outside": pytest.approx(1.0)}
        assert copy["req_rate"] < 1.0 and copy["all_met"] == 0.0
        assert copy["ssim_outside"] == pytest.approx(1.0)  # the edit lies inside the blanked box


def test_seeded_triples_are_deterministic():
    a, b = S.make_triples(5, 9), S.make_triples(5, 9)
    assert [t.xml for t in a] == [t.xml for t in b] and [t.text for t in a] == [t.text for t in b]


def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="xml"):
        M.execution_success(None)
    with pytest.raises(ValueError, match="reference"):
        M.structural_fidelity([[0, 0, 1]], [[0, 0, 1, 1]])
    with pytest.raises(ValueError, match="kind"):
        M.xml_edit_distance("<a/>", "<a/>", "fuzzy")
    with pytest.raises(ValueError, match="img"):
        S.colour_components(np.full((4, 4, 3), np.nan))


def test_endpoint_path_with_a_stub_client(monkeypatch):
    """The endpoint part parses a served model's replies (stubbed here: no network)."""
    import icml26.agents.policy as P
    from icml26.agents.vcg_bench import experiment as E
    from icml26.agents.vcg_bench.arms import compile_patch

    triples = {t.text: t for t in S.make_triples(3, 1000 * 0 + 6)}

    class Stub:
        def __init__(self, **kw):
            pass

        def complete(self, messages, **kw):
            content = messages[0]["content"]
            if isinstance(content, str):  # Task 2: answer with the reference patch
                t = next(t for text, t in triples.items() if text in content)
                return "```json\n" + json.dumps(compile_patch(t.xml, t.target_id, t.new_colour)) + "\n```"
            return "<mxGraphModel><root><mxCell id='0'/><mxCell id='1' parent='0'/></root></mxGraphModel>"

    monkeypatch.setattr(P, "ChatClient", Stub)
    out = E.endpoint_part("http://localhost:1/v1", "stub", 0, 3, 0.5)
    assert out == {"endpoint/task1_esr": 1.0, "endpoint/task2_esr": 1.0, "endpoint/task2_xdrfr": 1.0}


# ----------------------------------------------------------------------------- added by review after the full run
def test_correct_patch_touches_no_pixel_outside_the_edited_box():
    """The identity behind the code arm's SSIM-outside = 1: a correct fillColor patch changes pixels only
    inside the target cell's box (max abs difference 0 outside), while a patch on the wrong cell does not."""
    from icml26.agents.vcg_bench.arms import compile_patch

    for t in S.make_triples(12, 11):
        x0, y0, x1, y1 = S.pixel_box(next(c for c in t.cells if c.id == t.target_id).geom, 0.5)
        src = S.render(t.xml)
        new, _ = M.apply_patch(t.xml, compile_patch(t.xml, t.target_id, t.new_colour))
        diff = np.abs(S.render(new).astype(int) - src.astype(int)).sum(2) > 0
        assert diff.any()
        outside = diff.copy()
        outside[y0:y1 + 1, x0:x1 + 1] = False
        assert not outside.any()
        other = next(c.id for c in t.cells if c.vertex and c.id != t.target_id)
        wrong, _ = M.apply_patch(t.xml, compile_patch(t.xml, other, t.new_colour))
        boxes = {c.id: S.pixel_box(c.geom, 0.5) for c in t.target_cells if c.vertex}
        cols = {c.id: S.colour_name(c.style["fillColor"]) for c in t.target_cells if c.vertex}
        r = M.image_requirements(S.render(wrong), S.render(t.target_xml), boxes, t.target_id, t.new_colour,
                                 t.old_colour, cols)
        assert r["all_met"] == 0.0 and r["ssim_outside"] < 1.0


def _editing_rows(pixel_req: float) -> list[dict]:
    return [{"code/req_rate": 1.0, "pixel/req_rate": pixel_req, "copy/req_rate": 0.61,
             "code/ssim_outside": 1.0, "pixel/ssim_outside": 0.99, "paired/req_rate_ci_lo": 0.3,
             "paired/ssim_outside_ci_lo": 0.005, "code/gain_vs_copy": 1.0, "pixel/gain_vs_copy": 0.2}
            for _ in range(5)]


def test_editing_claim_needs_a_pixel_arm_that_beats_copy_on_requirements():
    """The review's gate: a pixel arm below copy-the-input on requirements met (as stored: 0.47 vs 0.61)
    leaves the claim not checkable; one above it lets the pre-registered comparison decide."""
    from icml26.agents.vcg_bench import experiment as E

    below = E.check_code_beats_pixel_editing(_editing_rows(0.47))
    assert below.status == "not-checkable" and "would say reproduced" in below.evidence
    assert "rule revised after the full run by review" in below.evidence
    above = E.check_code_beats_pixel_editing(_editing_rows(0.7))
    assert above.status == "reproduced"
    assert E.check_code_beats_pixel_editing(E.control_code_beats_pixel_editing(_editing_rows(0.7))).status \
        != "reproduced"
    assert E.check_code_beats_pixel_editing(E.contradict_code_beats_pixel_editing(_editing_rows(0.7))).status \
        != "reproduced"


def _old_train(kind, triples, src, tgt, steps, batch, lr, seed):
    """Copies of arms.train_code / train_pixel's private loops before issue 13 (pin the port to nn.mlp.fit)."""
    import torch

    from icml26.agents.vcg_bench import arms as A

    F = torch.nn.functional
    if kind == "code":
        model = A.make_patch_decoder(seed=seed)
        instr, cells, mask, t, col, _ = A.code_batch(triples)
        g = torch.Generator().manual_seed(seed)
    else:
        model = A.make_pixel_editor(seed=seed)
        x, y = A.to_tensor(src), A.to_tensor(tgt)
        instr = torch.tensor([t.tokens for t in triples], dtype=torch.long)
        g = torch.Generator().manual_seed(seed + 1)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        idx = torch.randint(len(triples), (batch,), generator=g)
        if kind == "code":
            lp, lc = model(instr[idx], cells[idx], mask[idx])
            loss = F.cross_entropy(lp, t[idx]) + F.cross_entropy(lc, col[idx])
        else:
            loss = F.mse_loss(model(x[idx], instr[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return model, losses


def test_arms_train_on_the_shared_fit_bit_identically_to_their_former_loops():
    """train_code and train_pixel now use nn.mlp.fit: same per-step losses and weights, bit for bit."""
    import torch

    from icml26.agents.vcg_bench import arms as A

    triples = S.make_triples(12, 101)
    src = A.images([t.xml for t in triples], 0.5)
    tgt = A.images([t.target_xml for t in triples], 0.5)
    new = {"code": A.train_code(triples, 5, 4, 3e-3, 101),
           "pixel": A.train_pixel(triples, src, tgt, 5, 4, 3e-3, 101)}
    for kind, (model, losses) in new.items():
        old_model, old_losses = _old_train(kind, triples, src, tgt, 5, 4, 3e-3, 101)
        assert losses == old_losses and len(losses) == 5
        a, b = model.state_dict(), old_model.state_dict()
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
