"""A cluster results file attached to a report: the PDF holds the fabric's bus bandwidth (table and
chart against message size) and the data-parallel scaling, worded as the CLI words them."""

from __future__ import annotations

import pytest
from pypdf import PdfReader

from gpu_advisor.bench.loading import load_named
from gpu_advisor.report.cluster import busbw_chart_image
from gpu_advisor.report.pdf import write_pdf
from gpu_advisor.wording.distributed import link_rows, scaling_summary
from tests.report.conftest import pdf_text, squash
from tests.report.samples import training_plan

pytestmark = pytest.mark.slow


def test_the_pdf_includes_the_cluster_run(cluster_run, tmp_path):
    named = load_named(cluster_run.path)
    section = named.report.distributed
    path = tmp_path / "report.pdf"
    write_pdf(training_plan(), path, results=[named])
    text = "".join(pdf_text(path))
    assert squash("Cluster run") in text
    assert squash("gloo on CPU, 2 ranks on 1 node") in text
    for _op, _scope, busbw, latency in link_rows(section):
        assert squash(f"{busbw}") in text and squash(latency) in text
    assert squash(scaling_summary(section)) in text
    assert squash("Results") not in text.split(squash("Cluster run"))[1][:200]  # no empty workload table
    reader = PdfReader(str(path))
    images = sum(len(page.images) for page in reader.pages)
    assert images >= 2  # the bus-bandwidth chart and the telemetry chart


def test_the_bus_bandwidth_chart_has_one_panel_per_collective(cluster_run):
    section = load_named(cluster_run.path).report.distributed
    image = busbw_chart_image(section, width_pt=480, dpi=72)
    assert image is not None
    assert (image.width(), image.height()) == (480, 2 * 150)  # 4 collectives, two a row
