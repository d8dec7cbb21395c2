"""GPU Advisor: plan which GPUs to buy or rent for ML training and inference, then check the plan on
real hardware. See README.md; the layers are described in DESIGN.md."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gpu-advisor")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
