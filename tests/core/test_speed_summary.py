"""The layout search ranks layouts on a summary speed worked out without the step's worded terms
(core/speed.py `LayoutSpeeds.summary`); the option it keeps is then worded in full. The two must give
the very same number, or the search would rank on one speed and show another."""

from __future__ import annotations

import pytest

from gpu_advisor.core.catalog import load_catalog
from gpu_advisor.core.layouts import layout
from gpu_advisor.core.presets import get_preset
from gpu_advisor.core.recommend import gpu_peaks
from gpu_advisor.core.request import PlanRequest
from gpu_advisor.core.speed import DevicePeaks, LayoutSpeeds

LAYOUTS = [
    (tp, pp, dp, zero)
    for tp in (1, 2, 8)
    for pp in (1, 4)
    for dp in (1, 16, 512)
    for zero in (0, 1, 3)
    if dp > 1 or zero == 0
]


@pytest.mark.parametrize(
    "fields",
    [
        dict(model="llama-3.1-405b", task="pretrain", seq_len=8192, grad_checkpointing=True, batch_size=2),
        dict(model="llama-2-7b", task="finetune", seq_len=4096, grad_accumulation_steps=8),
        dict(model="llama-3-8b", task="qlora", seq_len=2048, batch_size=4, train_tokens=1e9),
        dict(model="gpt2-xl", task="pretrain", seq_len=1024, assumptions=dict(pipeline_interleaved=False)),
        dict(model="gpt2-xl", task="pretrain", seq_len=2048, attention="eager", grad_checkpointing=True),
    ],
    ids=[
        "405b zero-3 checkpointed",
        "7b accumulation",
        "qlora token budget",
        "gpt2 plain 1f1b",
        "gpt2 eager",
    ],
)
def test_the_summary_the_search_ranks_by_is_the_speed_the_option_shows(fields):
    catalog = load_catalog(user_file=None)
    req = PlanRequest(**{**fields, "model": get_preset(fields["model"])})
    for gpu_id in ("nvidia-h100-sxm", "nvidia-rtx-4090"):
        peaks, _ = gpu_peaks(catalog.get(gpu_id), req)
        assert peaks is not None
        speeds = LayoutSpeeds(req, peaks)
        for tp, pp, dp, zero in LAYOUTS:
            par = layout(tp, pp, dp, zero)
            summary, detail = speeds.summary(par), speeds.detail(par)
            assert summary.tokens_per_s == detail.tokens_per_s, (gpu_id, par)
            assert summary.time_to_train_s == detail.time_to_train_s, (gpu_id, par)


def test_on_a_host_that_runs_the_kernels_itself_summary_and_detail_agree_too():
    """A CPU (host_serial): host time adds to the GPU's instead of overlapping it."""
    req = PlanRequest(model=get_preset("gpt2-small"), task="pretrain", seq_len=512)
    speeds = LayoutSpeeds(req, DevicePeaks(flops_per_s=1e12, bandwidth_bytes_per_s=5e10, host_serial=True))
    par = layout(1, 1, 1, 0)
    assert speeds.summary(par).tokens_per_s == speeds.detail(par).tokens_per_s
