"""Writes .npy files with numpy itself, the reference for FoldKit's byte-compatible .npy writer/reader.

Run: python3 Fixtures/npy/generate.py   (numpy >= 1.17)
"""
import os
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
shapes = {"vector": (5,), "nchw": (1, 3, 4, 5), "scalar_like": (1,), "wide": (2, 70)}
for name, shape in shapes.items():
    count = int(np.prod(shape))
    values = (np.arange(count, dtype=np.float32) * np.float32(0.37) - np.float32(1.5)).reshape(shape)
    np.save(os.path.join(here, f"{name}_f4.npy"), values)
np.save(os.path.join(here, "nchw_f8.npy"), (np.arange(60, dtype=np.float64) / 7.0).reshape(1, 3, 4, 5))
# The same values big-endian ('>f8'), as numpy writes them on a big-endian machine or after astype('>f8').
np.save(os.path.join(here, "nchw_f8_be.npy"), (np.arange(60, dtype=np.float64) / 7.0).reshape(1, 3, 4, 5).astype(">f8"))
# float64 values past float32's largest finite value (3.4028235e38) at element 4, [1, 1]: refused.
np.save(os.path.join(here, "overflow_f8.npy"), np.array([[1.0, 2.0, 3.0], [4.0, 1e39, -5.0]]))
np.save(os.path.join(here, "fortran.npy"), np.asfortranarray(np.ones((3, 4), dtype=np.float32)))
np.save(os.path.join(here, "int32.npy"), np.arange(6, dtype=np.int32))
np.savez_compressed(os.path.join(here, "pack.npz"), a=np.arange(6, dtype=np.float32).reshape(2, 3), b=np.float32([[0.5]]))
