"""Wizard pages 2 and 3: the workload (task, precision, shapes) and the traffic or training target."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel, QWidget

from gpu_advisor.core.precision import Optimizer, Precision, Task
from gpu_advisor.core.request import Attention
from gpu_advisor.ui.glossary import tip
from gpu_advisor.ui.plan.binding import FieldBinder
from gpu_advisor.ui.plan.fields import FormPage, NumberEdit, make_combo
from gpu_advisor.ui.plan.form import PlanForm
from gpu_advisor.wording.plan import ENGINE_LABELS, FRAMEWORK_LABELS, LOSS_LABELS
from gpu_advisor.wording.serving import derived_users, derived_users_text

TASK_LABELS = {
    Task.INFERENCE: "Inference (serving users)",
    Task.PRETRAIN: "Pretraining from scratch",
    Task.FINETUNE: "Full fine-tune",
    Task.LORA: "LoRA fine-tune",
    Task.QLORA: "QLoRA fine-tune (4-bit base)",
}
PRECISION_LABELS = {
    Precision.BF16: "bf16 (2 bytes/param)",
    Precision.FP16: "fp16 (2 bytes/param)",
    Precision.FP8: "fp8 (1 byte/param)",
    Precision.INT8: "int8 (about 1 byte/param)",
    Precision.INT4: "int4 (about 0.5 byte/param)",
    Precision.NF4: "NF4 (bitsandbytes 4-bit)",
    Precision.FP32: "fp32 (4 bytes/param)",
}
OPTIMIZER_LABELS = {
    Optimizer.ADAMW: "AdamW (8 bytes/param of state)",
    Optimizer.ADAMW_8BIT: "AdamW 8-bit (2 bytes/param)",
    Optimizer.SGD: "SGD with momentum (4 bytes/param)",
    Optimizer.ADAFACTOR: "Adafactor (factored, tiny)",
}
# Recipe knobs left empty are the planner's to choose (core/recipe.py); a value typed is a lock.
AUTO_PLACEHOLDER = "Auto"
AUTO_TIP = "Empty (Auto): the planner chooses it; a number you type is kept as given."
ZERO_CHOICES = (
    ("Auto (the planner chooses)", None),
    ("0 — every GPU keeps all state", 0),
    ("1 — shard optimizer state", 1),
    ("2 — also shard gradients", 2),
    ("3 — also shard weights (FSDP)", 3),
)


def _set_row_visible(form: QFormLayout, label: QLabel, visible: bool) -> None:
    form.setRowVisible(label, visible)


class WorkloadPage(FormPage):
    """Task, number format, optimizer, sequence length, batch, checkpointing, attention, ZeRO."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(
            "Workload",
            "What will the GPUs do? Training needs room for gradients, optimizer state and activations; "
            "inference needs room for the KV cache of every user.",
            parent,
        )
        self._form = form
        self.binder = FieldBinder(form)
        layout = self.new_form_layout()
        self.outer_layout.addLayout(layout)
        self.outer_layout.addStretch(1)
        self._layout = layout

        self.task = make_combo(((label, t) for t, label in TASK_LABELS.items()), tip("lora"))
        self.add_field(layout, "&Task:", self.task, "task", tip("lora"))
        self.precision = make_combo(((label, p) for p, label in PRECISION_LABELS.items()))
        self.add_field(layout, "&Precision:", self.precision, "precision", tip("precision"))
        self.optimizer = make_combo(((label, o) for o, label in OPTIMIZER_LABELS.items()))
        self._optimizer_label = self.add_field(
            layout,
            "&Optimizer:",
            self.optimizer,
            "optimizer",
            "Optimizer state is kept for every trained parameter.",
        )
        self.seq_len = NumberEdit(integer=True, placeholder="2048")
        self._seq_label = self.add_field(
            layout, "&Sequence length (tokens):", self.seq_len, "seq_len", tip("seq_len")
        )
        self.batch_size = NumberEdit(integer=True, optional=True, placeholder=AUTO_PLACEHOLDER)
        self._batch_label = self.add_field(
            layout,
            "&Batch per GPU (sequences):",
            self.batch_size,
            "batch_size",
            tip("batch_size") + " " + AUTO_TIP,
        )
        self.grad_accum = NumberEdit(integer=True, optional=True, placeholder=AUTO_PLACEHOLDER)
        self._accum_label = self.add_field(
            layout,
            "Mi&cro-batches per step:",
            self.grad_accum,
            "grad_accumulation_steps",
            "Gradient accumulation: above 1 the gradients stay allocated through every backward pass. "
            + AUTO_TIP,
        )
        self.global_batch = NumberEdit(integer=True, optional=True, placeholder=AUTO_PLACEHOLDER)
        self._global_label = self.add_field(
            layout,
            "Global batch (se&quences per step):",
            self.global_batch,
            "global_batch",
            "Sequences per optimizer step over all GPUs: replicas x batch per GPU x micro-batches per step. "
            "Auto: what published runs of this task and size used.",
        )
        self.loss = make_combo(
            (("Auto (the planner chooses)", None), *((label, loss) for loss, label in LOSS_LABELS.items()))
        )
        self._loss_label = self.add_field(
            layout,
            "&Loss:",
            self.loss,
            "loss",
            "Chunked cross-entropy keeps only one fp32 chunk of the logits. Auto: the planner chooses; "
            "a loss you choose is kept.",
        )
        self.mixed = QCheckBox("fp32 master weights and optimizer state")
        self._mixed_label = self.add_field(
            layout,
            "&Mixed precision:",
            self.mixed,
            "mixed_precision",
            "Off: pure 16-bit weights and AdamW state (torchtune's full fine-tune recipes).",
        )
        self.checkpointing = make_combo(
            (
                ("Auto (the planner chooses)", None),
                ("On: recompute activations in the backward pass", True),
                ("Off", False),
            )
        )
        self._ckpt_label = self.add_field(
            layout,
            "&Gradient checkpointing:",
            self.checkpointing,
            "grad_checkpointing",
            tip("grad_checkpointing"),
        )
        self.attention = make_combo(
            (
                ("SDPA / flash (memory-efficient)", Attention.SDPA),
                ("Eager (stores attention matrix)", Attention.EAGER),
            )
        )
        self.add_field(layout, "&Attention kernel:", self.attention, "attention", tip("attention"))
        self.zero = make_combo(ZERO_CHOICES)
        self._zero_label = self.add_field(
            layout, "&ZeRO stage:", self.zero, "zero_stage", tip("zero") + " " + AUTO_TIP
        )
        # The layout's degrees (training and serving): empty is Auto, a number is kept.
        self.tensor_parallel = NumberEdit(integer=True, optional=True, placeholder=AUTO_PLACEHOLDER)
        self.add_field(
            layout,
            "Tensor pa&rallel (GPUs per layer):",
            self.tensor_parallel,
            "tensor_parallel",
            tip("tensor_parallel") + " " + AUTO_TIP,
        )
        self.pipeline_parallel = NumberEdit(integer=True, optional=True, placeholder=AUTO_PLACEHOLDER)
        self.add_field(
            layout,
            "P&ipeline parallel (stages):",
            self.pipeline_parallel,
            "pipeline_parallel",
            tip("pipeline_parallel") + " " + AUTO_TIP,
        )
        self.inference_note = QLabel(
            "Inference: prompt and output lengths and the number of users are set on the next page."
        )
        self.inference_note.setWordWrap(True)
        self.outer_layout.insertWidget(self.outer_layout.count() - 1, self.inference_note)

        b = self.binder
        b.combo(self.task, "task")
        b.combo(self.precision, "precision")
        b.combo(self.optimizer, "optimizer")
        b.number(self.seq_len, "seq_len")
        b.number(self.batch_size, "batch_size")
        b.number(self.grad_accum, "grad_accumulation_steps")
        b.number(self.global_batch, "global_batch")
        b.combo(self.loss, "loss")
        b.check(self.mixed, "mixed_precision")
        b.combo(self.checkpointing, "grad_checkpointing")
        b.combo(self.attention, "attention")
        b.combo(self.zero, "zero_stage")
        b.number(self.tensor_parallel, "tensor_parallel")
        b.number(self.pipeline_parallel, "pipeline_parallel")
        form.field_changed.connect(lambda field: field == "task" and self._show_task())
        form.request_loaded.connect(lambda _r: self._show_task())
        self._show_task()

    def _show_task(self) -> None:
        training = Task(self.task.currentData()).is_training
        for label in (
            self._optimizer_label,
            self._seq_label,
            self._batch_label,
            self._accum_label,
            self._global_label,
            self._loss_label,
            self._mixed_label,
            self._ckpt_label,
            self._zero_label,
        ):
            _set_row_visible(self._layout, label, training)
        self.inference_note.setVisible(not training)


