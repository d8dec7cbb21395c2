"""Atomic writes: a reader never sees half a file, a failure keeps the old one, permissions as usual."""

import json
import os
import signal
import stat
import subprocess
import sys

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


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' + "[" * 70 + "]" * 70 + "}", "nested too deeply"),
        ('{"n": ' + "9" * 5000 + "}", "integer of 5000 digits"),
        ('{"x": NaN}', "NaN is not a number JSON allows"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_hostile_json_gets_one_line_not_a_traceback(tmp_path, content, fragment):
    path = tmp_path / "hostile.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(FileFormatError) as info:
        read_json(path)
    message = str(info.value)
    assert message.startswith(str(path)) and fragment in message and "\n" not in message


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    with pytest.raises(FileFormatError, match="not a regular file"):
        read_json(fifo)


def test_a_device_or_oversized_file_is_refused(tmp_path, monkeypatch):
    with pytest.raises(FileFormatError, match="not a regular file"):
        read_json("/dev/zero")
    import gpu_advisor.core.files as files

    monkeypatch.setattr(files, "MAX_JSON_BYTES", 1000)
    big = tmp_path / "big.json"
    big.write_text('{"x": "' + "a" * 2000 + '"}')
    with pytest.raises(FileFormatError, match="too large"):
        read_json(big)


def test_non_finite_numbers_are_never_written(tmp_path):
    target = tmp_path / "plan.json"
    with pytest.raises(ValueError, match=r"options\[0\]\.cost: inf is not a finite number"):
        write_json_atomic(target, {"options": [{"cost": float("inf")}]})
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_temporaries_of_killed_writers_are_cleaned_up(tmp_path):
    target = tmp_path / "results.json"
    dead = tmp_path / f".results.json.{2**22 + 12345}.abcd.tmp"  # a PID above Linux's pid_max
    dead.write_text('{"half": ')
    alive = tmp_path / f".results.json.{os.getpid()}.efgh.tmp"  # a write in progress: kept
    alive.write_text("{")
    write_json_atomic(target, {"ok": True})
    assert not dead.exists() and alive.exists()
    assert json.loads(target.read_text()) == {"ok": True}


def test_a_full_disk_keeps_the_old_file_and_reports_the_failure(tmp_path, monkeypatch):
    """A write the disk cannot hold raises (ENOSPC) and the existing file stays whole."""
    import errno

    import gpu_advisor.core.files as files

    target = tmp_path / "report.bin"
    target.write_bytes(b"good old file")

    real_open = open

    class FullDisk:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[:100])
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            self.fh.flush()

    monkeypatch.setattr(files, "open", lambda p, mode="r": FullDisk(real_open(p, mode)), raising=False)
    with pytest.raises(OSError) as info:
        files.write_bytes_atomic(target, b"x" * 10_000)
    assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"good old file"
    assert [p.name for p in tmp_path.iterdir()] == ["report.bin"]


_SLOW_WRITER = """
import sys, time
from gpu_advisor.cli.signals import exit_code_for, terminate_like_interrupt
from gpu_advisor.core.files import write_atomic

def produce(tmp):
    with open(tmp, "w") as fh:
        fh.write('{"half": ')
        fh.flush()
        print("writing", flush=True)
        time.sleep(60)

terminate_like_interrupt()  # as gpu-advisor's command line does
try:
    write_atomic(sys.argv[1], produce)
except KeyboardInterrupt as exc:
    sys.exit(exit_code_for(exc))
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_writer_killed_mid_write_leaves_the_old_file_and_no_temporary(tmp_path, sig):
    target = tmp_path / "plan.json"
    target.write_text('{"old": true}')
    with subprocess.Popen(
        [sys.executable, "-c", _SLOW_WRITER, str(target)], stdout=subprocess.PIPE, text=True
    ) as writer:
        try:
            assert writer.stdout.readline() == "writing\n"
            writer.send_signal(sig)
            code = writer.wait(timeout=30)
        finally:
            writer.kill()
    assert code == (-sig if sig == signal.SIGKILL else 128 + sig)
    assert json.loads(target.read_text()) == {"old": True}
    if sig == signal.SIGKILL:  # nothing can clean up after SIGKILL: the next write does
        write_json_atomic(target, {"new": True})
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]
