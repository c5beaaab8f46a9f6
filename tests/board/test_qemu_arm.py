"""The QEMU Arm boards (qemu-m3, qemu-m7, qemu-m55): the firmware build, the ISA peak kernels
checked on the cores that have them, and the modern serial link (raw-paste, soft reboot, Ctrl-C).
The firmware is built once per machine and cached (~/.cache/mcuroof/firmware)."""

import shutil

import pytest

from factories import CPU_REGS
from mcuroof.analysis import roofs
from mcuroof.board import identity
from mcuroof.kernels import compute, memory
from mcuroof.kernels.firmware import prefix, source
from mcuroof.links import firmware_build
from mcuroof.links.base import BoardReset, BoardStalled
from mcuroof.measure.protocol import parse_line

needs_qemu = pytest.mark.skipif(
    not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"),
    reason="needs qemu-system-arm and gcc-arm-none-eabi",
)


def test_the_cache_key_follows_the_port_sources(tmp_path, monkeypatch):
    port = tmp_path / "port"
    shutil.copytree(firmware_build.PORT_DIR, port, ignore=shutil.ignore_patterns("build*"))
    monkeypatch.setattr(firmware_build, "PORT_DIR", port)
    before = firmware_build.port_digest("qemu-m7")
    assert firmware_build.port_digest("qemu-m3") != before
    (port / "hal.c").write_text((port / "hal.c").read_text() + "\n")
    assert firmware_build.port_digest("qemu-m7") != before


def _link(board):
    from mcuroof.links.qemu import QemuLink

    return QemuLink(6, board=board)


def _records(link, chunks):
    out = []
    link.run(chunks, out.append)
    return [parse_line(ln).data for ln in out if ln.startswith("@mcr")]


@needs_qemu
@pytest.mark.qemu
@pytest.mark.slow
@pytest.mark.parametrize("board", ["qemu-m3", "qemu-m7", "qemu-m55"])
def test_asm_kernels_compute_the_right_sums(board):
    """Every asm_thumb compute kernel of the core runs and returns n x rep dot products (the host's check);
    emitters, float and the real version come from the probe."""
    link = _link(board)
    try:
        cfg = {"win_us": 2000, "trials": 1}
        probe = _records(link, prefix([], cfg) + source("probe"))[0]
        assert probe["platform"] == board and probe["version"][:2] == [1, 29]
        assert probe["emitters"] == ["bytecode", "native", "viper", "asm_thumb"] and probe["float"]
        assert probe["cpu"] == CPU_REGS[board]  # the core's ID registers, read by the probe
        # the suite's asm_thumb kernels as a big heap gets them: dot products unrolled 16x and
        # the ISA peak kernels of this core
        ks = compute.compute_kernels(
            {
                "emitters": ["asm_thumb"],
                "types": ["b", "h", "i", "f"],
                "unroll": 16,
                "unroll_asm": 16,
                "iters": {"asm_thumb": 64},
                "isa": identity.describe({"cpu": CPU_REGS[board]}).peak_kernels,
            }
        )
        assert len(ks) == 3 + len(
            compute.isa_kernels(identity.describe({"cpu": CPU_REGS[board]}).peak_kernels, ["b", "h", "i", "f"], 64)
        )
        for k in ks:
            mac = [r for r in _records(link, prefix(["compute"], cfg) + k.scripts()) if r.get("t") == "mac"]
            assert mac and roofs.mac_ok(mac[0]), (k.key, mac)
    finally:
        link.close()


@needs_qemu
@pytest.mark.qemu
@pytest.mark.slow
@pytest.mark.parametrize("board", ["qemu-m7", "qemu-m55"])
def test_simd_int8_stream_kernels_move_lanes_not_bytes(board):
    """On a DSP core the asm_thumb int8 memory kernels move words and add by SADD8, on an MVE core
    vectors (VLDRB, VADD.I8, VSTRB): every output checked (copy 1x, scale 3x, add 2x, triad 4x
    the input) over the sweep's sizes."""
    cfg = {
        "emitters": ["asm_thumb"],
        "types": ["b"],
        "max_ws": {"asm_thumb": 3 * 1024},
        "isa": identity.describe({"cpu": CPU_REGS[board]}).peak_kernels,
    }
    ks = memory.memory_kernels(cfg)
    assert [k.key.rsplit("/", 1)[1] for k in ks] == ["copy", "scale", "add", "triad"]
    assert all("ldrb" not in k.source for k in ks)  # lanes, not bytes; the SIMD adds as data() words
    assert all("data(2," in k.source for k in ks if not k.key.endswith("/copy"))
    link = _link(board)
    try:
        for k in ks:
            recs = [
                r
                for r in _records(link, prefix(["memory"], {"win_us": 2000, "trials": 1, "min_n": 16}) + k.scripts())
                if r.get("t") == "mem"
            ]
            assert len(recs) >= 5 and all(roofs.memory_ok(r) for r in recs), (k.key, recs)
    finally:
        link.close()


@needs_qemu
@pytest.mark.qemu
@pytest.mark.slow
def test_the_slice_copy_moves_n_bytes_not_its_whole_buffer():
    """The C copy (a memoryview slice assignment) on views of n bytes: its time per call grows
    with n (-icount counts instructions, so these are counts, not timings). B[0:n]=A[0:n] on
    views of the whole buffer moved the buffer's tail too: 842 us a call at every size."""
    cfg = {"emitters": ["c"], "types": ["b"], "max_ws": {"c": 48 * 1024}}
    (k,) = memory.memory_kernels(cfg)
    link = _link("qemu-m3")
    try:
        recs = [
            r
            for r in _records(link, prefix(["memory"], {"win_us": 2000, "trials": 1, "min_n": 16}) + k.scripts())
            if r.get("t") == "mem"
        ]
    finally:
        link.close()
    assert [r["n"] for r in recs] == [16 << i for i in range(11)] and all(roofs.memory_ok(r) for r in recs)
    sweep = roofs.series(recs)[("c", "copy", "int8")]
    assert not roofs.sweep_call_bound(sweep)
    per_call = [ws / bw for ws, bw in sweep]
    assert per_call[-1] > 8 * per_call[0]  # 16 KiB against 16 B


@needs_qemu
@pytest.mark.qemu
@pytest.mark.slow
def test_modern_link_raw_paste_soft_reboot_and_ctrl_c():
    link = _link("qemu-m7")
    pasted = []
    write = link._paste
    link._paste = lambda code: (pasted.append(code), write(code))[1]
    try:
        out = []
        link.run(["print(6 * 7)\n"], out.append)
        assert "42\r" in out and pasted == [b"print(6 * 7)\n"]
        with pytest.raises(BoardReset, match="soft reboot"):
            link.run(["import machine\nmachine.soft_reset()\n", "print('lost')\n"], out.append)
        link.recover()
        with pytest.raises(BoardStalled):  # a hung kernel
            link.run(["while True:\n pass\n"], out.append, timeout=2)
        link.recover()  # the next run interrupts it with Ctrl-C (the UART receive interrupt)
        out = []
        link.run(["print('goes on')\n"], out.append)
        assert "goes on\r" in out
    finally:
        link.close()
