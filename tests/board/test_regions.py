"""The regions suite: read roofs from memory regions a sweep cannot find (flash, SRAM, PSRAM)."""

import pytest

from conftest import needs_qemu
from mcuroof.analysis import roofs
from mcuroof.kernels import regions as kernels_regions
from mcuroof.links.qemu import FIRMWARE, QemuLink
from mcuroof.links.unix import UnixLink
from mcuroof.measure.collect import Collector
from mcuroof.measure.rawlog import RawLog
from mcuroof.results import document as results
from mcuroof.suites import regions, registry


@pytest.fixture
def unix_collector(tmp_path, micropython):
    log = RawLog(tmp_path / "raw.jsonl")
    yield Collector(UnixLink(micropython, heapsize="32M"), log)
    log.close()


def test_unix_port_skips_with_a_reason(unix_collector):
    cfg = registry.suite_config(
        "regions", {"platform": "linux", "emitters": ["bytecode"], "free": 1 << 30, "tick_us": 1}
    )
    (rec,) = unix_collector.run_suite("regions", cfg)
    assert rec["t"] == "skip" and "unix port" in rec["why"]
    data = results.build({"name": "unix"}, [rec])
    assert data["skipped"] == [rec] and not [r for r in data["roofs"] if r.get("role") == "region"]


def test_viper_reader_on_real_micropython(unix_collector):
    """The ESP32 code path (viper reader, uctypes address, region address check) on the unix
    port: a heap buffer is read and verified; a PSRAM window it is not in gives a skip record."""
    cfg = {
        "win_us": 1000,
        "trials": 3,
        "min_bytes": 256,
        "per_call": 16384,
        "emitter": "viper",
        "skip": None,
        "regions": [
            {"name": "SRAM", "wa": None, "top": 2048, "rng": []},
            {"name": "PSRAM", "wa": None, "top": 2048, "rng": regions.ESP32_PSRAM},
        ],
    }
    recs = unix_collector.run_suite("regions", cfg)
    reads = [r for r in recs if r["t"] == "reg"]
    assert [r["ws"] for r in reads] == [256, 512, 1024, 2048]
    assert all(roofs.region_ok(r) for r in reads)
    assert {registry.record_key(r) for r in recs} == {k.key for k in kernels_regions.regions_kernels(cfg)}
    skip = [r for r in recs if r["t"] == "skip"]
    assert len(skip) == 1 and skip[0]["rg"] == "PSRAM" and "not in this region" in skip[0]["why"]


def flash_image(size: int) -> bytes:
    """The first `size` bytes of the micro:bit's flash, from the Intel HEX QEMU loads."""
    mem, base = bytearray(b"\xff" * size), 0
    for line in FIRMWARE.read_text().split():
        raw = bytes.fromhex(line[1:])
        n, addr, typ, data = raw[0], int.from_bytes(raw[1:3], "big"), raw[3], raw[4 : 4 + raw[0]]
        if typ == 4:
            base = int.from_bytes(data, "big") << 16
        elif typ == 0 and base + addr < size:
            mem[base + addr : base + addr + n] = data[: size - base - addr]
    return bytes(mem)


@needs_qemu
def test_flash_and_sram_read_roofs_on_qemu_microbit(tmp_path):
    log = RawLog(tmp_path / "raw.jsonl")
    link = QemuLink(6)
    try:
        collector = Collector(link, log)
        probe = collector.probe()
        recs = collector.run_suite("regions", registry.suite_config("regions", probe))
    finally:
        link.close()
        log.close()
    flash = [r for r in recs if r.get("rg") == "flash"]
    sram = [r for r in recs if r.get("rg") == "SRAM"]
    assert flash and sram and all(roofs.region_ok(r) for r in flash + sram)
    # the asm reader's sum of the first 64 KB of flash is the sum of the firmware image's words
    image = flash_image(65536)
    top = max(flash, key=lambda r: r["ws"])
    assert top["ws"] == 65536 and top["adr"] == 0
    assert (
        top["chk"] & roofs.WORD
        == sum(int.from_bytes(image[i : i + 4], "little") for i in range(0, 65536, 4)) & roofs.WORD
    )
    assert 0x20000000 <= sram[0]["adr"] < 0x20004000  # the buffer is in the nRF51's 16 KB of RAM
    data = results.build({"name": "qemu-microbit"}, recs)
    names = {r["name"] for r in data["roofs"] if r.get("role") == "region"}
    assert names == {"flash read", "SRAM read"} and data["checks"]["failed"] == 0
    assert {m for _, m in [(r["compute"], r["memory"]) for r in data["ridges"]]} <= names
