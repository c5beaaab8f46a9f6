"""The calibration suite: the board's own layer kernels (kernels.ops.dispatch, as the layers
suite runs them) timed on small synthetic shapes (predict.design), and from those times a
cost model per layer-kernel family (predict.cost_model) that `mcuroof predict` and
`mcuroof run --model` read from results.json's `calibration`.

Each shape runs whole (one tile) through firmware/layers.py and is checked against the numpy
reference like a layer; a shape whose buffers do not fit the heap is skipped on the board. Where
the timer check found time exact (QEMU's instructions, rp2040js's cycles: suites.timing) a shape
is a warm-up and two timed calls of 1000 ticks, the least kept; elsewhere three trials of a short window, a few
more on a host OS (its noise).
"""

from __future__ import annotations

from mcuroof.analysis import roofs as roofs_mod
from mcuroof.board import identity
from mcuroof.kernels import emitters
from mcuroof.kernels.contract import SPLIT, Kernel, unit_key
from mcuroof.kernels.emitters import LAYER_EMITTERS
from mcuroof.kernels.ops import dispatch, reference
from mcuroof.kernels.ops.contract import Job
from mcuroof.predict import cost_model, design, intervals
from mcuroof.suites import timing
from mcuroof.suites.base import Context, Suite

EMITTERS = LAYER_EMITTERS  # the emitters with layer kernels (kernels.emitters)
SET_TYPE = "LT='cal'\n"  # firmware/layers.py's record type for this suite's records


# A heap this small (the micro:bit's 8 KB) is calibrated by no shape: its paced link took 4 s a
# shape (168 shapes: 12 minutes), and its layers run on tiles of a few pixels anyway
MIN_HEAP = 32 * 1024


def jobs(probe: dict) -> list[Job]:
    """The design's shapes (predict.design.select) for every emitter and element type the board
    runs: int8, then float32 where the board has floats."""
    heap = probe.get("free", 0)
    if heap < MIN_HEAP:
        return []
    isa = identity.describe(probe).isa
    emitters = [e for e in probe.get("emitters", []) if e in EMITTERS]
    dtypes = ("int8", "float32") if probe.get("float", True) else ("int8",)
    host = probe.get("platform") in timing.HOST_PLATFORMS
    return [job for dtype in dtypes for em in emitters for job in design.select(em, dtype, heap, isa, host)]


def trials(probe: dict, timer: timing.Timer | None = None) -> dict:
    """The harness's window and trials: where time is exact (timer.exact) two timed calls of 1000
    ticks after a warm-up (suites.timing); else a window of 1000 timer ticks (at least 2 ms), 3
    trials where time counts instructions or cycles, 5 on a host OS (the layers suite's 15 made
    the shapes take 30 s there; the least of 5 is what noise limits)."""
    many = probe.get("platform") in timing.HOST_PLATFORMS
    noisy = {"win_us": max(2000, 1000 * probe.get("tick_us", 1)), "trials": 5 if many else 3}
    if timer is not None and timer.exact:
        # one timed call a shape; a call that allocates (allocates()) takes the suites' trials
        return {**timing.timing(probe, timer=timer), "trials": 1, "alloc_trials": timing.EXACT_TRIALS}
    return noisy


def config(probe: dict, ctx: Context | None = None) -> dict:
    viper_fill = {"viper_fill": True} if emitters.fills_in_viper(probe) else {}
    return {**trials(probe, ctx.timer if ctx is not None else None), "jobs": jobs(probe), **viper_fill}


def key(rec: dict) -> str | None:
    if rec.get("t") != "cal":
        return None
    return unit_key("calibration", rec["em"], rec["ty"], rec["k"])


def kernels(cfg: dict) -> list[Kernel]:
    return [Kernel(key_of(job), SET_TYPE + with_trials(dispatch.script(job), job, cfg)) for job in cfg.get("jobs", [])]


def allocates(job: Job) -> bool:
    """Whether a shape's call allocates: float32 values in an interpreted emitter are heap
    objects, so a garbage collection may land in one timed call and not another."""
    em = emitters.get(job.emitter)
    return job.dtype == "float32" and em is not None and em.interpreted


