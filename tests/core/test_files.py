"""Atomic writes: a reader never sees half a file, a failure keeps the old one, permissions as usual."""

import json
import os
import stat

import pytest

from gpu_advisor.core.files import FileFormatError, read_json, write_atomic, write_json_atomic


def test_failure_mid_write_keeps_the_existing_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "plan.json"
    write_json_atomic(target, {"schema": "x", "v": 1})

    def half_then_fail(tmp):
        tmp.write_text('{"schema": "x", "v": ')
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_atomic(target, half_then_fail)
    assert json.loads(target.read_text()) == {"schema": "x", "v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_written_files_get_the_usual_permissions_not_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        write_json_atomic(tmp_path / "p.json", {})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "p.json").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{oops", "not valid JSON (line 1"),
        ("[]", "JSON object"),
        ('{"schema": "other@1"}', "schema: expected"),
    ],
)
def test_bad_files_are_named_with_the_problem(tmp_path, content, fragment):
    path = tmp_path / "f.json"
    path.write_text(content)
    with pytest.raises(FileFormatError) as info:
        read_json(path, "gpu-advisor/plan@1")
    assert str(path) in str(info.value) and fragment in str(info.value)
