"""Advice for one roofline point that knows the board: what it has (caches, SIMD/DSP, an FPU,
its emitters) and what this run measured there (each emitter's and element type's ceiling,
the flash and SRAM read rates). Pure computation: nothing here talks to a board or prints.

Where the point sits (`kind`):
- above: over its roof by more than the tolerance: an accounting error;
- nomac: moves bytes without MACs;
- software: far below its roof (headroom >= FAR_BELOW);
- below: under its roof, not at it (AT_CEILING < headroom < FAR_BELOW);
- memory / compute: at its roof (headroom <= AT_CEILING), on the slope or at the ceiling;
- roof: at its roof under QEMU, where a byte moved and a MAC are both instructions counted, so
  no bound is named and no memory-bound step is given (NO_BOUND says why).
Then the concrete next steps on this board, each only where the board has what it needs:
a faster emitter (its measured ceiling against this point's rate), a cheaper element type
(never a lower precision for int8; never for a type whose ceiling is no faster here), SIMD
only where the core has it and an assembler can reach it, cache reuse only with a cache.
A board whose profile does not list its features gets no claim about them either way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from mcuroof.analysis import records, timing_basis
from mcuroof.analysis.records import Point, Roof
from mcuroof.kernels import compute as compute_kernels
from mcuroof.kernels import emitters
from mcuroof.kernels.emitters import ASM_OVERHEAD, EMITTERS, SIMD_ASSEMBLERS, is_assembler
from mcuroof.kernels.ops import contract

# A point reaching 2/3 of its roof (headroom up to 1.5x) is "at" it: the ceilings move by about
# that much between runs on the unix port, and a layer kernel has loads and loop work a
# dot-product ceiling has less of.
AT_CEILING = 1.5
FAR_BELOW = 4.0  # headroom from which the gap is software, not hardware
FASTER = 1.25  # a ceiling this much above another counts as faster; below, "as fast"
# SIMD feature -> its assembler, the widest SIMD first: on a core with both, MVE is the one to name
ASSEMBLERS = SIMD_ASSEMBLERS

# Where the time goes, per emitter, for a compute-bound point below its ceiling: its row's
# (kernels.emitters.Emitter.overhead); an emitter that says nothing, as the slowest (the
# interpreter) or as any inline assembler
OVERHEAD = {e.name: e.overhead for e in EMITTERS if e.overhead}
USER_OVERHEAD = {e.name: e.user_overhead for e in EMITTERS if e.user_overhead}
SLOWEST = EMITTERS[0].overhead
CALLS_DOMINATE = 0.5  # call_share from which an assembler point blames its calls, below it its MAC loops


def _asm_overhead(p: Point) -> str:
    """Where an assembler layer's time goes (a Cortex-M0's, or a DSP core's Armv6-M kernel), from
    its fitted call_share where known."""
    share = p.call_share
    if share is None:
        return OVERHEAD.get(p.emitter, ASM_OVERHEAD)
    if share >= CALLS_DOMINATE:
        return (
            f"{share:.0%} of its time is spent once per pixel or row (calls and the loops around the MAC "
            "loops): run more of the layer per call"
        )
    return (
        f"its MAC loops take most of its time ({1 - share:.0%}): their loads and requantization are "
        "instructions the ceiling's loop does not have"
    )


# asm_thumb on a core whose SMLAD (or MVE) ceiling was measured runs kernels.ops.dsp_* (the same
# cores: board.identity)
DSP_OVERHEAD = (
    "the assembler already runs the whole tile with SMLAD: its loads, SXTB16 widening and "
    "requantization are instructions the SMLAD ceiling does not count"
)
MVE_OVERHEAD = (
    "the assembler runs the whole tile with SMLAD, not MVE: mcuroof has no MVE ({instr}) "
    "layer kernels for this layer's shape to approach this ceiling"
)
# asm_thumb points whose kernel is MVE (kernels.ops.mve: the point's kernel_isa)
MVE_KERNEL_OVERHEAD = (
    "the assembler already runs the whole tile with MVE: its loads, widening and "
    "requantization are instructions the {instr} ceiling does not count"
)
AT_ROOF = 0.9  # a point at 90 % or more of its roof is "at" it; up to AT_CEILING it is "within"
SMALL_DEPTHWISE = 16  # outputs per channel under which a depthwise point says its channels are too small
POSITION = {
    "above": "ABOVE ITS ROOF: an accounting error (MACC or bytes miscounted, or the roof under-measured); "
    "do not trust this point",
    "nomac": "moves bytes without MACs: fuse it into the layer before it",
    "software": "far below its roof ({headroom:.3g}x{op}): software overhead",
    "below": "below its {bound}roof ({headroom:.3g}x{op})",
    # "at" from 90 % of the roof; below that "within 1.5x of" (AT_CEILING): 68 % is not "at".
    # The roof named is the point's own emitter's, not the board's fastest
    "memory": "on the memory slope, {at} {em}'s own memory ceiling ({memory_roof}: {reach:.0%} of it)",
    "compute": "{at} {em}'s own compute ceiling ({compute_roof}: {reach:.0%} of it{op})",
    # under QEMU: a byte moved is only the instructions that move it, so no bound is named
    "roof": "{at} {em}'s own roof ({reach:.0%} of it{op})",
}
# what replaces memory-bound advice where time counts instructions (Features.emulated)
NO_BOUND = (
    "QEMU counts instructions, so a byte moved costs only the instructions that move it: "
    "whether this layer is memory- or compute-bound on the chip, only a real board's timing tells"
)


@dataclass(frozen=True)
class Features:
    """What the board has: feature names from its profile (None: not declared) and the emitters
    its probe found."""

    names: frozenset[str] | None
    emitters: tuple[str, ...]
    known: frozenset[str] | None = None  # the names `names` speaks for (None: all of them)
    emulated: bool = False  # QEMU: no cache because QEMU models none, whatever the real core has
    flat_memory: bool = False  # an emulator whose memories read alike (QEMU; rp2040js: no wait states)
    tells_bound: bool = True  # the time basis tells memory- from compute-bound (timing_basis.Basis.tells_bound)

    def has(self, name: str) -> bool | None:
        if self.names is None or (self.known is not None and name not in self.known):
            return None
        return name in self.names

    def simd(self) -> str | None:
        """The integer SIMD this board has and MicroPython can reach (an inline assembler)."""
        for name, asm in ASSEMBLERS.items():
            if self.has(name) and asm in self.emitters:
                return name
        return None


def features(profile, emitters) -> Features:
    names = getattr(profile, "features", None)
    return Features(frozenset(names) if names is not None else None, tuple(emitters or ()))


def board_features(board: dict) -> Features:
    """What a results document's board has: its core as board.identity described it (the
    registers, else the profile), and its probe's emitters."""
    core = board.get("core") or {}
    names, known = core.get("features"), core.get("known")
    basis = timing_basis.of(board)
    return Features(
        frozenset(names) if names is not None else None,
        tuple(board.get("emitters") or ()),
        frozenset(known) if known is not None else None,
        timing_basis.of(board).kind == timing_basis.INSTRUCTIONS,
        timing_basis.of(board).kind == timing_basis.INSTRUCTIONS
        or any("memory is idealised" in limit for limit in board.get("limits") or [])
        or _modelled_flat(board.get("cycle_model")),
        basis.tells_bound,
    )


