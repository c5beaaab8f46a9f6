"""The layers suite of `mcuroof run --model`: its plan on a probed board, and the points and
whole-model figures of results.json (results.document puts them in).

The plan is made after the memory and compute suites of the same run: a layer's tile is kept
small enough that one call takes about `tile_seconds` at its emitter's measured compute ceiling
(the micro:bit's bytecode would otherwise spend minutes per layer), and small enough for the
board's heap. The plan is deterministic, so a resumed run makes the same one from its log.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from mcuroof.analysis import advice, fit
from mcuroof.analysis import points as points_mod
from mcuroof.analysis import roofs as roofs_mod
from mcuroof.board import identity
from mcuroof.board import profiles as boards
from mcuroof.errors import UserError
from mcuroof.kernels.compute import compute_kernels
from mcuroof.kernels.contract import TYPE_NAMES, Kernel, unit_key
from mcuroof.kernels.emitters import LAYER_EMITTERS, fills_in_viper
from mcuroof.kernels.ops import dispatch, layer_plan
from mcuroof.model import network
from mcuroof.suites import compute, timing
from mcuroof.suites.base import Context, Suite

EMITTERS = LAYER_EMITTERS  # the emitters with layer kernels (kernels.emitters)


@dataclass
class Request:
    """What the user asked to profile; `jobs` and `skipped` are filled in once planned."""

    network: network.Network
    dtypes: list[str] | None = None  # None: the model's own element type
    emitters: list[str] | None = None  # None: every emitter the board has
    tile_seconds: float | None = None
    jobs: list = field(default_factory=list)
    skipped: list = field(default_factory=list)


def parse_list(text: str | None, allowed: tuple[str, ...], option: str) -> list[str] | None:
    if not text:
        return None
    chosen = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in chosen if s not in allowed]
    if bad or not chosen:
        raise UserError(f"{option}: unknown {', '.join(bad) or '(none)'} (choose from {', '.join(allowed)})")
    return chosen


def model_dtype(net: network.Network) -> str:
    kinds = {l.dtype for l in net.layers}
    return "float32" if kinds == {"float32"} else "int8"


def config(probe: dict, ctx: Context) -> dict:
    """The layers suite's config; plans the request's jobs (ctx.layers) from the probe and the
    roofs of the suites before it (ctx.records)."""
    request, records = ctx.layers, ctx.records
    size = "small" if timing.is_small(probe) else "large"
    board_emitters = [e for e in probe.get("emitters", []) if e in EMITTERS]
    emitters = [e for e in (request.emitters or board_emitters) if e in board_emitters]
    dtypes = request.dtypes or [model_dtype(request.network)]
    if not probe.get("float"):
        dtypes = [d for d in dtypes if d != "float32"]
    _, mac, _ = roofs_mod.split(records)
    work = layer_plan.max_work(roofs_mod.compute_roofs(mac), emitters, dtypes, size, request.tile_seconds)
    request.jobs, request.skipped = layer_plan.plan(request.network, dtypes, emitters, probe.get("free", 0), work)
    isa = identity.describe(probe, ctx.profile).isa
    request.jobs = [dataclasses.replace(j, isa=isa) for j in request.jobs]
    cfg = {**timing.for_context(probe, ctx), "jobs": request.jobs}
    if fills_in_viper(probe):
        cfg["viper_fill"] = True
    if size == "large":
        cfg["peaks"] = peaks_config(probe, request.jobs, ctx)
    return cfg


def peaks_config(probe: dict, jobs: list, ctx: Context | None = None) -> dict | None:
    """The compute suite's config for the emitters and types the layers ran, to measure their
    ceilings again after them in the same process. On the unix port the host's speed moved
    by up to 1.6x between processes (and boxed-float code between two speeds), which put
    layer points above ceilings measured in another process; a roof is the best seen, so the
    ceiling is the maximum of both measurements."""
    pairs = {(j.emitter, j.dtype) for j in jobs}
    if not pairs:
        return None
    cfg = compute.config(probe, ctx)
    cfg["emitters"] = [e for e in cfg["emitters"] if any(e == em for em, _ in pairs)]
    cfg["types"] = [layer_plan.DTYPES[dt][0] for dt in layer_plan.DTYPES if any(dt == d for _, d in pairs)]
    return cfg


def profile(board: dict) -> boards.Board | None:
    """The profile of the board that ran (where the board's name is one)."""
    return boards.find(board.get("name"))


def model_fit(board: dict, net: network.Network, pts: list[dict]) -> dict:
    """The fit verdict of the network on the board that ran it: its profile and the free heap
    its probe reported."""
    budget = fit.budget(profile(board), board.get("free_heap"))
    return fit.verdict(net, budget, fit.whole_layer_heap(pts)).as_dict()


def results_parts(request: Request, records: list[dict], roofs: list[dict], board: dict) -> dict:
    """The `points`, `model` and layer `checks` of results.json (results.document merges them)."""
    emitters = board.get("emitters", [])
    by_key = {job.key: job for job in request.jobs}
    features = advice.board_features(board)
    recs: dict[str, list[dict]] = {}
    for rec in records:
        if rec.get("t") == "layer" and key(rec) in by_key:
            recs.setdefault(key(rec), []).append(rec)
    pts = [
        points_mod.point(
            by_key[key], rs, roofs, emitters, features, dispatch.kernel_isa(by_key[key]), board.get("tick_us")
        )
        for key, rs in recs.items()
        if any(r.get("cand", 0) < len(by_key[key].candidates) for r in rs)
    ]
    advice.advise_all(pts, roofs, features)
    for p in pts:  # advise_all wrote the advice anew
        points_mod.amortize_note(p)
    net = request.network
    peak = network.peak_memory(net)
    layer_of = {l.index: l for l in net.layers}
    skipped_on_board = [r for r in records if r.get("t") == "skip" and r.get("k") in layer_of and not r.get("cand")]
    given_up = [(by_key[r["unit"]], r["why"]) for r in records if r.get("t") == "skip" and r.get("unit") in by_key]
    summary = {
        "name": net.name,
        "source": net.source,
        "layers": len(net.layers),
        "macc": network.totals(net)["macc"],
        "peak_memory_bytes": peak.bytes,
        "peak_memory_layer": peak.layer,
        "measured_peak_heap_bytes": max((p["heap_bytes"] or 0 for p in pts), default=None),
        "not_profiled": request.skipped
        + [
            {
                "index": r["k"],
                "name": layer_of[r["k"]].name,
                "op": layer_of[r["k"]].op,
                "emitter": r.get("em"),
                "dtype": r.get("ty"),
                "why": f"no tile fitted the heap on the board ({r.get('why')})",
            }
            for r in skipped_on_board
        ]
        + [
            {
                "index": job.layer.index,
                "name": job.layer.name,
                "op": job.layer.op,
                "emitter": job.emitter,
                "dtype": job.dtype,
                "why": f"its script kept failing on the board: {why}",
            }
            for job, why in given_up
        ],
        "whole_model": points_mod.whole_model(pts),
    }
    summary["fit"] = model_fit(board, net, pts)
    if summary["fit"]["fits"] is False:  # layers run one at a time: not a speed the board reaches
        for row in summary["whole_model"]:
            row["estimated_inferences_per_s"], row["inferences_per_s"] = row["inferences_per_s"], None
    calibrated(pts, summary["whole_model"], records, roofs, board, net)
    checks = {
        "points_verified": sum(p["verified"] for p in pts),
        "points_failed": sum(not p["verified"] for p in pts),
        "points_above_roof": sum(p["above_roof"] for p in pts),
    }
    return {"points": pts, "model": summary, "checks": checks}


def calibrated(pts: list[dict], rows: list[dict], records: list[dict], roofs: list[dict], board: dict, net) -> None:
    """Each point and whole-model row with its time predicted from this run's calibration records
    alone (none where the calibration suite did not run) and the error against the measured."""
    from mcuroof.predict import intervals, predictor
    from mcuroof.suites import calibration

    if not any(r.get("t") == "cal" for r in records):
        return
    bd = predictor.board(
        {"board": board, "roofs": roofs, "calibration": calibration.results_parts(records, board)["calibration"]}
    )
    layer_of = {l.index: l for l in net.layers}
    got = {}
    for p in pts:
        pred = predictor.layer_time(bd, layer_of[p["index"]], p["dtype"], p["emitter"])
        got[(p["index"], p["emitter"], p["dtype"])] = pred
        p["calibrated_seconds"], p["calibrated_dominant"] = pred.get("seconds"), pred.get("dominant")
        p["calibrated_error"] = _error(pred.get("seconds"), p["seconds"])
        p["calibrated_status"], p["calibrated_why"] = pred["status"], pred.get("why", "")
        p["calibrated_family"], p["calibrated_interval"] = pred.get("family"), pred.get("interval")
        p["calibrated_outside"] = pred.get("outside") or []
    for r in rows:
        lent = {b["index"]: b["emitter"] for b in r["borrowed"]}
        own = [
            (p["index"], p["emitter"])
            for p in pts
            if (p["emitter"], p["dtype"]) == (r["emitter"], r["dtype"]) and p["verified"] and p["projection"] != "tile"
        ]
        parts = [got.get((i, em, r["dtype"])) or {} for i, em in own + list(lent.items())]
        secs = [x.get("seconds") for x in parts]
        r["calibrated_seconds"] = sum(secs) if parts and None not in secs else None
        r["calibrated_error"] = _error(r["calibrated_seconds"], r["measured_seconds"])
        ivs = [x.get("interval") for x in parts]
        r["calibrated_interval"] = (
            list(intervals.combine([(x["seconds"], x["interval"]) for x in parts]))
            if parts and None not in ivs
            else None
        )
        r["calibrated_not_predicted"] = [
            {"index": i, "emitter": em, "why": x.get("why", "")}
            for (i, em), x in zip(own + list(lent.items()), parts)
            if x.get("seconds") is None
        ]


def _error(predicted: float | None, measured: float | None) -> float | None:
    return predicted / measured - 1 if predicted is not None and measured else None


def kernels(cfg: dict) -> list[Kernel]:
    """The layers suite: one script per Job of cfg["jobs"] (kept on the host), then the
    compute ceilings of cfg["peaks"] measured again in the same interpreter (see peaks_config)."""
    peaks = cfg.get("peaks")
    if not peaks:
        return [Kernel.listed(job.key, dispatch.listing(job)) for job in cfg.get("jobs", [])]
    # The host's speed moves by 2x within minutes on a shared machine: a layer's ceiling is
    # measured again right after it, so the ceiling (the best seen) samples the same moments.
    out = []
    for i, job in enumerate(cfg["jobs"]):
        out.append(Kernel.listed(job.key, dispatch.listing(job)))
        one = {**peaks, "emitters": [job.emitter], "types": [dtype_code(job.dtype)]}
        if job.emitter in peaks["emitters"]:
            out += compute_kernels(one, again=f"@{i}")
    return out + compute_kernels(peaks)


def dtype_code(dtype: str) -> str:
    return {name: tc for tc, name in TYPE_NAMES.items()}[dtype]


def key(rec: dict) -> str | None:
    if rec.get("t") != "layer":
        return None
    return unit_key("layers", rec["em"], rec["ty"], rec["k"])


def helpers(cfg: dict) -> list[str]:
    """firmware/layers.py (with fill_viper.py where the board has viper, as the calibration has
    it: the same harness), and compute.py where the ceilings are measured again (cfg "peaks")."""
    return ["layers"] + (["fill_viper"] if cfg.get("viper_fill") else []) + (["compute"] if cfg.get("peaks") else [])


SUITE = Suite(
    "layers",
    kernels,
    key,
    {"layer": ()},
    config,
    helpers,
    leaves_out_failing=True,
    results=lambda records, roofs, board, ctx: results_parts(ctx.layers, records, roofs, board),
)
