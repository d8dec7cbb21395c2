"""PlanForm: what the wizard's fields hold, validated by the same pydantic models as the CLI.

The form is the wizard's single source of truth. Widgets write raw values into it (a number that
could not be read arrives as `Invalid` and keeps its text, so nothing typed is lost); the form builds
a `PlanRequest`, reports every validation message keyed by field name, and re-plans 150 ms after
the last change (the planner takes 1-20 ms, the debounce keeps typing smooth).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, QTimer, Signal

from gpu_advisor.core.architecture import ConfigError, ModelSpec, read_hf_config
from gpu_advisor.core.precision import Task
from gpu_advisor.core.presets import presets, resolve_model
from gpu_advisor.core.request import (
    Assumptions,
    PlanRequest,
    describe_error_detail,
)
from gpu_advisor.ui.plan.numbers import Invalid

if TYPE_CHECKING:
    from gpu_advisor.core.precision_row import PrecisionRow
    from gpu_advisor.core.result import Plan

DEFAULT_PRESET = "llama-3-8b"
PLAN_DEBOUNCE_MS = 150
MODEL_KINDS = ("preset", "config", "params")
HUB_KIND = "hub"  # set by the Hub field once its background fetch has finished (set_hub_model)
# Request fields the form edits directly (model, assumptions and trace have their own setters).
REQUEST_FIELDS = tuple(f for f in PlanRequest.model_fields if f not in ("model", "assumptions", "trace"))
# The model validator's only error about "model" once a model is chosen: an encoder asked to generate.
# The fix is the output token count, so the message goes next to that field (a later wizard page).
_CROSS_FIELD_REDIRECT = {"model": "output_tokens"}
# Fields the wizard shows only for training tasks, and only for inference. While the chosen task hides
# a field its value is kept (switching back shows it again) but it does not reach the request when it
# could not be read or when the other task's validators refuse it: an error on a field the page does
# not show would block Next with nothing to fix (review 3, D4).
TRAINING_ONLY_FIELDS = frozenset(
    {
        "optimizer",
        "seq_len",
        "batch_size",
        "grad_accumulation_steps",
        "loss",
        "mixed_precision",
        "grad_checkpointing",
        "global_batch",
        "zero_stage",
        "train_tokens",
        "max_hours",
        "dataset_samples",
        "dataset_tokens",
        "epochs",
        "framework",
    }
)
INFERENCE_ONLY_FIELDS = frozenset(
    {"engine", "users", "requests_per_s", "prompt_tokens", "output_tokens", "tokens_per_s_per_user", "ttft_s"}
)
# Of those, the ones whose value the other task's request refuses: left at their defaults while hidden.
# (The others, e.g. the sequence length an inference trace still reads, keep their value.)
_REFUSED_BY_INFERENCE = frozenset(
    {"zero_stage", "global_batch", "train_tokens", "max_hours", "dataset_samples", "dataset_tokens", "epochs"}
)
# Recipe knobs whose empty value is "Auto": left out of the request, so the planner chooses them
# (core/recipe.py; global batch, gradient checkpointing, ZeRO, TP and PP are None in the request itself).
AUTO_FIELDS = frozenset({"batch_size", "grad_accumulation_steps", "loss"})
_REFUSED_BY_TRAINING = frozenset({"requests_per_s", "ttft_s"})


def hidden_fields(task: Any) -> frozenset[str]:
    """The request fields the wizard hides for `task` (a Task or its value)."""
    return INFERENCE_ONLY_FIELDS if Task(task).is_training else TRAINING_ONLY_FIELDS


def core_plan(request: PlanRequest) -> Plan:
    """core.recommend.plan, imported with the first plan: the window's first page does not need it."""
    from gpu_advisor.core.recommend import plan

    return plan(request)


