"""The colours every chart uses, in the GUI and in the PDF: one source, so that the two agree.

Okabe & Ito's colour-blind-safe palette (Okabe, M. and Ito, K., "Color Universal Design", 2008):
eight hues that stay apart for the common colour-vision deficiencies and read on white and on
near-black. Plain hex strings, no Qt: widgets and the PDF painter each make their own colour objects.
"""

from __future__ import annotations

BLUE = "#0072B2"
ORANGE = "#E69F00"
BLUISH_GREEN = "#009E73"
REDDISH_PURPLE = "#CC79A7"
SKY_BLUE = "#56B4E9"
VERMILLION = "#D55E00"
GREY = "#999999"
YELLOW = "#F0E442"

# Series in order (lines of a plot, machines in Compare); yellow last, it is faint on white.
SERIES = (BLUE, ORANGE, BLUISH_GREEN, REDDISH_PURPLE, SKY_BLUE, VERMILLION, GREY, YELLOW)

# Memory components, fixed per component so that a colour means the same thing in every chart.
# Chosen so that components stacked next to each other (training: weights, gradients, optimizer
# state, activations, overhead; inference: weights, activations, KV cache, overhead, where the small
# ones may vanish) differ by at least 33 CIELAB units in normal, deutan and protan vision; weights
# against the KV cache, the two parts of an inference footprint, by 92 (blue against vermillion).
COMPONENT_COLORS = {
    "weights": BLUE,
    "gradients": ORANGE,
    "optimizer": REDDISH_PURPLE,
    "activations": YELLOW,
    "kv_cache": VERMILLION,
    "overhead": GREY,
}

# The overhead's parts where the plan splits it: non-PyTorch memory keeps the overhead's grey,
# fragmentation is bluish green (apart from the grey beside it and from the KV cache's vermillion),
# and the serving engine's reserve, memory it leaves unused, is a pale fill drawn with a dashed edge.
OVERHEAD_PART_COLORS = {
    "non_pytorch": GREY,
    "fragmentation": BLUISH_GREEN,
    "engine_reserve": "#DDDDDD",
}

# Rent against buy.
RENT = BLUE
BUY = ORANGE
