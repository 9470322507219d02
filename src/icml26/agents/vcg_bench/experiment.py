"""VCG-Bench reproduction: the ported protocol run end to end, and code editing against pixel editing.

Parts per seed (each depends on the seed alone):

* ``editing``: Task-2 recolouring triples; a code arm (patch decoder over the XML) and a pixel arm
  (conditional image-to-image CNN) trained on the same triples, steps and batch size; both gated on
  beating copy-the-input on validation MSE (and, since the review after the full run, on meeting more
  requirements than copy-the-input on test: see `_checks.py`); both outputs scored on renders with the one
  colour-component parser (requirements met, SSIM outside the edited box), paired over test items
  with a bootstrap CI; the code arm's patches also scored with the ported Task-2 metrics (ESR, XDRFR,
  edit precision, XED, MJTC);
* ``task1``: the vision-to-code analogue: a from-image parser (colour components -> mxGraph XML, no
  labels, no edges) scored with ESR and structural fidelity (Hungarian matching) against the source;
* ``endpoint`` (only with ``--set endpoint=... --set model=...``): a real model through the
  OpenAI-compatible client on Task 2 (XML + instruction -> JSON patch) and Task 1 (render -> XML).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.core.paper import Profile


def editing_part(seed: int, n_train: int, n_val: int, n_test: int, steps: int, batch: int, lr: float,
                 scale: float) -> dict[str, Any]:
    import torch

    from icml26.agents.vcg_bench import arms as A
    from icml26.agents.vcg_bench import method as M
    from icml26.agents.vcg_bench import setting as S

    torch.set_num_threads(1)
    base = 1000 * seed
    train, val, test = S.make_triples(n_train, base + 1), S.make_triples(n_val, base + 2), S.make_triples(n_test, base + 3)
    imgs = {k: (A.images([t.xml for t in ts], scale), A.images([t.target_xml for t in ts], scale))
            for k, ts in (("train", train), ("val", val), ("test", test))}
    code, code_loss = A.train_code(train, steps, batch, lr, seed)
    pix, pix_loss = A.train_pixel(train, *imgs["train"], steps, batch, lr, seed)
    out: dict[str, Any] = {"code/params": float(A.n_params(code)), "pixel/params": float(A.n_params(pix)),
                           "code/loss": [float(np.mean(code_loss[i:i + 10])) for i in range(0, steps, 10)],
                           "pixel/loss": [float(np.mean(pix_loss[i:i + 10])) for i in range(0, steps, 10)]}

    def arm_outputs(ts, src):
        patches = A.code_edit(code, ts)
        xmls = [M.apply_patch(t.xml, p)[0] for t, p in zip(ts, patches)]
        code_imgs = []
        for x, s in zip(xmls, src):
            try:
                code_imgs.append(S.render(x, scale=scale))
            except S.DiagramError:
                code_imgs.append(np.full_like(s, 255))
        return patches, xmls, np.stack(code_imgs), A.pixel_edit(pix, ts, src)

    # gate: each arm beats copy-the-input on validation MSE to the target render
    vsrc, vtgt = imgs["val"]
    _, _, vcode, vpix = arm_outputs(val, vsrc)

    def mse(a, b):
        return float(np.mean((a.astype(float) - b.astype(float)) ** 2))

    copy = mse(vsrc, vtgt)
    out["gate/copy_val_mse"] = copy
    out["code/val_mse"], out["pixel/val_mse"] = mse(vcode, vtgt), mse(vpix, vtgt)
    out["code/gain_vs_copy"] = 1 - out["code/val_mse"] / copy
    out["pixel/gain_vs_copy"] = 1 - out["pixel/val_mse"] / copy

    # test: one parser scores both renders
    src, tgt = imgs["test"]
    patches, xmls, cimgs, pimgs = arm_outputs(test, src)
    rows = {"code": [], "pixel": [], "copy": []}
    for i, t in enumerate(test):
        boxes = {c.id: S.pixel_box(c.geom, scale) for c in t.target_cells if c.vertex}
        colours = {c.id: S.colour_name(c.style["fillColor"]) for c in t.target_cells if c.vertex}
        for arm, im in (("code", cimgs[i]), ("pixel", pimgs[i]), ("copy", src[i])):
            rows[arm].append(M.image_requirements(im, tgt[i], boxes, t.target_id, t.new_colour, t.old_colour, colours))
    for arm, rs in rows.items():
        for k in ("req_rate", "all_met", "ssim_outside"):
            out[f"{arm}/{k}"] = float(np.mean([r[k] for r in rs]))
    from icml26.core.stats import bootstrap_ci

    for j, k in enumerate(("req_rate", "ssim_outside")):
        d = np.array([a[k] - b[k] for a, b in zip(rows["code"], rows["pixel"])])
        out[f"paired/{k}_diff"] = float(d.mean())
        out[f"paired/{k}_ci_lo"], out[f"paired/{k}_ci_hi"] = bootstrap_ci(d, seed=base + 4 + j)
    by_label = np.array([t.tokens[0] == S.TOK["<by-label>"] for t in test])
    for arm in ("code", "pixel"):
        rr = np.array([r["req_rate"] for r in rows[arm]])
        out[f"{arm}/req_rate_by_label"] = float(rr[by_label].mean()) if by_label.any() else float("nan")
        out[f"{arm}/req_rate_by_colour"] = float(rr[~by_label].mean()) if (~by_label).any() else float("nan")

    # the ported Task-2 metrics on the code arm's patches
    out["task2/esr"] = float(np.mean([M.execution_success(x, scale) for x in xmls]))
    out["task2/xdrfr"] = float(np.mean([M.xdrfr(t.requirements, x, t.xml) for t, x in zip(test, xmls)]))
    out["task2/edit_precision"] = float(np.mean([M.edit_precision(t.xml, x, t.text)["edit_precision"]
                                                 for t, x in zip(test, xmls)]))
    out["task2/edit_precision_attr"] = float(np.mean([M.edit_precision(t.xml, x, t.target_id + " " + t.text,
                                                                       attribute_changes=True)["edit_precision"]
                                                      for t, x in zip(test, xmls)]))
    out["task2/xed_tree"] = float(np.mean([M.xml_edit_distance(t.xml, x) for t, x in zip(test, xmls)]))
    out["task2/mjtc"] = float(np.mean([M.patch_token_count(p) for p in patches]))
    out["task2/oracle_xdrfr"] = float(np.mean([M.xdrfr(t.requirements, t.target_xml, t.xml) for t in test]))
    return out


def task1_part(seed: int, n: int, scale: float) -> dict[str, float]:
    """The vision-to-code analogue: colour components of the render -> mxGraph XML."""
    from icml26.agents.vcg_bench import method as M
    from icml26.agents.vcg_bench import setting as S

    rng = np.random.default_rng(1000 * seed + 5)
    esr, miou, f1 = [], [], []
    for _ in range(n):
        cells = S.make_diagram(rng)
        xml = S.to_xml(cells)
        img = S.render(xml, scale=scale)
        comps = S.colour_components(img)
        gen = [S.Cell(id=f"p{i}", style={"fillColor": S.PALETTE[c], "strokeColor": "#000000"}, vertex=True,
                      geom=((b[0] - 1) / scale, (b[1] - 1) / scale, (b[2] - b[0] + 3) / scale, (b[3] - b[1] + 3) / scale))
               for i, (c, b, _) in enumerate(comps)]
        gxml = S.to_xml(gen)
        esr.append(M.execution_success(gxml, scale))
        ref = [c.geom for c in cells if c.vertex]
        got = [c.geom for c in gen]
        sf = M.structural_fidelity(ref, got, reference_types=["node"] * len(ref), generated_types=["node"] * len(got),
                                   max_distance=S.PAGE[0] / 4)
        miou.append(sf["mean_iou"])
        f1.append(sf["f1"])
    return {"task1/esr": float(np.mean(esr)), "task1/struct_mean_iou": float(np.mean(miou)),
            "task1/struct_f1": float(np.mean(f1))}


def endpoint_part(endpoint: str, model: str, seed: int, n: int, scale: float) -> dict[str, float]:
    """A real (vision-)language model on both tasks through the OpenAI-compatible client (no verdict)."""
    import base64
    import io
    import json
    import re

    from PIL import Image

    from icml26.agents.policy import ChatClient
    from icml26.agents.vcg_bench import method as M
    from icml26.agents.vcg_bench import setting as S

    client = ChatClient(base_url=endpoint, model=model, max_tokens=2048)
    triples = S.make_triples(n, 1000 * seed + 6)
    x2, esr1, xdr = [], [], []
    for t in triples:
        prompt = ("Edit this draw.io mxGraph XML as instructed. Reply with JSON only: {\"changes\": "
                  "[{\"original_fragment\": <exact text copied from the XML>, \"modified_fragment\": <replacement>}]}."
                  f"\n\nInstruction: {t.text}\n\nXML:\n{t.xml}")
        try:
            reply = client.complete([{"role": "user", "content": prompt}])
            m = re.search(r"\{.*\}", reply, re.DOTALL)
            patch = json.loads(m.group()) if m else {"changes": []}
            new, _ = M.apply_patch(t.xml, patch)
        except Exception:
            new = ""
        x2.append(M.execution_success(new, scale) if new else 0.0)
        xdr.append(M.xdrfr(t.requirements, new, t.xml) if new else 0.0)
        buf = io.BytesIO()
        Image.fromarray(S.render(t.xml, scale=2.0)).save(buf, format="PNG")
        url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
        try:
            reply = client.complete([{"role": "user", "content": [
                {"type": "text", "text": "Reproduce this diagram as draw.io mxGraph XML (<mxGraphModel>...). XML only."},
                {"type": "image_url", "image_url": {"url": url}}]}])
            m = re.search(r"<mxGraphModel.*</mxGraphModel>", reply, re.DOTALL)
            esr1.append(M.execution_success(m.group(), scale) if m else 0.0)
        except Exception:
            esr1.append(0.0)
    return {"endpoint/task1_esr": float(np.mean(esr1)), "endpoint/task2_esr": float(np.mean(x2)),
            "endpoint/task2_xdrfr": float(np.mean(xdr))}


def run(profile: Profile, seed: int) -> dict:
    p = profile.params
    out = {**editing_part(seed, p["n_train"], p["n_val"], p["n_test"], p["steps"], p["batch"], p["lr"], p["scale"]),
           **task1_part(seed, p["n_task1"], p["scale"])}
    if p.get("endpoint") and p.get("model"):
        out.update(endpoint_part(p["endpoint"], p["model"], seed, p["n_endpoint"], p["scale"]))
    return out


def figure(ms: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(14, 4.2))
    arms = ("code", "pixel", "copy")
    for k, (axis, key, lab) in enumerate(((ax, "req_rate", "requirements met (fraction)"),
                                          (bx, "ssim_outside", "SSIM outside the edited box"))):
        vals = [[m[f"{a}/{key}"] for m in ms] for a in arms]
        axis.bar(range(3), [np.mean(v) for v in vals], yerr=[np.std(v) for v in vals], color=["C0", "C1", "C7"])
        axis.set_xticks(range(3), ["code edit (patch)", "pixel edit (CNN)", "copy input"])
        axis.set_xlabel("editing arm")
        axis.set_ylabel(lab)
    for arm, c in (("code", "C0"), ("pixel", "C1")):
        for i, m in enumerate(ms):
            y = np.asarray(m[f"{arm}/loss"])
            cx.plot(np.arange(len(y)) * 10, y / y[0], color=c, alpha=0.6, label=f"{arm} arm" if i == 0 else None)
    cx.set_yscale("log")
    cx.set_xlabel("training step")
    cx.set_ylabel("training loss / initial loss")
    cx.legend()
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.agents.vcg_bench.method import EXAMPLES as M_EX

    return M_EX()


def check_code_beats_pixel_editing(ms):
    """The pre-registered rule (code arm above the pixel arm on requirements met and SSIM outside the edit in
    >= 4/5 seeds, both paired bootstrap CIs above 0; gated on each arm's render MSE beating copy-the-input),
    with the gate added after the full run by review: each arm also meets more requirements than copying the
    input (see :mod:`._checks`)."""
    from icml26.agents.vcg_bench._checks import check_editing

    return check_editing(ms)


def contradict_code_beats_pixel_editing(ms):
    from icml26.agents.vcg_bench._checks import contradict_editing

    return contradict_editing(ms)


def control_code_beats_pixel_editing(ms):
    from icml26.agents.vcg_bench._checks import control_editing

    return control_editing(ms)
