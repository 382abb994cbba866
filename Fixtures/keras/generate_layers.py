#!/usr/bin/env python3
"""Builds one tiny Keras model per layer class or pattern Docs/Formats/Keras.md lists (nested models, shared layers,
preprocessing, augmentation, tf.keras TFOpLambda ops and their Keras 3 operation layers, the newer
activations, LayerNormalization, GroupNormalization, the applications' own layers, Conv2DTranspose,
bilinear upsampling, the remaining merges), with non-trivial weights, saved in every file kind that can
express it, with each framework's own prediction for a seeded input. generate.py's files are not touched.

Run from anywhere:  python3 Fixtures/keras/generate_layers.py [--out DIR] [--only NAME ...]
Writes into the folder of this script (LAYERS.md lists every model, its layer and shapes):
  <model>.tfkeras.h5, <model>.keras3.h5, <model>.keras        the saved models (the kinds that exist)
  <model>.input.npy                                            seeded input, NHWC float32, batch 1
  <model>.<saver>.out<k>.npy                                   that framework's prediction for output k
Where both frameworks build the model, tf.keras receives the Keras 3 weights layer by layer, so the
predictions agree to ~1e-6; a model one framework cannot express is saved by the other only.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import warnings

warnings.filterwarnings("ignore")                      # tf.keras's "HDF5 is legacy" on every save
import numpy as np
import tensorflow as tf
import keras
import tf_keras
from keras.src.applications.convnext import LayerScale as K3LayerScale, StochasticDepth as K3StochasticDepth
from keras.src.applications.inception_resnet_v2 import CustomScaleLayer
from tf_keras.src.applications.convnext import LayerScale as TKLayerScale, StochasticDepth as TKStochasticDepth
from tf_keras.src.applications.inception_resnet_v2 import CustomScaleLayer as TKCustomScaleLayer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = HERE   # --out DIR writes elsewhere (to compare two runs byte for byte)


def ops(K):
    """The operator namespace a model author uses with K: tf.* in tf.keras (becomes TFOpLambda layers),
    keras.ops in Keras 3 (becomes operation layers; tf.* cannot take a Keras 3 symbolic tensor)."""
    return tf if K is tf_keras else keras.ops


# --- model builders; `K` is the keras or tf_keras module. Each returns a model or None (not expressible) ---

def nested_functional(K):
    """A Functional model (conv + BN + relu) used as a layer of a Functional model, then a head."""
    L = K.layers
    inner_in = L.Input(shape=(6, 6, 3), name="inner_image")
    y = L.Conv2D(4, 3, padding="same", use_bias=False, name="inner_conv")(inner_in)
    y = L.BatchNormalization(name="inner_bn")(y)
    inner = K.Model(inner_in, L.ReLU(name="inner_relu")(y), name="inner")
    inp = L.Input(shape=(6, 6, 3), name="image")
    x = inner(inp)
    x = L.GlobalAveragePooling2D(name="gap")(x)
    return K.Model(inp, L.Dense(3, name="logits")(x), name="nested_functional")


def nested_sequential(K):
    """A Sequential model used as a layer of a Functional model (Keras's augmentation/block idiom)."""
    L = K.layers
    block = K.Sequential([L.Conv2D(4, 3, padding="same", name="seq_conv"), L.BatchNormalization(name="seq_bn"),
                          L.Activation("relu", name="seq_relu")], name="block")
    inp = L.Input(shape=(6, 6, 3), name="image")
    x = L.Conv2D(3, 1, name="stem")(inp)
    x = block(x)
    return K.Model(inp, L.Conv2D(2, 1, name="head")(x), name="nested_sequential")


def nested_depth2(K):
    """Functional -> Functional -> Sequential (a base network whose stem is itself a model, as
    ConvNeXt's stem is), with the outer model also reading the middle model's output twice."""
    L = K.layers
    stem = K.Sequential([L.Conv2D(4, 2, strides=2, name="stem_conv"), L.LayerNormalization(epsilon=1e-6, name="stem_ln")],
                        name="stem")
    mid_in = L.Input(shape=(8, 8, 3), name="mid_image")
    y = stem(mid_in)
    y = L.DepthwiseConv2D(3, padding="same", name="mid_dw")(y)
    middle = K.Model(mid_in, y, name="base")
    inp = L.Input(shape=(8, 8, 3), name="image")
    x = middle(inp)
    a = L.Conv2D(2, 1, name="head_a")(x)
    b = L.Conv2D(2, 1, name="head_b")(x)
    return K.Model(inp, L.Concatenate(name="cat")([a, b]), name="nested_depth2")


def shared_conv(K):
    """One Conv2D called on two tensors (one set of weights, two outputs), and a nested model called twice."""
    L = K.layers
    inp = L.Input(shape=(5, 5, 3), name="image")
    a = L.Conv2D(4, 1, name="left")(inp)
    b = L.Conv2D(4, 3, padding="same", name="right")(inp)
    shared = L.Conv2D(4, 3, padding="same", activation="relu", name="shared")
    block_in = L.Input(shape=(5, 5, 4), name="block_in")
    block = K.Model(block_in, L.BatchNormalization(name="block_bn")(block_in), name="block")
    x = L.Add(name="sum")([shared(a), shared(b), block(a), block(b)])
    return K.Model(inp, x, name="shared_conv")


def rescaling_scalar(K):
    """Rescaling(1./255) first, as Keras's image-classification tutorial starts. Input in [0, 255]."""
    L = K.layers
    inp = L.Input(shape=(5, 5, 3), name="image")
    x = L.Rescaling(1.0 / 255, name="rescaling")(inp)
    return K.Model(inp, L.Conv2D(2, 3, padding="same", name="conv")(x), name="rescaling_scalar")


def rescaling_channel(K):
    """Rescaling with a per-channel scale and offset (what MobileNetV3's and RegNet's x/127.5 - 1 or a
    mean/std preprocessing write), followed by a zero-padding 'same' conv: the offset cannot fold into it."""
    L = K.layers
    inp = L.Input(shape=(5, 5, 3), name="image")
    x = L.Rescaling([0.017, 0.0175, 0.0174], offset=[-2.12, -2.04, -1.8], name="rescaling")(inp)
    return K.Model(inp, L.Conv2D(2, 3, padding="same", name="conv")(x), name="rescaling_channel")


def normalization_weights(K):
    """Normalization whose mean and variance are weights (adapt() or set_weights, as EfficientNet has)."""
    L = K.layers
    inp = L.Input(shape=(4, 4, 3), name="image")
    x = L.Normalization(axis=-1, name="normalization")(inp)
    return K.Model(inp, L.Conv2D(2, 1, name="conv")(x), name="normalization_weights")


def normalization_config(K):
    """Normalization(mean=..., variance=...) given in the config (ConvNeXt's preprocessing)."""
    L = K.layers
    inp = L.Input(shape=(4, 4, 3), name="image")
    x = L.Normalization(mean=[123.675, 116.28, 103.53], variance=[3409.98, 3262.69, 3291.86], name="normalization")(inp)
    return K.Model(inp, L.Conv2D(2, 1, name="conv")(x), name="normalization_config")


def normalization_axis(K):
    """Normalization over a non-default axis: axis=1 (one mean and variance per row of the image)."""
    L = K.layers
    inp = L.Input(shape=(4, 3, 2), name="image")
    x = L.Normalization(axis=1, name="normalization")(inp)
    return K.Model(inp, x, name="normalization_axis")


def augmentation(K):
    """The augmentation layers, all identity at inference (model(x, training=False), predict)."""
    L = K.layers
    inp = L.Input(shape=(6, 6, 3), name="image")
    x = L.RandomFlip("horizontal_and_vertical", name="flip")(inp)
    x = L.RandomRotation(0.2, name="rotation")(x)
    x = L.RandomZoom(0.2, name="zoom")(x)
    x = L.RandomContrast(0.3, name="contrast")(x)
    x = L.RandomTranslation(0.1, 0.1, name="translation")(x)
    return K.Model(inp, L.Conv2D(2, 1, name="conv")(x), name="augmentation")


def op_model(name, body, channels=4, shape=(4, 4)):
    """A model `image -> conv -> body(K, x) -> output`: one operator written the way authors write it."""
    def build(K):
        L = K.layers
        inp = L.Input(shape=shape + (3,), name="image")
        x = L.Conv2D(channels, 1, name="conv")(inp)
        return K.Model(inp, body(K, x), name=name)
    build.__doc__ = body.__doc__
    return build


def _arith_const(K, x):
    """One output per constant operand, written with operators: x + 3 (TFOpLambda tf.__operators__.add /
    Keras 3 Add operation), x * (1/6) (tf.math.multiply / Multiply), x / 6 (tf.math.truediv / TrueDivide),
    1 - x (tf.math.subtract with the constant first / Subtract)."""
    return [x + 3.0, x * (1.0 / 6.0), x / 6.0, 1.0 - x]


def _add_tensors(K, x):
    """x + y of two tensors written with the operator (not the Add layer)."""
    y = K.layers.Conv2D(4, 1, name="conv_b")(x)
    return x + y


def _hard_swish_ops(K, x):
    """MobileNetV3's hard swish as the application writes it: x * relu6(x + 3) * (1/6)."""
    return K.layers.Multiply(name="hard_swish")([x, K.layers.ReLU(6.0, name="relu6")(x + 3.0) * (1.0 / 6.0)])


def _relu6(K, x):
    """tf.nn.relu6 / keras.ops.relu6."""
    return ops(K).nn.relu6(x) if K is tf_keras else keras.ops.relu6(x)


def _sigmoid(K, x):
    """tf.math.sigmoid / keras.ops.sigmoid."""
    return tf.math.sigmoid(x) if K is tf_keras else keras.ops.sigmoid(x)


def _pad_channels(K, x):
    """tf.pad / keras.ops.pad on the channel axis only (BlazeFace's channel-padded residual)."""
    return ops(K).pad(x, [[0, 0], [0, 0], [0, 0], [0, 3]])


def _concat(K, x):
    """tf.concat / keras.ops.concatenate on the channel axis."""
    y = K.layers.Conv2D(2, 1, name="conv_b")(x)
    return tf.concat([x, y], axis=-1) if K is tf_keras else keras.ops.concatenate([x, y], axis=-1)


def _reshape(K, x):
    """tf.reshape / keras.ops.reshape: (4, 4, 4) to (16, 4), then to (2, 8, 4)."""
    y = tf.reshape(x, [-1, 16, 4]) if K is tf_keras else keras.ops.reshape(x, (-1, 16, 4))
    return tf.reshape(y, [-1, 2, 8, 4]) if K is tf_keras else keras.ops.reshape(y, (-1, 2, 8, 4))


def _mean_hw(K, x):
    """tf.reduce_mean / keras.ops.mean over H and W with keepdims (squeeze-excite's pooling)."""
    return tf.reduce_mean(x, axis=[1, 2], keepdims=True) if K is tf_keras else keras.ops.mean(x, axis=(1, 2), keepdims=True)


def _slice_channels(K, x):
    """x[..., :2]: SlicingOpLambda in tf.keras / Keras 3 GetItem operation."""
    return x[:, :, :, :2]


def _gelu_tanh(K, x):
    """gelu(approximate=True): tf.nn.gelu / keras.ops.gelu (the Activation layer only takes the erf form)."""
    return tf.nn.gelu(x, approximate=True) if K is tf_keras else keras.ops.gelu(x, approximate=True)


def activation_model(name, activations, k3_only=False):
    """Activation layers by name, one output each, on one conv."""
    def build(K):
        if k3_only and K is tf_keras:
            return None
        L = K.layers
        inp = L.Input(shape=(3, 3, 2), name="image")
        x = L.Conv2D(4, 1, name="conv")(inp)
        return K.Model(inp, [L.Activation(a, name=a)(x) for a in activations], name=name)
    build.__doc__ = ", ".join(f"Activation('{a}')" for a in activations) + " (Keras 3 only)" * k3_only
    return build


def layer_normalization(K):
    """LayerNormalization over the channel axis with epsilon 1e-6, as ConvNeXt uses it."""
    L = K.layers
    inp = L.Input(shape=(3, 3, 4), name="image")
    x = L.Conv2D(4, 1, name="conv")(inp)
    return K.Model(inp, L.LayerNormalization(epsilon=1e-6, name="ln")(x), name="layer_normalization")


def group_normalization(K):
    """GroupNormalization(groups=4) over the channel axis of an 8-channel conv map, then one with
    scale=False (beta only) and groups=-1 (one group per channel) over a second conv."""
    L = K.layers
    inp = L.Input(shape=(5, 6, 3), name="image")
    x = L.Conv2D(8, 3, padding="same", name="conv")(inp)
    x = L.GroupNormalization(groups=4, name="gn")(x)
    x = L.Conv2D(4, 1, name="conv2")(x)
    return K.Model(inp, L.GroupNormalization(groups=-1, scale=False, epsilon=1e-5, name="gn_beta")(x), name="group_normalization")


def convnext_block(K):
    """A ConvNeXt block as the application writes it: depthwise 7x7, LayerNormalization, Dense 4C, gelu,
    Dense C, the application's own LayerScale and StochasticDepth (identity at inference), residual Add."""
    L = K.layers
    LayerScale, StochasticDepth = (TKLayerScale, TKStochasticDepth) if K is tf_keras else (K3LayerScale, K3StochasticDepth)
    inp = L.Input(shape=(7, 7, 4), name="image")
    x = L.DepthwiseConv2D(7, padding="same", name="dw")(inp)
    x = L.LayerNormalization(epsilon=1e-6, name="ln")(x)
    x = L.Dense(16, name="pw1")(x)
    x = L.Activation("gelu", name="gelu")(x)
    x = L.Dense(4, name="pw2")(x)
    x = LayerScale(1e-6, 4, name="layer_scale")(x)
    x = StochasticDepth(0.1, name="stochastic_depth")(x)
    return K.Model(inp, L.Add(name="add")([inp, x]), name="convnext_block")


def inception_scale(K):
    """InceptionResNetV2's residual scaling x + scale * branch with the application's own CustomScaleLayer
    (tf.keras 2.21 saves it as class 'Custom>CustomScaleLayer', Keras 3 with its module)."""
    L = K.layers
    inp = L.Input(shape=(4, 4, 3), name="image")
    x = L.Conv2D(4, 1, name="conv")(inp)
    branch = L.Conv2D(4, 3, padding="same", name="branch")(x)
    scale_layer = TKCustomScaleLayer if K is tf_keras else CustomScaleLayer
    y = scale_layer(scale=0.17, name="block_scale")([x, branch])
    return K.Model(inp, y, name="inception_scale")


def conv_transpose(padding):
    def build(K):
        L = K.layers
        inp = L.Input(shape=(3, 4, 3), name="image")
        x = L.Conv2DTranspose(2, 3, strides=2, padding=padding, name="deconv")(inp)
        return K.Model(inp, x, name=f"conv_transpose_{padding}")
    build.__doc__ = f"Conv2DTranspose(2, 3, strides=2, padding='{padding}') with bias."
    return build


def upsampling_bilinear(K):
    """UpSampling2D(2, interpolation='bilinear') (U-Net / FPN decoders), then a conv."""
    L = K.layers
    inp = L.Input(shape=(3, 4, 2), name="image")
    x = L.UpSampling2D(2, interpolation="bilinear", name="up")(inp)
    return K.Model(inp, L.Conv2D(2, 1, name="conv")(x), name="upsampling_bilinear")


def merges(K):
    """Subtract (2 inputs), Average (3), Maximum (3), Minimum (2) of conv branches, one output each."""
    L = K.layers
    inp = L.Input(shape=(3, 3, 2), name="image")
    b = [L.Conv2D(3, 1, name=f"conv{i}")(inp) for i in range(3)]
    return K.Model(inp, [L.Subtract(name="subtract")(b[:2]), L.Average(name="average")(b),
                         L.Maximum(name="maximum")(b), L.Minimum(name="minimum")([b[0], b[2]])], name="merges")


def concat_outer(K):
    """Concatenate on the outermost axis after the batch: anchor heads reshaped to (-1, 2) and joined on
    axis 1 (BlazeFace's scores and boxes), with a sigmoid between; and two maps of different heights
    joined on axis 1 (H)."""
    L = K.layers
    inp = L.Input(shape=(4, 4, 3), name="image")
    a = L.Reshape((-1, 2), name="head_a_r")(L.Conv2D(4, 1, name="head_a")(inp))
    b = L.Reshape((-1, 2), name="head_b_r")(L.Conv2D(2, 3, strides=2, padding="same", name="head_b")(inp))
    anchors = L.Concatenate(axis=1, name="anchors")([L.Activation("sigmoid", name="a_sig")(a), b])
    top = L.Conv2D(2, 1, name="top")(inp)
    bottom = L.Cropping2D(((1, 0), (0, 0)), name="crop")(L.Conv2D(2, 3, padding="same", name="bottom")(inp))
    rows = L.Concatenate(axis=1, name="rows")([top, bottom])
    return K.Model(inp, [anchors, rows], name="concat_outer")


# name -> (builder, input range (low, high))
MODELS = {
    "nested_functional": (nested_functional, (-1, 1)),
    "nested_sequential": (nested_sequential, (-1, 1)),
    "nested_depth2": (nested_depth2, (-1, 1)),
    "shared_conv": (shared_conv, (-1, 1)),
    "rescaling_scalar": (rescaling_scalar, (0, 255)),
    "rescaling_channel": (rescaling_channel, (0, 255)),
    "normalization_weights": (normalization_weights, (-2, 3)),
    "normalization_config": (normalization_config, (0, 255)),
    "normalization_axis": (normalization_axis, (-2, 3)),
    "augmentation": (augmentation, (-1, 1)),
    "op_arith_const": (op_model("op_arith_const", _arith_const), (-1, 1)),
    "op_add_tensors": (op_model("op_add_tensors", _add_tensors), (-1, 1)),
    "op_hard_swish": (op_model("op_hard_swish", _hard_swish_ops), (-4, 4)),
    "op_relu6": (op_model("op_relu6", _relu6), (-8, 8)),
    "op_sigmoid": (op_model("op_sigmoid", _sigmoid), (-4, 4)),
    "op_pad_channels": (op_model("op_pad_channels", _pad_channels), (-1, 1)),
    "op_concat": (op_model("op_concat", _concat), (-1, 1)),
    "op_reshape": (op_model("op_reshape", _reshape), (-1, 1)),
    "op_mean_hw": (op_model("op_mean_hw", _mean_hw), (-1, 1)),
    "op_slice_channels": (op_model("op_slice_channels", _slice_channels), (-1, 1)),
    "op_gelu_tanh": (op_model("op_gelu_tanh", _gelu_tanh), (-3, 3)),
    "act_keras3": (activation_model("act_keras3", ["hard_silu", "hard_swish", "hard_sigmoid"], k3_only=True), (-4, 4)),
    "act_gelu": (activation_model("act_gelu", ["gelu"]), (-3, 3)),
    "layer_normalization": (layer_normalization, (-1, 1)),
    "convnext_block": (convnext_block, (-1, 1)),
    "inception_scale": (inception_scale, (-1, 1)),
    "conv_transpose_same": (conv_transpose("same"), (-1, 1)),
    "conv_transpose_valid": (conv_transpose("valid"), (-1, 1)),
    "upsampling_bilinear": (upsampling_bilinear, (-1, 1)),
    "merges": (merges, (-1, 1)),
    "concat_outer": (concat_outer, (-1, 1)),
    "group_normalization": (group_normalization, (-1, 1)),
}


# --- weights ----------------------------------------------------------------------------------------

def set_weights(layer, values):
    """layer.set_weights, then, for Normalization, finalize_state(): Keras 3 computes the mean and
    variance it normalises with from its weights only there (and in build/adapt), so without it the
    layer keeps normalising with the old values although the saved weights are the new ones."""
    layer.set_weights(values)
    if type(layer).__name__ == "Normalization" and hasattr(layer, "finalize_state"):
        layer.finalize_state()


def leaves(model):
    """Every layer that is not itself a model, depth first, each once (a shared layer appears once)."""
    for layer in model.layers:
        if hasattr(layer, "layers") and hasattr(layer, "inputs"):
            yield from leaves(layer)
        else:
            yield layer


def randomize(model, rng):
    """Deterministic non-trivial weights, as generate.py: kernels ~ N(0, 1/fan_in), biases N(0, 0.3),
    BN gamma U(0.5, 1.5), beta N(0, 0.5), moving mean N(0, 0.5), moving variance U(0.2, 2);
    Normalization mean N(0.5, 0.5), variance U(0.2, 2); LayerNormalization and GroupNormalization gamma
    U(0.5, 1.5), beta N(0, 0.5); LayerScale gamma U(0.2, 1) (its 1e-6 default would hide the branch)."""
    for layer in leaves(model):
        ws = layer.get_weights()
        if not ws:
            continue
        kind = type(layer).__name__
        names = [v.name.split("/")[-1].split(":")[0] for v in layer.weights]
        new = []
        for n, w in zip(names, ws):
            if n == "count":
                r = w
            elif n in ("gamma",) and kind == "LayerScale":
                r = rng.uniform(0.2, 1.0, w.shape)
            elif n == "gamma":
                r = rng.uniform(0.5, 1.5, w.shape)
            elif n in ("beta", "moving_mean"):
                r = rng.normal(0, 0.5, w.shape)
            elif n == "mean":
                r = rng.normal(0.5, 0.5, w.shape)
            elif n in ("moving_variance", "variance"):
                r = rng.uniform(0.2, 2.0, w.shape)
            elif w.ndim >= 2:
                if kind == "DepthwiseConv2D":
                    fan_in = int(np.prod(w.shape[:2]))
                elif kind == "Conv2DTranspose":
                    fan_in = int(np.prod(w.shape[:2]) * w.shape[3])     # (kh, kw, out, in)
                else:
                    fan_in = int(np.prod(w.shape[:-1]))
                r = rng.normal(0, 1.0 / np.sqrt(fan_in), w.shape)
            else:
                r = rng.normal(0, 0.3, w.shape)
            new.append(np.asarray(r, dtype=w.dtype))
        set_weights(layer, new)


def copy_weights(source, target):
    """source's weights into target leaf by leaf; refuses (raises) when the two disagree."""
    a = [l for l in leaves(source) if l.get_weights()]
    b = [l for l in leaves(target) if l.get_weights()]
    assert len(a) == len(b), f"{source.name}: {len(a)} layers with weights in Keras 3, {len(b)} in tf.keras"
    for x, y in zip(a, b):
        set_weights(y, x.get_weights())


# --- driver -----------------------------------------------------------------------------------------

def main():
    global OUT
    if "--out" in sys.argv:
        OUT = sys.argv[sys.argv.index("--out") + 1]
        os.makedirs(OUT, exist_ok=True)
    # --only NAME ... writes those models alone (each keeps its seed, 2100 + its place in MODELS).
    only = set(sys.argv[sys.argv.index("--only") + 1:]) if "--only" in sys.argv else None
    if only is not None and not only <= set(MODELS):
        sys.exit(f"unknown models: {sorted(only - set(MODELS))}")
    written = []
    for index, (name, (build, (low, high))) in enumerate(MODELS.items()):
        if only is not None and name not in only:
            continue
        rng = np.random.default_rng(2100 + index)
        keras.utils.set_random_seed(2100 + index)
        tf_keras.utils.set_random_seed(2100 + index)
        k3 = build(keras)
        tk = build(tf_keras)
        reference = k3 if k3 is not None else tk
        randomize(reference, rng)
        if k3 is not None and tk is not None:
            copy_weights(k3, tk)
        shape = (1,) + tuple(reference.inputs[0].shape[1:])
        x = rng.uniform(low, high, shape).astype(np.float32)
        np.save(os.path.join(OUT, f"{name}.input.npy"), x)

        def save_outputs(prefix, model):
            outs = model(x, training=False)
            outs = outs if isinstance(outs, (list, tuple)) else [outs]
            for k, o in enumerate(outs):
                np.save(os.path.join(OUT, f"{name}.{prefix}.out{k}.npy"), np.asarray(o, dtype=np.float32))
            return [tuple(np.shape(o)) for o in outs]

        kinds = []
        if k3 is not None:
            out_shapes = save_outputs("keras3", k3)
            k3.save(os.path.join(OUT, f"{name}.keras"))
            k3.save(os.path.join(OUT, f"{name}.keras3.h5"))
            kinds += ["keras", "keras3.h5"]
        if tk is not None:
            out_shapes = save_outputs("tfkeras", tk)
            tk.save(os.path.join(OUT, f"{name}.tfkeras.h5"))
            kinds += ["tfkeras.h5"]
        written.append((name, kinds, shape, out_shapes, " ".join((build.__doc__ or "").split())))
        print(name, "saved as", ", ".join(kinds), "input", shape, "outputs", out_shapes, file=sys.stderr)
        keras.backend.clear_session()
        tf_keras.backend.clear_session()
    # The rows of LAYERS.md's table (its foldkit column is filled in from `foldkit inspect`).
    for name, kinds, shape, out_shapes, doc in written:
        print(f"| {name} | {', '.join(kinds)} | {shape} | {', '.join(map(str, out_shapes))} | {doc} |")


if __name__ == "__main__":
    main()
