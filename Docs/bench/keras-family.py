#!/usr/bin/env python3
"""The Keras reference family: every 2-D network of `keras.applications` (Keras 3 and
tf.keras), the transfer-learning patterns people write around them, and a detector and a segmenter
written as people write them - each saved as Keras 3 `.h5`, Keras 3 `.keras` and tf.keras `.h5`, run
through `foldkit fixtures --input` and compared with Keras's own prediction, then `foldkit verify`
in float32 and with --fp16. Writes a markdown table, one row per file.

  python3 Docs/bench/keras-family.py [--quick] [--only SUBSTR[,SUBSTR...]] [--tmp DIR] [--out TABLE.md]
                                     [--foldkit PATH] [--timeout SECONDS] [--keep] [--engines] [--litert] [--ncnn]
                                     [--all-engines]

--engines: instead of fixtures and verify, `foldkit export --format onnx --input` (the same input) on each file,
ONNX Runtime (CPU) on the exported model, its outputs (NCHW, transposed to Keras's NHWC) against Keras's own
prediction within the same tolerance, and `foldkit verify --engine-outputs` on them (exit 0); needs onnx and
onnxruntime too. --litert: the same with `foldkit export --format tflite --input` and LiteRT's interpreter
(ai-edge-litert; its default kernels, 2 threads), whose NHWC outputs are Keras's layout as they are (transposed
to FoldKit's NCHW for verify). --ncnn: the same with `foldkit export --format ncnn --input` and ncnn (PyPI, CPU,
float32), read and run by the engine check's own functions (Fixtures/engines/engine_check.py), whose C x H x W
outputs are transposed to Keras's NHWC. --all-engines: the three on each file, which is built and saved once,
writing a table per engine.

Why the choices:
- `weights=None` (no download), the smallest input each network accepts, `classes=10` and
  `classifier_activation=None`: the logits are compared, so a saturated softmax cannot hide a deviation.
- Every BatchNormalization gets random gamma, beta, moving mean and variance, every Normalization
  random mean and variance, every bias and LayerScale a random value: with Keras's initial values
  (mean 0, variance 1, bias 0, LayerScale 1e-6) batch norm is nearly the identity and a fold that
  drops it, or a missing residual branch, would still "match".
- tf.keras builds its own copy of each network and receives the Keras 3 weights layer by layer (in
  layer order, shapes checked); when the two disagree the tf.keras copy is randomised on its own, and
  the row says so. Each file is compared with the prediction of the framework that wrote it.
- Inputs are seeded per network and file kind: [0, 255] when the model rescales its own input
  (include_preprocessing, EfficientNet, a Rescaling(1./255) first), [-1, 1] otherwise.
Standard library + numpy + tensorflow (keras 3, tf_keras) only.
"""
import argparse
import gc
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import warnings

warnings.filterwarnings("ignore")                      # tf.keras's "HDF5 is legacy" on every save
import numpy as np
import tensorflow as tf
import keras
import tf_keras

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLERANCE = 1e-4          # max |foldkit - keras| / max |keras|, the bar
KINDS = ("keras3.h5", "keras", "tfkeras.h5")


# --- the application networks ----------------------------------------------------------------------

# (family, constructor names). `--quick` takes the first of each family.
FAMILIES = [
    ("MobileNet", ["MobileNet"]),
    ("MobileNetV2", ["MobileNetV2"]),
    ("MobileNetV3", ["MobileNetV3Small", "MobileNetV3Large"]),
    ("ResNet", ["ResNet50", "ResNet101", "ResNet152"]),
    ("ResNetV2", ["ResNet50V2", "ResNet101V2", "ResNet152V2"]),
    ("VGG", ["VGG16", "VGG19"]),
    ("Xception", ["Xception"]),
    ("InceptionV3", ["InceptionV3"]),
    ("InceptionResNetV2", ["InceptionResNetV2"]),
    ("DenseNet", ["DenseNet121", "DenseNet169", "DenseNet201"]),
    ("NASNet", ["NASNetMobile", "NASNetLarge"]),
    ("EfficientNet", [f"EfficientNetB{i}" for i in range(8)]),
    ("EfficientNetV2", ["EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2", "EfficientNetV2B3",
                        "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L"]),
    ("ConvNeXt", ["ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge"]),
    # RegNet and ResNetRS are in tf.keras only (Keras 3.15 has neither): their Keras 3 kinds are recorded as missing.
    ("RegNetX", [f"RegNetX{s}" for s in ("002", "004", "006", "008", "016", "032", "040", "064", "080", "120", "160", "320")]),
    ("RegNetY", [f"RegNetY{s}" for s in ("002", "004", "006", "008", "016", "032", "040", "064", "080", "120", "160", "320")]),
    ("ResNetRS", ["ResNetRS50", "ResNetRS101", "ResNetRS152", "ResNetRS200", "ResNetRS270", "ResNetRS350", "ResNetRS420"]),
]

# Smallest input side each constructor accepts with include_top=True and weights=None. Others: 32.
MIN_SIDE = {"Xception": 71, "InceptionV3": 75, "InceptionResNetV2": 75}


def accepts(constructor, argument):
    parameters = inspect.signature(constructor).parameters
    return argument in parameters or ("kwargs" in parameters and argument == "classifier_activation")


def build_application(K, name, preprocessing):
    """The network `name` from module K (keras or tf_keras), or None when K has no such network.
    `preprocessing` is True/False where the constructor offers include_preprocessing, else None."""
    constructor = getattr(K.applications, name, None)
    if constructor is None:
        return None
    side = MIN_SIDE.get(name, 32)
    kwargs = dict(weights=None, include_top=True, classes=10, input_shape=(side, side, 3))
    if accepts(constructor, "classifier_activation"):
        kwargs["classifier_activation"] = None
    if preprocessing is not None:
        kwargs["include_preprocessing"] = preprocessing
    try:
        return constructor(**kwargs)
    except ValueError as error:
        # A network whose minimum is not in MIN_SIDE says so ("should be no smaller than 75").
        found = re.search(r"no smaller than (\d+)", str(error))
        if not found:
            raise
        side = int(found.group(1))
        kwargs["input_shape"] = (side, side, 3)
        return constructor(**kwargs)


def preprocessing_options(name):
    """[True, False] where the constructor offers include_preprocessing (in either framework), else [None]."""
    for K in (keras, tf_keras):
        constructor = getattr(K.applications, name, None)
        if constructor is not None and "include_preprocessing" in inspect.signature(constructor).parameters:
            return [True, False]
    return [None]


