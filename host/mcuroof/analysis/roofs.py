"""Roofs from measurement records: pure computation, no I/O.

A memory record gives bytes/s, a MAC record MACC/s; each is first checked against the value
its kernel must have produced. The memory roof is the fastest mover's sweep, split into levels
where bandwidth drops clearly (the Empirical Roofline Toolkit's method); slower emitters give
ceilings below it.
"""

from __future__ import annotations

from collections import defaultdict

from mcuroof.analysis import records
from mcuroof.analysis.records import Roof
from mcuroof.kernels import contract

ABOVE_ROOF_TOLERANCE = 1.05  # measurement noise allowed before a point counts as above its roof


def above_roof(headroom: float | None) -> bool:
    """A point whose roof / achieved rate is below 1 by more than the noise: an accounting error."""
    return bool(headroom and headroom * ABOVE_ROOF_TOLERANCE < 1)


def seconds(rec: dict) -> float:
    """Time of one kernel call: best trial minus the timing harness's own cost; for a layer
    kernel defined in Python, minus its own empty call too (`call`: firmware/layers.py), whose
    heap-allocated frame costs what the heap's holes make it cost (docs/tiles.md)."""
    return max(rec["us"] - rec.get("call", rec["ovh"]), 1) * 1e-6 / rec["r"]


def call_seconds(rec: dict) -> float | None:
    """The empty call of a layer kernel defined in Python (None: not timed), beyond the harness's."""
    return max(rec["call"] - rec["ovh"], 0) * 1e-6 / rec["r"] if "call" in rec else None


def bandwidth(rec: dict) -> float:
    """Bytes moved per second: the record's bytes (its working set) times the passes per call."""
    return rec["bytes"] * contract.passes(rec) / seconds(rec)


def mac_rate(rec: dict) -> float:
    return rec["macs"] / seconds(rec)


def _pattern(i: int) -> int:
    return i % 7 + 1  # the input the firmware writes: a[i] = i % 7 + 1


