"""The GPU catalogue: coverage, sources, dense peaks, user additions."""

import json
import os

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.precision import Tier


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(user_file=None)


def test_at_least_25_gpus_across_three_tiers_every_one_sourced(catalog):
    assert len(catalog.gpus) >= 25
    assert {g.tier for g in catalog.gpus} == set(Tier)
    assert all(g.sources.strip() for g in catalog.gpus)


def test_tensor_peaks_are_dense_not_sparse(catalog):
    # NVIDIA's H100 SXM datasheet says 1,979 TFLOPS BF16 "with sparsity"; dense is 989.
    h100 = catalog.get("nvidia-h100-sxm")
    assert h100.peak_flops_per_s("bf16") == pytest.approx(989e12)
    # GeForce cards accumulate in fp32 at half rate: RTX 4090 BF16 is 165.2 (Ada whitepaper).
    assert catalog.get("nvidia-rtx-4090").dense_peak_tflops.bf16 == pytest.approx(165.2)


def test_unknown_figures_are_null_not_zero(catalog):
    w7900 = catalog.get("amd-radeon-pro-w7900")
    assert w7900.dense_peak_tflops.bf16 is None
    assert catalog.get("nvidia-rtx-5000-ada").purchase_usd is None  # no sourced price: null, not $0
    assert catalog.get("nvidia-a100-sxm-80gb").dense_peak_tflops.fp8 is None  # Ampere has no FP8


def test_cloud_prices_carry_their_date(catalog):
    priced = [g for g in catalog.gpus if g.cloud_usd_per_hour is not None]
    assert priced and all(g.cloud_price_date for g in priced)


def test_memory_is_what_the_driver_reports_not_the_decimal_label(catalog):
    # An "80 GB" H100 exposes 79.21 GiB to CUDA (PyTorch's out-of-memory message: "total capacity of
    # 79.21 GiB"; vLLM's profile: 79.22 GiB), not 80 x 10^9 bytes (74.5 GiB).
    h100 = catalog.get("nvidia-h100-sxm")
    assert h100.memory_label_bytes == 80 * 10**9
    assert h100.memory_bytes / 2**30 == pytest.approx(79.21, abs=0.01)
    assert "79.21" in h100.memory_source or "OOM" in h100.memory_source
    # GDDR with ECC gives up 1/16: an L40S "48 GB" shows 44.52 GiB (vLLM's log).
    assert catalog.get("nvidia-l40s").memory_bytes / 2**30 == pytest.approx(44.52, abs=0.01)


def test_every_gpu_has_a_usable_capacity_with_its_source(catalog):
    for gpu in catalog.gpus:
        gib, source = gpu.usable_memory()
        assert 0.9 * gpu.memory_gb < gib <= gpu.memory_gb and source


def test_user_file_adds_and_overrides_gpus(tmp_path):
    base = load_catalog(user_file=tmp_path / "none.json")
    h100 = base.get("nvidia-h100-sxm").model_dump(mode="json")
    custom = {
        **h100,
        "id": "my-card",
        "name": "My Card 96GB",
        "memory_gb": 96,
        "memory_usable_gib": None,
        "sources": "my own test",
    }
    cheaper = {**h100, "cloud_usd_per_hour": 1.0, "sources": "our negotiated price"}
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps({"gpus": [custom, cheaper]}))
    cat = load_catalog(user_file=path)
    mine = cat.get("my-card")
    assert mine.memory_label_bytes == 96 * 10**9 and mine.user_defined
    assert mine.memory_bytes == round(96 * 0.9906 * 2**30)  # the HBM rule: no measured capacity given
    assert cat.get("nvidia-h100-sxm").cloud_usd_per_hour == 1.0
    assert len(cat.gpus) == len(base.gpus) + 1 and not cat.warnings


def test_bad_user_file_is_reported_and_the_builtin_catalogue_still_loads(tmp_path):
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps({"gpus": [{"id": "x", "name": "X", "memory_gb": -1}]}))
    cat = load_catalog(user_file=path)
    assert len(cat.gpus) >= 25
    assert len(cat.warnings) == 1 and str(path) in cat.warnings[0] and "gpus.0" in cat.warnings[0]


def test_user_file_in_config_folder_is_picked_up(_isolated_config):
    (_isolated_config / "gpus.json").write_text("{broken")
    cat = load_catalog()
    assert cat.warnings and "gpus.json" in cat.warnings[0]


