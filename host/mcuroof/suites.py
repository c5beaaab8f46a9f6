"""What each suite measures on a given board, decided from the board's probe record, and each
suite's rules for a unit that fails (shrink after a MemoryError, or leave it out).

(A layer's tiles are planned by layers.plan; this module was plan.py until issue 12.)"""
from __future__ import annotations

import copy

SMALL_HEAP = 256 * 1024
MiB = 1 << 20
HOST_PLATFORMS = ("linux", "darwin", "windows")
INTERPRETED_WS = 16 * 1024
# loop iterations per kernel call: enough that the call costs little beside the loop
ITERS = {"bytecode": 32, "native": 64, "viper": 1024, "asm_thumb": 1024}
# On big ports a call's own cost is not the only one: boxed floats made a 32-iteration float
# kernel run at half the rate of a 1000-iteration one on the unix port (allocation per call)
ITERS_LARGE = {"bytecode": 1024, "native": 1024, "viper": 4096, "asm_thumb": 4096}


def is_small(probe: dict) -> bool:
    return probe.get("free", 0) < SMALL_HEAP


# trials per measurement: the least is kept. On a host OS the others' processes preempt a trial
# now and then: KWS with viper on the unix port, machine under load 2.7 on 2 cores, 5 trials:
# measured/predicted 1.72-2.08 over three runs, identical layers 2.4-4.1x apart; 15 trials:
# 1.41-1.45, identical layers 2.3-2.5x (the same on a quiet machine: 1.46)
TRIALS, HOST_TRIALS = 5, 15


def timing(probe: dict) -> dict:
    """Window per trial: long enough that the timer tick is under 0.1 % of it."""
    win = 20000 if is_small(probe) else 5000
    trials = HOST_TRIALS if probe.get("platform") in HOST_PLATFORMS else TRIALS
    return {"win_us": max(win, 1000 * probe.get("tick_us", 1)), "trials": trials}


def memory_config(probe: dict) -> dict:
    ems = [e for e in probe["emitters"] if e in ("bytecode", "native", "viper", "asm_thumb")]
    if probe.get("memoryview"):
        ems.append("c")
    types = ["b", "i"] + (["f"] if probe.get("float") else [])
    if is_small(probe):
        max_ws = {em: probe["free"] for em in ems}
    elif probe.get("platform") not in HOST_PLATFORMS:
        # a microcontroller with a big heap: interpreter loops there take seconds per 16 KB and
        # show nothing new past it; the fast movers sweep the heap
        max_ws = {em: INTERPRETED_WS if em in ("bytecode", "native") else probe["free"] for em in ems}
    else:  # interpreter loops are flat past the caches; the C copy goes out to DRAM
        max_ws = {"bytecode": 1 * MiB, "native": 1 * MiB, "viper": 16 * MiB, "c": 192 * MiB}
    return {**timing(probe), "emitters": ems, "types": types, "max_ws": max_ws, "min_n": 16,
            "isa": ISA_KERNELS.get(probe.get("platform"), [])}


def compute_config(probe: dict) -> dict:
    ems = [e for e in probe["emitters"] if e in ("bytecode", "native", "viper", "asm_thumb")]
    types = ["b", "h", "i"] + (["f"] if probe.get("float") else [])
    # the micro:bit's parser cannot hold a longer unrolled kernel in its 8 KB heap
    unroll, unroll_asm = (8, 4) if is_small(probe) else (16, 16)
    return {**timing(probe), "emitters": ems, "types": types, "iters": ITERS if is_small(probe) else ITERS_LARGE,
            "unroll": unroll, "unroll_asm": unroll_asm, "isa": ISA_KERNELS.get(probe.get("platform"), [])}


# asm_thumb ISA peak kernels (kernels.isa_kernels) per sys.platform. Only where the core is
# known for sure: an instruction the core lacks faults. Armv7-M: MLA; the DSP extension: SMLAD
# and SXTB16; FPv5: VFMA; Helium (MVE): VMLADAVA and vector VFMA.
ISA_KERNELS = {"qemu-m3": ["mla"], "qemu-m7": ["mla", "smlad", "vfma"],
               "qemu-m55": ["mla", "smlad", "vfma", "vmladava", "vfma-q"]}


