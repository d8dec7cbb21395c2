"""Fetch a Hub model's config.json and parameter count, and search the Hub (huggingface_hub, lazily).

Everything goes through `huggingface_hub` itself, so its standard cache (`HF_HUB_CACHE`, by default
~/.cache/huggingface/hub), offline mode (`HF_HUB_OFFLINE=1`: only the cache is read) and the user's own
login (`hf auth login` or `HF_TOKEN`, for gated and private models) apply as in every other HF tool.
Weights are never downloaded: the parameter count comes from the safetensors headers (HTTP range
requests online; headers of files already in the cache offline).
"""

from __future__ import annotations

import math
import os
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gpu_advisor.core.architecture import (
    ConfigError,
    UnknownArchitecture,
    approximate_hf_config,
    from_hf_config,
)
from gpu_advisor.core.files import FileFormatError, parse_json, read_json
from gpu_advisor.hub.models import HubError, HubModel, parse_hub_id

INSTALL_HINT = "install it with: pip install huggingface_hub"
LOGIN_HINT = "log in with `hf auth login` or set HF_TOKEN"
SAFETENSORS_FILE = "model.safetensors"
SAFETENSORS_INDEX = "model.safetensors.index.json"
# Bytes per element of the safetensors dtypes (the format's specification).
_DTYPE_BYTES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2}
_MAX_HEADER_BYTES = 100 * 2**20  # the format caps its JSON header at 100 MB
CONNECT_TIMEOUT_S = 3.0
# The most one command waits for the Hub in all (config.json, then the safetensors headers):
# huggingface_hub retries a silent endpoint for minutes (397 s measured against a server that accepts
# and never answers).
# GPU_ADVISOR_HUB_TIMEOUT_S changes it (1 to 3600 s), for a slow proxy.
HUB_DEADLINE_S = 30.0
HUB_DEADLINE_ENV = "GPU_ADVISOR_HUB_TIMEOUT_S"


def hub_deadline_s() -> float:
    """The Hub deadline: GPU_ADVISOR_HUB_TIMEOUT_S where it is a number of seconds in 1-3600."""
    try:
        value = float(os.environ.get(HUB_DEADLINE_ENV, ""))
    except ValueError:
        return HUB_DEADLINE_S
    return value if 1 <= value <= 3600 else HUB_DEADLINE_S


# More parameters than any model has (the largest published are a few 10^12): a header claiming more
# is lying, and its count would put an absurd model in a plan.
MAX_PARAMETERS = 10**14
_MAX_SHARDS = 10_000


def _hf() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise HubError(f"model: Hugging Face ids need the huggingface_hub package; {INSTALL_HINT}") from None
    return huggingface_hub


def _offline() -> bool:
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def _describe(exc: Exception, hub_id: str, what: str = "config.json") -> HubError:
    """One line for each way a Hub request fails."""
    from huggingface_hub import errors

    if isinstance(exc, errors.GatedRepoError):
        return HubError(
            f"model: {hub_id} is gated: accept its licence on its Hugging Face page, then {LOGIN_HINT}"
        )
    if isinstance(exc, errors.RevisionNotFoundError):
        return HubError(f"model: {hub_id}: no such revision on the Hugging Face Hub")
    if isinstance(exc, errors.RepositoryNotFoundError):
        return HubError(
            f"model: {hub_id} is not on the Hugging Face Hub (check the spelling; if it is private, {LOGIN_HINT})"
        )
    if isinstance(exc, errors.EntryNotFoundError) and not isinstance(exc, errors.LocalEntryNotFoundError):
        return HubError(f"model: {hub_id} has no {what} (is it a model repository?)")
    if isinstance(exc, errors.HfHubHTTPError) and getattr(exc.response, "status_code", None) == 401:
        return HubError(f"model: {hub_id}: the Hub refused the credentials; {LOGIN_HINT}")
    if _offline():
        return HubError(
            f"model: {hub_id} is not in the Hugging Face cache and offline mode is on (HF_HUB_OFFLINE=1); "
            "fetch it once online"
        )
    if isinstance(exc, errors.LocalEntryNotFoundError | errors.OfflineModeIsEnabled | OSError):
        return HubError(
            f"model: cannot reach the Hugging Face Hub and {hub_id} is not in the cache; check the network"
        )
    return HubError(f"model: {hub_id}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")


def reachable(timeout_s: float = CONNECT_TIMEOUT_S) -> bool:
    """Whether the Hub's host answers a TCP connection (huggingface_hub itself retries for ~20 s)."""
    from huggingface_hub import constants

    url = urlsplit(constants.ENDPOINT)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "", port), timeout=timeout_s):
            return True
    except OSError:
        return False


