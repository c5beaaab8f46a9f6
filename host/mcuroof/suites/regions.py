"""The regions suite: memory-mapped flash and RAM buffers a sweep cannot find, read in place
(kernels.regions)."""

from __future__ import annotations

from mcuroof.kernels.contract import unit_key
from mcuroof.kernels.emitters import HOST_PLATFORMS, is_assembler, readers
from mcuroof.kernels.regions import regions_kernels
from mcuroof.suites.base import Context, Suite
from mcuroof.suites.timing import for_context, is_small

# Memory-mapped flash holding the firmware, per sys.platform: (base address, bytes surely inside
# the firmware image). Only the micro:bit (under QEMU) is tested; the others follow the parts'
# memory maps (nRF5x and SAMD: flash at 0; STM32: 0x08000000; RP2040/RP2350: XIP at 0x10000000,
# through its cache; i.MX RT: FlexSPI at 0x60000000) and were not run on hardware.
FLASH_MAP = {
    "microbit": (0x0, 64 * 1024),
    "nrf": (0x0, 64 * 1024),
    "samd": (0x0, 64 * 1024),
    "pyboard": (0x08000000, 256 * 1024),
    "rp2": (0x10000000, 256 * 1024),
    "mimxrt": (0x60000000, 256 * 1024),
    "qemu-m3": (0x0, 64 * 1024),
    "qemu-m7": (0x0, 64 * 1024),
    "qemu-m55": (0x0, 64 * 1024),
    "rp2040js-pico": (0x10000000, 128 * 1024),  # the emulator's flash: a flat array, no XIP cache
    "qemu-rv32": (0x80000000, 64 * 1024),  # QEMU virt's DRAM, where the firmware runs
    # the cycle model's boards: their code region is timed as the modelled board's flash (its wait
    # states and line buffer: links.cycle_model), so it is named flash
    "qemu-m4": (0x0, 64 * 1024),
    "qemu-m33": (0x10000000, 64 * 1024),
    "qemu-m0plus": (0x0, 64 * 1024),
}
# where the firmware runs from is not flash on QEMU's machines: SSRAM (MPS2), ITCM (AN547), DRAM (virt)
CODE_REGION = {"qemu-m3": "code", "qemu-m7": "code", "qemu-m55": "code", "qemu-rv32": "code"}
# ESP32 and ESP32-S3 data-bus windows, [lo, hi) pairs of word addresses (untested: no board here)
ESP32_PSRAM = [0x3F800000 >> 2, 0x3FC00000 >> 2, 0x3C000000 >> 2, 0x3E000000 >> 2]
ESP32_SRAM = [0x3FF80000 >> 2, 0x40000000 >> 2, 0x3FC88000 >> 2, 0x3FD00000 >> 2]
ESP32_INTERNAL = 520 * 1024  # more free heap than this means the heap has SPIRAM in it


def config(probe: dict, ctx: Context | None = None) -> dict:
    """Regions a sweep cannot find: memory-mapped flash (read in place) and RAM buffers."""
    ems, plat = probe.get("emitters", []), probe.get("platform")
    # each call reads per_call bytes (the region p times over): the call's own cost stays small
    cfg = {
        **for_context(probe, ctx),
        "min_bytes": 256,
        "per_call": 65536,
        "regions": [],
        "emitter": None,
        "skip": None,
    }
    free = probe.get("free", 0)
    if plat in HOST_PLATFORMS:
        return {**cfg, "skip": "unix"}
    # an assembler with a reader (asm_thumb) reads the map; viper where there is none (qemu-rv32)
    reader = next((e for e in readers() if e in ems and (is_assembler(e) or plat in FLASH_MAP)), None)
    if reader:
        if plat not in FLASH_MAP:
            return {**cfg, "skip": "no-map"}
        base, top = FLASH_MAP[plat]
        ram = 4096 if is_small(probe) else 64 * 1024  # halved on the board until it fits
        return {
            **cfg,
            **({} if is_assembler(reader) else {"waddr": "ptr8"}),  # no uctypes in firmware/port
            "emitter": reader,
            "regions": [
                {"name": CODE_REGION.get(plat, "flash"), "wa": base >> 2, "top": top, "rng": []},
                {"name": "SRAM", "wa": None, "top": ram, "rng": []},
            ],
        }
    # on ESP32 (no asm_xtensa reader), the compiled reader (viper) reads the data bus's windows
    compiled = next((e for e in readers() if e in ems and not is_assembler(e)), None)
    if plat == "esp32" and compiled:
        regions = [{"name": "SRAM", "wa": None, "top": 16 * 1024, "rng": ESP32_SRAM}]
        if free > 2 * ESP32_INTERNAL:
            regions.append({"name": "PSRAM", "wa": None, "top": 1 << 20, "rng": ESP32_PSRAM})
        return {**cfg, "emitter": compiled, "regions": regions}
    return {**cfg, "skip": "no-reader"}


def key(rec: dict) -> str | None:
    if rec.get("t") == "reg" or (rec.get("t") == "skip" and rec.get("rg")):
        return unit_key("regions", rec["em"], rec["rg"])
    if rec.get("t") == "skip":
        return unit_key("regions", "skip")
    return None


SUITE = Suite("regions", regions_kernels, key, {"reg": ()}, config)