def _modelled_flat(cm: dict | None) -> bool:
    """A cycle model's board whose flash waits no more than its SRAM (qemu-m4 itself): memories alike."""
    return bool(cm) and not (cm["flash_fetch_wait_states"] or cm["flash_data_wait_states"] or cm.get("line_buffer"))


def kind(p: Point, emulated: bool = False) -> str:
    """Where the point sits (the module's docstring); at its roof under QEMU, "roof": no bound."""
    if p.above_roof:
        return "above"
    if not p.macc:
        return "nomac"
    h = p.headroom
    if h and h >= FAR_BELOW:
        return "software"
    if h and h > AT_CEILING:
        return "below"
    return "roof" if emulated else p.bound


def limiting(p: Point) -> Point:
    """The point as judged under the ceiling that limits it: where its op kind has no use for
    its emitter's fastest ceiling (points: op_roof), under the fastest one it can use."""
    if not p.op_roof:
        return p
    return dataclasses.replace(
        p, compute_roof=p.op_roof, bound=p.op_bound, roof_macs_per_s=p.op_roof_macs_per_s, headroom=p.op_headroom
    )


def _op_clause(p: Point) -> str:
    """Which ceiling limits a point whose op kind cannot use its emitter's fastest one."""
    if not p.op_roof:
        return ""
    why = compute_kernels.UNUSABLE.get(p.op, {}).get(p.compute_roof.rsplit(" ", 1)[-1], "")
    return (
        f" under {p.op_roof}, the ceiling of the instructions it can use; "
        f"{p.headroom:.3g}x under {p.compute_roof}, but {why}"
    )