def _download(repo_id: str, filename: str, revision: str | None, cache_dir: str | Path | None) -> str:
    """The cached file if there is one (no network), else a download through huggingface_hub."""
    hf = _hf()
    cached = hf.try_to_load_from_cache(repo_id, filename, cache_dir=cache_dir, revision=revision)
    if isinstance(cached, str):
        return cached
    if not _offline() and not reachable():
        raise HubError(
            f"model: cannot reach the Hugging Face Hub and {repo_id} is not in the cache; check the network "
            "(HF_HUB_OFFLINE=1 reads only the cache)"
        )
    return hf.hf_hub_download(repo_id, filename, revision=revision, cache_dir=cache_dir)


def _within(deadline_s: float, what: str, call: Callable[[], Any]) -> Any:
    """`call()` on a daemon thread, waited for at most `deadline_s`: its result or its exception, or
    HubError when the Hub has not answered by then (the thread is left to huggingface_hub's own
    timeouts; nothing waits for it)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    worker = threading.Thread(target=run, name=f"gpu-advisor hub {what}", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline_s))
    if worker.is_alive():
        raise HubError(
            f"model: the Hugging Face Hub did not answer within {deadline_s:g} s ({what}); try again, "
            "or set HF_HUB_OFFLINE=1 to read only the cache"
        )
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _read_exactly(fd: int, size: int, path: str | Path) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise ValueError(f"{path}: safetensors file shorter than its header says")
        data += chunk
    return data


def read_safetensors_header(path: str | Path) -> dict[str, int]:
    """dtype -> parameter count from one safetensors file's header (8-byte length, then JSON).
    ValueError (naming the file) for anything that is not a plausible header: a FIFO or device, a
    short file, JSON that is not an object of {dtype, shape} entries, or more parameters than any
    model has (the strict reader of core.files: finite numbers, bounded integers and depth)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path}: not a regular file")
        (length,) = struct.unpack("<Q", _read_exactly(fd, 8, path))
        if length > _MAX_HEADER_BYTES:
            raise ValueError(f"{path}: safetensors header of {length} bytes is not plausible")
        text = _read_exactly(fd, length, path).decode("utf-8", errors="strict")
    finally:
        os.close(fd)
    try:
        header = parse_json(text, str(path))
    except FileFormatError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: safetensors header is not a JSON object")
    counts: dict[str, int] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        shape = entry.get("shape") if isinstance(entry, dict) else None
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        if not isinstance(dtype, str) or not isinstance(shape, list):
            raise ValueError(f"{path}: tensor {str(name)[:80]!r} has no dtype and shape")
        if not all(type(n) is int and n >= 0 for n in shape):
            raise ValueError(f"{path}: tensor {str(name)[:80]!r} has a shape that is not counts")
        counts[dtype[:16]] = counts.get(dtype[:16], 0) + math.prod(shape)
    if sum(counts.values()) > MAX_PARAMETERS:
        raise ValueError(f"{path}: safetensors header claims more parameters than any model has")
    return counts


def _index_shards(index: str) -> list[str]:
    """The shard file names of a safetensors index (a JSON object whose weight_map maps names to
    files); ValueError for any other shape."""
    try:
        data = read_json(index)
    except FileFormatError as exc:
        raise ValueError(str(exc)) from None
    weight_map = data.get("weight_map")
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise ValueError(f"{index}: weight_map is not an object of file names")
    shards = sorted(set(weight_map.values()))
    if len(shards) > _MAX_SHARDS:
        raise ValueError(f"{index}: {len(shards):,} shards is not plausible")
    return shards


def _cached_safetensors(repo_id: str, revision: str | None, cache_dir: str | Path | None) -> dict[str, int]:
    """Parameter counts from safetensors headers already in the cache (every shard, or nothing)."""
    from huggingface_hub import try_to_load_from_cache

    def cached(name: str) -> str | None:
        found = try_to_load_from_cache(repo_id, name, cache_dir=cache_dir, revision=revision)
        return found if isinstance(found, str) else None

    single = cached(SAFETENSORS_FILE)
    files = [single] if single else []
    index = cached(SAFETENSORS_INDEX)
    if not files and index:
        shards = _index_shards(index)
        files = [cached(s) for s in shards]
        if not shards or None in files:
            return {}
    counts: dict[str, int] = {}
    for path in files:
        for dtype, n in read_safetensors_header(path).items():
            counts[dtype] = counts.get(dtype, 0) + n
    if sum(counts.values()) > MAX_PARAMETERS:
        return {}
    return counts


def safetensors_parameters(
    repo_id: str,
    revision: str | None = None,
    cache_dir: str | Path | None = None,
    deadline_s: float | None = None,
) -> dict[str, int]:
    """dtype -> parameter count of the repository's safetensors weights ({} where unknown; the Hub is
    waited for at most `deadline_s`)."""
    hf = _hf()
    if not _offline() and reachable():
        try:
            meta = _within(
                hub_deadline_s() if deadline_s is None else deadline_s,
                "safetensors headers",
                lambda: hf.get_safetensors_metadata(repo_id, revision=revision),
            )
            counts = {str(k): int(v) for k, v in meta.parameter_count.items()}
            if sum(counts.values()) <= MAX_PARAMETERS and all(v >= 0 for v in counts.values()):
                return counts
        except Exception:  # not a safetensors repo, no network, no answer: try the cache, else unknown
            pass
    try:
        return _cached_safetensors(repo_id, revision, cache_dir)
    except Exception:  # the count is optional: a hostile or broken cache entry leaves it unknown
        return {}


