"""report.html's reading aids, each a section of its own: the summary at the top (what the run
measured, the layer that takes the most time and why, what to do next), the advice said once
(the layer table links to it) and the glossary of every term the report uses. Pure: HTML text
from a results document."""

from __future__ import annotations

from rich.text import Text

from mcuroof.analysis import records, timing_basis
from mcuroof.report import advice_text, layer_tables, summary
from mcuroof.report import tables as report
from mcuroof.report.html_tables import esc
from mcuroof.units import duration, si


def _plain(markup: str) -> str:
    """A terminal line's text without its rich markup ([bold red]...[/])."""
    return Text.from_markup(markup).plain


def summary_section(result: dict, key: str = "r0") -> str:
    """What the run measured, its bottleneck and what to do next, in a few lines."""
    board = result.get("board") or {}
    basis = timing_basis.of(board)
    measured = [
        f"Board {board.get('name', '?')} ({board.get('firmware', '')}): {basis.sentence}.",
        _sentence(_plain(summary.lead_line(result) or _roofs_line(result)).removeprefix("measured: "), "Measured: "),
        _plain(report.checks_line(result)) + ".",
    ]
    items = "".join(f"<li>{esc(x)}</li>" for x in measured if x.strip(". "))
    neck = bottleneck_text(result)
    steps = "".join(f"<li>{esc(s)}</li>" for s in next_steps(result, basis))
    return (
        f"<h2 id='{key}-summary'>Summary</h2><p><b>What this run measured</b></p><ul>{items}</ul>"
        + (f"<p><b>The bottleneck</b></p><p>{esc(neck)}</p>" if neck else "")
        + f"<p><b>What to do next</b></p><ul>{steps}</ul>"
        + f"<p class='note'>Every term is explained in the <a href='#{key}-glossary'>glossary</a> at the end.</p>"
    )


def _sentence(text: str, lead: str) -> str:
    """A line as a sentence after its lead word (names keep their case: "vww-mobilenet")."""
    return f"{lead}{text}." if text else ""


def _roofs_line(result: dict) -> str:
    """The fastest measured compute ceiling and memory roof, where the run has no layers."""
    roofs = [r for r in records.roofs(result) if r.measured]
    comp = max((r for r in roofs if r.kind == "compute"), key=lambda r: r.macs_per_s, default=None)
    mem = max((r for r in roofs if r.kind == "memory"), key=lambda r: r.bytes_per_s, default=None)
    parts = [f"fastest compute ceiling {comp.name}, {si(comp.macs_per_s, 'MACC/s')}" if comp else ""]
    parts += [f"fastest memory roof {mem.name}, {si(mem.bytes_per_s, 'B/s')}" if mem else ""]
    return "; ".join(p for p in parts if p)


def bottleneck_text(result: dict) -> str | None:
    """The layer that takes the largest share of the model's time, each layer at its fastest
    emitter, with its headroom, bound (where the time tells it) and advice; then the next two."""
    best = summary.best_per_layer(result)
    if not best:
        return None
    dtype = best[0].dtype
    mine = [p for p in best if p.dtype == dtype]
    total = sum(p.seconds for p in mine)
    ranked = sorted(mine, key=lambda p: -p.seconds)
    top = ranked[0]
    basis = timing_basis.of(result.get("board") or {})
    bound = layer_tables.bound_text(top.bound, basis)
    steps = f" ({basis.steps_text(top.seconds)})" if basis.step and not basis.real_time else ""
    text = (
        f"{top.short_name} ({top.op or '?'}) takes the most time: {duration(top.seconds)}{steps}, "
        f"{top.seconds / total:.0%} of the {duration(total)} its {len(mine)} layers take ({dtype}, each at "
        f"its fastest emitter; here {top.emitter})."
    )
    if top.headroom:
        text += f" It runs {top.headroom:.3g}x under its roof (headroom)"
        text += f", {bound}-bound." if bound != "-" else " (whether memory- or compute-bound: see the glossary)."
    if top.advice:
        text += f" Advice: {top.advice}."
    rest = [f"{p.short_name} {p.seconds / total:.0%}" for p in ranked[1:3]]
    return text + (f" Next: {', '.join(rest)}." if rest else "")


def next_steps(result: dict, basis: timing_basis.Basis) -> list[str]:
    """The advice to the best runs, each once, then what else to run."""
    steps = [
        f"{', '.join(dict.fromkeys(p.short_name for p in runs))} "
        f"({', '.join(dict.fromkeys(p.emitter for p in runs))}): {text}"
        for _, text, runs in advice_text.merged(summary.best_per_layer(result))
    ]
    if not basis.tells_bound:
        steps.append(
            "To tell memory- from compute-bound layers, run on a real board or a cycle model "
            "(mcuroof run --board pico --port PORT, or --board rp2040js-pico)."
        )
    steps.append("Compare with another run: mcuroof compare A/results.json B/results.json --html cmp.html.")
    if result.get("model"):
        steps.append(
            "Predict another model on this board from its calibration: mcuroof predict MODEL --roofs results.json."
        )
    return steps


