"""What Vela wrote, parsed: its per-layer CSV and its summary CSV. No I/O.

Vela 5.2 writes, for NETWORK compiled into DIR:
- DIR/NETWORK_per-layer.csv (--verbose-performance): one row per scheduled operation, with its
  cycles, MAC count and target (NPU, or CPU for an operator Vela passes through);
- DIR/NETWORK_summary_SYSTEM.csv: the clock, the design peak bandwidths (Vela's "GB/s" are GiB/s:
  bytes per second / 2**30) and the whole network's cycles and time;
Nothing here re-derives an estimate: figures are copied. An operation's bytes in a memory are
its access cycles there ("SRAM AC", ...: what Vela's model charges to the operation's time) at that
memory's design peak bytes per cycle (npu.roofline).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from mcuroof.errors import UserError

# memory label (as the summary names it) -> its bandwidth column in the summary
BANDWIDTH = {
    "SRAM": "sram_bandwidth",
    "DRAM": "dram_bandwidth",
    "On-chip Flash": "on_chip_flash_bandwidth",
    "Off-chip Flash": "off_chip_flash_bandwidth",
}
# memory label -> the summary's column of the network's bytes moved through it
TOTAL_BYTES = {
    "SRAM": "sram_total_bytes",
    "DRAM": "dram_total_bytes",
    "On-chip Flash": "on_chip_flash_total_bytes",
    "Off-chip Flash": "off_chip_flash_total_bytes",
}
# per-layer CSV column of access cycles -> memory label
ACCESS = {"SRAM AC": "SRAM", "DRAM AC": "DRAM", "OnFlash AC": "On-chip Flash", "OffFlash AC": "Off-chip Flash"}
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
    access_cycles: dict = field(default_factory=dict)  # memory label -> cycles Vela charges to it


@dataclass(frozen=True)
class Summary:
    network: str
    accelerator: str  # "Ethos_U55_128"
    macs_per_cycle: int  # from the accelerator's name
    system: str
    memory_mode: str
    clock_hz: float
    bandwidths: dict  # memory label -> design peak bytes/s, for every memory the summary names
    placed: tuple  # the memories the system config and memory mode place feature maps and weights in, and
    # any other the network moves bytes through (an Ethos-U65's SRAM used as its arena cache, Dedicated_Sram)
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
    return Summary(
        network=row["network"],
        accelerator=row["accelerator_configuration"],
        macs_per_cycle=int(m.group(1)),
        system=row["system_config"],
        memory_mode=row["memory_mode"],
        clock_hz=_num(row["core_clock"]),
        bandwidths={m: _num(row[col]) * GIB for m, col in BANDWIDTH.items() if _num(row.get(col))},
        placed=_placed(row),
        cycles=int(_num(row["cycles_total"])),
        seconds=_num(row["inference_time"]),
        macs=int(_num(row["nn_macs"])),
    )


def _placed(row: dict) -> tuple:
    """The storage areas of feature maps and weights, then every memory with bytes through it."""
    areas = [row["feature_map_storage_area"], row["weights_storage_area"]]
    used = [m for m, col in TOTAL_BYTES.items() if _num(row.get(col)) > 0]
    return tuple(dict.fromkeys(areas + used))


def operations(per_layer_csv: str) -> list[Operation]:
    """The per-layer rows: cycles, MACs, target, and the access cycles Vela charges to each memory."""
    return [
        Operation(
            name=r["Name"],
            original=r["Original Operator"],
            op=r["NNG Operator"],
            target=r["Target"].lower(),
            cycles=int(_num(r["Op Cycles"])),
            macs=int(_num(r["MAC Count"])),
            access_cycles={label: int(_num(r[col])) for col, label in ACCESS.items() if _num(r.get(col))},
        )
        for r in _rows(per_layer_csv, "per-layer CSV")
    ]
