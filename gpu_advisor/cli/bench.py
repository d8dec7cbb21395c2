"""`gpu-advisor bench`, `monitor` and `compare`: argparse wiring over gpu_advisor.bench.

Registered by gpu_advisor.cli (`add_parsers`). Each command returns its exit code; a user error raises
UserInputError naming the flag, file or field, which gpu_advisor.cli prints as one line
"gpu-advisor COMMAND: error: ..." with exit code 2 (never a traceback).
Nothing here imports torch: `bench` loads it when the run starts.
"""

from __future__ import annotations

import argparse
import errno
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from gpu_advisor.cli import bench_distributed
from gpu_advisor.cli.fields import flag_error, given_flags
from gpu_advisor.cli.signals import StopOnSignals, shell_exit_code
from gpu_advisor.core.errors import UserInputError
from gpu_advisor.core.files import check_writable
from gpu_advisor.core.units import format_duration, parse_bytes

# BenchOptions field -> the flag a user typed (and that sets it).
_FLAGS = {
    "device": "--device",
    "workloads": "--workloads",
    "model": "--model",
    "duration_s": "--duration",
    "interval_s": "--interval",
    "dataloader_workers": "--workers",
    "memory_cap_bytes": "--memory-cap",
    "precision": "--precision",
}


def parse_size(text: str) -> int:
    """'2GiB', '512MB', '1e9' -> bytes (core.units.parse_bytes, as an argparse type)."""
    try:
        return parse_bytes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_interval_argument(parser: argparse.ArgumentParser) -> None:
    """`--interval S`; None when not given, so the run takes the telemetry sampler's default."""
    parser.add_argument("--interval", type=float, metavar="S", help="telemetry interval (0.1-10 s)")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register bench, monitor and compare on the main parser's subcommands."""
    p = sub.add_parser(
        "bench",
        help="run PyTorch benchmarks on this machine and check the planner's predictions",
        description="Run matmul, memory bandwidth, training, inference, data-loader and "
        "host-to-device workloads with telemetry; print a table and write a results file.",
    )
    p.add_argument("--device", help="auto (default), cpu, cuda or cuda:N")
    p.add_argument(
        "--workloads",
        metavar="LIST",
        help="comma-separated subset of matmul,bandwidth,train,inference,dataloader,transfer",
    )
    p.add_argument(
        "--model",
        metavar="PRESET|ORG/NAME",
        help="benchmark a preset (see `gpu-advisor catalog --models`) or a Hugging Face model's shape "
        "(random weights); default: sized to the device",
    )
    p.add_argument("--quick", action="store_true", help="smaller sizes, fewer steps (CPU: under 2 minutes)")
    p.add_argument("--duration", type=float, metavar="S", help="timed seconds per workload variant")
    add_interval_argument(p)
    p.add_argument("--workers", type=int, metavar="N", help="DataLoader workers (default: 0 on CPU)")
    p.add_argument(
        "--memory-cap",
        type=parse_size,
        metavar="SIZE",
        help="treat more than SIZE (e.g. 4GiB) as out of memory (default on CPU: 80%% of free RAM)",
    )
    p.add_argument(
        "--precision",
        choices=["fp32", "bf16"],
        help="train/inference precision (default: fp32 on CPU, bf16 on GPU)",
    )
    p.add_argument("--json", metavar="FILE", help="write the gpu-advisor/bench@1 results file")
    p.add_argument(
        "--dataset-samples",
        type=int,
        metavar="N",
        help="project the time per epoch over N samples of --seq-len tokens from the measured training speed",
    )
    p.add_argument("--seq-len", type=int, metavar="S", help="tokens per sample, with --dataset-samples")
    bench_distributed.add_arguments(p, parse_size)  # --distributed, --nproc N and their flags
    p.set_defaults(func=cmd_bench)

    m = sub.add_parser(
        "monitor",
        help="run your own command and watch its CPU, RAM and GPUs",
        description="Run COMMAND, sample its process tree and the GPUs while it runs, then print "
        "a summary and a diagnosis. Exits with the command's exit code.",
        usage="gpu-advisor monitor [--interval S] [--grace S] [--json FILE] -- COMMAND [ARGS...]",
    )
    add_interval_argument(m)
    m.add_argument(
        "--grace",
        type=float,
        metavar="S",
        help="after Ctrl-C or SIGTERM, seconds the command gets to exit before it is killed (default 10)",
    )
    m.add_argument("--json", metavar="FILE", help="write the gpu-advisor/monitor@1 file")
    # Not dest "command": that holds the subcommand's name, which error messages print.
    m.add_argument("argv", nargs=argparse.REMAINDER, metavar="COMMAND", help="the command, after --")
    m.set_defaults(func=cmd_monitor)

    c = sub.add_parser(
        "compare",
        help="compare benchmark results files side by side",
        description="Print several gpu-advisor/bench@1 files side by side, with the catalogue's "
        "figures for the same GPUs, each other file's change against a baseline, and which way is "
        "better (as the app's Compare view).",
    )
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument(
        "--baseline",
        metavar="FILE",
        help="the file the others are compared with (one of FILE, by path or name; default: the first)",
    )
    c.set_defaults(func=cmd_compare)


