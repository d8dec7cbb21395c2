"""The one channel table (telemetry/channels.py): what each plotted quantity reads, in its unit."""

from __future__ import annotations

from gpu_advisor.core.units import GIB
from gpu_advisor.telemetry.channels import BY_KEY, CHANNELS, unmeasured_on
from gpu_advisor.telemetry.samples import GpuSample, HostSample


def test_memory_reads_in_gib_on_a_gpu_and_is_the_process_rss_on_the_host() -> None:
    memory = BY_KEY["memory_gib"]
    assert memory.gpu_value(GpuSample(index=0, name="H100", memory_used_bytes=3 * GIB)) == 3.0
    assert memory.host_value(HostSample(ram_used_bytes=8 * GIB, process_rss_bytes=GIB // 2)) == 0.5
    # before, the host's whole RAM was plotted under "Process memory (RSS)" when no process was watched
    assert memory.host_value(HostSample(ram_used_bytes=8 * GIB)) is None
    assert memory.label("cpu") == "Process RSS"


def test_power_is_a_gpu_channel_only() -> None:
    assert unmeasured_on("cpu") == {"power_w"} and unmeasured_on("cuda") == set()
    assert BY_KEY["power_w"].host_value(HostSample(cpu_pct=50.0)) is None


def test_every_channel_names_its_unit_in_its_key_and_fields_that_exist() -> None:
    for c in CHANNELS:
        assert c.key.endswith({"%": "_pct", "GiB": "_gib", "W": "_w", "°C": "_c", "MHz": "_mhz"}[c.unit])
        assert c.gpu_field is None or c.gpu_field in GpuSample.__dataclass_fields__
        assert c.host_field is None or c.host_field in HostSample.__dataclass_fields__
