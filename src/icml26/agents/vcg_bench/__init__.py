"""VCG-Bench: Towards A Unified Visual-Centric Benchmark for Structured Generation and Editing
(arXiv 2605.15677, ICML 2026).

VCG-Bench casts diagram generation and editing as Diagram-as-Code: Task 1 turns a raster diagram
into executable mxGraph (Draw.io) XML, Task 2 edits the XML with a JSON patch of exact fragment
replacements. The protocol (ESR, token counts, structural fidelity by Hungarian matching, XML edit
distance, edit precision, XDRFR, the patch applier) is ported in :mod:`.method` from the formulas
of the authors' metric code; the world (procedural diagrams, a Pillow renderer for an mxGraph
subset, the colour-component parser, Task-2 triples) is in :mod:`.setting`; the two learned editors
compared by the editability claim are in :mod:`.arms`. A real model runs through the
OpenAI-compatible client with ``icml26 run vcg-bench --set endpoint=http://localhost:8000/v1 --set
model=<name>`` (reported, no verdict).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_VLM = ("a finding about frontier VLMs (Gemini-3-Pro, GPT-5, Qwen3-VL, ...) on the 1,449-diagram dataset with "
        "Draw.io rendering and VLM judges, none of which we have; the harness runs any OpenAI-compatible model "
        "(--set endpoint=... --set model=...), and the numbers shown are our weak vision-to-code parser's and "
        "our trained code editor's on procedural diagrams, which describe the harness, not VLMs")

_GATES = (C.gate("code/gain_vs_copy", at_least=0.05,
                 why="the code arm beats copy-the-input on validation (>= 5% lower render MSE)"),
          C.gate("pixel/gain_vs_copy", at_least=0.05,
                 why="the pixel arm beats copy-the-input on validation (>= 5% lower render MSE)"))

PAPER = Paper(
    slug="vcg-bench",
    title="VCG-Bench: Towards A Unified Visual-Centric Benchmark for Structured Generation and Editing",
    source="arXiv:2605.15677",
    cluster="agents",
    feasibility="B",
    examples="icml26.agents.vcg_bench.experiment:EXAMPLES",
    substitution=(
        "Keeps: the Diagram-as-Code formulation in mxGraph XML; Task 2's JSON patch of "
        "original_fragment/modified_fragment pairs applied by first exact replacement with a whitespace-tolerant "
        "fallback; the metric formulas of the authors' eval/task1/metrics.py and eval/task2/metrics.py, ported: ESR, "
        "the offline token count len//4, the metadata counts, structural fidelity (Hungarian matching on centre "
        "distance / max_distance, pairs with cost < 0.5, mean IoU), XED (Levenshtein over pre-order tag+attribute "
        "sequences, normalised), edit precision 0.7*hit + 0.3*(1 - unintended/elements) with the authors' "
        "id-based change detection, XDRFR as the fraction of decomposed requirements met, MJTC. "
        "Replaces: Draw.io (not on PyPI or Debian) by a Pillow renderer for an mxGraph subset that is strict "
        "where Draw.io refuses a file, so ESR = parse (defusedxml) + schema checks + our render and is not "
        "comparable to the paper's; the 1,449-diagram dataset by procedural diagrams of 4 families (flowchart, "
        "org chart, Gantt bars, architecture grid) on a 160x120 page with 3-5 labelled, distinctly coloured "
        "boxes, rendered at 80x60 px; the VLM-judged XDRFR questions by XML-checkable requirements emitted with "
        "each instruction; the YOLO element detector by a colour-component parser; SigLIP and the VLM-judged "
        "SCS by SSIM and requirement rates. Task-2 instructions are one recolouring edit, referring to the box "
        "by label or by current colour (50/50). The editability claim compares two tiny learned editors trained "
        "on the same triples, steps (Adam, lr 3e-3) and batch size: a patch decoder that reads the XML's cells "
        "and emits the patch's fields (target cell, new fill) in one step, compiled to the JSON fragment patch "
        "(not an autoregressive character decoder), and a conditional image-to-image CNN (FiLM) editing the "
        "render; one colour-component parser scores both renders. The frontier-VLM findings are not checkable; "
        "the released examples are shipped in data/ (MIT) and used by the unit tests. "
        "Measured after the full run (notes, not pre-registered): the pixel arm passes its "
        "gate on render MSE (11-39% below copy-the-input) yet meets fewer requirements than copying the input "
        "(0.47 vs 0.61: it tints other boxes and smears the label), and meets none of an instruction's "
        "requirements in full on any test item; the code arm's pointer is exact on every test item, so its "
        "SSIM outside the edit is 1 (a correct patch cannot touch other pixels); the authors' XML edit-precision "
        "rule counts only added or removed cell ids, so it gives 1.0 to any recolouring patch and to copying "
        "the input alike (we report it as ported and add an attribute-aware variant, which scores our perfect "
        "code arm 0.80-0.85 only because the authors' substring rule also names root cells '0'/'1' inside ids "
        "such as 'v1'). "
        "Review after the full run (no stored metric changed): (1) code-beats-pixel-editing is now also gated on "
        "each arm meeting more requirements than copy-the-input (the issue's gate, 'each beats copy-the-input', "
        "read on the claim's own score; test split, the only one with requirement rates stored); the pixel arm "
        "fails it in 5/5 seeds, so the claim is not checkable (the comparison alone would say reproduced). "
        "Off-profile diagnostics by the review on seed 0 (not stored): the pixel CNN's training loss was still "
        "falling at 300 steps; with 1500 steps it falls 2.5x further and meets 0.54 of the requirements (0.44 at "
        "300), with lr 1e-2 at 300 steps 0.63 by staying closer to the identity (copy 0.61); it completes no "
        "edit in any of these. Its receptive field is 7 px on an 80x60 render, so a by-label instruction "
        "(reading a ~5 px label and recolouring the whole box) is out of its reach by architecture. "
        "(2) The code arm reads the parser's symbolic cell tokens, so its task is a token lookup (requirement "
        "rate = pointer accuracy), and its SSIM outside the edit is 1 by construction once the pointer is right "
        "(a unit test checks that a correct patch changes no pixel outside the box). (3) XDRFR: the authors' "
        "judge reads the patch JSON itself; we decide the requirements on the XML after applying the patch. "
        "(4) Structural fidelity in the Task-1 analogue uses max_distance = 40 page units (a quarter of the "
        "page width) for the authors' 200 px. (5) The full run took 506 s under a load of 10-14 on the shared "
        "2 cores (seeds 90-109 s each; the builder estimates about 2.3 min alone), over the issue's 3-minute "
        "target under that load."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "n_train": 64, "n_val": 16, "n_test": 16, "steps": 30, "batch": 16, "lr": 3e-3, "scale": 0.5,
            "n_task1": 6, "endpoint": "", "model": "", "n_endpoint": 8}, timeout_s=120),
        "full": Profile("full", seeds=5, params={
            "n_train": 256, "n_val": 32, "n_test": 48, "steps": 300, "batch": 16, "lr": 3e-3, "scale": 0.5,
            "n_task1": 20, "endpoint": "", "model": "", "n_endpoint": 20}, timeout_s=600),
    },
    claims=(
        Claim(id="vision-is-bottleneck", kind="headline",
              statement="Vision-to-code is the bottleneck: Task 1 execution success ranges from 0.9626 (Gemini-3-Pro) "
                        "down to 0.0 (Qwen3-VL-8B/32B), while code-to-code editing is far more stable (best Task 2 "
                        "XDRFR 0.9405).",
              paper_value="Task 1 ESR best 0.9626, Qwen3-VL-8B/32B 0.0; Task 2 XDRFR best 0.9405",
              no_control="a ranking of frontier VLMs across two tasks",
              uncheckable=_VLM,
              check=C.threshold("task2/xdrfr", at_least=0.9,
                                label="our trained code editor's XDRFR (harness demo, not a VLM)")),
        Claim(id="code-beats-pixel-editing", kind="headline",
              statement="Diagram-as-Code gives better editability than pixel editing: on the same (diagram, "
                        "instruction, target) triples and training budget, a tiny decoder emitting XML patches "
                        "meets more of the instruction's requirements and preserves the rest of the diagram "
                        "better (SSIM outside the edited box) than a tiny image-to-image CNN editing the render.",
              paper_value="qualitative: pixel edits blur text, drift scale and hallucinate elements; code edits are "
                          "precise",
              control="a conditional image-to-image CNN trained on the same triples, steps and batch size (pixel "
                      "editing)",
              # pre-registered: all of (code > pixel on requirements met and on SSIM outside the edit in >= 4/5
              # seeds; both paired bootstrap CIs above 0), gated on each arm's render MSE beating copy-the-input.
              # Rule revised after the full run by review: also gated on each arm meeting more requirements than
              # copy-the-input (see _checks.py); decided by experiment.check_code_beats_pixel_editing.
              check=None),
        Claim(id="patch-roundtrip", kind="identity",
              statement="The ported Task-2 pipeline is exact on the reference edits: the reference target XML meets "
                        "every requirement emitted with its instruction (XDRFR 1). That applying the reference patch "
                        "reproduces the target XML byte for byte, which then renders, is checked by the unit tests "
                        "(wording narrowed after the full run by review: the stored metric scores the target XML "
                        "directly, not an applied patch).",
              paper_value="n/a (the protocol's own consistency)",
              check=C.threshold("task2/oracle_xdrfr", at_least=1.0,
                                label="XDRFR of the reference target XML")),
        Claim(id="sota-falls-short", kind="headline",
              statement="State-of-the-art VLMs still fall short on structural fidelity and instruction compliance.",
              paper_value="qualitative, across 20+ VLMs",
              no_control="a description of frontier models",
              uncheckable=_VLM,
              check=C.threshold("task1/struct_mean_iou", at_least=0.5,
                                label="our from-image parser's structural fidelity (mean IoU; harness demo)")),
    ),
)
