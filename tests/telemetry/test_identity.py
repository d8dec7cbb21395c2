"""Which GPU is which: CUDA's index, NVML's index and the UUID are told apart."""

from __future__ import annotations

from gpu_advisor.telemetry.identity import cuda_index_of, normalise_uuid, nvml_index_of, visible_nvml_indices

UUIDS = [f"GPU-{i}{i}{i}{i}aaaa-bbbb-cccc-dddd-eeeeeeeeeeee" for i in range(4)]
H100S = [{"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": UUIDS[i]} for i in range(4)]
MIXED = [
    {"index": 0, "name": "NVIDIA RTX A2000", "uuid": UUIDS[0]},
    {"index": 1, "name": "NVIDIA H100 80GB HBM3", "uuid": UUIDS[1]},
]


def test_torch_and_nvml_uuids_match_whatever_the_prefix_and_case():
    torch_form = UUIDS[2].removeprefix("GPU-").upper()  # torch's _CUuuid prints no "GPU-" prefix
    assert normalise_uuid(torch_form) == normalise_uuid(UUIDS[2])
    # the UUID decides, whatever CUDA_VISIBLE_DEVICES says the CUDA index means
    assert nvml_index_of(H100S, uuid=torch_form, cuda_index=0, environ={}) == 2
    assert normalise_uuid(None) is None and normalise_uuid("") is None


def test_cuda_visible_devices_renumbers_the_gpus():
    env = {"CUDA_VISIBLE_DEVICES": "2,3"}
    assert visible_nvml_indices(H100S, env) == [2, 3]
    assert nvml_index_of(H100S, cuda_index=0, environ=env) == 2  # cuda:0 is NVML GPU 2
    assert cuda_index_of(3, H100S, env) == 1
    assert cuda_index_of(0, H100S, env) is None  # hidden from CUDA in this process


def test_cuda_visible_devices_by_uuid_prefix_and_the_first_bad_entry_ends_the_list():
    env = {"CUDA_VISIBLE_DEVICES": f"{UUIDS[3][:12]},1,GPU-nonexistent,0"}
    assert visible_nvml_indices(H100S, env) == [3, 1]
    assert visible_nvml_indices(H100S, {"CUDA_VISIBLE_DEVICES": ""}) == []


def test_mixed_gpus_counted_fastest_first_have_no_known_cuda_order():
    # CUDA's default order ranks devices by speed: the H100 may be cuda:0 although NVML says 1.
    assert visible_nvml_indices(MIXED, {}) is None
    assert nvml_index_of(MIXED, cuda_index=0, environ={}) is None
    assert nvml_index_of(MIXED, uuid=UUIDS[1], cuda_index=0, environ={}) == 1  # the UUID still says
    assert visible_nvml_indices(MIXED, {"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}) == [0, 1]
