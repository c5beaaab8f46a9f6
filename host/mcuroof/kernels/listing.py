"""A generated kernel's listing, and the text of it that is sent: comments are for the reader.

Generators annotate what they emit (the mnemonic of each `data()` word, the P field an offset
names, a host-assembled routine one instruction a line); `sent` takes every such comment out
before the source goes to the board, so the micro:bit's 8 KB heap compiles the bytes it compiled
before (tools/kernel_hashes.py). A comment is `# ` after two spaces, or a line of its own; the
`#--` lines that split a script into pieces are not comments here. Pure computation.
"""

from __future__ import annotations

import re

_OWN_LINE = re.compile(r"^[ \t]*# [^\n]*\n", re.M)
_AFTER_CODE = re.compile(r"  +# [^\n]*")


def note(text: str) -> str:
    """A comment to end a generated line with (before its newline)."""
    return "  # " + text


def said(line: str, text: str) -> str:
    """A generated line with `text` beside it: after its GNU mnemonic as an assembler comment
    (`@`), or as its comment."""
    code = line.rstrip("\n")
    return code + ("  @ " if "  # " in code else note("")) + text + "\n"


def sent(listing: str) -> str:
    """The listing without its comments: what is sent to the board."""
    return _AFTER_CODE.sub("", _OWN_LINE.sub("", listing))
