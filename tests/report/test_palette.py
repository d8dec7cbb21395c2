"""The chart palette: memory components that sit next to each other stay apart, for colour-blind
readers too, and weights never look like the KV cache (the two parts of a served model's memory)."""

from __future__ import annotations

import math

import pytest

from gpu_advisor.report.palette import COMPONENT_COLORS, SERIES

# Machado, Oliveira and Fernandes (2009), severity 1.0, on linear RGB: what a protanope or a
# deuteranope sees (together about 6 % of men).
VISION = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protan": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deutan": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
}
# Pairs stacked next to each other in a memory column (training: weights, gradients, optimizer state,
# activations, overhead; inference: weights, activations, KV cache, overhead; small parts vanish).
NEIGHBOURS = [
    ("weights", "gradients"),
    ("gradients", "optimizer"),
    ("optimizer", "activations"),
    ("activations", "overhead"),
    ("weights", "activations"),
    ("activations", "kv_cache"),
    ("kv_cache", "overhead"),
    ("weights", "kv_cache"),
    ("weights", "overhead"),
]


def _linear(hex_color: str) -> list[float]:
    channels = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]


def _lab(rgb: list[float]) -> tuple[float, float, float]:
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(first: str, second: str, vision: str) -> float:
    """CIE76 colour difference of two colours as seen with `vision` (above ~20: clearly different)."""
    matrix = VISION[vision]

    def seen(color: str) -> tuple[float, float, float]:
        rgb = _linear(color)
        return _lab([min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True)))) for row in matrix])

    return math.dist(seen(first), seen(second))


@pytest.mark.parametrize("vision", VISION)
def test_neighbouring_memory_components_differ_clearly(vision):
    for first, second in NEIGHBOURS:
        assert delta_e(COMPONENT_COLORS[first], COMPONENT_COLORS[second], vision) > 30, (first, second)


@pytest.mark.parametrize("vision", VISION)
def test_weights_and_kv_cache_are_far_apart(vision):
    # the old pair, blue against sky blue, was 25 apart in every vision
    assert delta_e(COMPONENT_COLORS["weights"], COMPONENT_COLORS["kv_cache"], vision) > 80


@pytest.mark.parametrize("background", ["#ffffff", "#1e1e1e"])  # the light and the dark plot canvas
def test_every_chart_colour_shows_on_light_and_dark_backgrounds(background):
    for color in {*COMPONENT_COLORS.values(), *SERIES}:
        assert min(delta_e(color, background, v) for v in VISION) > 20, color


def test_every_component_has_its_own_colour():
    assert len(set(COMPONENT_COLORS.values())) == len(COMPONENT_COLORS)
