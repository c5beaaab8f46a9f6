from mcuroof.report.grid import Grid, without_empty


def test_a_column_of_dashes_and_a_named_column_are_left_out():
    g = Grid(
        "t", ("core", "bench", "flagged", "value"), [["M7", "kws", "-", "1"], ["M7", "vww", "-", "2"]], "c", ("core",)
    )
    out = without_empty(g, "core")
    assert out.headers == ("bench", "value") and out.rows == [["kws", "1"], ["vww", "2"]]
    assert (out.title, out.caption, out.left) == ("t", "c", ("core",))
    assert without_empty(g).headers == ("core", "bench", "value")
