"""Kernel listings: the reader's comments in the generated source, none of them in what is sent,
and `mcuroof listing` printing either."""

import re

import pytest

from mcuroof.cli import main
from mcuroof.kernels import thumb1
from mcuroof.kernels.listing import note, sent
from mcuroof.kernels.ops import contract

COMMENT = re.compile(r"^\s*#(?!--$)|  # ", re.M)  # any comment but the `#--` piece separators


def test_sent_strips_both_kinds_of_comment_and_keeps_the_piece_separators():
    listing = "def k(r0):\n # a note of its own\n data(2,0xfb01,0x0203)" + note("mla r2, r1, r3, r2") + "\n#--\nk(1)\n"
    assert sent(listing) == "def k(r0):\n data(2,0xfb01,0x0203)\n#--\nk(1)\n"
    assert sent(sent(listing)) == sent(listing)


def test_a_host_assembled_routine_lists_each_instruction_above_one_data_line():
    a = thumb1.Asm()
    a.label("L")
    a.ldr(4, 3, contract.P.PT)
    a.subi(4, 1)
    a.b("ne", "L")
    src = a.source("f")
    assert src.splitlines()[2:] == [
        " # L:",
        " #    0: 6a9c  ldr r4, [r3, #40]",
        " #    2: 3c01  subs r4, #1",
        " #    4: d1fc  bne L",
        " data(2,27292,15361,53756)",
    ]
    assert sent(src) == "@micropython.asm_thumb\ndef f(r0,r1,r2,r3):\n data(2,27292,15361,53756)\n"


def test_p_offsets_and_params_by_name():
    assert (contract.P.C, contract.P.PT, contract.P.N, contract.BIASES) == (8, 40, 60, 64)
    p = contract.Tile(1, 1, 4, 1.0, 9, 36, 4, 4, tuple(range(16))).params
    assert (p.H, p.C, p.KH, p.LO) == (0, 2, 6, 14) and p == tuple(range(16))


def listing(capsys, *args):
    assert main(["listing", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("board", ["qemu-microbit", "qemu-m7", "qemu-m55"])
def test_the_layer_kernels_listed_carry_comments_that_are_never_sent(capsys, board):
    from mcuroof.commands import listing as command
    from mcuroof.kernels.ops import dispatch

    request = command.Request("kws-dscnn", command.boards.load_board(board), None, None, None, None, None, False)
    found = command.kernels(request)
    assert len(found) == 11  # the DS-CNN's layers (asm_thumb runs each)
    for k in found:
        assert COMMENT.search(k.listing) and not COMMENT.search(k.source), k.key
        assert k.source == sent(k.listing) and len(k.source) < len(k.listing)
    pr = command.probe(request)
    jobs = command.layers.config(
        pr, command.Context(layers=command.layers.Request(*request_args()), profile=request.board)
    )
    assert [k.source for k in found] == [dispatch.script(j) for j in jobs["jobs"]]  # what a run sends
    words = re.findall(r"^ data\(2,0x.*$", "".join(k.listing for k in found), re.M)
    assert all("  # " in w for w in words)  # every Thumb-2 word has its mnemonic


def request_args():
    from mcuroof.model.load import load_network

    return load_network("kws-dscnn"), None, ["asm_thumb"]


def test_mcuroof_listing_prints_a_layer_kernel_and_what_is_sent(capsys):
    out = listing(capsys, "kws-dscnn", "--board", "qemu-m7", "--layer", "2")
    assert out.startswith("#### layers/asm_thumb/int8/2: ")
    assert "# CONV_2D conv_2d_2 -> 1x25x5x64 kernel 1x1; generator dsp-conv (dsp)" in out
    assert re.search(r"data\(2,0xfb2., *0x....\)  # smlad r1[0-4], r[89], r[4-7], r1[0-4]", out)
    bare = listing(capsys, "kws-dscnn", "--board", "qemu-m7", "--layer", "2", "--sent")
    assert not COMMENT.search(bare.split("\n", 1)[1]) and len(bare) < len(out)


def test_mcuroof_listing_prints_a_suite_kernel(capsys):
    out = listing(capsys, "compute", "--board", "qemu-m55", "--key", "int8/vmladava")
    assert out.startswith("#### compute/asm_thumb/int8/vmladava: ")
    assert " data(2,0xeef0,0x2f22)  # vmladava.s8 r2, q0, q1\n" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["nosuch"], "not a built-in network"),
        (["kws-dscnn", "--layer", "x"], "--layer x: layer indices are whole numbers"),
        (["kws-dscnn", "--layer", "99"], "no kernel on qemu-microbit matches"),
        (["kws-dscnn", "--board", "samd51"], "--heap BYTES"),
    ],
)
def test_bad_listing_requests_get_one_line(capsys, args, message):
    assert main(["listing", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
