"""CADFit: Precise Mesh-to-CAD Program Generation with Hybrid Optimization (arXiv 2605.01171).

CADFit turns a triangle mesh into an editable CadQuery program. It proposes extrusions of
sketches found by sectioning the mesh and revolves of symmetric profiles, executes every
candidate in the CAD kernel, keeps those that raise volumetric IoU with the mesh (greedy
selection, then backward pruning), and finishes with per-edge fillet and chamfer refinement.
The package holds the pipeline (``method``), procedural CadQuery parts as targets
(``setting``) and the reproduction (``experiment``).
"""

from icml26.core import checks as C
from icml26.core.paper import Claim, Paper, Profile

_FAMILIES_FULL = ["plate_holes", "turned_shaft", "pulley", "chamfered_block"]

PAPER = Paper(
    slug="cadfit",
    title="CADFit: Precise Mesh-to-CAD Program Generation with Hybrid Optimization",
    source="arXiv:2605.01171",
    cluster="science",
    feasibility="B",
    examples="icml26.science.cadfit.experiment:EXAMPLES",
    substitution=(
        "Keeps: the pipeline of the paper and its official code (ghadinehme/CADFit) on meshes normalised to "
        "[-1, 1]^3: sketches from mesh sections at planar faces (0.05 inside) and 5 axis slices per axis; "
        "extrusion candidates from the one-sided Chamfer-vs-translation scan (t in [-2, 2], step 0.01, "
        "|dCD/dt| < 0.2, mean CD < 0.05, <= 5 intervals per sketch); revolve candidates from reflection "
        "symmetry (0/45/90/135 degrees + 2 PCA axes, 95% of points within 3% of the bbox), axis refinement "
        "(+-3 degrees x +-3% offset, 13 x 13), a rotation check (mean CD < 0.01) and a 360-degree revolve of the "
        "half-profile; every candidate executed in CadQuery/OpenCascade and scored by volumetric IoU with "
        "manifold3d booleans; discard IoU < 0.01, sort by IoU/volume, greedy union that keeps an op when IoU "
        "does not drop, early stop > 0.99, backward pruning while the gain is > -0.005, fall back to the best "
        "single candidate; edge refinement probing fillet/chamfer 0.02 on line/circle edges >= 0.05 between "
        "non-tangent faces (longest first), sweeping 0.16 -> 0.02 and batch-applying with roll-back; a "
        "CadQuery script as output. Replaces: the benchmarks (DeepCAD, Fusion 360, ...) by procedural "
        "CadQuery parts with random sizes (full profile, per seed: a plate with holes, a turned shaft with a "
        "taper, a V-groove pulley, a chamfered block and a noisy copy of a plate (Gaussian vertex noise, std "
        "0.003), 3 seeds, claims pooled over the 15 parts; quick: a plate and a chamfered block; the L-bracket, "
        "boss plate, filleted block and the out-of-vocabulary loft and draft are implemented in setting.py but left out of the full run, which did not fit our CPU budget "
        "with them: a first full run with 7 parts x 5 seeds was stopped after 11 minutes under load 12 without "
        "finishing a seed; the 3-seed full run took 20 minutes wall, 360-450 s per seed, under a load average of 11-15 on 2 shared cores, far above the 3-minute target), so the ground-truth construction is known; the "
        "learned peers (CAD-Recode, cadrille) and the image-to-CAD front end (Hunyuan3D) by nothing (their "
        "claims are not checkable), and the comparison by non-learned controls measured on the same "
        "candidates. Deviations (ours, for CPU time or because the code leaves them open): no residual "
        "refinement round and no alpha-wrap repair; 100k surface samples for the revolve check but 15k for the "
        "translation scans (8k for both in quick); "
        "rotation check every 10 degrees over 360 (the official run_pipeline.py calls analyze_revolve_axis.py with "
        "--angle-min 0 --angle-max 90 --step 90, i.e. it tests 0 and 90 degrees only; the function's default is 1 "
        "degree over 360); at most 120 loop points per translation scan; at most "
        "6 longest edges probed; the greedy pool holds every executed candidate (the official code keeps, per "
        "sketch, only the best positive and the best negative extrusion and the best revolve by individual IoU); "
        "the official shortcut (a single candidate above IoU 0.99 is returned without greedy search) is replaced by "
        "the fall-back to the best single candidate after the search; an operation is kept only when the union IoU "
        "rises (official: when it does not drop); edge refinement always runs (opt-in, off by default, in the "
        "official run_pipeline.py); programs are unions only, so a bore that no section loop carries is not "
        "recovered (the chamfered blocks) where the official residual round could cut it; without alpha-wrap a "
        "solid whose tessellation is not a closed 2-manifold scores IoU 0 (in the full run this hit the open-loop "
        "top-3 control on the 3 pulleys in the first full run; the check's evidence repeats that comparison without "
        "the parts where it happens); the full profile was re-run on 2026-12-01 after tessellations were put in a "
        "canonical order (OpenCascade's face order varied between builds, so runs were not repeatable): the "
        "open-loop top-3 now holds other candidates, and re-executed it fails on 20% of parts, which turned "
        "invalid-ratio from partly into reproduced; "
        "loops are circles or line/arc paths (arcs where >= 3 "
        "short polygon edges lie on one circle); extrusion ends snapped to a detected planar face within 0.02; "
        "planar regions smaller than 0.03 in area or 0.15 in width are not sectioned; emitted scripts select "
        "edges by position (nearest edge centre) so they run standalone."
    ),
    profiles={
        "quick": Profile("quick", seeds=2, params={
            "families": ["plate_holes", "chamfered_block"], "noisy": [], "noise": 0.003,
            "n_surface": 8000, "max_edges": 6, "n_chamfer": 2000}, timeout_s=600),
        "full": Profile("full", seeds=3, params={
            "families": _FAMILIES_FULL, "noisy": ["plate_holes"], "noise": 0.003,
            "n_surface": 100000, "max_edges": 6, "n_chamfer": 4000}, timeout_s=1800),
    },
    claims=(
        Claim(
            id="beats-controls",
            statement=("CADFit reconstructs meshes with higher volumetric IoU than mesh-to-CAD alternatives; here "
                       "decided against non-learned controls built from the same candidates: the open-loop union of "
                       "all candidates, the open-loop top-3 by geometric fit, the best single candidate, and a "
                       "bounding-box extrusion. (Changed by review after the full run: partly -> not-reproduced, the "
                       "control put in the method's place reads the same partly (the best single candidate passes "
                       "against the open-loop union, higher on 80% of 15 parts, p=0.0034, and the bounding box, 80%, "
                       "p=0.0004, the two controls CADFit passes against, with mean IoU 0.984 above the 0.95 bar; "
                       "CADFit is above it on 3/15 parts, all chamfered blocks, p=0.112, IoU 0.990 vs 0.984). partly "
                       "now needs a part the best single candidate fails.)"),
            paper_value="qualitative: CADFit above CAD-Recode / cadrille etc. in IoU and CD on several benchmarks",
            kind="headline",
            control="open-loop assembly without execution feedback (union of all, top-3 by fit), best single "
                    "candidate, bounding-box extrusion"),
        Claim(
            id="beats-learned-peers",
            statement="CADFit beats the learned mesh-to-CAD methods (CAD-Recode, cadrille) on the CAD benchmarks.",
            paper_value="qualitative: higher IoU, lower CD than the learned peers on DeepCAD / Fusion 360 / ...",
            kind="headline", no_control="the learned peers need their released weights and the benchmarks",
            uncheckable="the learned peers (CAD-Recode, cadrille) need model weights and the benchmarks, which we "
                        "lack; shown: CADFit's mean IoU on our procedural parts against the 0.95 bar",
            check=C.threshold("iou_mean/cadfit", at_least=0.95, label="CADFit mean IoU (all parts)")),
        Claim(
            id="invalid-ratio",
            statement=("CADFit's programs are rarely invalid, notably for complex designs: re-executed in a fresh "
                       "process they give one valid solid, with a lower invalid rate than an open-loop program in "
                       "the top tercile of construction complexity."),
            paper_value="qualitative: substantially lower Invalid Ratio than the baselines, particularly for "
                        "complex designs",
            kind="headline", control="open-loop top-3 candidates by geometric fit, re-executed the same way"),
        Claim(
            id="in-loop-validity",
            statement=("Every program CADFit returns was executed in the kernel during the search and gave one "
                       "valid solid (true by construction of the loop)."),
            paper_value="by construction: candidates are validated by execution", kind="identity"),
        Claim(
            id="richer-ops",
            statement=("The richer operation set pays: with revolves, fillets and chamfers CADFit gains IoU over "
                       "its extrude-only version on revolved and filleted/chamfered parts, and loses nothing on "
                       "extruded parts. (Read after the full run, not pre-registered: the pooled gain comes from the "
                       "revolve parts, +0.097; on the chamfered blocks edge refinement added nothing, +0.000, because "
                       "the chamfered profiles were already captured by extrusions of side sections.)"),
            paper_value="qualitative: supports extrude, revolve, fillet, chamfer (richer than sketch-and-extrude)",
            kind="headline", control="extrude-only CADFit on the same candidates"),
        Claim(
            id="image-to-cad",
            statement="Images can be turned into CAD programs by an image-to-3D model followed by CADFit.",
            paper_value="qualitative demo (Hunyuan3D-2 + CADFit)",
            kind="headline", no_control="a demo without a baseline",
            uncheckable="the image-to-3D model (Hunyuan3D-2) needs weights we lack; shown: CADFit on noisy meshes "
                        "(mean IoU of the noisy inputs against the 0.9 bar)",
            check=C.threshold("iou_noisy/cadfit", at_least=0.9, label="CADFit mean IoU on noisy meshes")),
    ),
)

__all__ = ["PAPER"]