def advise(point: dict, roofs: list, feats: Features, peers: list[dict] = ()) -> tuple[str, str]:
    """(kind, text) for a point of points.point(), judged under the ceiling that limits it
    (limiting); `peers`: points of the same run, whose runs of the same layer with other
    emitters give measured speed-ups."""
    roofs = records.roofs(roofs)
    others = records.points([q for q in peers if q is not point])
    p = Point.from_dict(point)
    view = limiting(p)
    k = kind(view, feats.emulated or not feats.tells_bound)
    h = view.headroom or 1.0
    bound = view.bound + " " if feats.tells_bound and not feats.emulated else ""  # QEMU: alike
    text = POSITION[k].format(
        headroom=h,
        bound=bound,
        reach=1 / h,
        op=_op_clause(p),
        at="at" if 1 / h >= AT_ROOF else f"within {AT_CEILING:g}x of",
        em=view.emitter,
        memory_roof=view.memory_roof or "its memory roof",
        compute_roof=view.compute_roof or "its compute ceiling",
    )
    if k in ("above", "nomac"):
        return k, text
    p = view
    steps = [_peer_step(p, others, feats) or _emitter_step(p, roofs, feats)]
    if k in ("compute", "below", "roof"):
        steps += _type_steps(p, roofs, feats)
    steps += _place_steps(p, k, roofs, feats)
    steps = [s for s in steps if s]
    return k, text + (": " + "; ".join(steps) if steps else "")


def advise_all(points: list[dict], roofs: list[dict], feats: Features) -> None:
    """Advise every point again with the run's other points as peers."""
    for p in points:
        p["advice_kind"], p["advice"] = advise(p, roofs, feats, points)


def _peer_step(p: Point, peers: list[Point], feats: Features | None = None) -> str | None:
    """The emitter that ran this very layer fastest at the same type here, if it beat this one
    (under QEMU in fewer instructions: no speed word for an instruction count)."""
    same = [
        q
        for q in peers
        if q.index == p.index and q.dtype == p.dtype and q.verified and q.emitter != p.emitter and q.seconds
    ]
    best = min(same, key=lambda q: q.seconds, default=None)
    if not best or p.seconds < FASTER * best.seconds:
        return None
    ratio = p.seconds / best.seconds
    if feats is not None and feats.emulated:
        return f"{best.emitter} ran this layer in {ratio:.3g}x fewer instructions here"
    return f"{best.emitter} ran this layer {ratio:.3g}x faster here"


def _ceilings(roofs: list[Roof]) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for r in roofs:
        if r.kind == "compute" and r.measured and r.emitter:
            key = (r.emitter, r.dtype)
            out[key] = max(out.get(key, 0.0), r.macs_per_s)
    return out


def _emitter_step(p: Point, roofs: list[Roof], feats: Features) -> str | None:
    """The fastest other emitter of this board with a kernel for the layer at its type, if its
    measured ceiling beats this point's rate."""
    ceil = _ceilings(roofs)
    best = max(
        (
            (ceil[(em, p.dtype)], em)
            for em in feats.emitters
            if em != p.emitter and (em, p.dtype) in ceil and contract.runs(p.op, em, p.dtype)
        ),
        default=None,
    )
    own = ceil.get((p.emitter, p.dtype))
    if not best or not own or best[0] < FASTER * own:
        return None
    return f"{best[1]}'s {p.dtype} ceiling is {best[0] / own:.3g}x {p.emitter}'s here: run it with {best[1]}"


