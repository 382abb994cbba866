"""Independent reference for FoldKit's letterbox and center-crop (Sources/FoldKitIO/Image/ImagePreprocessing.swift).

Writes noise.png (22 x 13 pixels, a gradient plus seeded noise, so every pixel differs) and, for each case,
noise.png.<mode><W>x<H>.npy: the network input as float32, channel-major RGB (3, H, W), values / 255.

The rule, as ImagePreprocessing documents it, written here from scratch with numpy:
- bilinear sampling with pixel centres aligned (OpenCV INTER_LINEAR): for output pixel (x, y) the source
  coordinate is (x + 0.5 - offsetX) / scale - 0.5 (same for y), neighbours clamped at the edges;
- letterbox (Darknet letterbox_image placement): scale s = min(W/w, H/h) on both axes; the scaled size is
  darknet's integer arithmetic (W/w < H/h: new_w = W, new_h = h*W // w; else new_h = H, new_w = w*H // h);
  offsets (W - new_w) // 2 and (H - new_h) // 2; pixels outside the scaled image are 0.5;
- center crop: s = max(W/w, H/h) on both axes, offsets (W - w*s) / 2 and (H - h*s) / 2 (not rounded), every
  output pixel sampled.
For comparison it also prints how far darknet's own letterbox_image (resize_image samples with
align-corners scale (w-1)/(new_w-1), darknet image.c) is from this rule.

Run: python3 Fixtures/images/make_preprocessing_reference.py   (pip install numpy pillow)
"""
import os
import numpy as np
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))
W_IMG, H_IMG = 22, 13
rng = np.random.default_rng(20261124)
yy, xx = np.mgrid[0:H_IMG, 0:W_IMG]
base = np.stack([xx * 11, yy * 19, (xx + 2 * yy) * 5], axis=-1)
pixels = np.clip(base + rng.integers(0, 64, size=(H_IMG, W_IMG, 3)), 0, 255).astype(np.uint8)
Image.fromarray(pixels, "RGB").save(os.path.join(here, "noise.png"))
image = np.asarray(Image.open(os.path.join(here, "noise.png")).convert("RGB")).astype(np.float64)
assert (image == pixels).all()


def sample(img, sy, sx):
    """Bilinear value at source coordinates (sy, sx), neighbours clamped."""
    h, w, _ = img.shape
    y0, x0 = int(np.floor(sy)), int(np.floor(sx))
    fy, fx = sy - y0, sx - x0
    ya, yb = min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1)
    xa, xb = min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1)
    top = img[ya, xa] + (img[ya, xb] - img[ya, xa]) * fx
    bottom = img[yb, xa] + (img[yb, xb] - img[yb, xa]) * fx
    return top + (bottom - top) * fy


def letterbox(img, net_w, net_h):
    h, w, _ = img.shape
    s = min(net_w / w, net_h / h)
    if net_w / w < net_h / h:
        new_w, new_h = net_w, h * net_w // w
    else:
        new_w, new_h = w * net_h // h, net_h
    off_x, off_y = (net_w - new_w) // 2, (net_h - new_h) // 2
    out = np.full((net_h, net_w, 3), 0.5)
    for y in range(off_y, off_y + new_h):
        for x in range(off_x, off_x + new_w):
            out[y, x] = sample(img, (y + 0.5 - off_y) / s - 0.5, (x + 0.5 - off_x) / s - 0.5) / 255
    return out


def center_crop(img, net_w, net_h):
    h, w, _ = img.shape
    s = max(net_w / w, net_h / h)
    off_x, off_y = (net_w - w * s) / 2, (net_h - h * s) / 2
    out = np.zeros((net_h, net_w, 3))
    for y in range(net_h):
        for x in range(net_w):
            out[y, x] = sample(img, (y + 0.5 - off_y) / s - 0.5, (x + 0.5 - off_x) / s - 0.5) / 255
    return out


def darknet_letterbox(img, net_w, net_h):
    """darknet image.c letterbox_image + resize_image (align-corners bilinear), values / 255."""
    h, w, _ = img.shape
    if net_w / w < net_h / h:
        new_w, new_h = net_w, h * net_w // w
    else:
        new_w, new_h = w * net_h // h, net_h
    im = img / 255
    w_scale = (w - 1) / (new_w - 1)
    h_scale = (h - 1) / (new_h - 1)
    part = np.zeros((h, new_w, 3))
    for r in range(h):
        for c in range(new_w):
            if c == new_w - 1 or w == 1:
                part[r, c] = im[r, w - 1]
            else:
                sx = c * w_scale; ix = int(sx); dx = sx - ix
                part[r, c] = (1 - dx) * im[r, ix] + dx * im[r, ix + 1]
    resized = np.zeros((new_h, new_w, 3))
    for r in range(new_h):
        sy = r * h_scale; iy = int(sy); dy = sy - iy
        resized[r] = (1 - dy) * part[iy]
        if r == new_h - 1 or h == 1:
            continue
        resized[r] += dy * part[iy + 1]
    out = np.full((net_h, net_w, 3), 0.5)
    dx0, dy0 = (net_w - new_w) // 2, (net_h - new_h) // 2
    out[dy0:dy0 + new_h, dx0:dx0 + new_w] = resized
    return out


cases = [("letterbox", letterbox, 15, 15), ("letterbox", letterbox, 16, 6),
         ("center-crop", center_crop, 15, 15), ("center-crop", center_crop, 9, 16)]
for mode, fn, net_w, net_h in cases:
    result = fn(image, net_w, net_h)
    name = f"noise.png.{mode}{net_w}x{net_h}.npy"
    np.save(os.path.join(here, name), np.ascontiguousarray(result.transpose(2, 0, 1)).astype(np.float32))
    line = f"{name}: {result.shape}"
    if mode == "letterbox":
        gap = np.abs(darknet_letterbox(image, net_w, net_h) - result).max()
        line += f"; darknet letterbox_image differs by up to {gap * 255:.1f} levels"
    print(line)
