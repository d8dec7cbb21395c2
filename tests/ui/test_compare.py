"""The Compare view: results files from several machines side by side."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_advisor.ui import theme
from gpu_advisor.ui.main_window import VIEW_COMPARE


def test_two_results_files_side_by_side(window, results_files, dialogs):
    assert window.import_results(list(results_files)) == 2
    compare = window.compare
    assert window.tabs.currentIndex() == VIEW_COMPARE
    # two files, the second against the first, and which way is better
    assert compare.table.columnCount() == 4
    assert compare.cell("device", 0) == "Test CPU" and compare.cell("device", 1) == "NVIDIA H100 80GB HBM3"
    assert compare.cell("matmul fp32", 1) == "600 TFLOP/s"  # every cell carries its unit
    assert compare.cell("train throughput", 0) == "1,234 tokens/s"
    series = compare.charted()
    assert series.label == "matmul fp32" and series.unit == "TFLOP/s" and series.measured == (2.0, 600.0)
    assert series.catalogue is not None and series.catalogue[1] > 0  # the H100's catalogue peak
    assert "catalogue peak" in compare.chart_legend.text()
    assert dialogs == []


def test_corrupt_file_gives_one_dialog_and_the_rest_loads(window, results_files, tmp_path, dialogs):
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": "gpu-advisor/bench@1", "created": 5')
    invalid = tmp_path / "invalid.json"
    invalid.write_text(Path(results_files[0]).read_text().replace('"kind": "cpu"', '"kind": "tpu"'))
    assert window.import_results([broken, invalid, results_files[0]]) == 1
    assert len(dialogs) == 1
    title, text = dialogs[0]
    assert title == "Cannot load results"
    assert str(broken) in text and str(invalid) in text and "device.kind" in text
    assert window.compare.table.columnCount() == 2  # the file and "better"
    assert window.import_results([results_files[1]]) == 1  # still working
    assert window.compare.table.columnCount() == 4
    window.compare.clear()
    assert window.compare.table.columnCount() == 0 and window.compare.charted() is None


def test_table_and_chart_derive_from_the_same_typed_rows(window, results_files, dialogs):
    window.import_results(list(results_files))
    compare = window.compare
    row = compare.comparison.row("train peak memory")
    assert row.values == (3_000_000_000, 3_000_000_000) and row.lower_is_better is True
    assert compare.cell("train peak memory", 0) == "2.8 GiB"  # binary units, as in the CLI and the report
    charted = {s.label: s for s in compare.series}
    assert charted["train peak memory"].unit == "GiB"
    assert charted["train peak memory"].measured == pytest.approx((3e9 / 2**30,) * 2)
    assert (
        charted["train step median"].unit == "ms" and charted["train step median"].better == "lower is better"
    )
    # the machine's description and prediction errors are tabled, not charted
    assert not {"RAM", "device memory", "CPU cores", "train memory prediction error"} & set(charted)
    reference = next(line for line in compare.lines if line.label == "catalogue fp32 peak")
    assert reference.reference and reference.cells[0] == "n/a"  # a CPU has no catalogue entry
    row_index = compare.lines.index(reference)
    assert compare.table.item(row_index, 1).foreground().color() == theme.muted_color()


@pytest.mark.slow
def test_cluster_files_chart_bus_bandwidth_against_message_size(window, cluster_run, tmp_path, dialogs):
    """Two cluster files (the same real gloo run saved as two machines): one line per machine."""
    from gpu_advisor.bench import load_report

    second = tmp_path / "other-box.json"
    second.write_text(cluster_run.path.read_text())
    assert window.import_results([cluster_run.path, second]) == 2
    compare = window.compare
    section = load_report(cluster_run.path).distributed
    assert compare.cell("cluster backend", 0) == "gloo"
    assert compare.cell("data-parallel scaling efficiency", 1).endswith("%")
    titles = [compare.metric_combo.itemText(i) for i in range(compare.metric_combo.count())]
    wanted = "all-reduce bus bandwidth, intra-node against message size"
    compare.metric_combo.setCurrentIndex(titles.index(wanted))
    chart = compare.charted_curves()
    # the file in the last parentheses: CPU names have their own, "Intel(R) Xeon(R) Processor"
    assert [c.label.rsplit(" (", 1)[1].rstrip(")") for c in chart.curves] == [
        cluster_run.path.name,
        "other-box.json",
    ]
    rows = section.rows("all_reduce", "intra-node")
    assert chart.curves[0].sizes_bytes == tuple(r.bytes for r in rows)
    assert chart.curves[0].values == pytest.approx([r.busbw_bytes_per_s / chart.scale for r in rows])
    assert len(compare.chart.getPlotItem().listDataItems()) == 2
    assert dialogs == []


def _header(table, column: int) -> str:
    return table.horizontalHeaderItem(column).text()


def test_each_file_is_read_against_a_chosen_baseline(window, results_files, dialogs):
    """The H100 file's matmul is 300 times the CPU's: '+29,900% (better)'; step time lower is better."""
    window.import_results(list(results_files))
    compare = window.compare
    table = compare.table
    assert _header(table, 2).endswith("vs Test CPU") and _header(table, 3) == "better"
    row = [line.label for line in compare.lines].index("matmul fp32")
    assert table.item(row, 2).text() == compare.relative("matmul fp32", 1)
    assert compare.relative("matmul fp32", 1).endswith("(better)")
    assert table.item(row, 3).text() == "higher is better"
    step_row = [line.label for line in compare.lines].index("train step median")
    assert table.item(step_row, 3).text() == "lower is better"
    compare.baseline_combo.setCurrentIndex(1)  # now the CPU against the GPU
    assert _header(table, 2).startswith("Test CPU") and compare.relative("matmul fp32", 0).endswith("(worse)")


def test_a_stopped_run_and_two_runs_of_one_machine_are_told_apart(window, tmp_path, dialogs):
    from tests.ui.conftest import make_report, make_train_result

    first, second = tmp_path / "monday.json", tmp_path / "tuesday.json"
    make_report().save(first)
    make_report(results=[make_train_result(status="cancelled")]).save(second)
    window.import_results([first, second])
    compare = window.compare
    assert _header(compare.table, 0) == "Test CPU\nmonday.json"
    assert _header(compare.table, 1).startswith("Test CPU\ntuesday.json\n(stopped")
    ticks = compare.chart.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["monday", "tuesday"]  # not "Test CPU" twice