def _type_steps(p: Point, roofs: list[Roof], feats: Features) -> list[str]:
    """Element-type steps for a compute-bound point: what this core's ceilings say."""
    if p.bound != "compute":
        return []
    ceil, em, dt = _ceilings(roofs), p.emitter, p.dtype
    own = ceil.get((em, dt))
    steps = []
    if dt == "float32":
        i8 = ceil.get((em, "int8"))
        if own and i8 and i8 >= FASTER * own:
            why = " (no FPU: floats are software routines)" if feats.has("fpu") is False else ""
            runs = (
                f"takes {i8 / own:.3g}x fewer instructions a MAC" if feats.emulated else f"runs {i8 / own:.3g}x faster"
            )
            steps.append(f"int8 {runs} than float32 with {em} here{why}: quantize it")
        elif own and i8:
            steps.append(
                f"int8 is no faster than float32 with {em} here ({i8 / own:.2g}x): quantizing saves memory, not time"
                if not feats.emulated
                else f"int8 takes as many instructions a MAC as float32 with {em} here ({i8 / own:.2g}x): "
                "quantizing saves memory, not instructions"
            )
    elif dt in ("int8", "int16"):
        simd = feats.simd()
        if _dsp_kernel(p):  # the kernel uses the DSP extension already: only MVE is left, if unused
            simd = "mve" if feats.has("mve") and p.kernel_isa != "mve" else None
        wider = ceil.get((em, "int16" if dt == "int8" else "int32"))
        if simd:
            steps.append(
                f"this core has {simd.upper()} (two or more MACs per instruction): "
                f"an {ASSEMBLERS[simd]} kernel using it can beat the scalar ceiling"
            )
        elif own and wider and wider * FASTER > own and not any(feats.has(f) for f in ASSEMBLERS):
            other = "int16" if dt == "int8" else "int32"
            no = "has no SIMD" if feats.names is not None else "reaches no SIMD here"
            cost = "instructions" if feats.emulated else "time"
            steps.append(
                f"{dt} on this core {no}: {other} {'takes' if feats.emulated else 'is'} "
                f"{_as_fast(wider / own, em, dt, feats.emulated)}, "
                f"so {dt} saves memory, not {cost}"
            )
    return steps


def _as_fast(ratio: float, em: str, dt: str, emulated: bool = False) -> str:
    """A wider type's ceiling against this one's: "as fast (1x)", or faster where it is (qemu-m3's
    viper int16 ceiling is 1.7x its int8 one: viper sign-extends each int8 it loads); under QEMU
    in instructions a MAC, not speed."""
    if ratio < FASTER:
        return f"as many instructions a MAC ({ratio:.2g}x)" if emulated else f"as fast ({ratio:.2g}x)"
    note = emitters.get(em).int8_note if emitters.get(em) else ""
    why = f" ({em} {note})" if note and dt == "int8" else ""
    return f"{ratio:.2g}x fewer instructions a MAC{why}" if emulated else f"{ratio:.2g}x faster{why}"


def _dsp_kernel(p: Point) -> bool:
    """An asm_thumb point that ran a DSP or MVE kernel: its kernel_isa, or (results written
    before points had one) its ceiling being SMLAD's or VMLADAVA's. An Armv6-M kernel on a DSP
    core (kernel_isa None) is not one."""
    if not is_assembler(p.emitter):
        return False
    if p.has("kernel_isa"):
        return bool(p.kernel_isa)
    roof = p.compute_roof or ""
    return "smlad" in roof or "vmladava" in roof