def memory_ok(rec: dict) -> bool:
    n = rec["n"]
    return rec["chk"] == rec["f"] * (_pattern(0) + _pattern(n // 2) + _pattern(n - 1))


def mac_ok(rec: dict) -> bool:
    """x = [1] * u and w = [1..u]: each dot product is u(u+1)/2; an ISA peak kernel (field k)
    does `rep` of them per loop iteration."""
    u, rep = rec["u"], rec.get("rep", 1)
    return rec["chk"] == rec["n"] * rep * u * (u + 1) // 2 and rec["macs"] == rec["n"] * rep * u


MIN_KERNEL_SHARE = 0.2


def timed_well(rec: dict) -> bool:
    """The kernel, not the harness, must take at least MIN_KERNEL_SHARE of the timed window:
    otherwise subtracting the harness's cost leaves mostly noise (tiny buffers, fast emitters)."""
    return rec["us"] - rec["ovh"] >= MIN_KERNEL_SHARE * rec["us"]


def split(records: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """(verified memory records, verified MAC records, records whose check failed).

    Records that passed their check but were dominated by the harness's cost are left out of
    all three."""
    mem, mac, bad = [], [], []
    for rec in records:
        if rec.get("t") == "mem":
            (mem if memory_ok(rec) else bad).append(rec)
        elif rec.get("t") == "mac":
            (mac if mac_ok(rec) else bad).append(rec)
    return [r for r in mem if timed_well(r)], [r for r in mac if timed_well(r)], bad


def series(mem: list[dict]) -> dict[tuple, list[tuple[int, float]]]:
    """(emitter, kernel, dtype) -> [(working-set bytes, best bytes/s)] sorted by size."""
    best: dict[tuple, dict[int, float]] = defaultdict(dict)
    for rec in mem:
        key = (rec["em"], rec["k"], rec["ty"])
        ws = rec["bytes"]
        best[key][ws] = max(best[key].get(ws, 0.0), bandwidth(rec))
    return {k: sorted(v.items()) for k, v in best.items()}


def detect_levels(points: list[tuple[int, float]], drop: float = 1.25, flat: float = 0.15) -> list[dict]:
    """Plateaus of a sweep: a new level opens where bandwidth has fallen below 1/drop of the
    current level's best and the next size agrees within `flat` (a plateau starts here).
    A lone slow point is noise; points on the slope between two plateaus stay with the upper."""
    levels: list[list[tuple[int, float]]] = []
    for i, (ws, bw) in enumerate(points):
        if levels:
            top = max(b for _, b in levels[-1])
            nxt = points[i + 1][1] if i + 1 < len(points) else bw
            if bw * drop < top and abs(nxt - bw) <= flat * bw:
                levels.append([])
        else:
            levels.append([])
        levels[-1].append((ws, bw))
    return [{"bytes_per_s": max(b for _, b in lv), "min_ws": lv[0][0], "max_ws": lv[-1][0]} for lv in levels]


CALL_BOUND = 4.0  # a call shorter than this many times the smallest call's is mostly call cost


def call_bound(points: list[tuple[int, float]]) -> set[int]:
    """Working sets whose time per call is within CALL_BOUND of the smallest one's: the cost of
    the call (interpreter, slice objects) is over a quarter of their time, so their bandwidth
    rises with size whatever memory they sit in."""
    if not points:
        return set()
    floor = min(ws / bw for ws, bw in points)
    return {ws for ws, bw in points if ws / bw < CALL_BOUND * floor}


def sweep_call_bound(points: list[tuple[int, float]]) -> bool:
    """A sweep whose every working set is call-bound over sizes at least CALL_BOUND^2 apart: its
    time per call is flat with size, so its bandwidth is the call's, not a memory's. It is never
    a roof or a ceiling (the slice copy of qemu-m3/m7/m55 was, before it copied only n bytes:
    3.2 ms a call from 32 B to 128 KiB, "40.9 MB/s"). Over sizes only 4x apart a kernel whose
    time grows with size (3.9x: a micro:bit int8 scale from 256 B to 1 KiB) is not flat."""
    return (
        len(points) > 1
        and points[-1][0] >= CALL_BOUND**2 * points[0][0]
        and call_bound(points) == {ws for ws, _ in points}
    )


def _kib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n % (1 << 20) else f"{n >> 10} KiB"


def hardware_levels(points: list[tuple[int, float]], caches: list[dict]) -> list[dict]:
    """Levels cut at the known cache sizes: working sets below the first cache's size, then
    between it and the next, ..., then DRAM past the last; each named after the cache its range falls in
    ("L2 (1 MiB)"), never past that cache's size; `caches` ends with the memory past them
    (bytes None: "DRAM", or an MCU's SRAM). Call-bound sizes are left out; a level with no
    other point is dropped."""
    flat = call_bound(points)
    sized = [c for c in caches if c.get("bytes")]
    past = next((c["name"] for c in caches if not c.get("bytes")), "DRAM")
    edges = [0] + [c["bytes"] for c in sized] + [float("inf")]
    names = [f"{c['name']} ({_kib(c['bytes'])})" for c in sized] + [past]
    out = []
    for name, lo, hi in zip(names, edges, edges[1:]):
        # a working set the size of a cache is on neither side (partly hits, partly spills)
        pts = [(ws, bw) for ws, bw in points if lo < ws < hi and ws not in flat]
        if pts:
            out.append(
                {
                    "name": name,
                    "bytes_per_s": max(bw for _, bw in pts),
                    "min_ws": pts[0][0],
                    "max_ws": pts[-1][0],
                    "cache_bytes": hi if hi != float("inf") else None,
                }
            )
    return out


def memory_roofs(mem: list[dict], caches: list[dict] | None = None) -> list[dict]:
    """The fastest mover's levels (named after `caches`, see hardware_levels, where the run
    knows them; else plateaus, detect_levels), and every other emitter's ceilings. Call-bound
    sweeps (sweep_call_bound) give neither."""
    by_series = {k: v for k, v in series(mem).items() if not sweep_call_bound(v)}
    if not by_series:
        return []
    fastest = max(by_series, key=lambda k: max(bw for _, bw in by_series[k]))
    em, kernel, ty = fastest
    levels = hardware_levels(by_series[fastest], caches) if caches else detect_levels(by_series[fastest])
    roofs = []
    for i, lv in enumerate(levels):
        name = f"memory L{i + 1}" if len(levels) > 1 else "memory"
        if len(levels) > 1 and i == len(levels) - 1:
            name = f"memory L{i + 1} (main)"
        roofs.append(
            {
                "kind": "memory",
                "role": "roof",
                "name": f"memory {lv['name']}" if caches else name,
                "dtype": ty,
                "emitter": em,
                "kernel": kernel,
                "source": "measured",
                "level": i + 1,
                "ws_range": [lv["min_ws"], lv["max_ws"]],
                "bytes_per_s": lv["bytes_per_s"],
            }
        )
        if caches:
            roofs[-1]["cache_bytes"] = lv["cache_bytes"]
            roofs[-1]["call_bound_ws"] = sorted(call_bound(by_series[fastest]))
    best = lambda keys: max(keys, key=lambda k: max(bw for _, bw in by_series[k]))
    for other in sorted({k[0] for k in by_series} - {em}):
        key = best([k for k in by_series if k[0] == other])
        roofs.append(_ceiling(key, f"{other} {key[1]}", by_series[key]))
    shown = {(r["emitter"], r["dtype"]) for r in roofs}
    for other, dt in sorted({(k[0], k[2]) for k in by_series if k[2] in LAYER_DTYPES} - shown):
        key = best([k for k in by_series if (k[0], k[2]) == (other, dt)])
        roofs.append(_ceiling(key, f"{other} {key[1]} {dt}", by_series[key]))
    return roofs


# element types of the layers suite: each (emitter, type) that layers run gets its own memory
# ceiling, so an int8 layer is not judged against an int32 mover (points._memory_roof)
LAYER_DTYPES = ("int8", "float32")


def _ceiling(key: tuple, name: str, sweep: list[tuple[int, float]]) -> dict:
    em, kernel, ty = key
    return {
        "kind": "memory",
        "role": "ceiling",
        "name": name,
        "dtype": ty,
        "emitter": em,
        "kernel": kernel,
        "source": "measured",
        "bytes_per_s": max(bw for _, bw in sweep),
    }


def compute_roofs(mac: list[dict]) -> list[dict]:
    """One ceiling per emitter, type and loop: a dot product's loop is named by its unroll ("int8
    asm_thumb 4x": boards with under 256 KB of heap run 4 MACs a loop, the others 16, and the two
    loops' bounds differ), an ISA kernel's by its instruction ("int8 asm_thumb muls")."""
    best: dict[tuple, float] = {}
    for rec in mac:
        k = rec.get("k")
        k = None if str(k).startswith("@") else k  # "@i": measured again
        key = (rec["em"], rec["ty"], k, None if k else rec.get("u"))
        best[key] = max(best.get(key, 0.0), mac_rate(rec))
    roofs = [
        {
            "kind": "compute",
            "role": "ceiling",
            "name": f"{ty} {em}" + (f" {k}" if k else f" {u}x" if u else ""),
            "dtype": ty,
            "emitter": em,
            "source": "measured",
            "macs_per_s": v,
            **({"kernel": k} if k else {}),
            **({"unroll": u} if u else {}),
        }
        for (em, ty, k, u), v in best.items()
    ]
    roofs.sort(key=lambda r: -r["macs_per_s"])
    if roofs:
        roofs[0]["role"] = "roof"
    return roofs


WORD = 0xFFFFFFFF


def pattern_word_sum(nbytes: int) -> int:
    """Sum of the little-endian 32-bit words of the pattern buffer (byte i = i % 7 + 1), wrapped."""
    return sum(_pattern(i) << 8 * (i % 4) for i in range(nbytes)) & WORD


def region_ok(rec: dict) -> bool:
    """A region read: a pattern buffer's sum is known here; memory-mapped flash is read a second
    time on the board by a different reader (bytecode through machine.mem32), and both must agree."""
    if rec.get("pat"):
        return rec["chk"] & WORD == pattern_word_sum(rec["ws"])
    return rec.get("ref") is not None and rec["chk"] & WORD == rec["ref"] & WORD


def region_split(records: list[dict]) -> tuple[list[dict], list[dict]]:
    """(verified and well-timed region records, region records whose check failed)."""
    ok, bad = [], []
    for rec in records:
        if rec.get("t") == "reg":
            (ok if region_ok(rec) else bad).append(rec)
    return [r for r in ok if timed_well(r)], bad


def region_roofs(reg: list[dict]) -> list[dict]:
    """One read roof per region (role "region"): the plateau at the region's largest sizes, i.e.
    where the data comes from the region itself and not from a cache in front of it."""
    best: dict[tuple, dict[int, float]] = defaultdict(dict)
    for rec in reg:
        key = (rec["rg"], rec["em"])
        best[key][rec["ws"]] = max(best[key].get(rec["ws"], 0.0), bandwidth(rec))
    roofs = []
    for (rg, em), by_ws in best.items():
        last = detect_levels(sorted(by_ws.items()))[-1]
        roofs.append(
            {
                "kind": "memory",
                "role": "region",
                "name": f"{rg} read",
                "region": rg,
                "dtype": "int32",
                "emitter": em,
                "kernel": "read",
                "source": "measured",
                "ws_range": [last["min_ws"], last["max_ws"]],
                "bytes_per_s": last["bytes_per_s"],
            }
        )
    return sorted(roofs, key=lambda r: -r["bytes_per_s"])


def theoretical_match(roof: Roof | dict, roofs: list) -> Roof | None:
    """The profile's theoretical roof a measured roof is compared with, matched by kind and
    dtype: a compute roof to the first theoretical compute roof of its dtype (the core's own
    figure: profiles.theoretical_roofs lists it before accelerators and multi-core figures); a
    region to the theoretical memory named after it; other memory roofs to the first theoretical
    memory roof (the profile's fastest RAM, whose dtype is None: bytes are bytes)."""
    (roof,) = records.roofs([roof])
    if not roof.measured:
        return None
    theory = [r for r in records.roofs(roofs) if r.source == "theoretical" and r.kind == roof.kind]
    if roof.kind == "compute":
        return next((r for r in theory if r.dtype == roof.dtype), None)
    if roof.role == "region":
        return next((r for r in theory if (roof.region or "").lower() in r.name.lower()), None)
    return next((r for r in theory if r.dtype in (None, roof.dtype)), None)


def top_memory(roofs: list) -> Roof | None:
    """The fastest measured memory roof (role "roof")."""
    mem = [r for r in records.roofs(roofs) if r.kind == "memory" and r.role == "roof" and r.measured]
    return max(mem, key=lambda r: r.bytes_per_s) if mem else None


def ridges(roofs: list) -> list[dict]:
    """Operational intensity where each compute ceiling meets each memory roof or region (MACC/byte)."""
    measured = [r for r in records.roofs(roofs) if r.measured]
    mems = [r for r in measured if r.kind == "memory" and r.role in ("roof", "region")]
    comps = [r for r in measured if r.kind == "compute"]
    return [{"compute": c.name, "memory": m.name, "oi": c.macs_per_s / m.bytes_per_s} for c in comps for m in mems]


def attainable(oi: float, roofs: list, emitter: str | None = None, dtype: str | None = None) -> float:
    """The roofline at this intensity: min(top memory roof * oi, matching compute ceiling)."""
    typed = records.roofs(roofs)
    mem = top_memory(typed)
    comps = [
        r
        for r in typed
        if r.kind == "compute"
        and r.measured
        and (emitter is None or r.emitter == emitter)
        and (dtype is None or r.dtype == dtype)
    ]
    peak = max((r.macs_per_s for r in comps), default=float("inf"))
    return min(mem.bytes_per_s * oi if mem else float("inf"), peak)
