"""The NVML path through the real nvidia-ml-py, against the mock libnvidia-ml.so.1 (tests/nvml_mock/).

Each test runs the app's own readers in a child process whose LD_LIBRARY_PATH finds the mock, so the
bindings' symbol names (_v2/_v3), struct layouts and versions, return codes and the app's unit
conversions are all exercised; a test fails where a user would see a wrong or missing figure.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.nvml_mock.harness import MockNvml, load_scenario
from tests.nvml_mock.scenario_builders import GIB, H100, SW_POWER_CAP, SW_THERMAL, gpu, machine, uuid

pytestmark = pytest.mark.slow  # a child interpreter per test


# ---- the bindings and the reader ---------------------------------------------------------------------


def test_the_real_bindings_load_the_mock_and_read_two_h100s(nvml_mock: MockNvml) -> None:
    scenario = load_scenario("two_h100")
    out = nvml_mock.probe(scenario, "bindings")
    assert out["count"] == 2
    assert (out["driver"], out["nvml"], out["cuda"]) == ("550.54.15", "12.550.54.15", 12040)
    for got, want in zip(out["devices"], scenario["devices"], strict=True):
        assert (got["name"], got["uuid"], got["bus_id"]) == (want["name"], want["uuid"], want["pci_bus_id"])
        total, used, reserved = (
            want["memory_total_bytes"],
            want["memory_used_bytes"],
            want["memory_reserved_bytes"],
        )
        # v1 counts the driver's reservation as used; v2 reports it apart (nvml.h)
        assert got["memory_v1"] == [total, used + reserved, total - used - reserved]
        assert got["memory_v2"] == [total, reserved, used, total - used - reserved]
        assert got["utilization"] == [want["utilization_gpu_percent"], want["utilization_memory_percent"]]
        assert got["temperature_v"] == got["temperature"] == want["temperature_c"]
        assert (got["power_mw"], got["limit_mw"]) == (want["power_mw"], want["power_limit_mw"])
        assert got["clocks_mhz"] == [want["sm_clock_mhz"], want["mem_clock_mhz"]]
        assert got["pcie_kb"] == [want["pcie_rx_kb_per_s"], want["pcie_tx_kb_per_s"]]
        assert got["processes"] == [[p["pid"], p["used_memory_bytes"]] for p in want["processes"]]
        assert got["mig"] == [0, 0]
    assert out["fan_speed"] == "NVMLError_NotSupported"  # every other NVML function: not supported
    assert out["error_string"] == "GPU is lost"


def test_the_reader_converts_nvml_units_for_every_metric(nvml_mock: MockNvml) -> None:
    scenario = load_scenario("two_h100")
    out = nvml_mock.probe(scenario, "read_all", reads=2)
    assert out["available"] and out["reason"] is None
    first, second = out["devices"]
    assert (first["name"], first["uuid"]) == (H100, scenario["devices"][0]["uuid"])
    assert first["memory_total_bytes"] == 85_520_809_984
    assert first["power_limit_w"] == 700.0
    assert (first["driver_version"], first["nvml_version"], first["cuda_driver_version"]) == (
        "550.54.15",
        "12.550.54.15",
        "12.4",
    )
    assert first["mig_mode"] is False and first["backend"] == "nvml"
    assert (first["pci_bus_id"], second["pci_bus_id"]) == ("00000000:18:00.0", "00000000:2A:00.0")
    gpu0, gpu1 = out["reads"][1]
    assert gpu0["gpu_util_pct"] == 87.0 and gpu0["mem_util_pct"] == 54.0
    assert gpu0["power_w"] == 612.0 and gpu1["power_w"] == 98.0  # milliwatts to watts
    assert gpu0["memory_used_bytes"] == 61_203_283_968  # v2's "used": without the driver's reservation
    assert gpu0["temperature_c"] == 71.0
    assert (gpu0["sm_clock_mhz"], gpu0["mem_clock_mhz"]) == (1980, 2619)
    assert (gpu0["pcie_rx_bytes_per_s"], gpu0["pcie_tx_bytes_per_s"]) == (2048 * 1024, 1024 * 1024)  # KB/s
    assert gpu0["clock_event_reasons"] == []
    # GPM is a rate between two samples: none on the first reading, the counters on the second
    assert out["reads"][0][0]["gpm_sm_activity_pct"] is None
    assert (gpu0["gpm_sm_activity_pct"], gpu0["gpm_dram_activity_pct"], gpu0["gpm_tensor_activity_pct"]) == (
        81.5,
        47.25,
        63.0,
    )


def test_an_older_driver_without_the_newer_functions_still_gives_every_figure(nvml_mock: MockNvml) -> None:
    """A driver before NVML 12 lacks MemoryInfo_v2, TemperatureV and ClocksEventReasons."""
    missing = {
        name: "FUNCTION_NOT_FOUND"
        for name in (
            "nvmlDeviceGetMemoryInfo_v2",
            "nvmlDeviceGetTemperatureV",
            "nvmlDeviceGetCurrentClocksEventReasons",
        )
    }
    reserved = GIB // 2
    scenario = machine(
        gpu(
            0, memory_reserved_bytes=reserved, throttle_reasons=SW_POWER_CAP, temperature_c=77, errors=missing
        )
    )
    reading = nvml_mock.probe(scenario, "read_all", reads=3)["reads"][2][0]
    assert reading["error"] is None
    assert reading["temperature_c"] == 77.0
    assert reading["clock_event_reasons"] == ["sw_power_cap"]
    assert reading["memory_used_bytes"] == 40 * GIB + reserved  # v1's figure: all it can know


def test_an_unsupported_or_refused_metric_is_na_and_the_rest_are_read(nvml_mock: MockNvml) -> None:
    # No power sensor (field absent: NVML says NOT_SUPPORTED) and no permission for PCIe counters.
    device = gpu(0, errors={"nvmlDeviceGetPcieThroughput": "NO_PERMISSION"})
    del device["power_mw"]
    reading = nvml_mock.probe(machine(device), "read_all", reads=1)["reads"][0][0]
    assert reading["error"] is None
    assert reading["power_w"] is None
    assert reading["pcie_rx_bytes_per_s"] is None and reading["pcie_tx_bytes_per_s"] is None
    assert reading["power_limit_w"] == 700.0 and reading["gpu_util_pct"] == 90.0
    assert reading["memory_used_bytes"] == 40 * GIB


def test_a_gpu_that_cannot_be_opened_is_listed_with_its_error_and_the_others_are_read(
    nvml_mock: MockNvml,
) -> None:
    scenario = machine(gpu(0, errors={"nvmlDeviceGetHandleByIndex_v2": "NO_PERMISSION"}), gpu(1))
    out = nvml_mock.probe(scenario, "read_all", reads=1)
    assert [d["error"] is not None for d in out["devices"]] == [True, False]
    first, second = out["reads"][0]
    assert first["error"] is not None and first["power_w"] is None
    assert second["error"] is None and second["power_w"] == 500.0


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        ("DRIVER_NOT_LOADED", "NVML: driver not loaded"),
        ("NO_PERMISSION", "NVML: no permission to talk to the NVIDIA driver"),
        (
            "LIB_RM_VERSION_MISMATCH",
            "NVML: library and kernel driver versions differ (reboot after a driver update)",
        ),
        ("UNKNOWN", "NVML unavailable: Unknown Error"),
    ],
)
def test_nvml_that_cannot_start_gives_the_reason_a_user_can_act_on(
    nvml_mock: MockNvml, error: str, reason: str
) -> None:
    out = nvml_mock.probe(machine(gpu(0), init_error=error), "read_all", reads=1)
    assert out["available"] is False and out["reason"] == reason
    assert out["devices"] == [] and out["reads"] == [[]]


def test_a_machine_with_the_library_but_no_scenario_reads_as_no_driver(nvml_mock: MockNvml) -> None:
    out = nvml_mock.probe(machine(gpu(0)), "read_all", extra_env={"MOCK_NVML_SCENARIO": ""}, reads=1)
    assert out["available"] is False and out["reason"] == "NVML: driver not loaded"


def test_a_broken_scenario_file_is_one_line_naming_the_field(nvml_mock: MockNvml) -> None:
    scenario = machine(gpu(0, powr_mw=5))
    done = nvml_mock.run(scenario, [sys.executable, "-c", "import pynvml; pynvml.nvmlInit()"])
    assert done.returncode != 0
    assert "devices[0].powr_mw: unknown field" in done.stderr


# ---- the sampler at 10 Hz ----------------------------------------------------------------------------


def test_the_sampler_at_10_hz_follows_values_that_change_mid_run(nvml_mock: MockNvml) -> None:
    device = gpu(
        0,
        utilization_gpu_percent=20,
        power_mw=150_000,
        timeline=[
            {
                "after_s": 1.0,
                "utilization_gpu_percent": 95,
                "power_mw": 690_000,
                "throttle_reasons": SW_POWER_CAP,
            }
        ],
    )
    out = nvml_mock.probe(
        machine(device), "sample", interval_s=0.1, until_gpu=0, until_field="gpu_util_pct", until_value=95.0
    )
    assert out["seen"] and out["sampling_errors"] == 0
    readings = [s["gpus"][0] for s in out["samples"]]
    utils = [r["gpu_util_pct"] for r in readings]
    switch = utils.index(95.0)
    assert switch > 0 and set(utils[:switch]) == {20.0} and set(utils[switch:]) == {95.0}
    assert all(r["power_w"] == 150.0 and r["clock_event_reasons"] == [] for r in readings[:switch])
    assert all(
        r["power_w"] == 690.0 and r["clock_event_reasons"] == ["sw_power_cap"] for r in readings[switch:]
    )
    times = [s["t_s"] for s in out["samples"]]
    assert times == sorted(times) and len(set(times)) == len(times)


def test_a_gpu_lost_mid_run_turns_into_error_readings_while_the_other_gpu_goes_on(
    nvml_mock: MockNvml,
) -> None:
    scenario = machine(gpu(0), gpu(1, lost_after_s=1.5))
    out = nvml_mock.probe(
        scenario,
        "sample",
        interval_s=0.1,
        until_gpu=1,
        until_field="error",
        until_value="GPU lost: GPU is lost",
    )
    assert out["seen"] and out["sampling_errors"] == 0
    lost = [s["gpus"][1] for s in out["samples"]]
    first_error = next(i for i, g in enumerate(lost) if g["error"])
    assert first_error > 0 and all(g["power_w"] == 500.0 for g in lost[:first_error])
    assert all(g["error"] == "GPU lost: GPU is lost" and g["power_w"] is None for g in lost[first_error:])
    assert lost[-1]["name"] == H100 and lost[-1]["uuid"] == uuid(1)  # still named
    assert all(s["gpus"][0]["error"] is None and s["gpus"][0]["power_w"] == 500.0 for s in out["samples"])


# ---- MIG, GPM, processes -----------------------------------------------------------------------------


def test_a_mig_gpu_has_no_whole_gpu_utilisation_but_keeps_memory_power_and_temperature(
    nvml_mock: MockNvml,
) -> None:
    mig = [{"name": "NVIDIA H100 80GB HBM3 MIG 3g.40gb", "uuid": "MIG-0001", "memory_total_bytes": 40 * GIB}]
    device = gpu(0, mig_mode=True, mig_devices=mig, gpm_sm_util_percent=50.0)
    out = nvml_mock.probe(machine(device), "read_all", reads=2)
    assert out["devices"][0]["mig_mode"] is True
    reading = out["reads"][1][0]
    assert reading["gpu_util_pct"] is None and reading["mem_util_pct"] is None
    assert reading["gpm_sm_activity_pct"] is None  # per-instance GPM is not read
    assert reading["memory_used_bytes"] == 40 * GIB and reading["power_w"] == 500.0
    assert reading["temperature_c"] == 60.0 and reading["error"] is None


def test_a_gpu_without_gpm_reads_none_for_its_counters(nvml_mock: MockNvml) -> None:
    reading = nvml_mock.probe(machine(gpu(0)), "read_all", reads=3)["reads"][2][0]
    assert reading["gpm_sm_activity_pct"] is None and reading["gpm_dram_activity_pct"] is None
    assert reading["power_w"] == 500.0


def test_the_processes_tab_lists_each_compute_process_with_name_memory_and_sm_share(
    nvml_mock: MockNvml,
) -> None:
    me = os.getpid()
    gone = 4_194_301  # above Linux's default pid_max: no process has it
    processes = [
        {"pid": me, "used_memory_bytes": 30 * GIB, "sm_util_percent": 71},
        {"pid": gone, "used_memory_bytes": None},  # NVML's "not available" for the memory
    ]
    rows = nvml_mock.probe(machine(gpu(0, processes=processes)), "processes", index=0)
    assert [r["pid"] for r in rows] == [me, gone]
    assert rows[0]["name"].startswith("python") and rows[0]["gpu_memory_bytes"] == 30 * GIB
    assert rows[0]["gpu_sm_pct"] == 71.0
    assert (
        rows[1]["name"] == f"pid {gone}"
        and rows[1]["gpu_memory_bytes"] is None
        and rows[1]["gpu_sm_pct"] is None
    )


def test_processes_the_driver_will_not_list_give_an_empty_tab_not_an_error(nvml_mock: MockNvml) -> None:
    device = gpu(0, processes=[{"pid": 1, "used_memory_bytes": GIB}])
    device["errors"] = {"nvmlDeviceGetComputeRunningProcesses_v3": "NO_PERMISSION"}
    assert nvml_mock.probe(machine(device), "processes", index=0) == []


# ---- topology and identity ---------------------------------------------------------------------------


def test_links_between_gpus_name_nvlink_and_the_pcie_path(nvml_mock: MockNvml) -> None:
    scenario = machine(
        gpu(0, nvlink_peers=[uuid(1)], pcie_switch=0, host_bridge=0, numa_node=0),
        gpu(1, pcie_switch=1, host_bridge=0, numa_node=0),
        gpu(2, pcie_switch=2, host_bridge=1, numa_node=0),
        gpu(3, pcie_switch=2, host_bridge=1, numa_node=0),
        gpu(4, pcie_switch=3, host_bridge=2, numa_node=1),
        gpu(5, pcie_switch=4, host_bridge=0, numa_node=0),
    )
    cuda = [uuid(n).removeprefix("GPU-") for n in range(6)]  # torch reports UUIDs without the prefix
    pairs = [(0, 1), (1, 0), (2, 3), (1, 5), (1, 2), (0, 4)]
    labels = nvml_mock.probe(
        scenario, "links", pairs=[[cuda[a], cuda[b]] for a, b in pairs] + [[cuda[0], "f00d"]]
    )
    assert labels == [
        "NVLink",
        "NVLink",  # either side may list the peer
        "PIX: same PCIe switch",
        "PHB: through the CPU's PCIe host bridge",
        "NODE: across host bridges of one CPU socket",
        "SYS: across CPU sockets",
        None,  # a GPU NVML does not know
    ]


def test_gpus_counted_in_another_order_by_cuda_are_matched_by_uuid_and_by_pci_order(
    nvml_mock: MockNvml,
) -> None:
    scenario = machine(gpu(0, name="NVIDIA RTX A6000"), gpu(1, name="NVIDIA H100 PCIe"))
    cuda_uuids = [uuid(1).removeprefix("GPU-"), uuid(0).removeprefix("GPU-")]  # cuda:0 is NVML's GPU 1
    env = {"CUDA_VISIBLE_DEVICES": "1,0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    out = nvml_mock.probe(scenario, "identity", extra_env=env, torch_uuids=cuda_uuids)
    assert out["gpus"] == [
        [0, "NVIDIA RTX A6000", uuid(0), "00000000:18:00.0"],
        [1, "NVIDIA H100 PCIe", uuid(1), "00000000:28:00.0"],
    ]
    assert out["visible"] == [1, 0]
    assert out["cuda_index_of"] == [1, 0]  # NVML GPU 0 is cuda:1
    assert out["by_uuid"] == [1, 0] and out["by_cuda_index"] == [1, 0]
    # Mixed GPUs counted fastest first: only the UUID can say which is which.
    out = nvml_mock.probe(
        scenario, "identity", extra_env={"CUDA_VISIBLE_DEVICES": "1,0"}, torch_uuids=cuda_uuids
    )
    assert out["visible"] is None and out["by_cuda_index"] == [None, None]
    assert out["by_uuid"] == [1, 0]


# ---- doctor --gpu's NVML half --------------------------------------------------------------------------


def test_the_gpu_checks_read_power_temperature_clock_reasons_gpm_and_mig(nvml_mock: MockNvml) -> None:
    scenario = load_scenario("two_h100")
    scenario["devices"][0]["throttle_reasons"] = SW_THERMAL
    checks = {c["name"]: c for c in nvml_mock.probe(scenario, "doctor_checks")}
    assert checks["NVML power"]["status"] == "ok" and checks["NVML power"]["figures"] == {"power_w": 612.0}
    assert checks["NVML temperature"]["figures"] == {"temperature_c": 71.0}
    assert checks["NVML SM clock"]["figures"] == {"sm_clock_mhz": 1980}
    assert checks["throttle reasons"]["detail"] == "sw_thermal"
    assert checks["GPM metrics"]["status"] == "ok"
    assert checks["GPM metrics"]["figures"]["tensor_activity_pct"] == 63.0
    assert checks["MIG mode"]["detail"] == "disabled"
