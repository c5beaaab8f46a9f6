"""What Vela wrote, parsed: its per-layer CSV, its summary CSV and its debug database. No I/O.

Vela 5.2 writes, for NETWORK compiled into DIR:
- DIR/NETWORK_per-layer.csv (--verbose-performance): one row per scheduled operation, with its
  cycles, MAC count and target (NPU, or CPU for an operator Vela passes through);
- DIR/NETWORK_summary_SYSTEM.csv: the clock, the design peak bandwidths (Vela's "GB/s" are GiB/s:
  bytes per second / 2**30) and the whole network's cycles and time;
- DIR/NETWORK_debug.xml (--enable-debug-db): the same rows ("perf") with ids, and the bytes each
  operation reads and writes in each memory ("perf_debug").
Nothing here re-derives an estimate: figures are copied, and bytes are summed over Vela's columns.
"""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from mcuroof.errors import UserError

# memory prefixes of the debug database -> (label in the summary, its bandwidth column)
MEMORIES = {
    "Sram": ("SRAM", "sram_bandwidth"),
    "Dram": ("DRAM", "dram_bandwidth"),
    "OnChipFlash": ("On-chip Flash", "on_chip_flash_bandwidth"),
    "OffChipFlash": ("Off-chip Flash", "off_chip_flash_bandwidth"),
}
PURPOSES = ("Lut", "FeatureMap", "Weights", "Scales")
GIB = 2**30


@dataclass(frozen=True)
class Operation:
    """One row of Vela's per-layer table."""

    name: str  # Vela's Name column: the TFLite operator's output tensor
    original: str  # the TFLite operator ("Conv2D")
    op: str  # the operation Vela scheduled ("Conv2D", "Relu", "Passthrough" for a CPU one)
    target: str  # "npu" or "cpu"
    cycles: int  # Op Cycles, at the NPU clock
    macs: int
    bytes: dict = field(default_factory=dict)  # memory label -> bytes read + written


@dataclass(frozen=True)
class Summary:
    network: str
    accelerator: str  # "Ethos_U55_128"
    macs_per_cycle: int  # from the accelerator's name
    system: str
    memory_mode: str
    clock_hz: float
    bandwidths: dict  # memory label -> bytes/s, for the memories the system config places data in
    cycles: int  # the whole network
    seconds: float  # Vela's inference_time
    macs: int


def _rows(text: str, what: str) -> list[dict]:
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        raise UserError(f"Vela's {what} is empty")
    return rows


def _num(value: str) -> float:
    return float(value) if value not in ("", None) else 0.0


def summary(text: str) -> Summary:
    """The one row of Vela's summary CSV."""
    row = _rows(text, "summary CSV")[0]
    m = re.search(r"_(\d+)$", row["accelerator_configuration"])
    if not m:
        raise UserError(f"Vela's summary: accelerator {row['accelerator_configuration']!r} has no MAC count")
    areas = dict.fromkeys((row["feature_map_storage_area"], row["weights_storage_area"]))
    by_label = {label: col for label, col in MEMORIES.values()}
    return Summary(
        network=row["network"],
        accelerator=row["accelerator_configuration"],
        macs_per_cycle=int(m.group(1)),
        system=row["system_config"],
        memory_mode=row["memory_mode"],
        clock_hz=_num(row["core_clock"]),
        bandwidths={a: _num(row[by_label[a]]) * GIB for a in areas},
        cycles=int(_num(row["cycles_total"])),
        seconds=_num(row["inference_time"]),
        macs=int(_num(row["nn_macs"])),
    )


def _tables(xml_text: str) -> dict[str, list[dict]]:
    root = ET.fromstring(xml_text)
    return {t.get("name"): list(csv.DictReader(io.StringIO((t.text or "").strip()))) for t in root.iter("table")}


def _bytes(row: dict) -> dict:
    out = {}
    for prefix, (label, _) in MEMORIES.items():
        total = sum(_num(row.get(f"{prefix}{p}_{d}")) for p in PURPOSES for d in ("read", "write"))
        if total:
            out[label] = int(total)
    return out


def operations(per_layer_csv: str, debug_xml: str) -> list[Operation]:
    """The per-layer rows, each with its bytes per memory from the debug database (joined by id;
    the CSV and the database's perf table list the same rows in the same order)."""
    rows = _rows(per_layer_csv, "per-layer CSV")
    tables = _tables(debug_xml)
    perf, debug = tables.get("perf", []), {r["id"]: r for r in tables.get("perf_debug", [])}
    if len(perf) != len(rows) or any(p["op_cycles"] != r["Op Cycles"] for p, r in zip(perf, rows)):
        raise UserError("Vela's per-layer CSV and its debug database disagree (not Vela 5.2's output?)")
    return [
        Operation(
            name=r["Name"],
            original=r["Original Operator"],
            op=r["NNG Operator"],
            target=r["Target"].lower(),
            cycles=int(_num(r["Op Cycles"])),
            macs=int(_num(r["MAC Count"])),
            bytes=_bytes(debug.get(p["id"], {})),
        )
        for p, r in zip(perf, rows)
    ]