def rescales_input(name, preprocessing):
    """Whether the network expects [0, 255] pixels: its own preprocessing layers are in the graph."""
    return bool(preprocessing) or (name.startswith("EfficientNetB"))


# --- the patterns around them ----------------------------------------------------------------------

def base_network(K, name, side=32):
    """A headless application network, as transfer learning takes it."""
    kwargs = dict(weights=None, include_top=False, input_shape=(side, side, 3))
    return getattr(K.applications, name)(**kwargs)


def transfer_functional(K, base_name):
    """base = App(include_top=False); x = base(inputs, training=False); new head (Keras's transfer-learning guide)."""
    L = K.layers
    base = base_network(K, base_name)
    inputs = L.Input(shape=(32, 32, 3), name="image")
    x = base(inputs, training=False)
    x = L.GlobalAveragePooling2D(name="gap")(x)
    x = L.Dropout(0.2, name="dropout")(x)
    outputs = L.Dense(10, name="logits")(x)
    return K.Model(inputs, outputs, name=f"tl_functional_{base_name.lower()}")


def transfer_sequential(K, base_name):
    """The same head in a Sequential model: Sequential([base, GAP, Dense])."""
    L = K.layers
    return K.Sequential([L.Input(shape=(32, 32, 3)), base_network(K, base_name),
                         L.GlobalAveragePooling2D(name="gap"), L.Dense(10, name="logits")],
                        name=f"tl_sequential_{base_name.lower()}")


def transfer_augmented(K, base_name):
    """Keras's image-classification tutorial: a nested Sequential of augmentation layers (identity at
    inference), Rescaling(1./255), then the nested base and a new head. Input in [0, 255]."""
    L = K.layers
    augmentation = K.Sequential([L.RandomFlip("horizontal"), L.RandomRotation(0.1), L.RandomZoom(0.1),
                                 L.RandomContrast(0.1)], name="data_augmentation")
    inputs = L.Input(shape=(32, 32, 3), name="image")
    x = augmentation(inputs)
    x = L.Rescaling(1.0 / 255, name="rescaling")(x)
    x = base_network(K, base_name)(x, training=False)
    x = L.GlobalAveragePooling2D(name="gap")(x)
    outputs = L.Dense(10, name="logits")(x)
    return K.Model(inputs, outputs, name=f"tl_augmented_{base_name.lower()}")


def transfer_preprocess_input(K, base_name):
    """`x = keras.applications.mobilenet_v2.preprocess_input(inputs)` before the base: x / 127.5 - 1
    written with operators (TFOpLambda in tf.keras, operation layers in Keras 3). Input in [0, 255]."""
    L = K.layers
    inputs = L.Input(shape=(32, 32, 3), name="image")
    x = K.applications.mobilenet_v2.preprocess_input(inputs)
    x = base_network(K, base_name)(x, training=False)
    x = L.GlobalAveragePooling2D(name="gap")(x)
    outputs = L.Dense(10, name="logits")(x)
    return K.Model(inputs, outputs, name=f"tl_preprocess_input_{base_name.lower()}")


def shared_layer(K):
    """One Conv2D (and one nested model) called on two tensors: distinct outputs over one set of weights."""
    L = K.layers
    inputs = L.Input(shape=(16, 16, 3), name="image")
    a = L.Conv2D(8, 3, padding="same", activation="relu", name="left")(inputs)
    b = L.Conv2D(8, 1, activation="relu", name="right")(inputs)
    shared = L.Conv2D(8, 3, padding="same", name="shared")
    block_in = L.Input(shape=(16, 16, 8))
    block = K.Model(block_in, L.BatchNormalization(name="block_bn")(L.Conv2D(8, 1, name="block_conv")(block_in)),
                    name="shared_block")
    x = L.Add(name="sum")([shared(a), shared(b), block(a), block(b)])
    return K.Model(inputs, L.GlobalAveragePooling2D(name="gap")(x), name="shared_layer")


def pad_channels(K, x, extra, name):
    """Channel-padded residual as BlazeFace ports write it: tf.pad in tf.keras (a TFOpLambda),
    keras.ops.pad in Keras 3 (an operation layer)."""
    paddings = [[0, 0], [0, 0], [0, 0], [0, extra]]
    return tf.pad(x, paddings) if K is tf_keras else keras.ops.pad(x, paddings)


def blazeface(K):
    """BlazeFace front model (128x128): 5x5 depthwise blocks with max-pooled, channel-padded residuals,
    two anchor heads (16x16x2 and 8x8x6 anchors) reshaped and concatenated into scores (896, 1) and
    boxes (896, 16)."""
    L = K.layers
    inputs = L.Input(shape=(128, 128, 3), name="image")
    x = L.Conv2D(24, 5, strides=2, padding="same", name="conv0")(inputs)
    x = L.BatchNormalization(name="conv0_bn")(x)
    x = L.ReLU(name="conv0_relu")(x)

    def block(x, filters, stride, name):
        y = L.DepthwiseConv2D(5, strides=stride, padding="same", name=name + "_dw")(x)
        y = L.Conv2D(filters, 1, name=name + "_pw")(y)
        y = L.BatchNormalization(name=name + "_bn")(y)
        shortcut = x
        if stride == 2:
            shortcut = L.MaxPooling2D(2, name=name + "_pool")(shortcut)
        if filters > x.shape[-1]:
            shortcut = pad_channels(K, shortcut, filters - x.shape[-1], name + "_pad")
        return L.ReLU(name=name + "_relu")(L.Add(name=name + "_add")([y, shortcut]))

    for i, (filters, stride) in enumerate([(24, 1), (28, 1), (32, 2), (36, 1), (42, 1), (48, 2), (56, 1),
                                           (64, 1), (72, 1), (80, 1), (88, 1)]):
        x = block(x, filters, stride, f"block{i}")
    f16 = x                                                      # 16x16x88
    y = block(x, 96, 2, "block11")
    for i in range(12, 16):
        y = block(y, 96, 1, f"block{i}")
    f8 = y                                                       # 8x8x96
    scores = L.Concatenate(axis=1, name="scores")([
        L.Reshape((-1, 1), name="scores16_r")(L.Conv2D(2, 1, name="scores16")(f16)),
        L.Reshape((-1, 1), name="scores8_r")(L.Conv2D(6, 1, name="scores8")(f8))])
    boxes = L.Concatenate(axis=1, name="boxes")([
        L.Reshape((-1, 16), name="boxes16_r")(L.Conv2D(32, 1, name="boxes16")(f16)),
        L.Reshape((-1, 16), name="boxes8_r")(L.Conv2D(96, 1, name="boxes8")(f8))])
    return K.Model(inputs, [scores, boxes], name="blazeface")