def with_trials(script: str, job: Job, cfg: dict) -> str:
    """The shape's script where time is exact (cfg "alloc_trials": the CFG line's TRIALS is 1):
    a call that allocates sets TRIALS to alloc_trials around itself, in its call (the last
    piece), not the set-up that shapes of one kernel definition share (Suite.reuses_setup). Each
    byte sent costs: QEMU's UART takes one a main-loop turn (313 KB a qemu-m3 calibration)."""
    if "alloc_trials" not in cfg or not allocates(job):
        return script
    head, sep, call = script.rpartition(SPLIT)
    return head + sep + "TRIALS=%d\n" % cfg["alloc_trials"] + call + "TRIALS=1\n"


def key_of(job: Job) -> str:
    return unit_key("calibration", job.emitter, job.dtype, job.layer.index)


def samples(
    jobs_: list[Job], records: list[dict], caches: tuple[int, ...] = ()
) -> dict[str, list[tuple[dict, float, dict]]]:
    """(term counts, seconds, extent) of every verified shape, by family (`caches`: the board's
    data cache sizes, for the terms of working sets past them)."""
    by_key = {key_of(j): j for j in jobs_}
    out: dict[str, list[tuple[dict, float, dict]]] = {}
    for rec in records:
        job = by_key.get(key(rec) or "")
        if job is None or not reference.verify(job, rec):
            continue
        tile = job.tiles[0]
        fam = design.family(job)
        out.setdefault(fam, []).append(
            (design.terms(job, tile, caches), roofs_mod.seconds(rec), design.extent(job, tile))
        )
    return out


def models(probe: dict, records: list[dict], caches: tuple[int, ...] = ()) -> list[cost_model.Model]:
    """A cost model per family, fitted from this run's calibration records."""
    return fitted(samples(jobs(probe), records, caches))


def fitted(by_family: dict[str, list[tuple[dict, float, dict]]]) -> list[cost_model.Model]:
    return [
        cost_model.fit(f, [(t, s) for t, s, _ in got], [e for _, _, e in got]) for f, got in sorted(by_family.items())
    ]


def results_parts(records: list[dict], board: dict) -> dict:
    """results.json's `calibration`: the board's core as the shapes saw it, every family's model,
    the widening of extrapolated intervals per emitter/dtype (predict.intervals.widening), and how
    many shapes ran and failed their check."""
    probe = probe_of(board)
    js = jobs(probe)
    mine = [r for r in records if r.get("t") == "cal"]
    caches = design.cache_sizes(board)
    by_family = samples(js, records, caches)
    ok = sum(len(s) for s in by_family.values())
    return {
        "calibration": {
            "isa": sorted(identity.describe(probe).isa),
            "caches": list(caches),
            "free_heap": board.get("free_heap"),
            "shapes": len(js),
            "shapes_verified": ok,
            "shapes_failed": len(mine) - ok,
            "families": [m.as_dict() for m in fitted(by_family)],
            "widening": intervals.widening(by_family),
        },
        "checks": {"calibration_failed": len(mine) - ok},
    }


def probe_of(board: dict) -> dict:
    """The probe fields the shapes depend on, from results.json's board."""
    return {
        "platform": board.get("platform"),
        "emitters": board.get("emitters", []),
        "free": board.get("free_heap") or 0,
        "float": board.get("float", True),
        "tick_us": board.get("tick_us") or 1,
        "cpu": board.get("cpu"),
    }


SUITE = Suite(
    "calibration",
    kernels,
    key,
    {"cal": ()},
    config,
    lambda cfg: ["layers"] + (["fill_viper"] if cfg.get("viper_fill") else []),
    leaves_out_failing=True,
    # 1,031 shapes on qemu-m3 have 103 distinct kernel definitions: each compiled once a pass
    reuses_setup=True,
    results=lambda records, roofs, board, ctx: results_parts(records, board),
)
