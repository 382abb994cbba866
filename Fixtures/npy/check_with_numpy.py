"""Loads every .npy and the .npz of a `foldkit fixtures` folder with numpy and checks them against
manifest.json (shape, sha256 of each file, npz members equal to the .npy files).

Run: python3 Fixtures/npy/check_with_numpy.py OUT_DIR
"""
import hashlib, json, os, sys
import numpy as np

folder = sys.argv[1]
manifest = json.load(open(os.path.join(folder, "manifest.json")))
pack = np.load(os.path.join(folder, manifest["pack"]["file"])) if manifest.get("pack") else None
for t in manifest["tensors"]:
    path = os.path.join(folder, t["file"])
    array = np.load(path)
    assert list(array.shape) == t["shape"], (t["file"], array.shape, t["shape"])
    assert array.dtype == np.float32, (t["file"], array.dtype)
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == t["sha256"], t["file"]
    if pack is not None:
        assert np.array_equal(pack[t["file"][:-4]], array), t["file"]
print(f"{len(manifest['tensors'])} arrays load in numpy {np.__version__} and match the manifest" + (" and the .npz" if pack is not None else ""))
