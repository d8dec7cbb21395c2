"""The Monitor's run area: the workloads, processes and a watched command's output, as tabs over the
live plots (or, before the first run, a note saying what a run shows instead of six empty plots).

The output is a tab, not a pane under the plots: beside the plots it left each of them ~60 px at
1024x700, too low for three readable ticks (ux-review-3 D14)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSplitter, QStackedWidget, QTabWidget, QWidget

from gpu_advisor.ui.monitor.checklist import ChecklistTable
from gpu_advisor.ui.monitor.live_plots import LivePlots
from gpu_advisor.ui.monitor.output_pane import OutputPane
from gpu_advisor.ui.monitor.process_list import ProcessTable

IDLE_TEXT = (
    "<p><b>No run yet.</b> Choose a device and a workload, then press <b>Start</b>.</p>"
    "<p>The list shows each workload of the run as it finishes (its time per step, result, "
    "peak memory and what limited it); the plots follow the machine and each step's "
    "throughput live.</p>"
)
# A cluster run or a watched command is no list of workloads (review 3, D24): what they show instead.
IDLE_TEXTS = {
    "cluster": (
        "<p><b>No run yet.</b> Choose the processes, then press <b>Start</b>.</p>"
        "<p>A cluster run starts that many ranks with torchrun: the Processes tab lists them, the "
        "throughput plot follows each collective's bus bandwidth as each message size is measured, "
        "and the cards give the peak bus bandwidth beside the largest message's when it ends.</p>"
    ),
    "command": (
        "<p><b>No run yet.</b> Give your command and its folder, then press <b>Start</b>.</p>"
        "<p>The Output tab shows what it prints, the Processes tab who uses the machine; the plots "
        "follow the machine live, and the steps it reports through the probe.</p>"
    ),
}

# Below this height (the window below ~620 px) the tabs shrink to their least and the plots take the
# rest: at the splitter's proportions each plot kept its 100 px minimum, ~30 px of it for the curve.
COMPACT_HEIGHT_PX = 300


class RunArea(QSplitter):
    """Vertical: the tabs on top (resizable), plots below."""

    def __init__(self, plots: LivePlots, output: OutputPane, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.plots = plots
        self.checklist = ChecklistTable()
        self.processes = ProcessTable()
        self.lists = QTabWidget()  # the run's workloads, and who uses the machine
        self.lists.setDocumentMode(True)
        self.lists.addTab(self.checklist, "Workloads")
        self.lists.addTab(self.processes, "Processes")
        self.output = output
        self.lists.addTab(output, "Output")
        self.lists.setTabVisible(2, False)  # until a command runs
        self.idle_note = QLabel(IDLE_TEXT)
        self.idle_note.setWordWrap(True)
        self.idle_note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.view_stack = QStackedWidget()
        self.view_stack.addWidget(self.idle_note)
        self.view_stack.addWidget(plots)
        self.setChildrenCollapsible(False)
        self.addWidget(self.lists)
        self.addWidget(self.view_stack)
        self.setStretchFactor(0, 0)
        self.setStretchFactor(1, 1)
        self._set_checklist_rows(4)
        self.setSizes([150, 400])

    def _set_checklist_rows(self, rows: int) -> None:
        self.checklist.setMinimumHeight(rows * self.checklist.verticalHeader().defaultSectionSize())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        compact = self.height() < COMPACT_HEIGHT_PX
        self._set_checklist_rows(2 if compact else 4)  # the list scrolls; the plots cannot
        if compact:
            tabs = self.lists.minimumSizeHint().height()
            self.setSizes([tabs, max(self.height() - tabs - self.handleWidth(), 0)])

    def set_idle_workload(self, workload: str | None) -> None:
        """The note before any run, in the words of the chosen kind of run."""
        self.idle_note.setText(IDLE_TEXTS.get(workload or "", IDLE_TEXT))

    def show_plots(self) -> None:
        self.view_stack.setCurrentWidget(self.plots)

    def show_checklist(self, shown: bool) -> None:
        """A watched command or a cluster run is no list of workloads: the processes show instead."""
        was_shown = self.lists.isTabVisible(0)
        self.lists.setTabVisible(0, shown)
        if not shown:
            self.lists.setCurrentWidget(self.processes)
        elif not was_shown:
            self.lists.setCurrentWidget(self.checklist)

    def show_output(self, shown: bool) -> None:
        """A watched command's output: its tab shows, and comes to the front, while it is the run."""
        self.lists.setTabVisible(2, shown)
        if shown:
            self.lists.setCurrentWidget(self.output)
