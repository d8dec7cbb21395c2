"""NVML's word for the link between two GPUs, as `nvidia-smi topo -m` gives it; unknown on any error."""

from __future__ import annotations

from types import SimpleNamespace

import pynvml

from gpu_advisor.telemetry.topology import link_label, nvml_uuid


def fake_nvml(*, nvlink: bool, level: int | None, errors: set[str] = frozenset()):
    """The real pynvml constants and error class around two devices."""

    def fail(name):
        if name in errors:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)

    def handle(uuid):
        fail("nvmlDeviceGetHandleByUUID")
        return uuid

    def p2p(a, b, index):
        fail("nvmlDeviceGetP2PStatus")
        assert index == pynvml.NVML_P2P_CAPS_INDEX_NVLINK
        return pynvml.NVML_P2P_STATUS_OK if nvlink else pynvml.NVML_P2P_STATUS_NOT_SUPPORTED

    def ancestor(a, b):
        fail("nvmlDeviceGetTopologyCommonAncestor")
        return level

    constants = {k: getattr(pynvml, k) for k in dir(pynvml) if k.startswith("NVML_")}
    return SimpleNamespace(
        **constants,
        nvmlDeviceGetHandleByUUID=handle,
        nvmlDeviceGetP2PStatus=p2p,
        nvmlDeviceGetTopologyCommonAncestor=ancestor,
    )


A, B = "GPU-aaaa", "GPU-bbbb"


def test_nvlink_wins_over_the_pcie_tree():
    assert link_label(fake_nvml(nvlink=True, level=pynvml.NVML_TOPOLOGY_SYSTEM), A, B) == "NVLink"


def test_pcie_levels_read_as_nvidia_smi_writes_them():
    single = fake_nvml(nvlink=False, level=pynvml.NVML_TOPOLOGY_SINGLE)
    system = fake_nvml(nvlink=False, level=pynvml.NVML_TOPOLOGY_SYSTEM)
    assert link_label(single, A, B) == "PIX: same PCIe switch"
    assert link_label(system, A, B) == "SYS: across CPU sockets"


def test_an_nvml_error_makes_the_link_unknown_never_an_exception():
    no_topology = fake_nvml(nvlink=False, level=None, errors={"nvmlDeviceGetTopologyCommonAncestor"})
    assert link_label(no_topology, A, B) is None
    assert link_label(fake_nvml(nvlink=True, level=0, errors={"nvmlDeviceGetHandleByUUID"}), A, B) is None
    # A driver without the NVLink query still gives the PCIe level.
    old = fake_nvml(nvlink=True, level=pynvml.NVML_TOPOLOGY_HOSTBRIDGE, errors={"nvmlDeviceGetP2PStatus"})
    assert link_label(old, A, B) == "PHB: through the CPU's PCIe host bridge"


def test_cuda_uuids_gain_nvmls_prefix():
    assert nvml_uuid("8d2c1e6a-0000-1111-2222-333344445555") == "GPU-8d2c1e6a-0000-1111-2222-333344445555"
    assert nvml_uuid("MIG-1234") == "MIG-1234"
