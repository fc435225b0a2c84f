"""gpuisa: cross-vendor GPU instruction-set reference (AMD native ISAs, NVIDIA PTX)."""

__version__ = "0.1.0"
