"""report.html's comparison of several runs: the runs, their roofs and layers side by side, the
whole network's time per run, and their rooflines on one figure."""

from __future__ import annotations

from pathlib import Path

from mcuroof.analysis import compare, timing_basis
from mcuroof.report import compare as report_compare
from mcuroof.report.html_figures import figure_div, roofline_figure
from mcuroof.report.html_tables import esc, num, table
from mcuroof.units import duration


def compare_bases(bases: list[timing_basis.Basis]) -> str:
    """What each run's time counts, runs of one basis together: "A/B: QEMU -icount shift=6: ..."."""
    groups: dict[str, list[str]] = {}
    for i, b in enumerate(bases):
        groups.setdefault(b.sentence, []).append(compare.tag(i))
    return "; ".join(f"{'/'.join(t)}: {text}" for text, t in groups.items())


def compare_section(runs: list[tuple[str, dict]], paths: list[Path] | None = None) -> str:
    bases = compare.bases(runs)
    tags = [compare.tag(i) for i in range(len(runs))]
    out = [_runs_table(runs, bases, paths), _roofs_compared(runs, bases, tags)]
    why = compare.not_compared(runs)
    if why:
        out.append(f"<p class='note'>No ratio and no fastest run where {esc(why)}.</p>")
    lay = compare.layer_comparison(runs)
    if lay and lay.get("layers"):
        out += [_layers_compared(lay, bases, tags), _network_compared(lay, bases, tags)]
        if lay.get("match_note"):
            out.append(f"<p class='note'>layers {esc(lay['match_note'])}</p>")
    elif lay and lay.get("note"):
        out.append(f"<p class='note'>layers not compared: {esc(lay['note'])}</p>")
    out += ["<h2>Rooflines compared</h2>", figure_div(roofline_figure(runs[0][1], runs), "compare-roofline")]
    return "".join(out)


def _runs_table(runs, bases, paths) -> str:
    rows = [
        [
            f"{compare.tag(i)}: {label}",
            d.get("board", {}).get("name", "?"),
            d.get("board", {}).get("firmware", ""),
            bases[i].label,
            str(paths[i]) if paths else "-",
        ]
        for i, (label, d) in enumerate(runs)
    ]
    return "<h2>Runs</h2>" + table(["run", "board", "firmware", "time counts", "results"], rows)


def _roofs_compared(runs, bases, tags) -> str:
    word = timing_basis.ratio_word(bases)
    apart = word is None  # times that do not compare: each run's roofs in its own unit
    ratio = [bool(i) and not timing_basis.why_not(bases[0], b) for i, b in enumerate(bases)]
    rows = []
    for row in compare.roof_rows(runs):
        cells = [row["kind"], row["name"], row["emitter"] or "-", row["dtype"] or "-"]
        for i, v in enumerate(row["values"]):
            cells.append((report_compare.roof_value(v, row["kind"], bases[i], apart), v))
            if ratio[i]:
                cells.append(num(row["ratios"][i], fmt=lambda x: f"{x:.3g}"))
        rows.append(cells)
    heads = ["kind", "name", "emitter", "dtype"]
    for i, t in enumerate(tags):
        heads += [t] + ([f"{t}/{tags[0]}"] if ratio[i] else [])
    ratios = f"{word}s: run / {tags[0]} (\"-\" where {tags[0]} lacks the roof). " if word else ""
    return (
        "<h2>Roofs compared</h2>"
        f"<p class='note'>Per second of each run's time, per {esc(report_compare.steps(bases))} in brackets; "
        f"{esc(ratios)}" + esc(compare_bases(bases)) + "</p>" + table(heads, rows)
    )


def _layers_compared(lay: dict, bases, tags) -> str:
    rows = []
    for row in lay["layers"]:
        cells = [row["layer"]]
        ratios = row["ratio"] if any(row["ratio"][1:]) else [None] * len(row["ratio"])  # no lone "x1"
        apart = timing_basis.ratio_word(bases) is None
        for b, s, basis in zip(row["best"], ratios, bases):
            cells.append(
                num(
                    b["seconds"],
                    fmt=lambda v, b=b, s=s, basis=basis: (
                        f"{report_compare.own_unit(v, basis, apart)} {b['dtype']} {b['emitter']}"
                        + (f" (x{s:.3g})" if s else "")
                    ),
                )
                if b
                else "-"
            )
        f = row["fastest"]
        cells += [f"{tags[f['run']]} {f['dtype']} {f['emitter']}"] if f else []
        rows.append(cells)
    word = timing_basis.ratio_word(bases)
    least = timing_basis.least_time_word(bases, short=True)
    if not word:
        return "<h2>Layers: best time per run</h2>" + table(["layer"] + tags, rows)
    return f"<h2>Layers: best time per run ({esc(word)} over {tags[0]})</h2>" + table(["layer"] + tags + [least], rows)


def _network_compared(lay: dict, bases, tags) -> str:
    apart = timing_basis.ratio_word(bases) is None
    rows = [
        [
            f"{tags[v['run']]} {v['dtype']} {v['emitter']}",
            num(
                v["seconds"],
                fmt=lambda x, v=v: report_compare.own_unit(x, bases[v["run"]], apart) + ("" if v["complete"] else " *"),
            ),
            (bases[v["run"]].steps_text(v["seconds"]), v["seconds"]),
            num(v["layers"], fmt=str),
            "; ".join(
                f"{m['layer']} ({duration(m['seconds'])} on {m['dtype']} {m['emitter']})"
                if m["seconds"]
                else f"{m['layer']} (not run)"
                for m in v["missing"]
            )
            or "-",
        ]
        for v in lay["network"]
    ]
    heads = [
        "target / dtype / emitter",
        "time in its own unit" if apart else "time",
        report_compare.steps(bases, plural=True),
        "layers run",
        "missing (time elsewhere, included *)",
    ]
    return f"<h2>Whole network ({lay['shared']} shared layers)</h2>" + table(heads, rows)
