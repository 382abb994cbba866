"""Small test images and OpenCV's reading of them: the reference for FoldKit's JPEG/PNG decoding and
bilinear resize. Run: python3 Fixtures/images/generate.py  (pip install "opencv-python-headless<5")"""
import json, os
import cv2
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)
h, w = 24, 40
yy, xx = np.mgrid[0:h, 0:w]
rgb = np.stack([(xx * 6) % 256, (yy * 10) % 256, ((xx + yy) * 4) % 256], axis=-1).astype(np.uint8)
rgb[5:9, 10:20] = rng.integers(0, 256, size=(4, 10, 3), dtype=np.uint8)
bgr = rgb[:, :, ::-1]
cv2.imwrite(os.path.join(here, "gradient.png"), bgr)
cv2.imwrite(os.path.join(here, "gradient.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])
out = {}
for name in ["gradient.png", "gradient.jpg"]:
    decoded = cv2.imread(os.path.join(here, name))[:, :, ::-1]  # back to RGB
    np.save(os.path.join(here, name + ".rgb.npy"), decoded.astype(np.float32))
    # stretch to 16x12 (W x H) with INTER_LINEAR, scaled to [0,1], channel-major RGB
    resized = cv2.resize(decoded, (16, 12), interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255.0
    np.save(os.path.join(here, name + ".stretch16x12.npy"), np.ascontiguousarray(resized.transpose(2, 0, 1)))
print("ok")