def fetch_model(
    text: str,
    *,
    cache_dir: str | Path | None = None,
    safetensors: bool = True,
    deadline_s: float | None = None,
) -> HubModel:
    """Resolve 'ORG/NAME[@revision]' to its config.json, the planner's shape and the safetensors count.

    Architectures the formulas count exactly (core.architecture) give an exact shape; others get a
    Llama-style approximation marked as guessed, with a warning. HubError (one line) when the model
    cannot be had: no network, not found, gated, offline and not cached, no config.json, or no answer
    within `deadline_s` (the Hub's requests together wait at most that long; None: hub_deadline_s()).
    """
    repo_id, revision = parse_hub_id(text)
    hub_id = repo_id + (f"@{revision}" if revision else "")
    _hf()
    deadline_s = hub_deadline_s() if deadline_s is None else deadline_s
    began = time.monotonic()
    try:
        config_path = _within(
            deadline_s, "config.json", lambda: _download(repo_id, "config.json", revision, cache_dir)
        )
    except HubError:
        raise
    except Exception as exc:
        raise _describe(exc, hub_id) from None
    try:  # the hardened reader: a downloaded file is as untrusted as a local one
        config = read_json(config_path)
    except FileFormatError as exc:
        raise HubError(f"model: {hub_id}: config.json: {str(exc).removeprefix(f'{config_path}: ')}") from None
    left_s = deadline_s - (time.monotonic() - began)
    counts = safetensors_parameters(repo_id, revision, cache_dir, left_s) if safetensors else {}
    total = sum(counts.values()) or None
    warnings: list[str] = []
    try:
        spec = from_hf_config(config, name=hub_id)
        exact = True
        if total is not None and abs(spec.total_params() / total - 1) > 0.005:
            warnings.append(
                f"{hub_id}: the formulas count {spec.total_params():,} parameters but its safetensors "
                f"hold {total:,} (extra or quantised tensors?)"
            )
    except UnknownArchitecture as exc:
        exact = False
        try:
            spec = approximate_hf_config(config, hub_id, total)
        except ConfigError as inner:
            raise HubError(f"model: {inner}") from None
        held = f"; its safetensors hold {total:,}" if total else ""
        warnings.append(
            f"{hub_id}: model_type {exc.model_type!r} is not counted by the formulas; a Llama-style "
            f"approximation ({spec.total_params():,} parameters{held}) is used; the trace measures the "
            "real architecture"
        )
    except ConfigError as exc:
        raise HubError(f"model: {exc}") from None
    spec = spec.model_copy(
        update={
            "name": hub_id,
            "source": f"Hugging Face {hub_id} config.json" + ("" if exact else " (approximated)"),
            "notes": tuple(warnings),
        }
    )
    return HubModel(
        repo_id=repo_id,
        revision=revision,
        config=config,
        config_path=str(config_path),
        spec=spec,
        exact=exact,
        safetensors_params=total,
        safetensors_dtypes=counts,
        warnings=tuple(warnings),
    )


def cached_model_ids(cache_dir: str | Path | None = None) -> list[str]:
    """Model repositories in the local Hugging Face cache, most recently used first."""
    from huggingface_hub import scan_cache_dir

    try:
        info = scan_cache_dir(cache_dir)
    except Exception:  # no cache folder yet, or unreadable: nothing cached
        return []
    repos = [r for r in info.repos if r.repo_type == "model"]
    repos.sort(key=lambda r: r.last_accessed or 0, reverse=True)
    return [r.repo_id for r in repos]


def search_models(text: str, *, limit: int = 20, cache_dir: str | Path | None = None) -> list[str]:
    """Model ids matching `text`: cached ones first, then the Hub's most downloaded (online only).

    Raises HubError only when the Hub cannot be searched and nothing cached matches."""
    _hf()
    words = text.lower().split()
    found = [r for r in cached_model_ids(cache_dir) if all(w in r.lower() for w in words)]
    if _offline() or not words or not reachable():
        return found[:limit]
    from huggingface_hub import HfApi

    try:
        online = [m.id for m in HfApi().list_models(search=text.strip(), sort="downloads", limit=limit)]
    except Exception as exc:
        if found:
            return found[:limit]
        raise _describe(exc, text, "models") from None
    return (found + [m for m in online if m not in found])[:limit]


__all__ = [
    "cached_model_ids",
    "fetch_model",
    "read_safetensors_header",
    "safetensors_parameters",
    "search_models",
]
