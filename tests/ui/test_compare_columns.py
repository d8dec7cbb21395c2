"""D18 (ux-review-3): in Compare, a watched run's long command line does not push the other files
off-screen; the "better" column is as wide as its words; the chart opens on a figure the files have;
"same" reads neutral; rows that more files have come first."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.results import WorkloadResult
from gpu_advisor.ui import theme
from gpu_advisor.ui.main_window import VIEW_COMPARE
from tests.ui.conftest import make_report

COMMAND = "/work/main/.venv/bin/python /home/someone/projects/a-long-project-folder/train.py --epochs 3"


def _watched(device: str, duration_s: float) -> WorkloadResult:
    """A watched command's result, as `gpu-advisor monitor` saves it (exit code, duration, speed)."""
    return WorkloadResult(
        workload="command",
        name=COMMAND,
        status="ok",
        metrics={
            "exit_code": 0,
            "duration_s": duration_s,
            "samples_per_s": 160.0,
            "input_wait_fraction": 0.4,
        },
        started_at=0.0,
        elapsed_s=duration_s,
    )


@pytest.fixture
def three_files(tmp_path):
    """Two watched runs of one long command and one benchmark, as in review 3's screenshot."""
    paths = [tmp_path / "gui-cmd-ok.json", tmp_path / "cli-run.json", tmp_path / "cpu-box.json"]
    for path, duration in zip(paths[:2], (10.9, 12.0), strict=True):
        report = make_report(results=[_watched("Test CPU", duration)])
        report.model_copy(update={"results": report.results[1:]}).save(path)  # no matmul: a watched run
    make_report("Test CPU", "cpu").save(paths[2])
    return paths


def _open(window, qtbot, files, size):
    window.import_results(files)
    window.tabs.setCurrentIndex(VIEW_COMPARE)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size, timeout=2000)
    return window.compare


@pytest.mark.parametrize("size", [(1280, 800), (1024, 700)], ids=["1280x800", "1024x700"])
def test_every_file_column_is_in_view_and_a_long_command_is_elided_with_a_tooltip(
    window, qtbot, three_files, size
):
    compare = _open(window, qtbot, three_files, size)
    table = compare.table
    files = len(three_files)

    def in_view() -> bool:
        right = max(table.columnViewportPosition(c) + table.columnWidth(c) for c in range(files))
        return right <= table.viewport().width()

    qtbot.waitUntil(in_view, timeout=2000)
    widths = {table.columnWidth(c) for c in range(files)}
    assert len(widths) == 1, widths  # the files' columns share the room equally
    row = [line.label for line in compare.lines].index("command")
    item = table.item(row, 0)
    assert COMMAND in item.toolTip()
    assert table.fontMetrics().horizontalAdvance(COMMAND) > table.columnWidth(0)  # elided, not whole


def test_the_better_column_is_as_wide_as_its_words_at_1920_and_whole_at_1280(window, qtbot, results_files):
    compare = _open(window, qtbot, list(results_files), (1920, 1080))
    table = compare.table
    last = table.columnCount() - 1
    assert table.horizontalHeaderItem(last).text() == "better"
    words = table.fontMetrics().horizontalAdvance("higher is better")
    qtbot.wait(50)
    assert table.columnWidth(last) < words + 60  # was stretched to ~580 px
    compare = _open(window, qtbot, list(results_files), (1280, 800))
    qtbot.waitUntil(lambda: table.columnWidth(last) >= words + 8, timeout=2000)


def test_the_chart_opens_on_a_figure_most_files_have(window, qtbot, three_files):
    compare = _open(window, qtbot, three_files, (1280, 800))
    counts = [sum(v is not None for v in s.measured) for s in compare.series]
    charted = compare.charted()
    assert charted is not None and charted.label != "matmul fp32"  # only the benchmark has matmul
    assert sum(v is not None for v in charted.measured) == max(counts) == 2


def test_rows_that_more_files_have_come_first(window, qtbot, three_files):
    compare = _open(window, qtbot, three_files, (1280, 800))
    known = [sum(c != "n/a" for c in line.cells) for line in compare.lines if not line.reference]
    labels = [line.label for line in compare.lines if not line.reference]
    first_command = next(i for i, label in enumerate(labels) if label.startswith("command"))
    first_benchmark_only = next(i for i, n in enumerate(known) if n == 1 and labels[i] != "device")
    assert first_command < first_benchmark_only, labels


def test_same_reads_neutral_not_like_worse(window, qtbot, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    make_report().save(first)
    make_report().save(second)  # the same figures: every change is "same"
    compare = _open(window, qtbot, [first, second], (1280, 800))
    row = [line.label for line in compare.lines].index("matmul fp32")
    item = compare.table.item(row, 2)
    assert item.text() == "same"
    assert item.foreground().color() != theme.warn_color()
    assert item.foreground().color() != theme.ok_color()
