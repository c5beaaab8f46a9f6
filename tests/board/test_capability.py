"""Impossible requests are refused before anything runs: one line naming what the board has."""

from __future__ import annotations

import pytest

from conftest import needs_qemu
from mcuroof import cli
from mcuroof.board import capability
from mcuroof.board import profiles as boards
from mcuroof.errors import UserError
from mcuroof.model import load

KWS = load.load_network("kws-dscnn")
MB = ["bytecode", "asm_thumb"]


def refused(*args) -> str:
    with pytest.raises(UserError) as e:
        capability.check(*args)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_emitter_the_board_lacks():
    msg = refused(["viper"], None, KWS, "qemu-microbit", MB)
    assert msg.startswith("--emitter viper: qemu-microbit has bytecode: int8, float32 (all ops); asm_thumb: int8")


def test_dtype_the_emitter_lacks():
    msg = refused(["asm_thumb"], ["float32"], KWS, "qemu-microbit", MB)
    assert msg.startswith("--dtype float32 --emitter asm_thumb: no asm_thumb kernel")
    refused(["viper"], ["float32"], KWS, "unix", ["bytecode", "native", "viper"])
    msg = refused(["asm_thumb"], ["int8", "float32"], KWS, "qemu-microbit", MB)  # float32: on no emitter asked
    assert msg.startswith("--dtype float32: no emitter asked for runs kws-dscnn's layers at float32")


def test_possible_requests_pass():
    capability.check(["bytecode", "asm_thumb"], ["int8", "float32"], KWS, "qemu-microbit", MB)
    capability.check(None, ["float32"], KWS, "qemu-microbit", MB)  # bytecode runs it
    capability.check(["viper"], None, KWS, None, None)  # board unknown up front


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--board", "qemu-microbit", "--emitter", "viper"], "--emitter viper: qemu-microbit has"),
        (["--board", "qemu-microbit", "--dtype", "float32", "--emitter", "asm_thumb"], "no asm_thumb kernel"),
        (["--board", "unix", "--emitter", "asm_thumb"], "--emitter asm_thumb: unix has"),
    ],
)
def test_cli_refuses_before_anything_runs(tmp_path, capsys, argv, fragment):
    out = tmp_path / "out"
    assert cli.main(["run", "--model", "kws-dscnn", "-o", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mcuroof: ") and fragment in err and "\n" not in err
    assert not out.exists()


def test_the_profile_chooses_the_link_and_its_run_defaults(monkeypatch):
    from mcuroof.commands import run as cmd_run
    from mcuroof.links import open as links_open
    from mcuroof.links import qemu, unix

    monkeypatch.setattr(unix, "UnixLink", lambda heapsize: ("unix", heapsize))
    monkeypatch.setattr(qemu, "QemuLink", lambda shift, **kw: ("qemu", shift))

    def opened(*argv):
        args = cli.command_parser("run")[0].parse_args(list(argv))
        o = links_open.open_link(cmd_run.target(args))
        return o.link, o.board, o.icount_shift

    unix_heap = boards.load_board("unix").run["heap_bytes"]
    assert opened("--board", "unix") == (("unix", str(unix_heap)), "unix", None)
    assert opened("--board", "unix", "--heap-bytes", "1000000")[0] == ("unix", "1000000")
    shift = boards.load_board("qemu-microbit").run["icount_shift"]
    assert opened("--board", "qemu-microbit") == (("qemu", shift), "qemu-microbit", shift)
    assert opened("--board", "qemu-microbit", "--icount-shift", "3")[2] == 3
    with pytest.raises(UserError, match="a real board needs --port"):
        opened("--board", "pico")


@needs_qemu
def test_a_port_without_profile_is_refused_after_its_probe(tmp_path, capsys):
    """--port without --profile: the board is known from its probe (the run's first record);
    an emitter it lacks is refused then, before any suite runs, and the run leaves nothing."""
    from mcuroof.links.qemu import QemuMicrobit

    qemu = QemuMicrobit(boards.load_board("qemu-microbit").run["icount_shift"])
    port = qemu.start()
    try:
        out = tmp_path / "new" / "out"
        assert cli.main(["run", "--port", port, "--model", "kws-dscnn", "--emitter", "viper", "-o", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err
        assert err.startswith(
            f"mcuroof: --emitter viper: Cortex-M0 (microbit) on {port} has bytecode: int8, float32 (all ops); asm_thumb: int8"
        )
        assert err.endswith("(its probe)")
        assert not (tmp_path / "new").exists()
        kept = tmp_path / "kept"  # a folder that was there keeps what it held, and only that
        kept.mkdir()
        (kept / "notes.txt").write_text("mine")
        assert cli.main(["run", "--port", port, "--model", "kws-dscnn", "--emitter", "viper", "-o", str(kept)]) == 2
        assert [p.name for p in kept.iterdir()] == ["notes.txt"]
    finally:
        qemu.stop()


@pytest.mark.parametrize("opt", ["--emitter", "--dtype"])
def test_layer_options_without_a_model_are_refused(tmp_path, capsys, opt):
    """--emitter and --dtype choose layer kernels; without --model they used to be ignored silently."""
    out = tmp_path / "out"
    assert cli.main(["run", "--board", "qemu-microbit", opt, "int8", "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"mcuroof: {opt} chooses the layer kernels: it needs --model") and "\n" not in err
    assert not out.exists()
