"""The results file: round trip, atomic writes, and clear messages for bad files."""

from __future__ import annotations

import json

import pytest

from gpu_advisor.bench import SCHEMA, BenchReport, ResultsFileError, load_report, save_report
from gpu_advisor.bench.results import DeviceInfo, Machine, PredictionCheck, TelemetryRecord, WorkloadResult


def _report(**overrides) -> BenchReport:
    fields = {
        "created": "2026-01-01T00:00:00+00:00",
        "app_version": "test",
        "machine": Machine(cpu_model="Test CPU", physical_cores=2, torch_version="2.13.0"),
        "device": DeviceInfo(kind="cpu", name="Test CPU", torch_threads=2),
        "duration_s": 1.5,
        "results": [
            WorkloadResult(workload="matmul", name="matmul fp32", status="ok", metrics={"flops_per_s": 1e11}),
            WorkloadResult(workload="transfer", name="transfer", status="unsupported", notes=["CPU"]),
        ],
        "telemetry": TelemetryRecord(
            interval_s=0.5,
            samples=[{"t_s": 0.0, "wall_time": 1.0, "host": {"cpu_pct": 50.0}, "gpus": []}],
        ),
    }
    fields.update(overrides)
    return BenchReport(**fields)


def test_round_trip(tmp_path):
    path = tmp_path / "r.json"
    report = _report()
    save_report(report, path)
    data = json.loads(path.read_text())
    assert data["schema"] == SCHEMA
    assert load_report(path) == report
    assert load_report(path).telemetry.samples[0].host.cpu_pct == 50.0


def test_prediction_error_is_relative_to_the_measurement():
    check = PredictionCheck.of(110.0, 100.0)
    assert check.error_pct == pytest.approx(10.0)
    assert PredictionCheck.of(None, 100.0).error_pct is None
    assert PredictionCheck.of(5.0, None).error_pct is None


def test_nan_metrics_are_written_as_null(tmp_path):
    report = _report(
        results=[WorkloadResult(workload="matmul", name="m", status="ok", metrics={"x": float("nan")})]
    )
    save_report(report, tmp_path / "r.json")
    assert load_report(tmp_path / "r.json").results[0].metrics["x"] is None


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "r.json"
    path.write_text("old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("gpu_advisor.core.files.os.replace", broken_replace)
    with pytest.raises(OSError):
        save_report(_report(), path)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("results"), "results: missing"),
        (lambda d: d["results"][0].update(status="great"), "results.0.status"),
        (lambda d: d["results"][1].update(workload="sorting"), "results.1.workload"),
        (lambda d: d["device"].update(torch_threads=0), "device.torch_threads"),
        (lambda d: d["telemetry"]["samples"].append({"host": {}}), "telemetry.samples: sample 1"),
        (lambda d: d.update(schema="gpu-advisor/bench@9"), "schema: expected 'gpu-advisor/bench@1'"),
    ],
)
def test_invalid_files_name_the_file_and_the_field(tmp_path, mutate, expected):
    data = _report().to_json_dict()
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsFileError) as err:
        load_report(path)
    message = str(err.value)
    assert message.startswith(str(path))
    assert expected in message
    assert "\n" not in message


def test_corrupt_and_missing_files(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text('{"schema": "gpu-advisor/bench@1", "results": [')
    with pytest.raises(ResultsFileError, match=r"cut\.json: not valid JSON \(line 1"):
        load_report(path)
    with pytest.raises(ResultsFileError, match="file not found"):
        load_report(tmp_path / "nope.json")
