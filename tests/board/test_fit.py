"""Fit verdicts: weights against flash, live activations (or a whole layer's measured heap)
against the heap, from the profile or the probe; `mcuroof analyze --board`; the report's labels."""

from __future__ import annotations

import json

from mcuroof import cli
from mcuroof.analysis import fit
from mcuroof.board import profiles as boards
from unit.test_fit import KWS


def test_shipped_profiles_give_a_verdict():
    mb = boards.load_board("qemu-microbit")
    assert fit.verdict(KWS, fit.budget(mb)).fits is False  # 16,000 B > its 10,048 B heap
    assert fit.verdict(KWS, fit.budget(boards.load_board("unix"))).fits is True


def test_analyze_board(capsys):
    assert cli.main(["analyze", "kws-dscnn", "--board", "qemu-microbit"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("on qemu-microbit: does not fit: needs 15.6 KiB of RAM")
    assert cli.main(["analyze", "ad-autoencoder", "--board", "unix", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fit"]["fits"] is True and doc["fit"]["board"] == "unix"
