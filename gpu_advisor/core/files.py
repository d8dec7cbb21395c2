"""The files the app reads and writes (plans, results, settings, reports, configs): one hardened JSON
reader and one atomic writer, used by every loader and every save.

Reading: regular files only (a FIFO or a device would block or never end), a size cap, a depth cap and
an integer-length cap, so a hostile or broken file gets one clear line naming it, never a traceback or
a hang. Writing: a temporary file beside the target, written, flushed, fsynced and checked, then
renamed over it; on any failure the temporary file is removed and the target is left as it was.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import UserInputError

# The largest file any loader accepts: a results file of a day-long run sampled twice a second is
# about 100 MB; configs and plans are a few kB.
MAX_JSON_BYTES = 256 * 2**20
# Deeper nesting than any file of ours (results: 5 levels) means a broken or hostile file.
MAX_JSON_DEPTH = 64
# Longer integers than any real count of bytes or parameters (Python refuses past 4,300 digits anyway).
MAX_INT_DIGITS = 40
_TMP_SUFFIX = ".tmp"
# What check_writable writes to prove there is room: one filesystem block.
_PROBE_BYTES = 4096


class FileFormatError(UserInputError):
    """A file that cannot be used; the message names the file and the field."""


# ---- reading -------------------------------------------------------------------------------------------
def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as infinity
        raise ValueError(f"{text[:40]} is beyond the range of a number")
    return value


def _parse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, without recursion (so a deep file cannot exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            return depth
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest


def read_text_file(path: str | Path, max_bytes: int | None = None) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` (default MAX_JSON_BYTES); FileFormatError
    naming it otherwise."""
    path = Path(path)
    max_bytes = MAX_JSON_BYTES if max_bytes is None else max_bytes
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise FileFormatError(f"{path}: cannot be read ({kind})")
        if info.st_size > max_bytes:
            raise FileFormatError(f"{path}: too large ({info.st_size:,} bytes; at most {max_bytes:,})")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise FileFormatError(f"{path}: file not found") from None
    except OSError as exc:
        raise FileFormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:  # a file that grew, or a /proc-like file that reports size 0
        raise FileFormatError(f"{path}: too large (more than {max_bytes:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def parse_json(text: str, origin: str) -> Any:
    """Parse JSON text with the depth and integer caps; FileFormatError naming `origin`."""
    try:
        data = json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"{origin}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise FileFormatError(f"{origin}: nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    except ValueError as exc:
        raise FileFormatError(f"{origin}: not usable JSON ({exc})") from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise FileFormatError(f"{origin}: nested too deeply (at most {MAX_JSON_DEPTH} levels)")
    return data


def read_json(path: str | Path, schema: str | None = None) -> dict[str, Any]:
    """Read a JSON object, checking its `schema` field when one is expected."""
    data = parse_json(read_text_file(path), str(path))
    if not isinstance(data, dict):
        raise FileFormatError(f"{path}: expected a JSON object")
    if schema is not None and data.get("schema") != schema:
        raise FileFormatError(f"{path}: schema: expected {schema!r}, found {data.get('schema')!r}")
    return data


# ---- writing -------------------------------------------------------------------------------------------
def _remove_stale_temporaries(path: Path) -> None:
    """Delete temporary files left beside `path` by a writer that was killed (its process is gone)."""
    import psutil

    for leftover in path.parent.glob(f".{path.name}.*{_TMP_SUFFIX}"):
        pid_text = leftover.name.removeprefix(f".{path.name}.").split(".", 1)[0]
        if pid_text.isdigit() and not psutil.pid_exists(int(pid_text)):
            leftover.unlink(missing_ok=True)


def check_writable(path: str | Path) -> None:
    """Fail now, naming the file, if `path` cannot be written (before a long run, not after it):
    no such folder, a folder in its place, a read-only folder or file, or a full disk."""
    import errno

    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OSError(errno.ENOENT, "the folder does not exist", str(path))
    if path.is_dir():
        raise OSError(errno.EISDIR, "this is a folder, not a file", str(path))
    if path.exists() and not os.access(path, os.W_OK):
        raise OSError(errno.EACCES, "the file is read-only", str(path))
    probe = None
    try:  # the only sure test: create a file there and write a block (a full disk refuses it)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=folder)
        try:
            os.write(fd, bytes(_PROBE_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or "the folder is not writable", str(path)) from None
    finally:
        if probe is not None:
            Path(probe).unlink(missing_ok=True)


def write_atomic(path: str | Path, produce: Callable[[Path], Any], expected_size: int | None = None) -> None:
    """Call `produce(tmp_path)` to fill a temporary file beside `path`, then rename it into place.

    The temporary file is flushed to disk and, when `expected_size` is given, checked to hold exactly
    that many bytes (a full disk can truncate a write that a library does not report). If anything
    fails the temporary file is removed and `path` is left as it was.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    _remove_stale_temporaries(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=_TMP_SUFFIX, dir=directory)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # mkstemp creates the file owner-only (0600); give it the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        produce(tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
            size = os.fstat(fh.fileno()).st_size
        if expected_size is not None and size != expected_size:
            import errno

            raise OSError(errno.EIO, f"only {size:,} of {expected_size:,} bytes were written", str(path))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(directory)


def _fsync_folder(directory: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where folders cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` atomically: a reader never sees a half file, and a failure leaves any existing
    file untouched."""

    def produce(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()

    write_atomic(path, produce, expected_size=len(data))


def json_text(obj: Any) -> str:
    """JSON as the app writes it (indented, UTF-8). ValueError for NaN or infinity: JSON has neither,
    so a non-finite number is a bug to report, not a file to write."""
    _check_finite(obj)
    return json.dumps(obj, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _check_finite(obj: Any, where: str = "") -> None:
    stack = [(obj, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError(f"{at or 'value'}: {item} is not a finite number")
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in item.items())
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))


def write_json_atomic(path: str | Path, obj: Any) -> None:
    """JSON (indented, UTF-8) written atomically."""
    write_bytes_atomic(path, json_text(obj).encode("utf-8"))
