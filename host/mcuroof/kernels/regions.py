"""MicroPython source of the region readers (firmware/regions.py)."""

from __future__ import annotations

from typing import NamedTuple

from mcuroof.kernels import emitters
from mcuroof.kernels.asm_text import lines as asm
from mcuroof.kernels.asm_text import routine
from mcuroof.kernels.compute import EMPTY
from mcuroof.kernels.contract import SPLIT, Kernel, unit_key

# Region readers (firmware/regions.py): k(wa, p, 0, n) sums n x 32 bytes of words from word
# address wa (address // 4: a small int for any 32-bit address), p times over (so that a call
# reads enough for its call cost not to matter), and returns one pass's sum; w(buf) is a
# buffer's word address.
ASM_READ8 = (
    routine(
        "k",
        """
        lsl(r0,r0,2)  # the word address, as an address
        label(P)
        push({r0,r3})
        mov(r2,0)
        label(L)
        """,
    )
    + "".join(
        f" ldr(r{4 + j % 4},[r0,{4 * j}])\n"
        + (
            asm("""
                add(r2,r2,r4)
                add(r2,r2,r5)
                add(r2,r2,r6)
                add(r2,r2,r7)
            """)
            if j % 4 == 3
            else ""
        )
        for j in range(8)
    )
    + asm("""
        add(r0,32)
        sub(r3,1)
        bgt(L)
        pop({r0,r3})
        sub(r1,1)
        bgt(P)
        mov(r0,r2)
    """)
)
ASM_WADDR = "@micropython.asm_thumb\ndef w(r0):\n lsr(r0,r0,2)\n"
VIPER_READ8 = (
    "@micropython.viper\ndef k(wa:int,np:int,c,n:int)->int:\n p=ptr32(wa<<2)\n m=n*8\n s=0\n"
    " while np>0:\n  s=0\n  i=0\n  while i<m:\n"
    "   s+=p[i]+p[i+1]+p[i+2]+p[i+3]+p[i+4]+p[i+5]+p[i+6]+p[i+7]\n   i+=8\n  np-=1\n return s\n"
)
VIPER_WADDR = "def w(b):\n import uctypes\n return uctypes.addressof(b)>>2\n"
# a port without uctypes (qemu-rv32): the buffer's address as viper sees it, shifted unsigned
VIPER_PTR_WADDR = "@micropython.viper\ndef w(b)->int:\n return int(uint(ptr8(b))>>2)\n"


class Reader(NamedTuple):
    """An emitter's reader of raw addresses (its row's `reader`): the kernel k, the function w giving
    a buffer's word address, and w on a port firmware without uctypes (firmware/port)."""

    read: str
    waddr: str
    port_waddr: str


THUMB_READER = Reader(ASM_READ8, ASM_WADDR, ASM_WADDR)
VIPER_READER = Reader(VIPER_READ8, VIPER_WADDR, VIPER_PTR_WADDR)
SKIP_REASONS = {
    "unix": "the unix port has no memory-mapped flash or separate RAM regions: the host's caches "
    "and DRAM are the memory suite's levels",
    "no-reader": "no asm_thumb (or viper on ESP32 or a platform whose memory map is known) to read raw addresses with on this port",
    "no-map": "no known memory map for this platform",
}


def _own_nop(em: str) -> str:
    """The harness's empty function (common.py's _nop, timed by measure as its own cost) defined
    again as one of the reader's emitter: a bytecode call costs more than an asm_thumb one, and
    the readers came out 0.7-0.9 % over their loop's bound. Every reader of a run has the same
    emitter. Not passed as an argument, as the compute kernels' is: on the micro:bit's 8 KB heap
    any more firmware code left too little to compile the reader (MemoryError, 688 bytes); and
    compiled after the reader, for the same reason."""
    return EMPTY[em].replace("def z(", "def _nop(")


def regions_kernels(cfg: dict) -> list[Kernel]:
    if not cfg["regions"]:
        why = SKIP_REASONS.get(cfg.get("skip"), "no region to read on this port")
        return [Kernel(unit_key("regions", "skip"), f"_skip(None,None,{why!r})\n")]
    em = cfg["emitter"]
    found = emitters.hook(em, "reader")
    reader, waddr = found.read, found.port_waddr if cfg.get("waddr") == "ptr8" else found.waddr
    out = []
    for rg in cfg["regions"]:
        call = f"region(k,w,'{em}','{rg['name']}',{rg['wa']!r},{rg['top']},{rg['rng']!r})\n"
        out.append(Kernel.listed(unit_key("regions", em, rg["name"]), reader + waddr + SPLIT + _own_nop(em) + call))
    return out