@pytest.mark.parametrize(
    ("reported", "expected"),
    [
        ("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm"),
        ("NVIDIA H100 PCIe", "nvidia-h100-pcie"),
        ("NVIDIA H200", "nvidia-h200-sxm"),
        ("NVIDIA A100-SXM4-40GB", "nvidia-a100-sxm-40gb"),
        ("NVIDIA A100 80GB PCIe", "nvidia-a100-pcie-80gb"),
        ("Tesla T4", "nvidia-t4"),
        ("NVIDIA GeForce RTX 4090", "nvidia-rtx-4090"),
        ("NVIDIA A10G", "nvidia-a10g"),
        ("NVIDIA A10", "nvidia-a10"),
    ],
)
def test_device_names_from_nvml_match_the_catalogue(catalog, reported, expected):
    assert catalog.match_device_name(reported).id == expected


def test_unknown_device_matches_nothing(catalog):
    assert catalog.match_device_name("Intel Arc A770") is None


def _user_gpu(**changes):
    h100 = load_catalog(user_file=None).get("nvidia-h100-sxm").model_dump(mode="json")
    return {**h100, "id": "my-card", "name": "My Card", "memory_usable_gib": None, **changes}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        # Each would overflow the planner's arithmetic (a division by an infinite peak, an infinite price).
        ({"dense_peak_tflops": {"bf16": 1e308}}, "gpus.0.dense_peak_tflops.bf16"),
        ({"purchase_usd": 1e308}, "gpus.0.purchase_usd"),
        ({"cloud_usd_per_hour": 1e308}, "gpus.0.cloud_usd_per_hour"),
        ({"memory_bandwidth_gb_per_s": 1e300}, "gpus.0.memory_bandwidth_gb_per_s"),
        ({"tdp_w": 1e12}, "gpus.0.tdp_w"),
        ({"name": "N" * 10_000}, "gpus.0.name"),
        # ... and each tiny one would divide a token budget into an infinite time (gpu_hours = inf).
        ({"dense_peak_tflops": {"bf16": 1e-300}}, "gpus.0.dense_peak_tflops.bf16"),
        ({"memory_bandwidth_gb_per_s": 1e-300}, "gpus.0.memory_bandwidth_gb_per_s"),
        ({"nvlink_gb_per_s": 1e-300}, "gpus.0.nvlink_gb_per_s"),
        ({"memory_gb": 1e-300}, "gpus.0.memory_gb"),
    ],
)
def test_absurd_user_figures_are_refused_naming_the_field(tmp_path, changes, field):
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps({"gpus": [_user_gpu(**changes)]}))
    cat = load_catalog(user_file=path)
    (warning,) = cat.warnings
    assert warning.startswith(f"Ignored your GPU file: {path}: {field}: ") and "\n" not in warning
    assert cat.find("my-card") is None and len(cat.gpus) >= 25


def test_a_user_gpu_with_a_tiny_peak_is_ignored_and_the_plan_json_stays_finite(tmp_path, monkeypatch, capsys):
    """Probe 3: a user GPU of 1e-300 bf16 TFLOPS and a token budget gave gpu_hours = inf, and plan
    --json a traceback. Now the file is ignored with one warning and the plan is finite JSON."""
    from gpu_advisor.cli import run_cli
    from gpu_advisor.core.catalog import default_catalog
    from gpu_advisor.core.files import parse_json

    monkeypatch.setenv("GPU_ADVISOR_CONFIG_DIR", str(tmp_path))
    tiny = _user_gpu(dense_peak_tflops={"bf16": 1e-300})
    (tmp_path / "gpus.json").write_text(json.dumps({"gpus": [tiny]}))
    default_catalog.cache_clear()
    try:
        code = run_cli(
            ["plan", "--model", "llama-3-8b", "--task", "pretrain", "--train-tokens", "1e12", "--json"]
        )
    finally:
        default_catalog.cache_clear()
    out, err = capsys.readouterr()
    assert code == 0
    plan = parse_json(out, "plan --json")  # the strict reader: no Infinity
    assert "my-card" not in {o["gpu"] for o in plan["options"]}
    assert "Ignored your GPU file" in err + json.dumps(plan["warnings"])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"gpus": [{"memory_gb": 1e400}]}', "beyond the range of a number"),  # parses as infinity
        ('{"gpus": [{"memory_gb": Infinity}]}', "Infinity is not a number JSON allows"),
    ],
)
def test_numbers_json_does_not_allow_are_refused(tmp_path, text, fragment):
    path = tmp_path / "gpus.json"
    path.write_text(text)
    (warning,) = load_catalog(user_file=path).warnings
    assert str(path) in warning and fragment in warning


def test_a_fifo_or_a_device_as_the_user_catalogue_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero):
        (warning,) = load_catalog(user_file=path).warnings
        assert f"{path}: cannot be read (not a regular file)" in warning