def yolov3_small(K):
    """YOLOv3 as keras-yolo3 writes it, narrow and shallow: Darknet conv + BN + LeakyReLU(0.1), residual
    blocks with ZeroPadding((1,0),(1,0)) stride-2 downsampling, three heads (strides 32, 16, 8) joined by
    UpSampling2D + Concatenate. 64x64 input, 3 anchors x (5 + 3 classes)."""
    L = K.layers

    def conv(x, filters, size, name, strides=1):
        if strides == 2:
            x = L.ZeroPadding2D(((1, 0), (1, 0)), name=name + "_pad")(x)
        x = L.Conv2D(filters, size, strides=strides, padding="valid" if strides == 2 else "same",
                     use_bias=False, name=name)(x)
        x = L.BatchNormalization(name=name + "_bn")(x)
        return L.LeakyReLU(0.1, name=name + "_leaky")(x) if K is tf_keras else \
            L.LeakyReLU(negative_slope=0.1, name=name + "_leaky")(x)

    def residual(x, filters, blocks, name):
        x = conv(x, filters, 3, name + "_down", strides=2)
        for i in range(blocks):
            y = conv(x, filters // 2, 1, f"{name}_{i}a")
            y = conv(y, filters, 3, f"{name}_{i}b")
            x = L.Add(name=f"{name}_{i}_add")([x, y])
        return x

    inputs = L.Input(shape=(64, 64, 3), name="image")
    x = conv(inputs, 8, 3, "stem")
    x = residual(x, 16, 1, "r1")
    x = residual(x, 32, 1, "r2")
    c8 = residual(x, 64, 2, "r3")            # 8x8
    c16 = residual(c8, 96, 2, "r4")          # 4x4
    c32 = residual(c16, 128, 1, "r5")        # 2x2
    outputs = []
    x, skips = c32, [c16, c8]
    for level, filters in enumerate([64, 48, 32]):
        x = conv(x, filters, 1, f"head{level}_a")
        x = conv(x, filters * 2, 3, f"head{level}_b")
        x = conv(x, filters, 1, f"head{level}_c")
        y = conv(x, filters * 2, 3, f"head{level}_d")
        outputs.append(L.Conv2D(3 * (5 + 3), 1, name=f"yolo{level}")(y))
        if skips:
            x = conv(x, filters // 2, 1, f"head{level}_up_conv")
            x = L.UpSampling2D(2, name=f"head{level}_up")(x)
            x = L.Concatenate(name=f"head{level}_cat")([x, skips.pop(0)])
    return K.Model(inputs, outputs, name="yolov3_small")


def unet_small(K):
    """A small U-Net (32x32 -> 32x32 mask): two encoder levels, a Conv2DTranspose (strides 2) and an
    UpSampling2D(interpolation="bilinear") decoder step, skip concatenations, sigmoid mask."""
    L = K.layers

    def double_conv(x, filters, name):
        for i in range(2):
            x = L.Conv2D(filters, 3, padding="same", use_bias=False, name=f"{name}_conv{i}")(x)
            x = L.BatchNormalization(name=f"{name}_bn{i}")(x)
            x = L.Activation("relu", name=f"{name}_relu{i}")(x)
        return x

    inputs = L.Input(shape=(32, 32, 3), name="image")
    e1 = double_conv(inputs, 8, "enc1")
    e2 = double_conv(L.MaxPooling2D(name="pool1")(e1), 16, "enc2")
    mid = double_conv(L.MaxPooling2D(name="pool2")(e2), 32, "mid")
    d2 = L.Conv2DTranspose(16, 3, strides=2, padding="same", name="up2")(mid)
    d2 = double_conv(L.Concatenate(name="cat2")([d2, e2]), 16, "dec2")
    d1 = L.UpSampling2D(2, interpolation="bilinear", name="up1")(d2)
    d1 = double_conv(L.Concatenate(name="cat1")([d1, e1]), 8, "dec1")
    outputs = L.Conv2D(1, 1, activation="sigmoid", name="mask")(d1)
    return K.Model(inputs, outputs, name="unet_small")


# (name, builder(K), input in [0, 255]?, in --quick?)
PATTERNS = [
    ("tl_functional_mobilenetv2", lambda K: transfer_functional(K, "MobileNetV2"), False, True),
    ("tl_functional_efficientnetb0", lambda K: transfer_functional(K, "EfficientNetB0"), True, False),
    ("tl_functional_resnet50", lambda K: transfer_functional(K, "ResNet50"), False, False),
    ("tl_sequential_mobilenetv2", lambda K: transfer_sequential(K, "MobileNetV2"), False, True),
    ("tl_sequential_resnet50", lambda K: transfer_sequential(K, "ResNet50"), False, False),
    ("tl_augmented_mobilenetv2", lambda K: transfer_augmented(K, "MobileNetV2"), True, True),
    ("tl_preprocess_input_mobilenetv2", lambda K: transfer_preprocess_input(K, "MobileNetV2"), True, False),
    ("shared_layer", shared_layer, False, True),
    ("blazeface", blazeface, False, True),
    ("yolov3_small", yolov3_small, False, True),
    ("unet_small", unet_small, False, True),
]


# --- weights ---------------------------------------------------------------------------------------

# The weight helpers are the fixture generator's (Fixtures/keras/generate_layers.py), so the two cannot differ.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "keras"))
from generate_layers import leaves, set_weights  # noqa: E402


def randomise(model, rng):
    """Non-trivial weights where Keras's initial values would hide a mistake (see the module doc)."""
    for layer in leaves(model):
        kind = type(layer).__name__
        weights = layer.get_weights()
        if not weights:
            continue
        names = [v.name.split("/")[-1].split(":")[0] for v in layer.weights]
        new = []
        for name, w in zip(names, weights):
            if kind == "BatchNormalization":
                r = {"gamma": lambda: rng.uniform(0.5, 1.5, w.shape), "beta": lambda: rng.normal(0, 0.25, w.shape),
                     "moving_mean": lambda: rng.normal(0, 0.25, w.shape),
                     "moving_variance": lambda: rng.uniform(0.5, 2.0, w.shape)}[name]()
            elif kind == "Normalization" and name in ("mean", "variance"):
                # Around ImageNet's statistics of [0, 1] pixels (what EfficientNet's Rescaling(1/255) gives).
                r = rng.uniform(0.35, 0.55, w.shape) if name == "mean" else rng.uniform(0.04, 0.09, w.shape)
            elif kind == "LayerScale" or name == "gamma" and "LayerScale" in kind:
                r = rng.uniform(0.05, 0.3, w.shape)
            elif name == "bias" or (kind == "LayerNormalization" and name in ("gamma", "beta")):
                r = rng.normal(0, 0.1, w.shape) + (1.0 if name == "gamma" else 0.0)
            else:
                r = w                                      # kernels: Keras's seeded initialiser
            new.append(np.asarray(r, dtype=w.dtype))
        set_weights(layer, new)


def copy_weights(source, target):
    """Keras 3 weights into the tf.keras copy, leaf layer by leaf layer. False when the two disagree
    (count or shapes), leaving `target` untouched."""
    a = [l for l in leaves(source) if l.get_weights()]
    b = [l for l in leaves(target) if l.get_weights()]
    if len(a) != len(b):
        return False
    pairs = [(x.get_weights(), y) for x, y in zip(a, b)]
    if any([w.shape for w in ws] != [w.shape for w in y.get_weights()] for ws, y in pairs):
        return False
    for ws, y in pairs:
        set_weights(y, ws)
    return True


# --- Keras's side: files, inputs, predictions ------------------------------------------------------

def output_layer_names(model):
    return [t._keras_history[0].name for t in model.outputs]


def save_case(folder, stem, models, rescaled, seed):
    """Saves every file kind the frameworks could build, with a seeded input and the framework's
    prediction per output. Returns {kind: dict(file, input, outputs, names) or dict(problem)}."""
    cases = {}
    for kind in KINDS:
        model = models.get("tf_keras" if kind.startswith("tfkeras") else "keras")
        if model is None:
            cases[kind] = dict(problem="not in " + ("tf.keras" if kind.startswith("tfkeras") else "Keras 3"))
            continue
        rng = np.random.default_rng(seed + KINDS.index(kind))
        shape = (1,) + tuple(model.inputs[0].shape[1:])
        x = (rng.uniform(0, 255, shape) if rescaled else rng.uniform(-1, 1, shape)).astype(np.float32)
        path = os.path.join(folder, f"{stem}.{kind}")
        try:
            model.save(path)
        except Exception as error:                      # e.g. an object the legacy .h5 writer cannot serialise
            cases[kind] = dict(problem=f"Keras could not save: {first_line(str(error))}")
            continue
        outputs = model(x, training=False)
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        np.save(path + ".input.npy", x)
        cases[kind] = dict(file=path, input=path + ".input.npy", names=output_layer_names(model),
                           outputs=[np.asarray(o, dtype=np.float32) for o in outputs],
                           outputs64=float64_outputs(model, x))
    return cases


def float64_outputs(model, x):
    """Keras's own prediction in float64: the model rebuilt from its config with every float32 dtype made
    float64, given the weights cast to float64. FoldKit's reference pass is float64, so this is the
    like-for-like reference; a deep network with random batch-norm statistics can amplify float32
    rounding far past 1e-4 (EfficientNetV2M: Keras's float32 prediction is 14% off its float64 one).
    None when the framework cannot rebuild the model that way."""
    try:
        config = json.loads(json.dumps(model.get_config()).replace('"float32"', '"float64"'))
        clone = model.__class__.from_config(config)
        clone.set_weights([np.asarray(w, dtype=np.float64) for w in model.get_weights()])
        # Keras 3's Normalization normalises with the mean and variance finalize_state() derives from its
        # weights (set_weights in generate_layers): a model-level set_weights leaves the clone's initial ones.
        for layer in leaves(clone):
            if type(layer).__name__ == "Normalization" and hasattr(layer, "finalize_state"):
                layer.finalize_state()
        outputs = clone(x.astype(np.float64), training=False)
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        result = [np.asarray(o, dtype=np.float64) for o in outputs]
        return result if all(o.dtype == np.float64 for o in result) else None
    except Exception:
        return None


# --- foldkit's side --------------------------------------------------------------------------------

def first_line(text):
    """The first `error:` line (else the first line), without the `error: /path/to/file: ` prefix."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith("error:")]
    line = (errors or lines or [""])[0]
    return re.sub(r"^error: \S+?\.(h5|keras): ", "", line)[:300]


def run(command, timeout):
    """(exit code or 'timeout', stderr+stdout, seconds) of one foldkit run, niced: 2 cores are shared."""
    start = time.time()
    try:
        done = subprocess.run(["nice", "-n", "10"] + command, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stderr + done.stdout, time.time() - start
    except subprocess.TimeoutExpired:
        return "timeout", "", time.time() - start


def foldkit_outputs(manifest, names, count):
    """The manifest entries of the model outputs: the last tensor of the layer named like the Keras
    output layer (a nested model's output may carry the path `outer/inner`)."""
    tensors = manifest["tensors"]
    found = []
    for name in names:
        match = [t for t in tensors if t["layer"] == name or t["layer"].startswith(name + "/")
                 or t["layer"].endswith("/" + name)]
        found.append(match[-1] if match else None)
    if count == 1 and found[0] is None:
        found = [tensors[-1]]                          # a single output: the last layer written
    return found


def relative(a, reference):
    """max |a - reference| / max |reference| (the plain max when the reference is all zeros)."""
    scale = float(np.max(np.abs(reference)))
    deviation = float(np.max(np.abs(a.reshape(reference.shape).astype(np.float64) - reference)))
    return deviation / scale if scale > 0 else deviation


def compare(case, pack):
    """Worst relative deviation over the outputs against Keras's float64 prediction when there is one (else
    its float32 one), or a problem string."""
    manifest = json.load(open(os.path.join(pack, "manifest.json")))
    worst = 0.0
    references = case.get("outputs64") or case["outputs"]
    for reference, entry in zip(references, foldkit_outputs(manifest, case["names"], len(case["outputs"]))):
        if entry is None:
            return None, "no foldkit tensor for output " + ", ".join(case["names"])
        ours = np.load(os.path.join(pack, entry["file"]))
        if ours.size != reference.size:
            return None, f"output {entry['layer']}: shape {list(ours.shape)} against Keras {list(reference.shape)}"
        scale = float(np.max(np.abs(reference)))
        deviation = float(np.max(np.abs(ours.reshape(reference.shape).astype(np.float64) - reference)))
        if not np.isfinite(deviation):
            return None, f"output {entry['layer']}: non-finite values"
        worst = max(worst, deviation / scale if scale > 0 else deviation)
    return worst, None


def check_file(case, foldkit, timeout, folder):
    """foldkit fixtures against Keras, then verify and verify --fp16. Returns the row's fields."""
    pack = case["file"] + ".pack"
    code, text, seconds = run([foldkit, "fixtures", case["file"], "--input", case["input"], "--out", pack,
                               "--layout", "nhwc", "--quiet"], timeout)
    row = dict(seconds=seconds, verify32="-", verify16="-", deviation=None)
    if code == "timeout":
        row["status"] = f"timeout ({timeout} s) in fixtures"
        return row
    if code != 0:
        row["status"] = "refused: " + first_line(text)
        row["refusal"] = first_line(text)
        return row
    deviation, problem = compare(case, pack)
    shutil.rmtree(pack, ignore_errors=True)
    row["deviation"] = deviation
    if case.get("outputs64"):
        row["keras32"] = max(relative(o32, o64) for o32, o64 in zip(case["outputs"], case["outputs64"]))
    row["status"] = ("mismatch: " + problem) if problem else \
        ("reads and matches" if deviation <= TOLERANCE else f"mismatch {deviation:.2e}")
    for flag, key in (([], "verify32"), (["--fp16"], "verify16")):
        code, text, took = run([foldkit, "verify", case["file"], "--quiet"] + flag, timeout)
        row[key] = str(code)
        row["seconds"] += took
    return row


def to_keras_layout(array, reference):
    """An engine's output in Keras's layout: FoldKit's graph outputs are NCHW [1, C, H, W] where Keras's are
    NHWC (1, H, W, C), so a rank-4 output is transposed first; vectors are [1, C] in both. Then reshaped to
    Keras's shape (a Keras (1, L, C) output is [1, C, L, 1] in the graph)."""
    array = np.asarray(array)
    if array.ndim == 4:
        array = array.transpose(0, 2, 3, 1)
    return array.reshape(reference.shape)


def export_for_engine(case, foldkit, timeout, fmt, export):
    """`foldkit export --format FMT --input` into `export` (replaced): the row so far, and whether the export
    was written (a timeout or a refusal is the row's status)."""
    shutil.rmtree(export, ignore_errors=True)
    code, text, seconds = run([foldkit, "export", case["file"], "--format", fmt, "--input", case["input"], "--out", export],
                              timeout)
    row = dict(seconds=seconds, verify32="-", deviation=None)
    if code == "timeout":
        row["status"] = f"timeout ({timeout} s) in export"
        return row, False
    if code != 0:
        row["status"] = "refused: " + first_line(text)
        row["refusal"] = first_line(text)
        return row, False
    return row, True


def judge_engine(case, foldkit, timeout, export, engine_name, computed, outputs, problems, row):
    """What every engine run shares: the engine's outputs (`computed`, by output name, in FoldKit's layout)
    against Keras's own prediction (float64 when there is one; each Keras output is the model output of the
    layer of that name, `outputs` being the export's `foldkit.outputs`), then `foldkit verify --engine-outputs`
    on them (one <name>.npy each in export/<engine_name>). Fills and returns the row; removes `export`."""
    names = list(computed)
    layer_of = {o["name"]: o["layerName"] for o in outputs}
    worst, worst32 = 0.0, 0.0
    references = case.get("outputs64") or case["outputs"]
    for index, keras_name in enumerate(case["names"]):
        match = [n for n in names if layer_of.get(n) == keras_name or layer_of.get(n, "").startswith(keras_name + "/")
                 or layer_of.get(n, "").endswith("/" + keras_name)]
        if not match and len(names) == len(case["names"]) == 1:
            match = names
        if not match:
            problems.append(f"no model output for Keras output {keras_name}")
            continue
        found = computed[match[-1]]
        if np.asarray(found).size != references[index].size:
            problems.append(f"output {match[-1]}: shape {list(np.shape(found))} against Keras {list(references[index].shape)}")
            continue
        ours = to_keras_layout(found, references[index]).astype(np.float64)
        if not np.all(np.isfinite(ours)):
            problems.append(f"output {match[-1]}: non-finite values")
            continue
        worst = max(worst, relative(ours, references[index].astype(np.float64)))
        worst32 = max(worst32, relative(ours, case["outputs"][index].astype(np.float64)))
    row["deviation"] = worst
    row["ort_keras32"] = worst32
    if case.get("outputs64"):
        row["keras32"] = max(relative(o32, o64) for o32, o64 in zip(case["outputs"], case["outputs64"]))
    engine = os.path.join(export, engine_name)
    os.makedirs(engine, exist_ok=True)
    for name, array in computed.items():
        np.save(os.path.join(engine, name + ".npy"), np.asarray(array, dtype=np.float32))
    code, text, took = run([foldkit, "verify", case["file"], "--engine-outputs", engine, "--input",
                            os.path.join(export, "test_data_set_0", "input_0.pb"), "--quiet"], timeout)
    row["verify32"] = str(code)
    row["seconds"] += took
    if code not in (0, "timeout") and code != 2:
        problems.append("verify --engine-outputs: " + first_line(text))
    row["status"] = ("mismatch: " + "; ".join(problems)) if problems else engine_status(worst, row.get("keras32"))
    shutil.rmtree(export, ignore_errors=True)
    return row


def engine_status(worst, keras32):
    """'engine matches' within TOLERANCE of Keras's float64 prediction; past it, 'float32 itself off' when Keras's
    own float32 prediction is past it too (a network that amplifies rounding: no float32 engine can match float64
    there, and verify judges the engine against the float32 control instead), else 'mismatch'."""
    if worst <= TOLERANCE:
        return "engine matches"
    if keras32 is not None and keras32 > TOLERANCE:
        return f"float32 itself off: Keras f32 {keras32:.1e} from its f64, engine {worst:.2e}"
    return f"mismatch {worst:.2e}"


def check_engines(case, foldkit, timeout, folder):
    """--engines: `foldkit export --format onnx --input` (the input the fixtures step is given), ONNX Runtime
    (CPU) on the exported model, its outputs against Keras's own prediction (float64 when there is one, as
    `compare`; within TOLERANCE of the largest value), and `foldkit verify --engine-outputs` on them.
    Returns the row's fields."""
    import onnx
    import onnxruntime
    from onnx import numpy_helper

    export = case["file"] + ".onnx"
    row, written = export_for_engine(case, foldkit, timeout, "onnx", export)
    if not written:
        return row
    path = os.path.join(export, "model.onnx")
    cases = os.path.join(export, "test_data_set_0")
    problems = []
    try:
        onnx.checker.check_model(path, full_check=True)
    except Exception as error:
        problems.append(f"onnx.checker full_check: {first_line(str(error))}")
    model = onnx.load(path)
    metadata = {p.key: p.value for p in model.metadata_props}
    outputs = json.loads(metadata.get("foldkit.outputs", "[]"))
    names = [o.name for o in model.graph.output]
    del model
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(cases, "input_0.pb")))
    try:
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        computed = dict(zip(names, session.run(names, {"input": x})))
        del session
    except Exception as error:
        row["status"] = f"ONNX Runtime refused: {type(error).__name__}: {first_line(str(error))}"
        return row
    # ORT against FoldKit's float64 reference in test_data_set_0 (engine_check.py's step 2).
    own = 0.0
    for k, name in enumerate(names):
        reference = numpy_helper.to_array(onnx.load_tensor(os.path.join(cases, f"output_{k}.pb"))).astype(np.float64)
        own = max(own, relative(computed[name], reference))
    row["ort_ref"] = own
    return judge_engine(case, foldkit, timeout, export, "onnxruntime", computed, outputs, problems, row)


def check_litert(case, foldkit, timeout, folder):
    """--litert: `foldkit export --format tflite --input` (the input the fixtures step is given), LiteRT's
    interpreter on the exported model, its outputs (NHWC: Keras's layout) against Keras's own prediction
    (float64 when there is one; within TOLERANCE of the largest value), and `foldkit verify --engine-outputs`
    on them (transposed to FoldKit's NCHW). Returns the row's fields."""
    import onnx
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.interpreter import Interpreter
    from onnx import numpy_helper

    export = case["file"] + ".tflite-export"
    row, written = export_for_engine(case, foldkit, timeout, "tflite", export)
    if not written:
        return row
    path = os.path.join(export, "model.tflite")
    cases = os.path.join(export, "test_data_set_0")
    problems = []
    with open(path, "rb") as file:
        data = bytearray(file.read())
    model = schema.Model.GetRootAsModel(data, 0)
    metadata = {}
    for i in range(model.MetadataLength()):
        if model.Metadata(i).Name() == b"foldkit":
            metadata = json.loads(model.Buffers(model.Metadata(i).Buffer()).DataAsNumpy().tobytes().decode())
    outputs = metadata.get("foldkit.outputs", [])
    names = [o["name"] for o in outputs]
    del model, data
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(cases, "input_0.pb")))
    try:
        interpreter = Interpreter(model_path=path, num_threads=2)
        interpreter.allocate_tensors()
        (given,) = interpreter.get_input_details()
        nhwc = x.transpose(0, 2, 3, 1) if x.ndim == 4 else x
        interpreter.set_tensor(given["index"], np.ascontiguousarray(nhwc.reshape(given["shape"]), dtype=np.float32))
        interpreter.invoke()
        found = {d["name"]: interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()}
        del interpreter
    except Exception as error:
        row["status"] = f"LiteRT refused: {type(error).__name__}: {first_line(str(error))}"
        return row
    # NHWC [1, H, W, C] to FoldKit's [1, C, H, W] (the reference's shape), for the reference and verify.
    computed = {}
    for k, name in enumerate(names):
        reference = numpy_helper.to_array(onnx.load_tensor(os.path.join(cases, f"output_{k}.pb")))
        array = found.get(name)
        if array is None:
            problems.append(f"LiteRT has no output {name}")
            continue
        array = array.transpose(0, 3, 1, 2) if array.ndim == 4 else array
        computed[name] = np.ascontiguousarray(array).reshape(reference.shape)
    own = 0.0
    for k, name in enumerate(names):
        if name in computed:
            reference = numpy_helper.to_array(onnx.load_tensor(os.path.join(cases, f"output_{k}.pb"))).astype(np.float64)
            own = max(own, relative(computed[name], reference))
    row["ort_ref"] = own
    return judge_engine(case, foldkit, timeout, export, "litert", computed, outputs, problems, row)


