# magpylib.func: analytical fields of magnets, vectorised over i instances (SI units:
# metres, tesla). Orientations are left at None (the model rotates the observers itself).
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

def cylinder_field(
    field: Literal["B", "H"],
    observers: ArrayLike,
    dimensions: ArrayLike,
    polarizations: ArrayLike,
    positions: ArrayLike = ...,
    orientations: None = ...,
    squeeze: bool = ...,
) -> NDArray[np.float64]: ...
def sphere_field(
    field: Literal["B", "H"],
    observers: ArrayLike,
    diameters: ArrayLike,
    polarizations: ArrayLike,
    positions: ArrayLike = ...,
    orientations: None = ...,
    squeeze: bool = ...,
) -> NDArray[np.float64]: ...
