"""The monitor's run controls: device, workload, quick mode, Start/Stop, progress, 'My command'."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpu_advisor.ui.monitor.backend import CLUSTER_WORKLOAD, COMMAND_WORKLOAD, WORKLOAD_CHOICES


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
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.time_left = QLabel("")
        self.time_left.setMinimumWidth(140)
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
        status_row.addWidget(self.time_left, 1)

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
