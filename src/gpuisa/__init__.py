"""gpuisa: cross-vendor GPU instruction-set reference (AMD native ISAs, NVIDIA PTX)."""

__version__ = "0.1.0"


def decode(data: bytes, target: str, true16: bool = False):
    """Decode AMD instruction bytes (raw words or an AMDGPU ELF code object) for a gfx target.

    Returns a list of `gpuisa.codec.decoder.Decoded` (offset, bytes, LLVM text, catalog name).
    `true16`: print 16-bit VGPRs in real-true16 syntax (v1.l / v1.h), gfx11+."""
    from gpuisa.codec.api import decode as _decode

    return _decode(data, target, true16=true16)


def encode(text: str, target: str):
    """Assemble LLVM-syntax AMDGPU assembly for a gfx target: a list of `gpuisa.codec.encoder.Encoded`
    (line, text, bytes, catalog name); bad input raises GpuisaError naming line:column and why.
    16-bit VGPR halves (v1.l / v1.h) are taken on gfx11+."""
    from gpuisa.codec.api import encode as _encode

    return _encode(text, target)
