"""Does a model fit a board? Weights against flash, live activations against the heap.
Pure computation: nothing here talks to a board or prints.

A MicroPython board runs a model out of two budgets:
- flash: the weights, frozen into the firmware as bytes objects, stay in flash and are read in
  place. A board with no flash in its profile (the unix port, QEMU's MPS2 boards) holds them in
  the heap, as bytes or array objects loaded from a file, so they count against the heap. The
  verdict says which and why (WEIGHTS).
- the heap: the live activations at the worst layer (model.peak_memory; the kernels allocate no
  heap scratch: the DSP and MVE asm_thumb kernels' im2col blocks sit in their stack frames). Where layers ran whole on the board, the largest heap one of them took
  (gc.mem_alloc around the layer's buffers, its weights included) is a need measured there,
  and the larger of the two is the need.

The heap budget is, best first: the free heap the board's probe reported; the profile's
[run].heap_bytes (the MicroPython heap); the profile's on-chip RAM, an upper bound (the firmware
takes part of it): a need within half of it fits (BOUND_SHARE), one beyond it does not, and one
in between "may fit".
Flash is the part's whole flash, the firmware's code included, as vendors' analyzers count it.
Unknown budgets give "fit unknown" rather than a guess.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from mcuroof.board.profiles import Board
from mcuroof.model import network

# where the weights live, and why, by whether the profile names a flash to freeze them in
WEIGHTS = {
    True: (
        "weights in flash: frozen into the firmware as bytes objects and read in place (loaded from a "
        "file instead, as mcuroof's own runs send them, MicroPython would hold them in the heap)"
    ),
    False: (
        "weights in RAM: this profile names no flash, so MicroPython holds them in the heap as bytes or "
        "array objects loaded from a file; frozen bytes in a flash image, or a memoryview of a ROM "
        "region, would keep them out of the heap"
    ),
}
# Where only the on-chip RAM is known, a need within this share of it fits: MicroPython's heap
# was more than half the RAM wherever it was measured (micro:bit 10,048 of 16,384 B).
BOUND_SHARE = 0.5


@dataclass(frozen=True)
class Budget:
    """What a board has for a model: bytes, and where the figure comes from."""

    flash_bytes: int | None
    flash_label: str
    heap_bytes: int | None
    heap_label: str
    weights_in_flash: bool
    heap_is_bound: bool = False  # on-chip RAM: MicroPython's heap is smaller by an unknown amount


@dataclass(frozen=True)
class Need:
    """One budget a model draws on: what it needs against what the board has."""

    what: str  # "flash" or "RAM"
    needs: int
    needs_label: str
    has: int | None
    has_label: str
    bound: bool = False  # `has` is an upper bound: the need may not fit even within it

    @property
    def fits(self) -> bool | None:
        if self.has is None or (self.bound and self.has * BOUND_SHARE < self.needs <= self.has):
            return None
        return self.needs <= self.has


@dataclass(frozen=True)
class Verdict:
    needs: tuple[Need, ...]
    weights: str = ""  # where the weights live and why (WEIGHTS)

    @property
    def fits(self) -> bool | None:
        """True, False, or None where a budget the model draws on is not known."""
        states = [n.fits for n in self.needs]
        if False in states:
            return False
        return None if None in states else True

    def text(self) -> str:
        """'fits: ...', 'does not fit: needs X, board has Y', 'may fit: ...' or 'fit unknown: ...',
        then where the weights live and why."""
        return self._verdict() + (f"; {self.weights}" if self.weights else "")

    def _verdict(self) -> str:
        short = [n for n in self.needs if n.fits is False]
        if short:
            return "does not fit: " + "; ".join(
                f"needs {size(n.needs)} of {n.what} ({n.needs_label}), board has {size(n.has)} ({n.has_label})"
                for n in short
            )
        unknown = [n for n in self.needs if n.has is None]
        if unknown:
            return "fit unknown: " + "; ".join(f"{n.has_label} (needs {size(n.needs)} of {n.what})" for n in unknown)
        if self.fits is None:
            return "may fit: " + "; ".join(
                f"{size(n.needs)} of {'at most ' if n.bound else ''}{size(n.has)} {n.what} ({n.has_label})"
                for n in self.needs
            )
        return "fits: " + "; ".join(f"{size(n.needs)} of {size(n.has)} {n.what} ({n.has_label})" for n in self.needs)

    def as_dict(self) -> dict:
        needs = [{**asdict(n), "fits": n.fits} for n in self.needs]
        return {"fits": self.fits, "text": self.text(), "weights": self.weights, "needs": needs}


def size(n: int | None) -> str:
    """Bytes as people read them: exact below 10 kB, else KiB or MiB with one decimal."""
    if n is None:
        return "?"
    if n < 10 * 1024:
        return f"{n:,} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024**2:.3g} MiB"


def budget(board: Board | None, free_heap: int | None = None) -> Budget:
    """The board's budgets from its profile, the probe's free heap first where there is one."""
    flash = [m for m in (board.memories if board else []) if m.kind in ("flash", "xip")]
    sized = [m for m in flash if m.size_bytes]
    flash_bytes = sum(m.size_bytes for m in sized) if sized else None
    flash_label = (
        f"all of {' + '.join(m.name for m in sized)} in the profile, the firmware's code takes part of it"
        if sized
        else "the profile gives no flash size"
    )
    if free_heap:
        heap, label = free_heap, "free heap at the probe"
    elif board and board.run.get("heap_bytes"):
        heap, label = board.run["heap_bytes"], "MicroPython heap, profile [run].heap_bytes"
    elif board and board.ram_bytes:
        heap, label = board.ram_bytes, "on-chip RAM in the profile; MicroPython's heap is smaller: a run measures it"
    else:
        heap, label = None, "the profile gives no RAM or heap size and no probe measured the heap"
    bound = heap is not None and not free_heap and not (board and board.run.get("heap_bytes"))
    return Budget(flash_bytes, flash_label, heap, label, weights_in_flash=bool(flash), heap_is_bound=bound)


def verdict(net: network.Network, budget_: Budget, measured_heap: int | None = None) -> Verdict:
    """The fit of `net` within `budget_`; `measured_heap`: the largest heap a layer that ran
    whole took on the board (None: none ran whole, or not run)."""
    peak = network.peak_memory(net)
    ram_need, ram_label = peak.activations + peak.scratch, f"live activations at layer {peak.layer}"
    needs = []
    if budget_.weights_in_flash:
        needs.append(Need("flash", net.weight_bytes, "weights", budget_.flash_bytes, budget_.flash_label))
    else:
        ram_need, ram_label = ram_need + net.weight_bytes, f"weights in the heap + {ram_label}"
    if measured_heap and measured_heap > ram_need:
        ram_need, ram_label = measured_heap, "heap one whole layer took on the board"
    needs.append(Need("RAM", ram_need, ram_label, budget_.heap_bytes, budget_.heap_label, budget_.heap_is_bound))
    return Verdict(tuple(needs), WEIGHTS[budget_.weights_in_flash])


def whole_layer_heap(points: list[dict]) -> int | None:
    """The largest heap a layer took where it ran whole (tile fraction 1) and was verified."""
    heaps = [
        p["heap_bytes"] for p in points if p.get("verified") and p.get("tile_fraction") == 1 and p.get("heap_bytes")
    ]
    return max(heaps) if heaps else None