def check_ncnn(case, foldkit, timeout, folder):
    """--ncnn: `foldkit export --format ncnn --input` (the input the fixtures step is given), ncnn (CPU, float32:
    Vulkan, fp16 and bf16 options off) on model.param + model.bin through the engine check's own reader and
    runner (Fixtures/engines/engine_check.py: read_ncnn_export, run_ncnn), its outputs (C x H x W, reshaped to
    FoldKit's [1, C, H, W] references) against Keras's own prediction (float64 when there is one; within
    TOLERANCE of the largest value), and `foldkit verify --engine-outputs` on them. Returns the row's fields."""
    engines = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "engines")
    if engines not in sys.path:
        sys.path.insert(0, engines)
    import engine_check

    export = case["file"] + ".ncnn-export"
    row, written = export_for_engine(case, foldkit, timeout, "ncnn", export)
    if not written:
        return row
    with open(os.path.join(export, "metadata.json")) as file:
        outputs = json.load(file).get("foldkit.outputs", [])
    try:
        param, weights, _, x, references, problems = engine_check.read_ncnn_export(export)
        computed = engine_check.run_ncnn(param, weights, x, references)
    except Exception as error:
        row["status"] = f"ncnn refused: {type(error).__name__}: {first_line(str(error))}"
        return row
    row["ort_ref"] = max((relative(computed[name], reference.astype(np.float64)) for name, reference in references), default=0.0)
    return judge_engine(case, foldkit, timeout, export, "ncnn", computed, outputs, problems, row)