def check_output_path(path: str | None) -> None:
    """Before a long run: fail now if `--json FILE` could not be written at the end."""
    if path is None:
        return
    try:
        check_writable(Path(path).expanduser())
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise UserInputError(
                f"--json: folder {Path(path).expanduser().resolve().parent} does not exist"
            ) from None
        raise UserInputError(f"--json: {path}: cannot write ({exc.strerror or exc})") from None


def _options(args: argparse.Namespace):
    from pydantic import ValidationError

    from gpu_advisor.bench.options import BenchOptions

    fields = {**given_flags(args, _FLAGS), "quick": args.quick, "toy": args.toy}
    from gpu_advisor.hub import looks_like_hub_id

    if looks_like_hub_id(args.model):
        from gpu_advisor.bench.options import UnsupportedModel, check_buildable
        from gpu_advisor.cli.models import choose_model

        spec = choose_model(args.model).spec  # HubError: one line
        try:
            check_buildable(spec)
        except UnsupportedModel as exc:
            raise UserInputError(f"--model: {str(exc).removeprefix('model: ')}") from None
        fields["model_spec"] = spec
    try:
        return BenchOptions.model_validate(fields)
    except ValidationError as exc:
        raise flag_error(exc, _FLAGS) from None


def _check_dataset(args: argparse.Namespace) -> None:
    if (args.dataset_samples is None) != (args.seq_len is None):
        raise UserInputError("--dataset-samples: give it with --seq-len (tokens per sample)")
    for flag, value in (("--dataset-samples", args.dataset_samples), ("--seq-len", args.seq_len)):
        if value is not None and value < 1:
            raise UserInputError(f"{flag}: must be at least 1")


def _with_epoch_projection(report, args: argparse.Namespace):
    """The report with `options.epoch_projection` when --dataset-samples asked for one."""
    if args.dataset_samples is None:
        return report
    from gpu_advisor.bench.epochs import project_epoch

    projection = project_epoch(report, args.dataset_samples, args.seq_len)
    if projection is None:
        return report
    options = {**report.options, "epoch_projection": projection.model_dump()}
    return report.model_copy(update={"options": options})


def _progress_printer() -> Callable[[object], None]:
    tty = sys.stderr.isatty()
    last = {"workload": None}

    def show(event: object) -> None:
        workload, fraction, message, eta = (
            getattr(event, k) for k in ("workload", "fraction", "message", "eta_s")
        )
        if tty:
            eta_text = f", about {format_duration(eta)} left" if eta else ""
            sys.stderr.write(f"\r\x1b[2K[{fraction:4.0%}] {message}{eta_text}")
            sys.stderr.flush()
        elif workload != last["workload"]:
            print(f"[{fraction:4.0%}] {workload} ...", file=sys.stderr, flush=True)
        last["workload"] = workload

    return show


