"""Every constant the planner assumes, editable; the plan updates as they change."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QWidget

from gpu_advisor.core.request import Assumptions, PlanRequest
from gpu_advisor.core.units import HOURS_PER_MONTH
from gpu_advisor.ui.glossary import tip
from gpu_advisor.ui.plan.binding import FieldBinder
from gpu_advisor.ui.plan.fields import FormPage, NumberEdit
from gpu_advisor.ui.plan.form import PlanForm

# (label with unit, shown-per-stored scale) for each Assumptions field; descriptions come from core.
ASSUMPTION_LABELS: dict[str, tuple[str, int]] = {
    "mfu": ("Training MFU (0-1):", 1),
    "prefill_efficiency": ("Prefill efficiency (0-1):", 1),
    "bandwidth_efficiency": ("Memory bandwidth efficiency (0-1):", 1),
    "step_overhead_s": ("Decode step overhead (s):", 1),
    "host_overhead_per_layer_s": ("Host time per layer (s):", 1),
    "dp_comm_overlap": ("Gradient reduction hidden (0-1):", 1),
    "pipeline_layers_per_virtual_stage": ("Layers per virtual pipeline stage:", 1),
    "pipeline_interleaved": ("Interleaved pipeline schedule:", 1),
    "cuda_context_bytes": ("CUDA context per GPU (MiB):", 2**20),
    "loss_chunks": ("Chunked loss: chunks:", 1),
    "fragmentation": ("Allocator fragmentation (fraction):", 1),
    "max_prefill_tokens": ("Prefill budget (tokens per step):", 1),
    "lora_rank": ("LoRA rank r:", 1),
    "lora_all_linear": ("LoRA on every linear layer:", 1),
    "host_usd_per_machine": ("Machine price without GPUs (USD):", 1),
    "pue": ("PUE (cooling factor, ≥ 1):", 1),
    "host_power_w_per_machine": ("Machine power without GPUs (W):", 1),
    "utilisation_of_tdp": ("Average GPU draw (fraction of TDP):", 1),
}
GROUPS = (
    (
        "Speed",
        (
            "mfu",
            "prefill_efficiency",
            "bandwidth_efficiency",
            "step_overhead_s",
            "host_overhead_per_layer_s",
            "dp_comm_overlap",
            "pipeline_layers_per_virtual_stage",
            "pipeline_interleaved",
        ),
    ),
    (
        "Memory",
        (
            "cuda_context_bytes",
            "fragmentation",
            "max_prefill_tokens",
            "loss_chunks",
            "lora_rank",
            "lora_all_linear",
        ),
    ),
    ("Cost and power", ("host_usd_per_machine", "host_power_w_per_machine", "pue", "utilisation_of_tdp")),
)


def _editor_min_width(editor: QWidget) -> int:
    """Room for 'per GPU' (the placeholder of a per-GPU default) or seven digits, and the frame."""
    metrics = editor.fontMetrics()
    return max(metrics.horizontalAdvance("per GPU"), metrics.horizontalAdvance("0" * 7)) + 16


def _groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """GROUPS, plus any assumption core added since (shown under 'Other' rather than hidden)."""
    known = {name for _, names in GROUPS for name in names}
    others = tuple(name for name in Assumptions.model_fields if name not in known)
    return (*GROUPS, ("Other", others)) if others else GROUPS


class AssumptionsPanel(FormPage):
    """Edit MFU, overheads and prices; messages appear inline, and the plan re-runs on each change."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(
            "Assumptions",
            "Every constant the estimate uses. Change one and the recommendation updates. GPU prices come "
            "from the catalogue; add your own quotes in gpus.json in the app's config folder.",
            parent,
        )
        self._form = form
        self.binder = FieldBinder(form)
        self.editors: dict[str, QWidget] = {}
        self.groups = QGridLayout()  # the boxes side by side, or fewer a row where they would not fit
        self.group_boxes: list[QGroupBox] = []
        # Above the constants: figures the plan derived, not assumed (the users Little's law gives).
        self.derived_note = QLabel()
        self.derived_note.setObjectName("derived_note")
        self.derived_note.setWordWrap(True)
        self.derived_note.hide()
        self.outer_layout.addWidget(self.derived_note)
        self.outer_layout.addLayout(self.groups)
        for title, names in _groups():
            box = QGroupBox(title)
            layout = self.new_form_layout()
            box.setLayout(layout)
            for name in names:
                self._add(layout, name)
            if title == "Cost and power":
                hours = NumberEdit(integer=False, placeholder=f"{HOURS_PER_MONTH:g}")
                hours.setMinimumWidth(_editor_min_width(hours))
                self.add_field(
                    layout, "Hours of use per month (h):", hours, "hours_per_month", tip("hours_per_month")
                )
                self.binder.number(hours, "hours_per_month")
                price = NumberEdit(
                    integer=False,
                    placeholder=f"{PlanRequest.model_fields['electricity_usd_per_kwh'].default:g}",
                )
                price.setMinimumWidth(_editor_min_width(price))
                self.add_field(
                    layout, "Electricity (USD per kWh):", price, "electricity_usd_per_kwh", tip("electricity")
                )
                self.binder.number(price, "electricity_usd_per_kwh")
            self.group_boxes.append(box)
        self.group_columns = 0
        self._place_groups(len(self.group_boxes))
        bottom = QHBoxLayout()
        self.calibration_note = QLabel()
        self.calibration_note.setWordWrap(True)
        self.reset_button = QPushButton("&Reset to defaults")
        self.reset_button.setToolTip("Put every assumption back to its documented default.")
        bottom.addWidget(self.calibration_note, 1)
        bottom.addWidget(self.reset_button)
        self.outer_layout.addLayout(bottom)
        self.outer_layout.addStretch(1)
        self.reset_button.clicked.connect(lambda: form.reset_assumptions())

    def _place_groups(self, columns: int) -> None:
        """`columns` boxes a row, each at the top of its cell."""
        if columns == self.group_columns:
            return
        self.group_columns = columns
        for box in self.group_boxes:
            self.groups.removeWidget(box)
        for index, box in enumerate(self.group_boxes):
            self.groups.addWidget(box, index // columns, index % columns, Qt.AlignmentFlag.AlignTop)
        for column in range(len(self.group_boxes)):
            self.groups.setColumnStretch(column, 1 if column < columns else 0)

    def fit_width(self, width: int) -> None:
        """As many boxes a row as fit in `width` px at their minimum widths (labels whole, values
        readable): a narrower window gets fewer a row, not a page cut at its right edge. Called by the
        scroll area showing the panel, with its viewport's width (the panel's own width is at least its
        minimum, which follows the number of boxes a row)."""
        margins = self.outer_layout.contentsMargins()
        room = width - margins.left() - margins.right()
        spacing = max(self.groups.horizontalSpacing(), 0)
        columns = len(self.group_boxes)
        while columns > 1 and self._row_width(columns) + spacing * (columns - 1) > room:
            columns -= 1
        self._place_groups(columns)

    def _row_width(self, columns: int) -> int:
        boxes = self.group_boxes
        return sum(max(b.minimumSizeHint().width() for b in boxes[c::columns]) for c in range(columns))

    def _add(self, layout, name: str) -> None:
        label, scale = ASSUMPTION_LABELS.get(name, (name.replace("_", " ").capitalize() + ":", 1))
        field = Assumptions.model_fields[name]
        tooltip = field.description or ""
        if name == "mfu":
            tooltip = f"{tip('mfu')}\n\n{tooltip}"
        if field.annotation is bool:
            editor: QWidget = QCheckBox()
            self.binder.check(editor, f"assumptions.{name}")  # type: ignore[arg-type]
        else:
            # None defaults: the per-GPU tables apply until the user types a value for every GPU.
            optional = field.default is None
            integer = field.annotation in (int, int | None)
            placeholder = "per GPU" if optional else str(field.default)
            editor = NumberEdit(integer=integer, optional=optional, scale=scale, placeholder=placeholder)
            editor.setMinimumWidth(_editor_min_width(editor))
            self.binder.number(editor, f"assumptions.{name}")
        self.editors[name] = editor
        self.add_field(layout, label, editor, f"assumptions.{name}", tooltip)

    def set_derived_note(self, text: str) -> None:
        """Show how the plan derived a figure from the inputs ('' hides the note)."""
        self.derived_note.setText(text)
        self.derived_note.setVisible(bool(text))

    def set_calibration_note(self, text: str) -> None:
        """Say where a calibrated MFU came from ('' hides the note)."""
        self.calibration_note.setText(text)