class TrafficPage(FormPage):
    """Inference: users, prompt and output tokens, speed per user. Training: token budget and deadline."""

    def __init__(self, form: PlanForm, parent: QWidget | None = None) -> None:
        super().__init__(
            "Traffic and target",
            "How much work, and how fast? The planner adds GPUs until the target is met.",
            parent,
        )
        self._form = form
        self.binder = FieldBinder(form)

        self.inference_box = QGroupBox("Serving traffic")
        inference = self.new_form_layout()
        self.inference_box.setLayout(inference)
        self.engine = make_combo((label, engine) for engine, label in ENGINE_LABELS.items())
        self.add_field(
            inference,
            "Se&rving engine:",
            self.engine,
            "engine",
            "The serving stack sets the kernels' efficiencies, the per-step overhead and how the KV "
            "cache is reserved.",
        )
        self.users = NumberEdit(integer=True, placeholder="1")
        self.add_field(inference, "Concurrent &users:", self.users, "users", tip("users"))
        # With requests per second: the users Little's law gives, and how (the field shows the number).
        self.derived_users = QLabel()
        self.derived_users.setObjectName("derived_users")
        self.derived_users.setWordWrap(True)
        inference.addRow("", self.derived_users)
        self.requests_per_s = NumberEdit(
            integer=False, optional=True, placeholder="none — use the users above"
        )
        self.add_field(
            inference,
            "Re&quests per second:",
            self.requests_per_s,
            "requests_per_s",
            "Traffic as requests per second instead of concurrent users: Little's law gives the users "
            "(requests/s × the time each request takes: its first token, then its output at the speed "
            "per user). Needs a speed per user.",
        )
        self.prompt_tokens = NumberEdit(integer=True, placeholder="512")
        self.add_field(
            inference,
            "&Prompt (tokens per request):",
            self.prompt_tokens,
            "prompt_tokens",
            tip("prompt_tokens"),
        )
        self.output_tokens = NumberEdit(integer=True, placeholder="256")
        self.add_field(
            inference,
            "&Output (tokens per reply):",
            self.output_tokens,
            "output_tokens",
            tip("output_tokens"),
        )
        self.tokens_per_s = NumberEdit(integer=False, optional=True, placeholder="none — any speed")
        self.add_field(
            inference,
            "&Speed per user (tokens/s):",
            self.tokens_per_s,
            "tokens_per_s_per_user",
            tip("tokens_per_s_per_user"),
        )
        self.ttft = NumberEdit(integer=False, optional=True, placeholder="none — any first-token time")
        self.add_field(
            inference,
            "Time to first &token (s):",
            self.ttft,
            "ttft_s",
            "Target time to first token: the prompt's prefill plus one decode step of the running batch.",
        )
        kv_note = QLabel("The <b>KV cache</b> grows with users × (prompt + output) tokens.")
        kv_note.setToolTip(tip("kv_cache"))
        inference.addRow("", kv_note)

        self.training_box = QGroupBox("Training target")
        training = self.new_form_layout()
        self.training_box.setLayout(training)
        self.train_tokens = NumberEdit(integer=False, optional=True, placeholder="e.g. 1e9 or 10B (optional)")
        self.add_field(training, "Training &tokens:", self.train_tokens, "train_tokens", tip("train_tokens"))
        self.max_hours = NumberEdit(
            integer=False, optional=True, placeholder="no deadline (48, 7d, 1 week)", hours=True
        )
        self.add_field(training, "&Deadline (hours):", self.max_hours, "max_hours", tip("max_hours"))
        # or a dataset read for some epochs (instead of a token budget)
        self.dataset_samples = NumberEdit(integer=True, optional=True, placeholder="or a dataset: samples")
        self.add_field(
            training, "Dataset &samples:", self.dataset_samples, "dataset_samples", tip("dataset_samples")
        )
        self.dataset_tokens = NumberEdit(integer=False, optional=True, placeholder="or its size in tokens")
        self.add_field(
            training, "Dataset t&okens:", self.dataset_tokens, "dataset_tokens", tip("dataset_tokens")
        )
        self.epochs = NumberEdit(integer=False, optional=True, placeholder="1")
        self.add_field(training, "E&pochs:", self.epochs, "epochs", tip("epochs"))
        self.framework = make_combo((label, stack) for stack, label in FRAMEWORK_LABELS.items())
        self.add_field(
            training,
            "Training fra&mework:",
            self.framework,
            "framework",
            "The training framework: its kernels and schedules set how much of the GPU's MFU a step "
            "reaches (resources/efficiencies.json, training_stacks).",
        )

        self.outer_layout.addWidget(self.inference_box)
        self.outer_layout.addWidget(self.training_box)
        self.outer_layout.addStretch(1)

        b = self.binder
        b.combo(self.engine, "engine")
        b.combo(self.framework, "framework")
        for editor, field in (
            (self.users, "users"),
            (self.prompt_tokens, "prompt_tokens"),
            (self.output_tokens, "output_tokens"),
            (self.tokens_per_s, "tokens_per_s_per_user"),
            (self.requests_per_s, "requests_per_s"),
            (self.ttft, "ttft_s"),
            (self.train_tokens, "train_tokens"),
            (self.max_hours, "max_hours"),
            (self.dataset_samples, "dataset_samples"),
            (self.dataset_tokens, "dataset_tokens"),
            (self.epochs, "epochs"),
        ):
            b.number(editor, field)
        form.field_changed.connect(lambda field: field == "task" and self._show_task())
        form.field_changed.connect(lambda field: field == "requests_per_s" and self._show_traffic_kind())
        form.request_loaded.connect(lambda _r: self._show_task())
        form.request_loaded.connect(lambda _r: self._show_traffic_kind())
        form.request_changed.connect(lambda _r: self._show_traffic_kind())
        self._show_task()
        self._show_traffic_kind()

    def _show_traffic_kind(self) -> None:
        """Requests per second replace the concurrent users (Little's law derives them)."""
        by_rate = self._form.value("requests_per_s") is not None
        request = self._form.request
        was_rate = not self.users.isEnabled()
        self.users.setEnabled(not by_rate)
        self.users.setToolTip(
            "Derived from the requests per second by Little's law: each GPU holds the rate × its own "
            "first token and output time, at most this many where it meets the targets (the plan's "
            "Assumptions tab and each option's tooltip give the working)."
            if by_rate
            else tip("users")
        )
        note = derived_users_text(request) if by_rate and request is not None else ""
        self.derived_users.setText(note)
        self.derived_users.setVisible(bool(note))
        if by_rate:
            # The field shows the users the plan is sized for, not the 1 it held (it is disabled, so
            # this text is never read back into the request).
            users = None if request is None else derived_users(request)
            self.users.setText("" if users is None else f"≤ {users:,}")
            self.users.setPlaceholderText("each GPU's own" if users is None else "1")
        elif was_rate:
            self.users.setPlaceholderText("1")
            self.users.setText("")
            self.users.set_value(self._form.value("users"))

    def _show_task(self) -> None:
        training = Task(self._form.value("task")).is_training
        self.inference_box.setVisible(not training)
        self.training_box.setVisible(training)
        self.title = "Training target" if training else "Serving traffic"
