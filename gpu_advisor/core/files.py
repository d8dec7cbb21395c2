"""Atomic writes and validated reads for the files the app writes (plans, results, settings)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import UserInputError


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, fsync, then rename over it: a reader never sees a half
    file, and a failure leaves any existing file untouched."""
    write_atomic(path, lambda tmp: tmp.write_bytes(data))


def write_atomic(path: str | Path, produce: Callable[[Path], Any]) -> None:
    """Call `produce(tmp_path)` to fill a temporary file beside `path`, then rename it into place.

    If `produce` raises, the temporary file is removed and `path` is left as it was.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
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
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_json_atomic(path: str | Path, obj: Any) -> None:
    """JSON (indented, UTF-8) written atomically."""
    text = json.dumps(obj, indent=1, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))


class FileFormatError(UserInputError):
    """A file that cannot be used; the message names the file and the field."""


def read_json(path: str | Path, schema: str | None = None) -> dict[str, Any]:
    """Read a JSON object, checking its `schema` field when one is expected."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileFormatError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FileFormatError(f"{path}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    if not isinstance(data, dict):
        raise FileFormatError(f"{path}: expected a JSON object")
    if schema is not None and data.get("schema") != schema:
        raise FileFormatError(f"{path}: schema: expected {schema!r}, found {data.get('schema')!r}")
    return data