def validation_messages(exc: ValidationError) -> dict[str, str]:
    """Every (field -> message) in a pydantic error, worded as core words the first one."""
    out: dict[str, str] = {}
    for err in exc.errors():
        field, message = describe_error_detail(err)
        out.setdefault(field, message)
    return out


class PlanForm(QObject):
    """Holds the raw inputs, validates them into a PlanRequest and plans it (debounced)."""

    model_changed = Signal(object)  # ModelSpec | None
    errors_changed = Signal(object)  # dict[str, str]: field name -> message
    request_changed = Signal(object)  # PlanRequest | None (None while any field is invalid)
    plan_ready = Signal(object)  # Plan
    request_loaded = Signal(object)  # PlanRequest set from outside (a file, calibration): refresh fields
    field_changed = Signal(str)  # a field set through the form ('seq_len', 'assumptions.mfu'): refresh
    trace_changed = Signal(object)  # TraceResult | None: a trace of the current inputs, or none

    def __init__(
        self,
        planner: Callable[[PlanRequest], Plan] = core_plan,
        defaults: Mapping[str, Any] | None = None,
        assumption_defaults: Mapping[str, Any] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._planner = planner
        base = PlanRequest(model=presets()[DEFAULT_PRESET].spec)
        self._values: dict[str, Any] = {f: getattr(base, f) for f in REQUEST_FIELDS}
        self._values.update(dict.fromkeys(AUTO_FIELDS))  # Auto: the planner's
        self._values.update(defaults or {})
        self._assumptions: dict[str, Any] = dict(assumption_defaults or {})
        self._model_source: tuple[str, Any] = ("preset", DEFAULT_PRESET)
        self._model: ModelSpec | None = base.model
        self._model_error: str | None = None
        self._model_config: dict[str, Any] | None = None  # a Hub model's config.json, for the trace
        self._model_exact = True  # the formulas count the model's architecture exactly
        self._trace: Any = None  # core.trace.TraceResult of the current inputs, or None
        self._errors: dict[str, str] = {}
        self._request: PlanRequest | None = None
        self._plan: Plan | None = None
        self._planned_request: PlanRequest | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(PLAN_DEBOUNCE_MS)
        self._timer.timeout.connect(self.plan_now)
        self._validate()

    # ---- reading ----------------------------------------------------------------------------------
    @property
    def request(self) -> PlanRequest | None:
        """The validated request, or None while something is invalid."""
        return self._request

    def precision_table(self) -> tuple[PrecisionRow, ...]:
        """The current request at each side-by-side precision (empty while the inputs are invalid)."""
        from gpu_advisor.core.precision_table import precision_table

        return () if self._request is None else precision_table(self._request, self.answer_users())

    def answer_users(self) -> int | None:
        """The users the current plan's answer holds for a requests-per-second request (Little's law
        at its own speed); None without one, or while the plan is of other inputs."""
        plan = self.plan
        if plan is None or plan.best is None or plan.request != self._request:
            return None
        return plan.best.users_in_flight

    @property
    def plan(self) -> Plan | None:
        """The latest plan (of the latest valid request planned so far)."""
        return self._plan

    @property
    def errors(self) -> dict[str, str]:
        """Current validation messages by field ('seq_len', 'assumptions.mfu', 'model', ...)."""
        return dict(self._errors)

    @property
    def model(self) -> ModelSpec | None:
        return self._model

    @property
    def model_source(self) -> tuple[str, Any]:
        """('preset', id), ('config', path), ('params', text) or ('hub', 'ORG/NAME')."""
        return self._model_source

    @property
    def model_config(self) -> dict[str, Any] | None:
        """The Hub model's config.json (None for presets, files and counts)."""
        return self._model_config

    @property
    def model_exact(self) -> bool:
        """False when the formulas only approximate the model (the trace measures it)."""
        return self._model_exact

    @property
    def trace(self) -> Any:
        """The trace of the current inputs (core.trace.TraceResult), or None."""
        return self._trace

    @property
    def hidden_fields(self) -> frozenset[str]:
        """Request fields the chosen task hides: their values are kept, not validated."""
        return hidden_fields(self._values["task"])

    def value(self, field: str) -> Any:
        """The raw value of a request field (possibly an Invalid)."""
        return self._values[field]

    def assumption(self, name: str) -> Any:
        """The raw value of an assumption: the user's, or the default."""
        return self._assumptions.get(name, Assumptions.model_fields[name].default)

    # ---- writing ----------------------------------------------------------------------------------
    def set_model_source(self, kind: str, value: Any) -> None:
        """Choose the model by preset id, config.json path or parameter count text."""
        if kind not in MODEL_KINDS:
            raise ValueError(f"unknown model source {kind!r}")
        self._model_source = (kind, value)
        self._model_config, self._model_exact = None, True
        spec: ModelSpec | None = None
        error: str | None = None
        if value in (None, ""):
            error = {
                "preset": "choose a model from the list",
                "config": "choose a config.json file",
                "params": "enter a parameter count (examples: 7B, 350M, 7e9)",
            }[kind]
        else:
            try:
                if kind == "config":
                    spec, self._model_config, self._model_exact = read_hf_config(str(value))
                else:
                    spec = resolve_model(**{kind: value})
            except ConfigError as exc:
                error = str(exc).removeprefix("model: ").removeprefix("params: ")
        self._model, self._model_error = spec, error
        self.model_changed.emit(spec)
        self._validate()

    def set_hub_pending(self, hub_id: str, message: str | None) -> None:
        """A Hub id being fetched (message: 'fetching…') or that failed (message: why): no model yet."""
        self._model_source = (HUB_KIND, hub_id)
        self._model, self._model_error = None, message or f"fetch {hub_id} first"
        self._model_config, self._model_exact = None, True
        self.model_changed.emit(None)
        self._validate()

    def set_hub_model(self, hub_id: str, spec: ModelSpec, config: dict[str, Any], exact: bool) -> None:
        """A fetched Hub model (hub.HubModel's spec, config.json and whether it is counted exactly)."""
        self._model_source = (HUB_KIND, hub_id)
        self._model, self._model_error = spec, None
        self._model_config, self._model_exact = config, exact
        self.model_changed.emit(spec)
        self._validate()

    def set_trace(self, trace: Any) -> None:
        """Use a trace of the current inputs as the memory basis (None: the formulas again)."""
        self._trace = trace
        self.trace_changed.emit(trace)
        self._validate()

    def set_field(self, name: str, value: Any) -> None:
        """Set one request field (a value, None for 'auto'/'none', or Invalid with its message)."""
        if name not in self._values:
            raise KeyError(f"unknown request field {name!r}")
        if self._values[name] == value and type(self._values[name]) is type(value):
            return
        self._values[name] = value
        self.field_changed.emit(name)
        self._validate()

    def set_assumption(self, name: str, value: Any) -> None:
        """Set one planning assumption (MFU, overheads, ...); the plan updates."""
        if name not in Assumptions.model_fields:
            raise KeyError(f"unknown assumption {name!r}")
        self._assumptions[name] = value
        self.field_changed.emit(f"assumptions.{name}")
        self._validate()

    def reset_assumptions(self, defaults: Mapping[str, Any] | None = None) -> None:
        """Back to the documented defaults (or to `defaults`, e.g. a calibrated MFU)."""
        self._assumptions = dict(defaults or {})
        for name in Assumptions.model_fields:
            self.field_changed.emit(f"assumptions.{name}")
        self._validate()

    def load_request(self, request: PlanRequest) -> None:
        """Put a whole request into the form (reopened plan); widgets refresh from request_loaded."""
        self._values = {f: getattr(request, f) for f in REQUEST_FIELDS}
        for name in AUTO_FIELDS - request.model_fields_set:
            self._values[name] = None  # left to the planner when the plan was made: Auto again
        self._assumptions = request.assumptions.model_dump()
        self._trace = request.trace
        self._model_config, self._model_exact = None, not (request.model.guessed and request.model.notes)
        preset_id = next((k for k, p in presets().items() if p.spec == request.model), None)
        self._model_source = ("preset", preset_id) if preset_id else ("spec", request.model.name)
        self._model, self._model_error = request.model, None
        self.model_changed.emit(request.model)
        self._validate()
        self.request_loaded.emit(request)

    def load_planner(self) -> None:
        """Import core's planner now (the first plan_now() would), e.g. in a step of its own before it."""
        if self._planner is core_plan:
            import gpu_advisor.core.recommend  # noqa: F401

    def cancel_pending_plan(self) -> None:
        """Drop the debounced plan of the inputs so far; plan_now() plans them when the caller chooses
        (the main window: once it is on screen, not while it is being laid out and painted)."""
        self._timer.stop()

    def plan_now(self) -> Plan | None:
        """Plan the current request immediately (cancelling the debounce); None while invalid."""
        self._timer.stop()
        request = self._request
        if request is None:
            return None
        if request == self._planned_request and self._plan is not None:
            return self._plan
        try:
            result = self._planner(request)
        except (ValueError, KeyError) as exc:  # a combination the planner rejects: show it, keep going
            self._set_errors({**self._errors, "request": str(exc)})
            return None
        self._plan, self._planned_request = result, request
        self.plan_ready.emit(result)
        return result

    # ---- validation -------------------------------------------------------------------------------
    def _validate(self) -> None:
        errors: dict[str, str] = {}
        data: dict[str, Any] = {}
        hidden = self.hidden_fields
        refused = _REFUSED_BY_TRAINING if Task(self._values["task"]).is_training else _REFUSED_BY_INFERENCE
        for name, value in self._values.items():
            if name in hidden and (isinstance(value, Invalid) or name in refused):
                continue  # kept for when the task shows it again; the request takes the default
            if name in AUTO_FIELDS and value is None:
                continue  # Auto: the planner's choice
            if isinstance(value, Invalid):
                errors[name] = value.message
            else:
                data[name] = value
        assumptions: dict[str, Any] = {}
        for name, value in self._assumptions.items():
            if isinstance(value, Invalid):
                errors[f"assumptions.{name}"] = value.message
            else:
                assumptions[name] = value
        data["assumptions"] = assumptions
        if self._model_error is not None:
            errors["model"] = self._model_error
        request: PlanRequest | None = None
        model = self._model or presets()[DEFAULT_PRESET].spec  # stand-in to check the other fields
        if self._trace is not None and not self._trace_fits(data, model):
            self._trace = None  # made for other inputs: the formulas again until traced anew
            self.trace_changed.emit(None)
        if self._trace is not None:
            data["trace"] = self._trace
        try:
            request = PlanRequest.model_validate({**data, "model": model})
        except ValidationError as exc:
            field_level = self._model is not None or all(e["loc"] for e in exc.errors())
            if field_level:
                for field, message in validation_messages(exc).items():
                    if self._model is not None:
                        field = _CROSS_FIELD_REDIRECT.get(field, field)
                    errors.setdefault(field, message)
        if errors:
            request = None
        self._set_errors(errors)
        if request != self._request:
            self._request = request
            self.request_changed.emit(request)
            if request is not None:
                self._timer.start()

    def _trace_fits(self, data: dict[str, Any], model: ModelSpec) -> bool:
        if self._model is None or self._trace.model != model.name:
            return False
        try:
            PlanRequest.model_validate({**data, "model": model, "trace": self._trace})
        except ValidationError as exc:
            return not any("trace:" in str(e.get("msg", "")) for e in exc.errors())
        return True

    def _set_errors(self, errors: dict[str, str]) -> None:
        if errors != self._errors:
            self._errors = errors
            self.errors_changed.emit(dict(errors))
