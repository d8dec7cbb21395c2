"""The monitor's run controls: device, workload, quick mode, Start/Stop, progress, 'My command'."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.ui.monitor.backend import CLUSTER_WORKLOAD, COMMAND_WORKLOAD, WORKLOAD_CHOICES


class ProgressBar(QProgressBar):
    """A progress bar whose changes are painted with the window's next paint, never at once.

    QProgressBar.setValue (and setRange, through reset) repaints the bar synchronously whenever it
    would look different, and a synchronous repaint paints every dirty region of the window there
    and then: with the live plots beside it that is a whole frame (20-40 ms on the development
    machines) inside one signal handler, and a second frame when the rest of that handler's changes
    are painted (benchmarks/ui_stall.py). With updates disabled around the change, the bar is only
    marked for the next paint, which Qt coalesces with everything else."""

    def setValue(self, value: int) -> None:  # QProgressBar's name
        self.setUpdatesEnabled(False)
        try:
            super().setValue(value)
        finally:
            self.setUpdatesEnabled(True)  # posts an ordinary update of the bar

    def setRange(self, minimum: int, maximum: int) -> None:  # QProgressBar's name
        self.setUpdatesEnabled(False)
        try:
            super().setRange(minimum, maximum)
        finally:
            self.setUpdatesEnabled(True)


class TextSlot(QWidget):
    """One line of room for a label whose text changes often (the run's status, every second),
    kept out of every layout.

    A QLabel in a layout asks for a layout pass of the whole window at each new text (its size hint
    follows the text), and the pass repaints well beyond the label: 2-3 ms a change on an idle
    development machine, 8 ms and more while a benchmark runs (benchmarks/ui_stall.py), against
    0.3 ms for the label alone. Here the slot's size never depends on the text, so a new text only
    repaints the label; a text wider than the slot is cut at its end."""

    def __init__(self, label: QLabel, min_width_px: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = label
        label.setParent(self)
        label.show()
        self.setMinimumWidth(min_width_px)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._fit_height()

    def _fit_height(self) -> None:
        self.setFixedHeight(self.label.fontMetrics().height() + 2 * self.label.margin() + 4)

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(self.minimumWidth(), self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        self.label.setGeometry(self.rect())
        super().resizeEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()
        super().changeEvent(event)


class RunControls(QWidget):
    """Widgets only; the panel reads them and connects their signals."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.device_combo = QComboBox()
        self.device_combo.setAccessibleName("Device")
        for combo in (self.device_combo,):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(22)
        self.workload_combo = QComboBox()
        self.workload_combo.setAccessibleName("Workload")
        for key, label, description in WORKLOAD_CHOICES:
            self.workload_combo.addItem(label, key)
            self.workload_combo.setItemData(self.workload_combo.count() - 1, description, 3)  # ToolTipRole
        self.nproc_spin = QSpinBox()
        self.nproc_spin.setRange(2, 64)
        self.nproc_spin.setValue(2)
        self.nproc_spin.setAccessibleName("Processes")
        self.nproc_spin.setToolTip(
            "Processes (ranks) of the cluster run on this machine: one per GPU with NCCL, or CPU processes "
            "with gloo."
        )
        self.nproc_label = QLabel("&Processes:")
        self.nproc_label.setBuddy(self.nproc_spin)
        self.quick_check = QCheckBox("&Quick")
        self.quick_check.setChecked(True)
        self.quick_check.setToolTip("Smaller sizes and fewer steps: a CPU run takes under two minutes.")
        self.start_button = QPushButton("▶ &Start")
        self.stop_button = QPushButton("■ S&top")
        self.progress = ProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        # Hidden before the first run, its room kept: showing it then changes no layout (the status
        # row would grow and every plot below be laid out and drawn again).
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.progress.setSizePolicy(policy)
        self.time_left = QLabel("")
        self.time_left.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        device_label = QLabel("&Device:")
        device_label.setBuddy(self.device_combo)
        workload_label = QLabel("&Workload:")
        workload_label.setBuddy(self.workload_combo)
        for widget in (
            device_label,
            self.device_combo,
            workload_label,
            self.workload_combo,
            self.nproc_label,
            self.nproc_spin,
            self.quick_check,
        ):
            row.addWidget(widget)
        row.addSpacing(12)
        row.addWidget(self.start_button)
        row.addWidget(self.stop_button)
        row.addStretch(1)
        status_row = QHBoxLayout()
        self.progress.setFixedWidth(260)
        status_row.addWidget(self.progress)
        status_row.addWidget(TextSlot(self.time_left, min_width_px=140), 1)

        self.command_edit = QLineEdit()
        self.command_edit.setPlaceholderText("python train.py --epochs 1")
        self.command_edit.setAccessibleName("Command")
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("working folder (default: current)")
        self.folder_edit.setAccessibleName("Working folder")
        self.folder_button = QPushButton("Folder…")
        self.folder_button.clicked.connect(self._choose_folder)
        self.command_row = QWidget()
        command_layout = QHBoxLayout(self.command_row)
        command_layout.setContentsMargins(0, 0, 0, 0)
        command_label = QLabel("Co&mmand:")
        command_label.setBuddy(self.command_edit)
        command_layout.addWidget(command_label)
        command_layout.addWidget(self.command_edit, 2)
        command_layout.addWidget(self.folder_edit, 1)
        command_layout.addWidget(self.folder_button)
        column = QVBoxLayout()
        column.addLayout(row)
        column.addWidget(self.command_row)
        column.addLayout(status_row)
        column.setContentsMargins(0, 0, 0, 0)
        self.setLayout(column)
        self.workload_combo.currentIndexChanged.connect(self._workload_changed)
        self._workload_changed()

    def _workload_changed(self, _index: int = 0) -> None:
        command = self.workload_combo.currentData() == COMMAND_WORKLOAD
        self.command_row.setVisible(command)
        self.quick_check.setVisible(not command)  # a watched command has no quick mode
        cluster = self.workload_combo.currentData() == CLUSTER_WORKLOAD
        self.nproc_label.setVisible(cluster)
        self.nproc_spin.setVisible(cluster)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Working folder", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)