def advice_section(points: list[dict], key: str = "r0") -> str:
    """Every layer run's advice, each text once with the runs it concerns (numbers as ranges; each
    run's own are its row's headroom)."""
    groups = advice_text.merged(records.points(points))
    if not groups:
        return ""
    items = "".join(
        f"<li id='{key}-advice-{i}'><b>A{i} {esc(layer_tables.ADVICE_KEYS.get(kind, '-'))}</b> "
        f"({esc(advice_text.runs_text(runs))}): {esc(text)}</li>"
        for i, (kind, text, runs) in enumerate(groups, 1)
    )
    return (
        f"<h2 id='{key}-advice'>Advice, each said once</h2><p class='note'>The layer table's advice column links "
        "here; a range spans the runs named, each run's own figure is in its row.</p>"
        f"<ol class='advice'>{items}</ol>"
    )


def glossary(basis: timing_basis.Basis) -> list[tuple[str, str]]:
    """(term, meaning) of every term the report uses; memory- and compute-bound as this run's
    time basis allows."""
    bound = basis.bound_note or "the run's time tells them apart"
    return [
        ("roof", "a measured upper bound of the board: the fastest memory mover's bandwidth (bytes/s, one "
         "per memory level) or the fastest compute rate (MACC/s). Theoretical roofs from the board's profile "
         "are drawn dashed beside them, never mixed with them."),
        ("ceiling", "the best rate one emitter reaches at one element type: a compute ceiling (MACC/s of a "
         "dot-product kernel) or a memory ceiling (bytes/s of its fastest copy). A layer is judged under the "
         "ceilings of its own emitter and type."),
        ("emitter", "how MicroPython compiles a function: bytecode (the interpreter), native, viper (machine "
         "integers and raw pointers), or an inline assembler (asm_thumb, asm_rv32)."),
        ("dtype", "the element type of a layer's tensors and kernel: int8, int16, int32, float32."),
        ("MACC", "a multiply-accumulate; MMACC/s is millions of them per second. A layer's MACC count is the "
         "executed one (taps that fall in the padding are skipped)."),
        ("operational intensity (OI)", "MACC per byte a layer moves at least (inputs, weights, outputs once): "
         "the plot's x-axis."),
        ("roofline", "for each emitter, the least of its memory ceiling x OI and its compute ceiling: the most a "
         "layer of that intensity can reach."),
        ("ridge", "the intensity where a memory roof meets a compute ceiling; left of it the memory roof is the "
         "lower one, right of it the compute ceiling."),
        ("memory-bound, compute-bound", "a layer left of its ridge is limited by bytes moved (memory-bound), "
         f"right of it by MACs (compute-bound). Here: {bound}."),
        ("headroom", "the roof at a layer's intensity over what it achieved: 1x is at the roof, 4x a quarter of "
         "it. Advice says at from 90 % of the point's own emitter's ceiling, within 1.5x of it up to 1.5x, below up to "
         "4x, beyond that far below."),
        ("vs fastest", "the emitter that ran a layer in the least time, and how many times less."),
        ("roofline bound", "every layer of a model at its roof: the least time the roofs allow. A bound, not a "
         "prediction."),
        ("layers' time", "the sum of the layers' times, each measured, or for a layer run on a tile projected "
         "to the whole layer; the table says how many were projected."),
        ("time / bound", "the layers' time over the roofline bound: how far the model runs above the least time "
         "the roofs allow."),
        ("tile", "a part of a layer (some of its output channels or rows) run alone where the whole does not fit "
         "the heap or the time budget; its time is projected to the whole layer by executed MACs or a fit."),
        ("interval", "the range a projected whole-model time lies in (the spread tiles showed against whole "
         "layers), or where 90 % of a calibration's held-out shapes fell (CV)."),
        ("calibration, predicted", "the board's own layer kernels timed on synthetic shapes and fitted per "
         "kernel family; a prediction is a layer's time from that fit alone."),
        ("time basis", "what a run's time counts: a real board's clock, the host's time (unix port), QEMU's "
         f"instructions (-icount) or a cycle model's cycles. This run: {basis.sentence}."),
        ("advice kinds", "software: far below its roof, overhead around the MACs; below: under its roof; at "
         "roof / ceiling / slope: at or within 1.5x of its own emitter's roof (compute ceiling, memory slope); fuse: a layer without MACs that "
         "only moves bytes."),
        ("bandwidth against working set", "each memory kernel's bytes/s as its working set grows; on a board "
         "with caches the rate drops past each cache's size (a cache cliff)."),
        ("C-engine reference", "the best published MLPerf Tiny closed int8 result for this core (MAC per "
         "cycle), drawn where the run's time counts cycles."),
        ("verified", "a measurement or layer output checked against its expected value (numpy for layers); "
         "a failed one is left out."),
    ]  # fmt: skip


def glossary_section(result: dict, key: str = "r0") -> str:
    basis = timing_basis.of(result.get("board") or {})
    items = "".join(f"<dt>{esc(t)}</dt><dd>{esc(d)}</dd>" for t, d in glossary(basis))
    return f"<h2 id='{key}-glossary'>Glossary</h2><dl class='glossary'>{items}</dl>"
