"""The launcher hands the options to every rank as flags; they come back unchanged."""

from __future__ import annotations

import pytest

from gpu_advisor.bench.distributed.options import DistributedOptions
from gpu_advisor.cli import build_parser
from gpu_advisor.cli.bench_distributed import options_from_args
from gpu_advisor.core.errors import UserInputError


@pytest.mark.parametrize(
    "options",
    [
        DistributedOptions(),
        DistributedOptions.toy_run(),
        DistributedOptions(
            device="cpu",
            mode="quick",
            phases=("collectives", "scaling"),
            ops=("all_reduce", "broadcast"),
            max_message_bytes=2**20,
            op_budget_s=2.5,
            timeout_s=45,
            interval_s=0.3,
        ),
    ],
)
def test_options_survive_the_trip_through_the_command_line(options):
    args = build_parser().parse_args(["bench", "--distributed", *options.to_argv()])
    assert options_from_args(args) == options


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--device", "cuda:1"], "--device: 'cuda:1': a cluster run takes auto, cpu or cuda"),
        (["--collectives", "all_to_all"], "--collectives: "),
        (["--timeout", "0"], "--timeout: "),
    ],
)
def test_bad_cluster_flags_name_the_flag(argv, message):
    args = build_parser().parse_args(["bench", "--distributed", *argv])
    with pytest.raises(UserInputError, match=message):
        options_from_args(args)
