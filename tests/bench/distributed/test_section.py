"""The `distributed` section of a results file is validated when read: figures that do not hold
together are rejected with the file and the field named."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bench import ResultsFileError, load_report


def _rewrite(cluster_run, tmp_path, change) -> str:
    data = json.loads(cluster_run.path.read_text())
    change(data["distributed"])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.slow
def test_an_algbw_that_is_not_bytes_over_time_is_rejected(cluster_run, tmp_path):
    def change(section):
        section["collectives"][3]["algbw_bytes_per_s"] *= 2

    path = _rewrite(cluster_run, tmp_path, change)
    with pytest.raises(
        ResultsFileError, match=r"edited\.json: distributed\.collectives\.3: algbw_bytes_per_s"
    ):
        load_report(path)


@pytest.mark.slow
def test_a_busbw_off_the_convention_is_rejected(cluster_run, tmp_path):
    def change(section):
        row = next(r for r in section["collectives"] if r["op"] == "all_gather")
        row["busbw_bytes_per_s"] = row["algbw_bytes_per_s"]  # forgot (n-1)/n

    path = _rewrite(cluster_run, tmp_path, change)
    with pytest.raises(ResultsFileError, match="busbw_bytes_per_s: does not follow the nccl-tests factor"):
        load_report(path)


@pytest.mark.slow
def test_hosts_must_account_for_every_rank(cluster_run, tmp_path):
    def change(section):
        section["world_size"] = 3

    with pytest.raises(ResultsFileError, match="distributed: hosts: list 2 ranks, world_size is 3"):
        load_report(_rewrite(cluster_run, tmp_path, change))


def test_a_single_device_results_file_has_no_distributed_section(toy_report):
    assert toy_report.distributed is None


@pytest.mark.slow
def test_each_link_carries_its_largest_messages_bus_bandwidth_and_its_peak_over_sizes(cluster_run):
    section = load_report(cluster_run.path).distributed
    for link in section.links:
        rows = section.rows(link.op, link.scope, link.node_rank)
        peak = max(rows, key=lambda r: r.busbw_bytes_per_s)
        assert (link.largest_bytes, link.busbw_bytes_per_s) == (rows[-1].bytes, rows[-1].busbw_bytes_per_s)
        assert (link.peak_bytes, link.peak_busbw_bytes_per_s) == (peak.bytes, peak.busbw_bytes_per_s)


@pytest.mark.slow
def test_a_peak_below_the_largest_messages_bandwidth_is_rejected(cluster_run, tmp_path):
    def change(section):
        link = section["links"][0]
        link["peak_busbw_bytes_per_s"] = link["busbw_bytes_per_s"] / 2

    with pytest.raises(ResultsFileError, match="peak_busbw_bytes_per_s: is below the largest message's"):
        load_report(_rewrite(cluster_run, tmp_path, change))


@pytest.mark.slow
def test_a_file_written_before_links_named_their_peak_still_reads_and_shows_it(cluster_run, tmp_path):
    from gpu_advisor.wording.distributed import link_rows

    def change(section):
        for link in section["links"]:
            del link["peak_busbw_bytes_per_s"], link["peak_bytes"]

    old = load_report(_rewrite(cluster_run, tmp_path, change)).distributed
    assert all(link.peak_bytes is None for link in old.links)
    assert link_rows(old) == link_rows(load_report(cluster_run.path).distributed)
