"""A Hugging Face Hub cache laid out as huggingface_hub writes it, built inside the tests.

    <cache>/models--ORG--NAME/refs/main              the commit hash of 'main'
    <cache>/models--ORG--NAME/blobs/<sha256>          file contents
    <cache>/models--ORG--NAME/snapshots/<commit>/F    symbolic links to the blobs

Safetensors files hold only their header (8-byte length, then JSON): the parameter count is read from
headers, never from weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

from tests.hub_configs import HUB_CONFIGS, PUBLISHED_PARAMS


def commit_of(repo_id: str, ref: str = "main") -> str:
    return hashlib.sha1(f"{repo_id}@{ref}".encode()).hexdigest()


def write_snapshot(cache: Path, repo_id: str, files: dict[str, bytes], ref: str = "main") -> str:
    """Put `files` into the cache as revision `ref` of `repo_id`; returns the commit hash."""
    folder = cache / f"models--{repo_id.replace('/', '--')}"
    commit = commit_of(repo_id, ref)
    (folder / "refs").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / ref).write_text(commit)
    (folder / "blobs").mkdir(exist_ok=True)
    for name, data in files.items():
        blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        link = folder / "snapshots" / commit / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, link.parent))
    return commit


def safetensors_header(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """A safetensors file's header for tensors {name: (dtype, shape)} (the data itself left out)."""
    sizes = {"BF16": 2, "F16": 2, "F32": 4}
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = sizes[dtype]
        for dim in shape:
            n *= dim
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text


def build_hub_cache(cache: Path) -> Path:
    """The six models' config.json; Qwen2.5 with a single safetensors file, Falcon with two shards."""
    for repo_id, config in HUB_CONFIGS.items():
        files = {"config.json": json.dumps(config, indent=2).encode()}
        total = PUBLISHED_PARAMS[repo_id]
        if repo_id == "Qwen/Qwen2.5-7B-Instruct":
            embed = 152064 * 3584
            files["model.safetensors"] = safetensors_header(
                {"model.embed_tokens.weight": ("BF16", [152064, 3584]), "rest": ("BF16", [total - embed])}
            )
        if repo_id == "tiiuae/falcon-7b":
            half = total // 2
            files["model-00001-of-00002.safetensors"] = safetensors_header({"a": ("BF16", [half])})
            files["model-00002-of-00002.safetensors"] = safetensors_header({"b": ("BF16", [total - half])})
            index = {
                "metadata": {"total_size": total * 2},
                "weight_map": {
                    "a": "model-00001-of-00002.safetensors",
                    "b": "model-00002-of-00002.safetensors",
                },
            }
            files["model.safetensors.index.json"] = json.dumps(index).encode()
        write_snapshot(cache, repo_id, files)
    # A second revision of Qwen2.5 (a branch), to resolve ORG/NAME@revision.
    write_snapshot(
        cache,
        "Qwen/Qwen2.5-7B-Instruct",
        {
            "config.json": json.dumps(
                {**HUB_CONFIGS["Qwen/Qwen2.5-7B-Instruct"], "num_hidden_layers": 14}
            ).encode()
        },
        ref="half-depth",
    )
    return cache
