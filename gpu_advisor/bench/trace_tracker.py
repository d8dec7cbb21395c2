"""PyTorch's MemTracker, extended to say what the bytes at the peak were and which module made them.

`torch.distributed._tools.mem_tracker.MemTracker` (a TorchDispatchMode) sees every tensor storage an
operator creates and every one that dies; under FakeTensorMode it does so with no real memory. This
subclass keeps, besides its running totals by reference type, running totals by this project's
categories (core.trace.CATEGORIES) and by top-level module, and snapshots both at the highest point of
each phase (forward, backward, optimizer step; prefill, decode). Its per-module peak bookkeeping
(a loop over every module after every operator, which made a 70B trace take minutes) is replaced by
these cheaper totals. One tracker traces one iteration (a MemTracker limitation); `next_iteration`
clears its module records between the prefill and the decode step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch.distributed._tools.common_utils import get_untyped_storages
from torch.distributed._tools.mem_tracker import MemTracker, _MemRefType, _UpdateType

from gpu_advisor.core.trace import CATEGORIES, PHASE_BACKWARD, PHASE_FORWARD, PHASE_STEP

OUTSIDE = "(outside modules)"
OPTIMIZER = "(optimizer step)"
_TOTAL = "Total"

_CATEGORY_OF = {
    _MemRefType.PARAM: "parameters",
    _MemRefType.BUFFER: "parameters",
    _MemRefType.GRAD: "gradients",
    _MemRefType.ACT: "activations",
    _MemRefType.TEMP: "temporaries",
    _MemRefType.OPT: "optimizer_state",
    _MemRefType.OTH: "inputs",
}


class PhaseSnapshot:
    """The highest total seen in one phase, with its breakdowns."""

    __slots__ = ("by_category", "by_group", "moment", "total")

    def __init__(self) -> None:
        self.total = -1
        self.by_category: dict[str, int] = {}
        self.by_group: dict[str, int] = {}
        self.moment = ""


class CategoryTracker(MemTracker):
    """MemTracker with running totals by category and by top-level module group."""

    def __init__(self, groups: Iterable[str]) -> None:
        super().__init__()
        # Longest first, so 'model.layers' wins over 'model' for 'model.layers.3.mlp'.
        self._groups = sorted(groups, key=len, reverse=True)
        self._group_of: dict[str, str | None] = {}
        self.by_category: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
        self.by_group: dict[str, int] = {}
        self.phase_name: str | None = None  # set by the caller (prefill, decode); else from the tracker
        self.phases: dict[str, PhaseSnapshot] = {}
        self._last_op = ""

    # ---- what is being tracked -------------------------------------------------------------------
    def tag(self, tensors: Iterable[torch.Tensor | None], category: str, group: str | None = None) -> None:
        """Track `tensors` (created before the trace) as `category` (e.g. kv_cache, optimizer_state)."""
        for tensor in tensors:
            if tensor is None:
                continue
            for winfo in self._update_and_maybe_create_winfos(tensor, _MemRefType.OTH):
                self._move(winfo, category, group if group is not None else getattr(winfo, "group", OUTSIDE))

    def tag_module_groups(self, module: torch.nn.Module, optimizer: Any | None = None) -> None:
        """Attribute parameters (and their optimizer state) to the group of the module that owns them."""
        for name, param in module.named_parameters(remove_duplicate=True):
            group = self.group_of(name.rpartition(".")[0]) or OUTSIDE
            tensors = [param]
            if optimizer is not None and param in optimizer.state:
                tensors += [v for v in optimizer.state[param].values() if isinstance(v, torch.Tensor)]
            for tensor in tensors:
                for st in get_untyped_storages(tensor):
                    found = self._WINFO.get(st)
                    if found is not None:
                        self._move(found[0], getattr(found[0], "category", "parameters"), group)
        for name, buffer in module.named_buffers():
            group = self.group_of(name.rpartition(".")[0]) or OUTSIDE
            for st in get_untyped_storages(buffer):
                found = self._WINFO.get(st)
                if found is not None:
                    self._move(found[0], "parameters", group)

    def group_of(self, fqn: str) -> str | None:
        """The top-level group a module name belongs to (None outside every group)."""
        if fqn not in self._group_of:
            self._group_of[fqn] = next((g for g in self._groups if fqn == g or fqn.startswith(g + ".")), None)
        return self._group_of[fqn]

    def _current_group(self) -> str:
        if self._in_opt:
            return OPTIMIZER
        best: str | None = None
        for fqn in self._mod_tracker.parents:
            group = self.group_of(_relative(fqn))
            if group is not None and (best is None or len(group) > len(best)):
                best = group
        return best or OUTSIDE

    def _innermost_module(self) -> str:
        """The deepest module running, without the root's class name ('' for the root itself)."""
        parents = [p for p in self._mod_tracker.parents if p != "Global"]
        if not parents:
            return ""
        return _relative(max(parents, key=lambda p: (p.count("."), len(p))))

    def _move(self, winfo: Any, category: str, group: str) -> None:
        """Re-file an already counted storage under another category and group."""
        size = winfo.mem_consumed
        old_cat, old_group = getattr(winfo, "category", None), getattr(winfo, "group", None)
        if old_cat is not None:
            self.by_category[old_cat] -= size
            self.by_group[old_group] -= size
        winfo.category, winfo.group = category, group
        self.by_category[category] = self.by_category.get(category, 0) + size
        self.by_group[group] = self.by_group.get(group, 0) + size

    # ---- MemTracker's bookkeeping, extended ----------------------------------------------------------
    def _update_snap(self, u_type, winfo, old_mem_consumed=None, old_reftype=None) -> None:
        super()._update_snap(u_type, winfo, old_mem_consumed, old_reftype)
        if u_type == _UpdateType.ADD:
            if getattr(winfo, "category", None) is None:
                category = _CATEGORY_OF[winfo.reftype]
                if winfo.reftype == _MemRefType.OPT and self._in_opt:
                    category = "temporaries"  # allocated by the step itself: update scratch
                winfo.category, winfo.group = None, None
                self._move(winfo, category, self._current_group())
            return
        if getattr(winfo, "category", None) is None:
            return
        if u_type == _UpdateType.DEL:
            self.by_category[winfo.category] -= winfo.mem_consumed
            self.by_group[winfo.group] -= winfo.mem_consumed
        elif u_type == _UpdateType.SIZE:
            change = winfo.mem_consumed - old_mem_consumed
            self.by_category[winfo.category] += change
            self.by_group[winfo.group] += change
        elif u_type == _UpdateType.REF and winfo.reftype in (_MemRefType.GRAD, _MemRefType.PARAM):
            self._move(winfo, _CATEGORY_OF[winfo.reftype], winfo.group)

    def _update_peak_stats(self, peak_state) -> None:
        total = sum(snap[_TOTAL] for snap in self._curr_mem_snap.values())
        phase = self.phase_name or (
            PHASE_STEP if self._in_opt else PHASE_BACKWARD if self._mod_tracker.is_bw else PHASE_FORWARD
        )
        snap = self.phases.get(phase)
        if snap is None:
            snap = self.phases[phase] = PhaseSnapshot()
        if total > snap.total:
            snap.total = total
            snap.by_category = {k: v for k, v in self.by_category.items() if v}
            snap.by_group = {k: v for k, v in self.by_group.items() if v}
            where = display_name(self._innermost_module())
            inside = where or ("the optimizer" if self._in_opt else "the top-level module (loss, head)")
            snap.moment = f"{phase}, in {inside} ({self._last_op})"

    def _track_module_params_and_buffers(self, module, install_grad_hooks=True):
        # MemTracker hooks every parameter's gradient, which fails on frozen ones (a LoRA base): hook
        # only those that train.
        memory = super()._track_module_params_and_buffers(module, install_grad_hooks=False)
        if install_grad_hooks:
            for param in module.parameters():
                if param.requires_grad and self._param_to_grad_hook_handles.get(param) is None:
                    self._param_to_grad_hook_handles[param] = (
                        param.register_hook(self._grad_seen),
                        param.register_post_accumulate_grad_hook(lambda p: self._grad_seen(p.grad)),
                    )
        return memory

    def _grad_seen(self, grad: torch.Tensor) -> None:
        self._update_and_maybe_create_winfos(grad, _MemRefType.GRAD)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self._last_op = getattr(func, "__name__", str(func)).split(".")[0]
        return super().__torch_dispatch__(func, types, args, kwargs)

    def next_iteration(self) -> None:
        """Let the root module run again under this tracker (prefill, then decode)."""
        self.reset_mod_stats()


def _relative(fqn: str) -> str:
    """ModTracker names modules '<RootClass>.model.layers.0'; groups are named from the root down."""
    return fqn.partition(".")[2]


def display_name(fqn: str) -> str:
    """A module name as in the base model (peft's wrapper prefix dropped)."""
    return fqn.removeprefix("base_model.model.")