def cmd_bench(args: argparse.Namespace) -> int:
    if bench_distributed.wants_cluster(args):
        return bench_distributed.cmd_cluster(
            args, progress_printer=_progress_printer, check_output_path=check_output_path
        )
    options = _options(args)
    check_output_path(args.json)
    _check_dataset(args)
    from gpu_advisor.bench.runner import run_benchmark

    stop = threading.Event()
    finished = threading.Event()
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            outcome["report"] = run_benchmark(options, on_progress=_progress_printer(), stop=stop)
        except BaseException as exc:  # handed to the main thread, which reports it
            outcome["error"] = exc
        finally:
            finished.set()

    # The run happens on a worker thread (as in the GUI); Ctrl-C or SIGTERM only set the stop event,
    # and the main thread waits on an Event rather than in join() (see cli/signals.py), so the
    # finished workloads are still printed and saved.
    with StopOnSignals(stop) as signals:
        worker = threading.Thread(target=work, name="bench-run")
        worker.start()
        while not finished.wait(0.2):
            pass
        worker.join()
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[2K")
        error = outcome.get("error")
        if error is not None:
            raise error  # BenchError is a UserInputError (one line); anything else is a bug: let it be seen
        report = _with_epoch_projection(outcome["report"], args)
        if signals.exit_code is not None and not report.partial:
            report = report.model_copy(update={"partial": True})
        print(bench_text(report))
        if args.json:
            try:
                report.save(args.json)
            except OSError as exc:
                raise UserInputError(f"{args.json}: cannot write ({exc.strerror or exc})") from None
            print(f"\nResults written to {args.json}")
    return signals.exit_code or 0


def cmd_monitor(args: argparse.Namespace) -> int:
    from gpu_advisor.bench.monitor import GRACE_S, run_monitor
    from gpu_advisor.telemetry.sampler import DEFAULT_INTERVAL_S, MAX_INTERVAL_S, MIN_INTERVAL_S
    from gpu_advisor.wording.command import monitor_lines

    command = list(args.argv)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UserInputError("give the command to run after --, e.g. gpu-advisor monitor -- python train.py")
    interval_s = DEFAULT_INTERVAL_S if args.interval is None else args.interval
    if not MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S:
        raise UserInputError(f"--interval: must be between {MIN_INTERVAL_S} and {MAX_INTERVAL_S} seconds")
    grace_s = GRACE_S if args.grace is None else args.grace
    if not 0 <= grace_s <= 3600:
        raise UserInputError("--grace: must be between 0 and 3600 seconds")
    check_output_path(args.json)
    report = run_monitor(command, interval_s=interval_s, grace_s=grace_s)  # MonitorError: exit 2
    print("\n".join(monitor_lines(report)), file=sys.stderr)
    if args.json:
        try:
            report.save(args.json)
        except OSError as exc:
            raise UserInputError(f"{args.json}: cannot write ({exc.strerror or exc})") from None
        print(f"Telemetry written to {args.json}", file=sys.stderr)
    if report.interrupted in ("SIGINT", "SIGTERM"):  # we were interrupted: say so, as a shell would
        return shell_exit_code(getattr(signal, report.interrupted))
    code = report.exit_code if report.exit_code is not None else 1
    return code if code >= 0 else shell_exit_code(-code)  # a command killed by a signal has -signum


def cmd_compare(args: argparse.Namespace) -> int:
    from gpu_advisor.bench.compare import compare_files

    baseline = _baseline_index(args.files, args.baseline)
    print(compare_text(compare_files(args.files), baseline))  # ResultsFileError: one line, exit 2
    return 0


def _baseline_index(files: list[str], baseline: str | None) -> int:
    """Which of `files` --baseline names (by the path given or its file name); 0 without one."""
    if baseline is None:
        return 0
    for i, path in enumerate(files):
        if baseline in (path, Path(path).name):
            return i
    raise UserInputError(f"--baseline: {baseline} is not one of the files compared")


def bench_text(report) -> str:
    """The summary `gpu-advisor bench` prints: the run, the results, the prediction check, the diagnosis."""
    from gpu_advisor.wording import results as words
    from gpu_advisor.wording.text import text_table

    title = f"GPU Advisor benchmark on {words.device_text(report.device)}"
    lines = [title, "=" * len(title), *words.run_lines(report), ""]
    rows = words.result_rows(report)
    cells = [(r.workload, r.status, r.time, r.numbers) for r in rows]
    lines += text_table(words.RESULT_HEADERS, cells, (False, False, True, False))
    lines.append(words.memory_note(report))
    projection = report.options.get("epoch_projection")
    if projection:
        from gpu_advisor.bench.epochs import EpochProjection

        lines.append(words.epoch_projection_text(EpochProjection.model_validate(projection)))
    checks = words.prediction_rows(report)
    if checks:
        lines += ["", "Prediction check (gpu_advisor.core.predict against this run):"]
        cells = [
            (
                c.workload,
                c.step_measured,
                c.step_predicted,
                c.step_error,
                c.memory_measured,
                c.memory_predicted,
                c.memory_error,
            )
            for c in checks
        ]
        headers = [
            h for i, h in enumerate(words.PREDICTION_HEADERS) if i != 1
        ]  # status is in the table above
        lines += text_table(headers, cells, (False, *[True] * 6))
        lines.append(words.ERROR_MEANING)
        if caveat := words.prediction_caveat(report):
            lines.append(caveat)
        lines += [f"  basis: {b}" for b in words.prediction_bases(report)]
    diagnosis = words.diagnosis_rows(report)
    if diagnosis:
        lines += ["", "Diagnosis:"]
        for d in diagnosis:
            lines.append(f"  {d.workload}: {d.finding}")
            if d.severity in ("warning", "critical") and d.fix:
                lines.append(f"      fix: {d.fix}")
    return "\n".join(lines)


def compare_text(comparison, baseline: int = 0) -> str:
    """Plain text with aligned columns; catalogue lines indented under the row they belong to; then each
    other file against the `baseline`-th ('+35% (better)') and which way is better, as in the GUI."""
    from gpu_advisor.wording.compare import better_text, compare_lines, relative_text
    from gpu_advisor.wording.text import text_table

    names = list(comparison.names)
    others = [i for i in range(len(names)) if i != baseline]
    rows = []
    for line in compare_lines(comparison):
        cells = [("  " if line.reference else "") + line.label, *line.cells]
        if len(names) > 1:
            row = None if line.reference else comparison.row(line.label)
            cells += (
                [relative_text(row, i, baseline) for i in others] + [better_text(row)]
                if row is not None
                else [""] * (len(others) + 1)
            )
        rows.append(tuple(cells))
    headers = ["", *names]
    if len(names) > 1:
        headers += [f"{names[i]} vs {names[baseline]}" for i in others] + ["better"]
    numeric = [False, *[True] * (len(headers) - 1)]
    if len(names) > 1:
        numeric[-1] = False  # "higher is better" reads as words
    return "\n".join(text_table(tuple(headers), rows, numeric))
