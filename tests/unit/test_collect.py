"""The collector over a replayed record stream: damage is detected and the suite re-run."""

import json

import pytest

from mcuroof.measure.rawlog import read


def test_torn_last_line_of_raw_log_is_dropped(tmp_path):
    path = tmp_path / "raw.jsonl"
    good = json.dumps({"schema": 1, "kind": "header"})
    path.write_text(good + "\n" + good[:10])
    assert len(read(path)) == 1


def test_newer_raw_log_is_refused(tmp_path):
    from mcuroof.errors import UserError

    path = tmp_path / "raw.jsonl"
    path.write_text(json.dumps({"schema": 9, "kind": "header"}) + "\n")
    with pytest.raises(UserError, match="newer than this mcuroof reads"):
        read(path)
