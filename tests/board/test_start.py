"""A fast start: the parser imports no command module; a command imports only what it needs."""

import subprocess
import sys

import pytest

HEAVY = ("matplotlib", "numpy", "jsonschema", "mcuroof.commands.run", "mcuroof.report.plot", "mcuroof.model.network")


def imported_after(argv: list[str]) -> set[str]:
    code = (
        "import sys\nfrom mcuroof.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass\n"
        "print('IMPORTED', *[m for m in %r if m in sys.modules])" % (argv, HEAVY)
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.strip().splitlines()[-1].split()[1:])


@pytest.mark.parametrize("argv", [["--help"], ["boards"], ["boards", "--show", "pico"], ["--bogus"]])
def test_help_and_boards_import_no_heavy_module(argv):
    assert imported_after(argv) == set()