# Memory-mapped flash holding the firmware, per sys.platform: (base address, bytes surely inside
# the firmware image). Only the micro:bit (under QEMU) is tested; the others follow the parts'
# memory maps (nRF5x and SAMD: flash at 0; STM32: 0x08000000; RP2040/RP2350: XIP at 0x10000000,
# through its cache; i.MX RT: FlexSPI at 0x60000000) and were not run on hardware.
FLASH_MAP = {"microbit": (0x0, 64 * 1024), "nrf": (0x0, 64 * 1024), "samd": (0x0, 64 * 1024),
             "pyboard": (0x08000000, 256 * 1024), "rp2": (0x10000000, 256 * 1024),
             "mimxrt": (0x60000000, 256 * 1024),
             "qemu-m3": (0x0, 64 * 1024), "qemu-m7": (0x0, 64 * 1024), "qemu-m55": (0x0, 64 * 1024)}
# where the firmware runs from is not flash on QEMU's Arm machines: SSRAM (MPS2) or ITCM (AN547)
CODE_REGION = {"qemu-m3": "code", "qemu-m7": "code", "qemu-m55": "code"}
# ESP32 and ESP32-S3 data-bus windows, [lo, hi) pairs of word addresses (untested: no board here)
ESP32_PSRAM = [0x3F800000 >> 2, 0x3FC00000 >> 2, 0x3C000000 >> 2, 0x3E000000 >> 2]
ESP32_SRAM = [0x3FF80000 >> 2, 0x40000000 >> 2, 0x3FC88000 >> 2, 0x3FD00000 >> 2]
ESP32_INTERNAL = 520 * 1024  # more free heap than this means the heap has SPIRAM in it


def regions_config(probe: dict) -> dict:
    """Regions a sweep cannot find: memory-mapped flash (read in place) and RAM buffers."""
    ems, plat = probe.get("emitters", []), probe.get("platform")
    # each call reads per_call bytes (the region p times over): the call's own cost stays small
    cfg = {**timing(probe), "min_bytes": 256, "per_call": 65536, "regions": [], "emitter": None, "skip": None}
    free = probe.get("free", 0)
    if plat in HOST_PLATFORMS:
        return {**cfg, "skip": "unix"}
    if "asm_thumb" in ems:
        if plat not in FLASH_MAP:
            return {**cfg, "skip": "no-map"}
        base, top = FLASH_MAP[plat]
        ram = 4096 if is_small(probe) else 64 * 1024  # halved on the board until it fits
        return {**cfg, "emitter": "asm_thumb",
                "regions": [{"name": CODE_REGION.get(plat, "flash"), "wa": base >> 2, "top": top, "rng": []},
                            {"name": "SRAM", "wa": None, "top": ram, "rng": []}]}
    if plat == "esp32" and "viper" in ems:
        regions = [{"name": "SRAM", "wa": None, "top": 16 * 1024, "rng": ESP32_SRAM}]
        if free > 2 * ESP32_INTERNAL:
            regions.append({"name": "PSRAM", "wa": None, "top": 1 << 20, "rng": ESP32_PSRAM})
        return {**cfg, "emitter": "viper", "regions": regions}
    return {**cfg, "skip": "no-reader"}


CONFIGS = {"memory": memory_config, "compute": compute_config, "regions": regions_config}


def suite_config(suite: str, probe: dict) -> dict:
    return CONFIGS[suite](probe)


# ---------------------------------------------------------------- each suite's rules for failing units

MIN_WS = 3 * 16 * 4  # below this a memory kernel has no sweep left to run
LEAVE_OUT_FAILING = ("layers",)  # a layer whose script keeps raising is left out, not the run


def shrink(suite: str, cfg: dict, key: str) -> tuple[dict, str, int] | None:
    """After a MemoryError in unit `key` (e.g. memory/bytecode/int8/copy): the suite's config with
    half that unit's working set (memory: its emitter's max_ws; compute: the unroll), the field
    and its new value; None where the suite cannot shrink the unit."""
    new = copy.deepcopy(cfg)
    em = key.split("/")[1] if "/" in key else ""
    if suite == "memory" and em in new.get("max_ws", {}):
        field, value = "max_ws", new["max_ws"][em] // 2
        if value < MIN_WS:
            return None
        new["max_ws"][em] = value
        return new, field, value
    if suite == "compute" and em:
        field = "unroll_asm" if em == "asm_thumb" else "unroll"
        value = new[field] // 2
        if value < 1:
            return None
        new[field] = value
        return new, field, value
    return None


def leaves_out_failing(suite: str) -> bool:
    """Whether a unit that keeps failing is left out (and said so) instead of stopping the run."""
    return suite in LEAVE_OUT_FAILING
