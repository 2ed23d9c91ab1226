"""The MiniFloat-NN FPU's cost models in ``lutcore.ppa``: its units (ExSdotp, ExFMA, casts,
non-computational), lanes and groups, closed at the paper's clock, and the energy per operation.
"""

from lutcore import _face

from ._fpu import (
    CLOSED_UNITS,
    EXFMA_DATAPATHS,
    FPU_FORMATS,
    FPU_GROUPS,
    FPU_WIDTH,
    PIPELINE_STAGES,
    SYNTHESIS_CLOCK_GHZ,
    SYNTHESIS_NODE_NM,
    NodeScale,
    Precisions,
    SdotpLaneSpec,
    cast_unit,
    closed_unit,
    exfma_cascade,
    exfma_datapaths,
    exfma_precisions,
    exfma_unit,
    exsdotp_precisions,
    exsdotp_simd,
    exsdotp_unit,
    fpu,
    fpu_groups,
    kge,
    leakage_nw,
    node_scale,
    noncomp_unit,
    op_energy,
    sdotp_lanes,
    super_format,
    synthesis_period_ps,
)

__all__ = _face.public(globals())
