"""The Compare view: results files from several machines side by side."""

from __future__ import annotations

from pathlib import Path

from gpu_advisor.ui.main_window import VIEW_COMPARE


def test_two_results_files_side_by_side(window, results_files, dialogs):
    assert window.import_results(list(results_files)) == 2
    compare = window.compare
    assert window.tabs.currentIndex() == VIEW_COMPARE
    assert compare.table.columnCount() == 2
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
    assert window.compare.table.columnCount() == 1
    assert window.import_results([results_files[1]]) == 1  # still working
    assert window.compare.table.columnCount() == 2
    window.compare.clear()
    assert window.compare.table.columnCount() == 0 and window.compare.charted() is None
