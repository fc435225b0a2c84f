"""gpuisa: cross-vendor GPU instruction-set reference (AMD native ISAs, NVIDIA PTX)."""

__version__ = "0.1.0"


def decode(data: bytes, target: str):
    """Decode AMD instruction bytes (raw words or an AMDGPU ELF code object) for a gfx target.

    Returns a list of `gpuisa.codec.decoder.Decoded` (offset, bytes, LLVM text, catalog name)."""
    from gpuisa.codec.api import decode as _decode

    return _decode(data, target)


def encode(text: str, target: str):
    """Assemble LLVM-syntax AMDGPU assembly for a gfx target: a list of `gpuisa.codec.encoder.Encoded`
    (line, text, bytes, catalog name); bad input raises GpuisaError naming line:column and why."""
    from gpuisa.codec.api import encode as _encode

    return _encode(text, target)
