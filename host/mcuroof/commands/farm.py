"""`mcuroof farm run|exporter-config`: characterise the boards of a labgrid farm in parallel."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from mcuroof.analysis import compare
from mcuroof.errors import UserError
from mcuroof.farm import workers as farm
from mcuroof.kernels.ops import layer_plan
from mcuroof.links import farm_place as place
from mcuroof.report import compare as report_compare
from mcuroof.report import terminal
from mcuroof.suites import registry
from mcuroof.units import duration

FARM_SUITES = "memory,compute,regions"


def configure(p):
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    r = sub.add_parser(
        "run",
        help="run the suites on many places at once, one results folder per place",
        description="Run the suites on many labgrid places at once: DIR/<place>/ for each, "
        "then the comparison of all of them.",
    )
    r.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    which = r.add_mutually_exclusive_group()
    which.add_argument("--places", help="comma-separated place names")
    which.add_argument("--all", action="store_true", help="every place the coordinator knows")
    r.add_argument("-o", "--output", type=Path, help="results folder: DIR/<place>/, DIR/compare.png")
    r.add_argument(
        "--resume", type=Path, metavar="DIR", help="finish the places of the farm run in DIR that have no results yet"
    )
    r.add_argument(
        "--coordinator",
        metavar="HOST:PORT",
        help=f"labgrid coordinator (default: $LG_COORDINATOR or {place.DEFAULT_COORDINATOR})",
    )
    r.add_argument("--wait", action="store_true", help="wait for places someone else holds (default: skip them)")
    r.add_argument("--jobs", type=int, default=0, help="places run at the same time (default: all)")
    r.add_argument("--suite", action="append", help=f"as mcuroof run --suite (default {FARM_SUITES})")
    r.add_argument("--profile", help="board profile for every place (default: each place's `board` tag)")
    r.add_argument("--model", help="as mcuroof run --model")
    r.add_argument("--dtype", help="as mcuroof run --dtype")
    r.add_argument("--emitter", help="as mcuroof run --emitter")
    r.add_argument("--tile-seconds", type=float, help="as mcuroof run --tile-seconds")
    e = sub.add_parser("exporter-config", help="a starter labgrid exporter config for the serial boards on this host")
    e.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    e.add_argument("-o", "--output", type=Path, help="write the YAML here (default: print it)")
    e.add_argument("--speed", type=int, default=115200, help="baud rate (default 115200)")


def run(args) -> int:
    if args.action == "exporter-config":
        from mcuroof.farm import exporter_yaml as exporter_config

        return exporter_config.run(args)
    if args.action != "run":
        raise UserError("farm: say what to do: mcuroof farm run ... or mcuroof farm exporter-config")
    plan = _resume_plan(args) if args.resume else _new_plan(args)
    console = terminal.console()
    workers = [farm.Worker(p, plan.out / p) for p in plan.places]
    _skip_done_and_held(workers, plan, console)
    _run_with_progress(workers, plan, args.jobs, console)
    terminal.show(console, _summary(workers))
    _compare(plan, console)
    unfinished = [w for w in workers if w.status not in ("done", "kept")]
    if unfinished:
        raise UserError(
            f"{len(unfinished)} of {len(workers)} places did not finish "
            f"({', '.join(w.place for w in unfinished)}): mcuroof farm run --resume {plan.out}"
        )
    return 0


def _new_plan(args) -> farm.Plan:
    if not args.output:
        raise UserError("farm run: -o DIR is needed (or --resume DIR)")
    if not args.places and not args.all:
        raise UserError("farm run: name the places (--places A,B,C) or take --all")
    options = {opt: getattr(args, opt) for opt in farm.OPTIONS}
    options["suite"] = ",".join(registry.chosen(args.suite or FARM_SUITES))
    _check_options(options)
    address = place.coordinator_address(args.coordinator)
    if args.all:
        with place.Coordinator(address) as c:
            names = c.names()
        if not names:
            raise UserError(f"labgrid coordinator {address}: no places (create some: see README, Board farms)")
    else:
        names = list(dict.fromkeys(n.strip() for n in args.places.split(",") if n.strip()))
    out = _fresh_dir(args.output, names)
    plan = farm.Plan(out, address, names, options, args.wait)
    plan.save()
    return plan


def _resume_plan(args) -> farm.Plan:
    if args.places or args.all or args.output:
        raise UserError("--resume DIR takes the places and options from DIR/farm.json (leave out --places, --all, -o)")
    plan = farm.load_plan(args.resume)
    plan.wait = args.wait
    if args.coordinator or not plan.coordinator:
        plan.coordinator = place.coordinator_address(args.coordinator)
    return plan


def _check_options(options: dict) -> None:
    """Bad options fail here, once, not in every place's run."""
    from mcuroof.commands import options as shared
    from mcuroof.model.load import load_network

    chosen = registry.chosen(options["suite"])
    if options.get("model"):
        load_network(options["model"])
    elif "layers" in chosen:
        raise UserError("--suite layers needs --model MODEL (a .tflite file or a built-in name)")
    shared.dtypes(options.get("dtype"), layer_plan.DTYPES)
    shared.emitters(options.get("emitter"))


