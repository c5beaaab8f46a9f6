"""Command line entry point: one module per subcommand, one error type caught here."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading

from mcuroof.errors import UserError

# subcommand -> (module under mcuroof, one-line help)
COMMANDS = {
    "run": ("commands.run", "run the suites on a board and write raw.jsonl, results.json and the plot"),
    "plot": ("commands.plot", "redraw the roofline plot from a results.json"),
    "report": ("commands.report", "print the summary tables of a results.json"),
    "boards": ("commands.boards", "list the board profiles, or show one"),
    "analyze": ("commands.analyze", "per-layer MACC, bytes, intensity and peak memory of a model"),
    "compare": ("commands.compare", "two or more runs on one plot, roof ratios and per-layer time ratios"),
    "export": ("commands.export", "the results as tidy CSV tables or one JSON document, to re-plot elsewhere"),
    "kernel": ("commands.kernel", "time your own kernels (FILE.py) on the board and place them on the roofline"),
    "listing": ("commands.listing", "print the source of mcuroof's kernels for a board, one instruction a line"),
    "choose": (
        "commands.choose",
        "which board: one model on each board of a list, in ms of each chip, every cell labelled",
    ),
    "predict": ("commands.predict", "a model's latency on a board from its characterisation alone (no board)"),
    "npu": ("commands.npu", "an Ethos-U NPU's roofs and per-operator points estimated by Arm's Vela, over a CPU run's"),
    "farm": ("commands.farm", "many boards of a labgrid farm in parallel, compared; a starter exporter config"),
}


class Parser(argparse.ArgumentParser):
    """argparse with the one-line error every mcuroof error has (exit status 2)."""

    def error(self, message):
        where = self.prog[len("mcuroof") :].strip()
        raise UserError(f"{where + ': ' if where else ''}{message} (see {self.prog} --help)")


class _Version(argparse.Action):
    """--version, its git describe run only when asked (mcuroof.version)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from mcuroof import version

        parser.exit(message=f"mcuroof {version.__version__}\n")


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: options and the command names only, so that `mcuroof --help`
    imports no command module (matplotlib, numpy); the rest of the line is the command's."""
    parser = Parser(prog="mcuroof", description="Empirical roofline toolkit for MicroPython boards.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def command_parser(name: str, debug: bool = False):
    """The parser of one command, and its module (imported here, when the command runs)."""
    module_name, help_text = COMMANDS[name]
    module = importlib.import_module(f"mcuroof.{module_name}")
    p = Parser(prog=f"mcuroof {name}", description=help_text)
    p.add_argument("--debug", action="store_true", default=debug, help="show tracebacks")
    module.configure(p)
    return p, module


def _terminated(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    debug = False
    # `kill`, a CI job's timeout: ended as Ctrl-C is (the emulator stopped, the partial run kept);
    # by default the process died at once and left its QEMU running
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _terminated)
    try:
        parser = build_parser()
        top, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
        debug = top.debug
        if not top.command:
            if rest:
                parser.error(f"unrecognized arguments: {' '.join(rest)}")
            parser.print_help()
            return 2
        cmd_parser, module = command_parser(top.command, top.debug)
        args = cmd_parser.parse_args(rest)
        args.command = top.command
        debug = args.debug
        return module.run(args) or 0
    except UserError as e:
        if debug:
            raise
        print(f"mcuroof: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        if debug:
            raise
        print(f"mcuroof: interrupted{'; ' + str(e) if str(e) else ''}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
