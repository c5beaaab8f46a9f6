"""The JSON Schema of results.json: every field a reader (report, plot, compare, points) uses.

Pure data. results.load and results.save check documents against RESULTS; docs/results.md
describes the fields for users. To add a field: put it in its object's `required` (readers may
index it) or `optional` (readers must .get it) with one of the shapes below; each shape carries
a `must` phrase that results.validate puts in its one-line error ("points[3].oi must be ...").
Unknown fields are allowed, so a newer mcuroof's additions do not break an older reader.
"""

from __future__ import annotations

from mcuroof.board import cycle_counter


def _shape(type_: str, must: str, **rules) -> dict:
    return {"type": type_, "must": must, **rules}


NUMBER = _shape("number", "be a number")
POSITIVE = _shape("number", "be a positive number", exclusiveMinimum=0)
NON_NEGATIVE = _shape("number", "be a number >= 0", minimum=0)
COUNT = _shape("integer", "be a whole number >= 0", minimum=0)
TEXT = _shape("string", "be text")
FLAG = _shape("boolean", "be true or false")
FRACTION = _shape("number", "be a number in (0, 1]", exclusiveMinimum=0, maximum=1)


def nullable(shape: dict) -> dict:
    return {**shape, "type": [shape["type"], "null"], "must": shape["must"] + " or null"}


def one_of(*values) -> dict:
    return {"enum": list(values), "must": "be one of " + ", ".join(repr(v) for v in values)}