def _fresh_dir(out: Path, names: list[str]) -> Path:
    if (out / farm.FARM_FILE).exists():
        raise UserError(f"{out} holds a farm run already: finish it with --resume {out}, or choose another -o")
    taken = [n for n in names if (out / n).exists()]
    if taken:
        raise UserError(f"{out}: {', '.join(taken)} exist already: choose another -o (runs are never mixed)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"{out}: cannot create output folder ({e.strerror})") from None
    return out


def _skip_done_and_held(workers: list[farm.Worker], plan: farm.Plan, console: Console) -> None:
    """Places with results are kept as they are; places someone else holds are skipped (unless --wait)."""
    for w in workers:
        if farm.state(w.folder) == "done":
            w.status, w.reason = "kept", "finished before"
    todo = [w for w in workers if w.status == "waiting"]
    if not todo:
        return
    with place.Coordinator(plan.coordinator) as c:
        for w in todo:
            try:
                holder = c.holder(w.place)
            except UserError as e:
                w.status, w.reason = "failed", str(e)
                continue
            if holder and not plan.wait:
                w.status, w.reason = "held", f"held by {holder}: skipped (--wait waits for it)"


def _run_with_progress(workers: list[farm.Worker], plan: farm.Plan, jobs: int, console: Console) -> None:
    width = max(len(w.place) for w in workers)
    columns = (
        TextColumn("{task.fields[place]}", table_column=Column(min_width=width, no_wrap=True)),
        BarColumn(bar_width=16),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", table_column=Column(no_wrap=True, overflow="ellipsis")),
    )
    with Progress(*columns, console=console) as bar:
        tasks = {w.place: bar.add_task(_status_text(w), place=w.place, total=None) for w in workers}

        def tick():
            for w in workers:
                p = w.raw_progress() if w.status in ("running", "done", "failed") else None
                if p is None:
                    bar.update(tasks[w.place], description=_status_text(w))
                    continue
                bar.update(tasks[w.place], completed=p.done, total=p.total, description=_status_text(w, p))
                if w.status != "running":
                    bar.stop_task(tasks[w.place])

        farm.run_all(workers, plan, jobs, tick)
        tick()


def _status_text(w: farm.Worker, p: farm.Progress | None = None) -> str:
    if w.status == "running":
        faults = f" ({p.faults} faults)" if p and p.faults else ""
        return (p.current if p and p.current else "acquiring the place") + faults
    if w.status == "held":
        return w.reason
    return w.status + (f": {w.reason}" if w.reason else "")


def _summary(workers: list[farm.Worker]) -> Table:
    table = Table(title="Farm run", title_justify="left")
    for col in ("place", "state", "time", "results or reason"):
        table.add_column(col, justify="right" if col == "time" else "left")
    for w in workers:
        where = str(w.folder / "results.json") if w.status in ("done", "kept") else w.reason
        style = None if w.status in ("done", "kept") else "red"
        table.add_row(w.place, w.status, duration(w.seconds) if w.seconds else "-", where, style=style)
    return table


def _compare(plan: farm.Plan, console: Console) -> None:
    from mcuroof.report import html as html_report
    from mcuroof.results import document as results

    paths = [plan.out / p / "results.json" for p in plan.places if (plan.out / p / "results.json").exists()]
    if len(paths) < 2:
        return
    datas = [results.load(p) for p in paths]
    runs = list(zip(compare.labels(datas, paths), datas))
    for item in report_compare.tables(runs, paths):
        terminal.show(console, item)
    report_compare.draw(runs, plan.out / "compare.png")
    html_report.write_compare(runs, plan.out / "report.html", paths)
    console.print(f"wrote {plan.out / 'compare.png'}, {plan.out / 'report.html'}")