ENGINE_LABEL = "ORT"


def write_engine_table(rows, path, header, label=None):
    e = label or ENGINE_LABEL
    layout = {"ORT": "ORT's NCHW outputs transposed to Keras's NHWC", "ncnn": "ncnn's C x H x W outputs transposed to Keras's NHWC"}.get(
        e, "LiteRT's NHWC outputs as they are")
    lines = [header, "",
             f"{e} vs Keras: max |{e.lower()} - keras| / max |keras| against Keras's float64 prediction (its float32 one where"
             f" marked f32), {layout}; {e} vs Keras f32: the same against Keras's"
             f" float32 prediction; Keras f32 vs f64: Keras's own spread; {e} vs FoldKit: against export's"
             f" test_data_set_0 (FoldKit's float64 reference); verify: `foldkit verify --engine-outputs` on {e}'s outputs.", "",
             f"| network | file | preprocessing | status | {e} vs Keras | {e} vs Keras f32 | Keras f32 vs f64 | {e} vs FoldKit |"
             " verify | s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        deviation = "-" if r.get("deviation") is None else f"{r['deviation']:.1e}" + ("" if "keras32" in r else " f32")
        cells = [f"{r[k]:.1e}" if r.get(k) is not None else "-" for k in ("ort_keras32", "keras32", "ort_ref")]
        status = r["status"].replace("|", "\\|")
        lines.append(f"| {r['network']} | {r['kind']} | {r['preprocessing']} | {status} | {deviation} | {' | '.join(cells)} | "
                     f"{r.get('verify32', '-')} | {r.get('seconds', 0):.0f} |")
    files = [r for r in rows if r.get("file")]
    counts = {
        "engine matches": sum(r["status"] == "engine matches" for r in files),
        "mismatch": sum(r["status"].startswith("mismatch") for r in files),
        "float32 itself off": sum(r["status"].startswith("float32 itself off") for r in files),
        "refused": sum(r["status"].startswith("refused") for r in files),
        "ONNX Runtime refused": sum(r["status"].startswith("ONNX Runtime") for r in files),
        "LiteRT refused": sum(r["status"].startswith("LiteRT") for r in files),
        "ncnn refused": sum(r["status"].startswith("ncnn refused") for r in files),
        "timeout": sum(r["status"].startswith("timeout") for r in files),
    }
    verified = [r for r in files if r.get("verify32") not in (None, "-")]
    lines += ["", f"**{len(files)} files**: " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
              f"; verify --engine-outputs exit 0 on {sum(r['verify32'] == '0' for r in verified)} of {len(verified)}."
              f" Not built: {sum(not r.get('file') for r in rows)} (network absent from that framework, or not saved)."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# --- the table -------------------------------------------------------------------------------------

def refusal_cause(message):
    """A short cause for grouping refusals: the class or construct the message names."""
    patterns = [
        (r"TFOpLambda|inbound node entry is not", "tf.keras TFOpLambda (operator / tf.* call)"),
        (r"shared layers \(called on", "shared layer (one layer called twice)"),
        (r"Functional|Sequential|node \d+ tensor", "nested model (Functional / Sequential as a layer)"),
        (r"\bRescaling\b", "Rescaling"), (r"\bNormalization\b", "Normalization"),
        (r"Random(Flip|Rotation|Zoom|Contrast)", "augmentation layer"),
        (r"\bAdd needs|Multiply", "Keras 3 Add/Multiply with a constant operand"),
        (r"hard_silu|hard_swish", "hard_silu / hard_swish"), (r"hard_sigmoid", "Keras 3 hard_sigmoid"),
        (r"gelu", "gelu"), (r"\bPad\b|pad \(", "pad on channels (Keras 3 Pad operation)"), (r"LayerNormalization", "LayerNormalization"), (r"LayerScale", "LayerScale"),
        (r"CustomScaleLayer", "CustomScaleLayer"), (r"StochasticDepth", "StochasticDepth"),
        (r"Conv2DTranspose", "Conv2DTranspose"), (r"bilinear", "UpSampling2D bilinear"),
        (r"Concatenate", "Concatenate off the channel axis"),
    ]
    for pattern, cause in patterns:
        if re.search(pattern, message):
            return cause
    found = re.search(r"class '?([A-Za-z0-9_]+)", message)
    return found.group(1) if found else re.sub(r"/\S+", "FILE", message)[:120]


def write_table(rows, path, header):
    lines = [header, "",
             "max dev / max ref: foldkit against Keras's float64 prediction (Keras's float32 one where marked f32);"
             " Keras f32 vs f64: Keras's own float32 prediction against its float64 one.", "",
             "| network | file | preprocessing | status | max dev / max ref | Keras f32 vs f64 | verify | verify --fp16 | s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        deviation = "-" if r.get("deviation") is None else f"{r['deviation']:.1e}" + ("" if "keras32" in r else " f32")
        spread = f"{r['keras32']:.1e}" if "keras32" in r else "-"
        status = r["status"].replace("|", "\\|")
        lines.append(f"| {r['network']} | {r['kind']} | {r['preprocessing']} | {status} | {deviation} | {spread} | "
                     f"{r.get('verify32', '-')} | {r.get('verify16', '-')} | {r.get('seconds', 0):.0f} |")
    files = [r for r in rows if r.get("file")]
    counts = {
        "reads and matches": sum(r["status"] == "reads and matches" for r in files),
        "mismatch": sum(r["status"].startswith("mismatch") for r in files),
        "refused": sum(r["status"].startswith("refused") for r in files),
        "timeout": sum(r["status"].startswith("timeout") for r in files),
    }
    verified = [r for r in files if r.get("verify32") not in (None, "-")]
    lines += ["", f"**{len(files)} files**: " + ", ".join(f"{v} {k}" for k, v in counts.items()) +
              f"; verify exit 0 in float32 on {sum(r['verify32'] == '0' for r in verified)} of {len(verified)} read,"
              f" with --fp16 on {sum(r['verify16'] == '0' for r in verified)}."
              f" Not built: {sum(not r.get('file') for r in rows)} (network absent from that framework, or not saved)."]
    causes = {}
    for r in files:
        if "refusal" in r:
            causes.setdefault(refusal_cause(r["refusal"]), []).append(r)
    if causes:
        lines += ["", "Refusals by cause (foldkit's first error line):", ""]
        for cause, group in sorted(causes.items(), key=lambda item: -len(item[1])):
            example = group[0]["refusal"]
            lines.append(f"- {cause}: {len(group)} files, e.g. `{example}`")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# --- driver ----------------------------------------------------------------------------------------

def jobs(quick, only):
    """(network, preprocessing, rescaled input?, builder(K) -> model or None)."""
    for family, names in FAMILIES:
        for name in (names[:1] if quick else names):
            for preprocessing in preprocessing_options(name):
                yield (name, preprocessing, rescales_input(name, preprocessing),
                       lambda K, n=name, p=preprocessing: build_application(K, n, p))
    for name, builder, rescaled, in_quick in PATTERNS:
        if in_quick or not quick:
            yield name, None, rescaled, builder


def saved_cases(args):
    """Builds, randomises and saves each network the arguments select (every kind of file, `save_case`), one at
    a time: yields (stem, preprocessing label, note, folder, start time, cases by kind)."""
    for name, preprocessing, rescaled, builder in jobs(args.quick, args.only.lower()):
        wanted = [part for part in args.only.lower().split(",") if part]
        if wanted and not any(part in name.lower() for part in wanted):
            continue
        stem = name + {True: "_pre", False: "_nopre", None: ""}[preprocessing]
        seed = args.seed * 100003 + zlib.crc32(stem.encode())
        label = {True: "yes", False: "no", None: "yes" if rescaled else "no"}[preprocessing]
        folder = os.path.join(args.tmp, stem)
        os.makedirs(folder, exist_ok=True)
        started = time.time()
        models, note = {}, ""
        try:
            keras.utils.set_random_seed(seed % 2**31)
            models["keras"] = builder(keras)
            if models["keras"] is not None:
                randomise(models["keras"], np.random.default_rng(seed))
            tf_keras.utils.set_random_seed(seed % 2**31)
            models["tf_keras"] = builder(tf_keras)
            if models["tf_keras"] is not None and not (models["keras"] is not None and
                                                       copy_weights(models["keras"], models["tf_keras"])):
                randomise(models["tf_keras"], np.random.default_rng(seed))
                note = " (tf.keras weights its own)" if models["keras"] is not None else ""
            cases = save_case(folder, stem, models, rescaled, seed)
        except Exception as error:
            cases = {kind: dict(problem=f"build failed: {type(error).__name__}: {first_line(str(error))}") for kind in KINDS}
        models.clear()
        keras.backend.clear_session(); tf_keras.backend.clear_session(); gc.collect()
        yield stem, label, note, folder, started, cases


def all_engines(args):
    """--all-engines: each saved file through check_engines, check_litert and check_ncnn; a table per engine."""
    from importlib import metadata
    import onnx
    engines = [("ORT", "onnxruntime", check_engines, f"onnx {onnx.__version__}, onnxruntime {metadata.version('onnxruntime')}"),
               ("LiteRT", "litert", check_litert, f"ai-edge-litert {metadata.version('ai-edge-litert')}"),
               ("ncnn", "ncnn", check_ncnn, f"ncnn {metadata.version('ncnn')}")]
    stem_out = args.out[:-3] if args.out.endswith(".md") else args.out
    rows = {label: [] for label, *_ in engines}
    header = (f"Keras family: TensorFlow {tf.__version__}, Keras {keras.__version__}, tf_keras {tf_keras.__version__}; "
              f"ENGINE; tolerance {TOLERANCE:g} x max|Keras|; `{' '.join(sys.argv)}`")
    for stem, label, note, folder, started, cases in saved_cases(args):
        for kind, case in cases.items():
            for engine, suffix, check, versions in engines:
                row = dict(network=stem + note, kind=kind, preprocessing=label)
                if "problem" in case:
                    row.update(status=case["problem"])
                else:
                    row.update(file=case["file"], **check(case, args.foldkit, args.timeout, folder))
                rows[engine].append(row)
                print(f"{stem:38} {kind:11} {engine:6} {row['status'][:100]}  [{row.get('verify32', '-')}]", file=sys.stderr,
                      flush=True)
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        for engine, suffix, check, versions in engines:
            write_engine_table(rows[engine], f"{stem_out}-{suffix}.md",
                               f"Keras family ({len(rows[engine])} rows so far; {time.time() - started:.0f} s last network)", engine)
    for engine, suffix, check, versions in engines:
        write_engine_table(rows[engine], f"{stem_out}-{suffix}.md", header.replace("ENGINE", versions), engine)
        print("table in", f"{stem_out}-{suffix}.md", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tmp", default="/tmp/foldkit-keras-family")
    parser.add_argument("--out", default="keras-family-table.md")
    parser.add_argument("--foldkit", default=os.path.join(ROOT, ".build/release/foldkit"))
    parser.add_argument("--only", default="", help="only networks whose name contains one of these comma-separated "
                        "strings (case-insensitive); 'tl_' selects the patterns")
    parser.add_argument("--quick", action="store_true", help="one network per family, the main patterns")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per foldkit run")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--keep", action="store_true", help="keep the saved files (they can reach GBs)")
    parser.add_argument("--engines", action="store_true", help="instead of fixtures and verify: foldkit export --format "
                        "onnx, ONNX Runtime against Keras, verify --engine-outputs (needs onnx and onnxruntime)")
    parser.add_argument("--litert", action="store_true", help="instead of fixtures and verify: foldkit export --format "
                        "tflite, LiteRT against Keras, verify --engine-outputs (needs onnx and ai-edge-litert)")
    parser.add_argument("--ncnn", action="store_true", help="instead of fixtures and verify: foldkit export --format "
                        "ncnn, ncnn against Keras, verify --engine-outputs (needs onnx and ncnn)")
    parser.add_argument("--all-engines", action="store_true", help="ONNX Runtime, LiteRT and ncnn on each saved file (one "
                        "build of each network for the three): three tables, --out's name with -onnxruntime, -litert and "
                        "-ncnn before .md")
    args = parser.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    if args.all_engines:
        return all_engines(args)
    global ENGINE_LABEL
    if args.litert:
        ENGINE_LABEL = "LiteRT"
        args.engines = True
    if args.ncnn:
        ENGINE_LABEL = "ncnn"
        args.engines = True
    table = write_engine_table if args.engines else write_table
    rows = []
    for stem, label, note, folder, started, cases in saved_cases(args):
        for kind, case in cases.items():
            row = dict(network=stem + note, kind=kind, preprocessing=label)
            if "problem" in case:
                row.update(status=case["problem"])
            else:
                check = check_litert if args.litert else check_ncnn if args.ncnn else check_engines if args.engines else check_file
                row.update(file=case["file"], **check(case, args.foldkit, args.timeout, folder))
            rows.append(row)
            print(f"{stem:38} {kind:11} {row['status'][:110]}  [{row.get('verify32', '-')}/{row.get('verify16', '-')}]",
                  file=sys.stderr, flush=True)
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        table(rows, args.out, f"Keras family ({len(rows)} rows so far; {time.time() - started:.0f} s last network)")
    header = (f"Keras family: TensorFlow {tf.__version__}, Keras {keras.__version__}, tf_keras {tf_keras.__version__}; "
              f"tolerance {TOLERANCE:g} x max|Keras|; `{' '.join(sys.argv)}`")
    if args.litert:
        from importlib import metadata
        header = header.replace("; tolerance", f"; ai-edge-litert {metadata.version('ai-edge-litert')}; tolerance")
    elif args.ncnn:
        from importlib import metadata
        header = header.replace("; tolerance", f"; ncnn {metadata.version('ncnn')}; tolerance")
    elif args.engines:
        import onnx
        import onnxruntime
        header = header.replace("; tolerance", f"; onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}; tolerance")
    table(rows, args.out, header)
    print("table in", args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