def obj(required: dict, optional: dict | None = None) -> dict:
    return {
        "type": "object",
        "must": "be an object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }


def array(items: dict, **rules) -> dict:
    return {"type": "array", "must": "be a list", "items": items, **rules}


ROOF = {
    **obj(
        {
            "kind": one_of("memory", "compute"),
            "name": TEXT,
            "source": one_of("measured", "theoretical"),
            "role": one_of("roof", "ceiling", "region"),
        },
        {
            "dtype": nullable(TEXT),
            "emitter": nullable(TEXT),
            "kernel": nullable(TEXT),
            "unroll": COUNT,  # a dot-product ceiling's: MACs per loop iteration (its name says "4x")
            "level": COUNT,
            "ws_range": array(COUNT, minItems=2, maxItems=2),
            "region": TEXT,
            "basis": TEXT,
            "bytes_per_s": POSITIVE,
            "macs_per_s": POSITIVE,
        },
    ),
    # a roof's rate is the one its kind is measured in
    "allOf": [
        {
            "if": {"properties": {"kind": {"const": "memory"}}, "required": ["kind"]},
            "then": {"required": ["bytes_per_s"]},
        },
        {
            "if": {"properties": {"kind": {"const": "compute"}}, "required": ["kind"]},
            "then": {"required": ["macs_per_s"]},
        },
    ],
}

# a window and trial count, and the error bound of one window (suites.timing.precision)
SIZED = obj({"win_us": POSITIVE, "trials": COUNT, "precision": NON_NEGATIVE})

BOARD = obj(
    {"name": TEXT},
    {
        "platform": nullable(TEXT),
        "firmware": TEXT,
        "clock_hz": nullable(POSITIVE),
        "emitters": array(TEXT),
        "cpu": nullable(array(COUNT)),
        "cycle_counter": one_of(*cycle_counter.STATES, None),  # board.cycle_counter
        "cycle_hz": nullable(POSITIVE),
        "icount_shift": nullable(COUNT),
        # links.cycle_model.Setup.record(): where time counts modelled cycles (qemu-m4, qemu-m33, --as)
        "cycle_model": nullable(
            obj(
                {"emulator": TEXT, "board": TEXT, "core": TEXT, "timings": TEXT, "clock_hz": POSITIVE, "label": TEXT},
                {
                    "heap_bytes": COUNT,
                    "flash_fetch_wait_states": COUNT,
                    "flash_data_wait_states": COUNT,
                    "wait_states_source": TEXT,
                    "line_buffer": nullable(
                        obj({"lines": COUNT, "line_bytes": COUNT, "prefetch": FLAG}, {"source": nullable(TEXT)})
                    ),
                },
            )
        ),
        "free_heap": nullable(COUNT),
        "tick_us": nullable(NON_NEGATIVE),
        "link": TEXT,
        "wall_seconds": NON_NEGATIVE,
        "pace": POSITIVE,  # board seconds per host second (measure.pace): a fact, it sizes nothing
        "sizing": TEXT,  # a slow emulator's (suites.timing.sizing): its trials, windows and sweeps
        # the timer check and the sizing rule it chose (suites.timing.record)
        "timer": obj(
            {"rule": one_of("exact", "noisy"), "suites": SIZED, "calibration": SIZED},
            {
                "counted": FLAG,
                "tick_us": NON_NEGATIVE,
                "spread_us": NON_NEGATIVE,
                "repeats": COUNT,
                "check_us": NON_NEGATIVE,
            },
        ),
        "clock_requested_hz": POSITIVE,
        "clock_set_hz": nullable(POSITIVE),
        "clock_lost": FLAG,
        "clock_note": TEXT,
        "limits": array(TEXT),  # an emulator's profile: what it does not model
        # board.identity: the core as its registers (or its profile) say
        "core": obj(
            {"source": TEXT, "isa": array(TEXT)},
            {"name": nullable(TEXT), "features": nullable(array(TEXT)), "known": array(TEXT)},
        ),
    },
)

RIDGE = obj({"compute": TEXT, "memory": TEXT, "oi": POSITIVE})

SWEEP = obj(
    {"emitter": TEXT, "kernel": TEXT, "dtype": TEXT, "points": array(array(NON_NEGATIVE, minItems=2, maxItems=2))},
    {"call_bound": FLAG},  # roofs.sweep_call_bound: time per call flat with size, so no roof or ceiling
)

CHECKS = obj(
    {},
    {
        "verified": COUNT,
        "failed": COUNT,
        "failed_records": array({"type": "object"}),
        "points_verified": COUNT,
        "points_failed": COUNT,
        "points_above_roof": COUNT,
        "timed": COUNT,
        "noisy": COUNT,
    },
)

REFERENCE = obj(
    {
        "kind": TEXT,
        "levels": array(
            obj(
                {"level": TEXT, "roof_bytes_per_s": POSITIVE, "reference_bytes_per_s": POSITIVE, "ratio": POSITIVE},
                {"sizes_compared": COUNT, "roof_ws": COUNT, "ratio_at_roof": POSITIVE},
            )
        ),
    },
    {"points": array({"type": "object"})},
)

POINT = obj(
    {
        "index": COUNT,
        "name": TEXT,
        "op": TEXT,
        "dtype": TEXT,
        "emitter": TEXT,
        "macc": NON_NEGATIVE,
        "oi": NON_NEGATIVE,
        "seconds": NON_NEGATIVE,
        "macs_per_s": NON_NEGATIVE,
        "bytes_per_s": NON_NEGATIVE,
        "verified": FLAG,
        "bound": one_of("memory", "compute"),
        "tile_fraction": FRACTION,
        "advice": TEXT,
    },
    {
        "bytes": NON_NEGATIVE,
        "memory_share": nullable(NON_NEGATIVE),
        "roof_macs_per_s": nullable(NON_NEGATIVE),
        "headroom": nullable(POSITIVE),
        "above_roof": FLAG,
        "advice_kind": TEXT,
        "tile_reason": TEXT,
        "heap_bytes": nullable(COUNT),
        "tile_data_bytes": nullable(COUNT),
        "memory_roof": nullable(TEXT),
        "compute_roof": nullable(TEXT),
        "input_shapes": array(array(COUNT)),
        "output_shape": array(COUNT),
        "user": FLAG,
        "file": TEXT,
        # the share of a fitted layer's time spent per pixel ("fit") or per row ("rows"): points.call_share
        "call_share": nullable(_shape("number", "be a number in [0, 1]", minimum=0, maximum=1)),
        "kernel_isa": one_of("dsp", "mve", None),
        # the kind of tile its time was projected from and where the whole layer's time lies:
        # the timer's tick through the projection and that kind's measured spread (analysis.tile_error)
        "tile_kind": nullable(TEXT),
        "seconds_interval": nullable(array(NON_NEGATIVE, minItems=2, maxItems=2)),
        # the empty call of its Python kernel, left out of `seconds` (firmware/layers.py ecall)
        "frame_seconds": nullable(NON_NEGATIVE),
        # where its op kind cannot use compute_roof's instruction: the fastest ceiling it can use
        # (points._place_under_op_roof)
        "op_roof": TEXT,
        "op_bound": one_of("memory", "compute"),
        "op_roof_macs_per_s": NON_NEGATIVE,
        "op_headroom": POSITIVE,
        # the layer's time predicted from the run's calibration alone (predict.predictor), its
        # error against `seconds` (predicted / measured - 1) and the cost term that dominates it
        "calibrated_seconds": nullable(NON_NEGATIVE),
        "calibrated_error": nullable(NUMBER),
        "calibrated_dominant": nullable(TEXT),
        # how it was predicted (predict.predictor.layer_time): "own" family, "other" family (why), or
        # "none" (why); the family used, the cross-validated interval and what lies outside its range
        "calibrated_status": one_of("own", "other", "none"),
        "calibrated_why": TEXT,
        "calibrated_family": nullable(TEXT),
        "calibrated_interval": nullable(array(NON_NEGATIVE, minItems=2, maxItems=2)),
        "calibrated_outside": array(TEXT),
    },
)  # user, file: a kernel of `mcuroof kernel FILE.py`

USER_KERNELS = obj(
    {"file": TEXT, "kernels": array(TEXT), "errors": array(TEXT)}, {"roofs_from": nullable(TEXT), "measured": TEXT}
)

MODEL = obj(
    {
        "name": TEXT,
        "peak_memory_bytes": COUNT,
        "peak_memory_layer": nullable(COUNT),
        "measured_peak_heap_bytes": nullable(COUNT),
    },
    {
        "source": TEXT,
        "layers": COUNT,
        "macc": NON_NEGATIVE,
        "not_profiled": array(
            obj(
                {"index": COUNT, "why": TEXT},
                {"name": TEXT, "op": TEXT, "emitter": nullable(TEXT), "dtype": nullable(TEXT)},
            )
        ),
        "whole_model": array(
            obj(
                {
                    "emitter": TEXT,
                    "dtype": TEXT,
                    "layers": COUNT,
                    "predicted_seconds": NON_NEGATIVE,
                    "measured_seconds": NON_NEGATIVE,
                },
                {
                    "macc": NON_NEGATIVE,
                    "inferences_per_s": nullable(POSITIVE),
                    "estimated_inferences_per_s": nullable(POSITIVE),
                    "measured_over_predicted": nullable(POSITIVE),
                    # layers of the sum run on a tile and projected to the whole layer (points.whole_model)
                    "projected": array(COUNT),
                    "calibrated_seconds": nullable(NON_NEGATIVE),
                    "calibrated_error": nullable(NUMBER),
                    "calibrated_interval": nullable(array(NON_NEGATIVE, minItems=2, maxItems=2)),
                    "measured_interval": nullable(array(NON_NEGATIVE, minItems=2, maxItems=2)),
                    "calibrated_not_predicted": array(obj({"index": COUNT, "why": TEXT}, {"emitter": TEXT})),
                },
            )
        ),
        # fit.Verdict.as_dict: fits is null where the board's flash or heap is not known
        "fit": obj({"fits": nullable(FLAG), "text": TEXT}, {"needs": array({"type": "object"}), "weights": TEXT}),
    },
)

RESULTS = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **obj(
        {"schema": _shape("integer", "be a whole number >= 1", minimum=1), "board": BOARD, "roofs": array(ROOF)},
        {
            "tool": TEXT,
            "created": TEXT,
            "ridges": array(RIDGE),
            "sweeps": array(SWEEP),
            "checks": CHECKS,
            "skipped": array(obj({"why": TEXT}, {"rg": nullable(TEXT)})),
            "reference": REFERENCE,
            "points": array(POINT),
            "model": MODEL,
            "user_kernels": USER_KERNELS,
            # suites.calibration: a cost model per layer-kernel family
            "calibration": obj(
                {
                    "families": array(
                        obj(
                            {"family": TEXT, "coefficients": {"type": "object"}, "shapes": COUNT},
                            # predict.cost_model.Model.as_dict: leave-one-out errors and the shapes' span
                            {
                                "cv_log_errors": array(NUMBER),
                                "cv": {"type": "object"},
                                "ranges": {"type": "object"},
                                # terms no shape told apart, fitted as the first (cost_model.merges)
                                "merged": {"type": "object"},
                            },
                        )
                    )
                },
                {
                    "isa": array(TEXT),
                    "free_heap": nullable(COUNT),
                    "shapes": COUNT,
                    # measure.calcache: measured by this run (and kept), or reused from a kept one
                    "source": obj(
                        {"reused": FLAG},
                        {"cache": nullable(TEXT), "measured_at": nullable(TEXT), "measured_in": nullable(TEXT)},
                    ),
                    # widening: how an interval widens past a family's shapes (predict.intervals.widening)
                    "widening": {"type": "object"},
                },
            ),
        },
    ),
}