def _isa_overhead(p: Point) -> str:
    """Where the time of a DSP or MVE kernel goes, against the ceiling that limits it."""
    instr = (p.compute_roof or "").rsplit(" ", 1)[-1].upper()
    if p.kernel_isa == "mve":
        return MVE_KERNEL_OVERHEAD.format(instr=instr)
    mve = instr.startswith("VML")  # the core's fastest ceiling is MVE's, its kernel the DSP's
    return (MVE_OVERHEAD.format(instr=instr) if mve else DSP_OVERHEAD) + _small_depthwise(p)


def _small_depthwise(p: Point) -> str:
    """A depthwise layer whose channels yield few outputs each: its per-channel work (the
    channel's weights and inputs loaded, paired and scaled, its outputs requantized and stored)
    is spread over few MACs, whatever the kernel."""
    if p.op != "DEPTHWISE_CONV_2D" or not p.macc_executed or len(p.output_shape or ()) != 4:
        return ""
    _, oh, ow, c = p.output_shape
    h, w = p.input_shapes[0][1:3]
    if oh * ow > SMALL_DEPTHWISE:
        return ""
    taps = round(p.macc / (oh * ow * c))  # nominal MACC: every tap of the window
    return (
        f"; tile too small to amortize the per-channel setup: a channel yields {oh * ow} outputs "
        f"({p.macc_executed / c:.0f} MACs, {p.macc_executed / (h * w * c):.2g} an input), and its {taps} weights and "
        f"{h * w} inputs are loaded, paired and scaled and its outputs stored for those few MACs"
    )


def _place_steps(p: Point, k: str, roofs: list[Roof], feats: Features) -> list[str]:
    """Where the time goes for a point far below its roof or on the memory slope."""
    steps = []
    cache = feats.has("cache")
    # far below any roof, the kernel's own work is the gap, whatever the bound: memory steps
    # help once it reaches the memory slope
    if k == "software" or k == "below" and p.bound == "compute":
        if _dsp_kernel(p):
            steps.append(_isa_overhead(p))
        else:
            steps.append(_asm_overhead(p) if is_assembler(p.emitter) else _overhead(p))
    if feats.emulated:  # no memory-bound advice where a byte moved is an instruction counted
        memory = p.bound == "memory" and k != "software"
        return steps + ([NO_BOUND] + _region_step(roofs, feats) if memory else [])
    if p.bound == "memory" and k in ("memory", "below"):
        if cache:
            steps.append("reuse data while it is in the cache (tile the loops)")
        elif cache is False:
            steps.append(f"no cache here, so tiling does not help: move fewer bytes ({_fewer_bytes(p)})")
        steps += _region_step(roofs, feats)
    if k == "software" and p.bound == "memory":
        steps.append("fuse it with its neighbours")  # bytes a fused layer does not move again
    return steps


def _overhead(p: Point) -> str:
    if p.user and p.emitter in USER_OVERHEAD:
        return USER_OVERHEAD[p.emitter]
    return OVERHEAD.get(p.emitter, SLOWEST)


def _fewer_bytes(p: Point) -> str:
    """How a memory-bound layer moves fewer bytes: fusion, and int8 activations where they are wider."""
    return "fuse layers" + ("" if p.dtype == "int8" else ", keep activations int8")


def _region_step(roofs: list[Roof], feats: Features | None = None) -> list[str]:
    """Where weights read faster, from the regions suite's flash and SRAM read roofs; nothing of
    the kind on an emulator whose memories read alike (its flash has no wait states)."""
    reads = {
        r.region: r.bytes_per_s for r in roofs if r.role == "region" and r.measured and r.region in ("flash", "SRAM")
    }
    if len(reads) < 2:
        return []
    if feats is not None and feats.flat_memory:
        return [
            "this emulator reads flash as it reads SRAM (no wait states): where weights live is a real board's question"
        ]
    ratio = reads["SRAM"] / reads["flash"]
    if ratio >= FASTER:
        return [f"SRAM reads {ratio:.3g}x faster than flash here: keep the weights in RAM"]
    if ratio <= 1 / FASTER:
        return [f"flash reads {1 / ratio:.3g}x faster than SRAM here: leave the weights in flash"]
    return ["flash reads as fast as SRAM here: weights can stay in flash"]
