#!/usr/bin/env python3
"""Builds small Keras models with non-trivial weights and batch-norm statistics, saves them with
tf.keras (tf_keras package, Keras 2 API) and with Keras 3 (legacy .h5 and native .keras), and records
each framework's own predictions for a seeded input. FoldKit's Keras tests read these files and must
reproduce the predictions.

Run from anywhere:  python3 Fixtures/keras/generate.py
Writes into the folder of this script:
  <model>.tfkeras.h5, <model>.keras3.h5, <model>.keras        the saved models
  <model>.tfkeras.json + <model>.tfkeras.weights.h5           weights-only file (Keras 3 style layout) + JSON
  <model>.tfkeras_legacy_weights.h5                            weights-only file (legacy layer_names layout)
  <model>.input.npy                                            seeded input, NHWC float32, batch 1
  <model>.<saver>.out<k>.npy                                   that framework's prediction for output k
Weights are identical in both frameworks (copied layer by layer), so predictions agree to ~1e-6.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import numpy as np
import tensorflow as tf
import keras
import tf_keras

HERE = os.path.dirname(os.path.abspath(__file__))


def space_to_depth_x2(x):
    """YAD2K's Lambda body (yad2k/models/keras_yolo.py): tf.space_to_depth with block size 2."""
    import tensorflow as tf
    return tf.nn.space_to_depth(x, block_size=2)


def space_to_depth_x2_output_shape(input_shape):
    return (input_shape[0], input_shape[1] // 2 if input_shape[1] else None,
            input_shape[2] // 2 if input_shape[2] else None, 4 * input_shape[3])


# --- model builders; `K` is the keras or tf_keras module (same layer API) -------------------------

def tiny_yolo_voc(K):
    """YAD2K-style Tiny YOLO VOC at 64x64 with few filters, plus a YOLOv2-style passthrough branch
    (1x1 conv -> space_to_depth_x2 Lambda -> Concatenate) so the reorg path is exercised."""
    L = K.layers
    x = inp = L.Input(shape=(64, 64, 3), name="input_1")

    def block(x, filters, size, name):
        x = L.Conv2D(filters, size, padding="same", use_bias=False, name=name)(x)
        x = L.BatchNormalization(name=name + "_bn")(x)
        return L.LeakyReLU(0.1, name=name + "_leaky")(x) if K is tf_keras else L.LeakyReLU(negative_slope=0.1, name=name + "_leaky")(x)

    x = block(x, 4, 3, "conv_1"); x = L.MaxPooling2D(2, 2, padding="same", name="pool_1")(x)
    x = block(x, 8, 3, "conv_2"); x = L.MaxPooling2D(2, 2, padding="same", name="pool_2")(x)
    x = block(x, 8, 3, "conv_3"); x = L.MaxPooling2D(2, 2, padding="same", name="pool_3")(x)
    passthrough = block(x, 16, 3, "conv_4")                      # 8x8
    x = L.MaxPooling2D(2, 2, padding="same", name="pool_4")(passthrough)   # 4x4
    x = block(x, 16, 3, "conv_5"); x = L.MaxPooling2D(2, 2, padding="same", name="pool_5")(x)  # 2x2
    x = block(x, 32, 3, "conv_6"); x = L.MaxPooling2D(2, 1, padding="same", name="pool_6")(x)  # stride 1
    x = block(x, 32, 3, "conv_7")
    p = block(passthrough, 4, 1, "conv_pass")
    p = L.MaxPooling2D(2, 2, padding="same", name="pool_pass")(p)  # 4x4 -> space_to_depth -> 2x2x16
    p = L.Lambda(space_to_depth_x2, output_shape=space_to_depth_x2_output_shape, name="space_to_depth_x2")(p)
    x = L.Concatenate(name="concat")([p, x])
    x = block(x, 32, 3, "conv_8")
    out = L.Conv2D(5 * (5 + 20), 1, name="conv_out")(x)          # linear, with bias
    return K.Model(inp, out, name="tiny_yolo_voc")


def dag(K):
    """Functional DAG: depthwise / separable convs, Add, Concatenate, Multiply (squeeze-excite),
    padding, cropping, upsampling, dilation, strided 'same' convs, pooling variants, PReLU, ELU,
    ReLU(max_value / negative_slope / threshold), standalone batch norms, two outputs."""
    L = K.layers
    inp = L.Input(shape=(12, 12, 3), name="image")
    x = L.Conv2D(8, 3, padding="same", activation="relu", name="stem")(inp)
    a = L.DepthwiseConv2D(3, padding="same", depth_multiplier=2, use_bias=False, name="dw")(x)
    a = L.BatchNormalization(name="dw_bn")(a)
    a = L.ReLU(max_value=6.0, name="dw_relu6")(a)
    b = L.SeparableConv2D(16, 3, padding="same", name="sep")(x)
    b = L.BatchNormalization(center=False, name="sep_bn")(b)
    s = L.Add(name="add")([a, b])
    s = L.ReLU(negative_slope=0.2, threshold=0.1, max_value=4.0, name="relu_clip")(s)
    # squeeze-excite
    e = L.GlobalAveragePooling2D(name="gap")(s)
    e = L.Dense(4, activation="relu", name="se_reduce")(e)
    e = L.Dense(16, activation="sigmoid", name="se_expand")(e)
    e = L.Reshape((1, 1, 16), name="se_reshape")(e)
    s = L.Multiply(name="se_mul")([s, e])
    # standalone batch norm before a 'same' conv (stays a per-channel affine)
    t = L.BatchNormalization(scale=False, name="pre_bn")(s)
    t = L.Conv2D(8, 3, strides=2, padding="same", name="down")(t)          # 12 -> 6, asymmetric pad
    t = L.ELU(alpha=0.7, name="elu")(t) if K is tf_keras else L.ELU(alpha=0.7, name="elu")(t)
    t = L.ZeroPadding2D(((1, 2), (0, 1)), name="zpad")(t)                  # 9x7
    t = L.Conv2D(8, 3, dilation_rate=2, name="dilated")(t)                  # 5x3
    t = L.PReLU(name="prelu")(t)
    t = L.UpSampling2D(2, name="up")(t)                                     # 10x6
    t = L.Cropping2D(((1, 1), (0, 2)), name="crop")(t)                      # 8x4
    u = L.Conv2D(8, 1, activation="tanh", name="side")(inp)
    u = L.AveragePooling2D(3, strides=2, padding="same", name="avg_same")(u)   # 6x6
    u = L.MaxPooling2D(3, strides=2, padding="valid", name="max_valid")(u)     # 2x2
    v = L.MaxPooling2D(3, strides=3, padding="same", name="max_same")(t)       # 3x2
    v = L.Cropping2D(((1, 0), (0, 0)), name="crop2")(v)                        # 2x2
    c = L.Concatenate(name="cat")([u, v])
    c = L.Activation("swish", name="swish")(c)
    c = L.GlobalMaxPooling2D(name="gmp")(c)
    head = L.Dense(5, name="logits")(c)
    head = L.Softmax(name="probs")(head)
    feat = L.Conv2D(4, 1, activation="sigmoid", name="feat")(t)
    return K.Model(inp, [head, feat], name="dag")


def dense_head(K):
    """Sequential CNN classifier: conv + BN + Activation, 'valid' pooling, Flatten, Dense + BN, Dropout, softmax.
    The activation after fc1_bn is hard_sigmoid in tf.keras (clip(0.2x + 0.5, 0, 1)) but relu in Keras 3,
    whose hard_sigmoid is a different function (relu6(x + 3) / 6); each framework's own prediction is recorded."""
    L = K.layers
    return K.Sequential([
        L.Input(shape=(8, 8, 3)),
        L.Conv2D(6, 3, name="conv1"),
        L.BatchNormalization(epsilon=1e-2, name="bn1"),
        L.Activation("relu", name="relu1"),
        L.MaxPooling2D(2, name="pool1"),
        L.Flatten(name="flatten"),
        L.Dense(12, name="fc1"),
        L.BatchNormalization(name="fc1_bn"),
        L.Activation("hard_sigmoid", name="hsig") if K is tf_keras else L.Activation("relu", name="hsig"),
        L.Dropout(0.5, name="drop"),
        L.Dense(4, activation="softmax", name="fc2"),
    ], name="dense_head")


def grouped(K):
    """Grouped convolution (Conv2D groups=2) and depthwise stride 2."""
    L = K.layers
    inp = L.Input(shape=(10, 10, 4), name="x")
    x = L.Conv2D(6, 3, groups=2, padding="same", name="gconv")(inp)
    x = L.DepthwiseConv2D(3, strides=2, padding="same", name="dw_s2")(x)
    x = L.BatchNormalization(name="dw_s2_bn")(x)
    x = L.LeakyReLU(0.3, name="leaky")(x) if K is tf_keras else L.LeakyReLU(negative_slope=0.3, name="leaky")(x)
    return K.Model(inp, x, name="grouped")


MODELS = {"tiny_yolo_voc": tiny_yolo_voc, "dag": dag, "dense_head": dense_head, "grouped": grouped}
WEIGHTS_ONLY = {"dense_head", "dag"}


def randomize(model, rng):
    """Deterministic non-trivial weights: kernels ~ N(0, 1/fan_in), biases/alphas ~ N(0, 0.3),
    BN gamma U(0.5, 1.5), beta N(0, 0.5), moving mean N(0, 0.5), moving variance U(0.2, 2)."""
    values = {}
    for layer in model.layers:
        ws = layer.get_weights()
        if not ws:
            continue
        new = []
        kind = type(layer).__name__
        for i, w in enumerate(ws):
            if kind == "BatchNormalization":
                names = [v.name.split("/")[-1].split(":")[0] for v in layer.weights]
                n = names[i]
                if n == "gamma": r = rng.uniform(0.5, 1.5, w.shape)
                elif n == "beta": r = rng.normal(0, 0.5, w.shape)
                elif n == "moving_mean": r = rng.normal(0, 0.5, w.shape)
                else: r = rng.uniform(0.2, 2.0, w.shape)
            elif w.ndim >= 2 and kind != "PReLU":
                fan_in = int(np.prod(w.shape[:-1])) if kind != "DepthwiseConv2D" and not (kind == "SeparableConv2D" and i == 0) else int(np.prod(w.shape[:2]))
                r = rng.normal(0, 1.0 / np.sqrt(fan_in), w.shape)
            else:
                r = rng.normal(0, 0.3, w.shape)
            new.append(r.astype(np.float32))
        layer.set_weights(new)
        values[layer.name] = new
    return values


def hdf5_wrapper_fixture():
    """A small HDF5 file, written with h5py (no Keras), for the libhdf5 wrapper tests: every dataset
    and attribute kind the Keras reader meets. Expected values are written next to each item."""
    import h5py
    path = os.path.join(HERE, "hdf5_wrapper.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("f32", data=np.arange(6, dtype=np.float32).reshape(2, 3) / 4)       # 0, .25, ... 1.25
        f.create_dataset("group/nested/f16", data=np.array([1.5, -2.25, 65504], dtype=np.float16))
        f.create_dataset("group/f64", data=np.array([[1e-3], [-7.5]], dtype=np.float64))
        f.create_dataset("ints", data=np.array([1, 2, 3], dtype=np.int32))
        f.create_dataset("name:0", data=np.array([42], dtype=np.float32))                  # Keras 2 style name
        f.attrs.create("fixed_nullpad", np.bytes_("nullpad"), dtype=h5py.string_dtype("ascii", 12))
        tid = h5py.h5t.C_S1.copy(); tid.set_size(10); tid.set_strpad(h5py.h5t.STR_NULLTERM)
        space = h5py.h5s.create(h5py.h5s.SCALAR)
        attr = h5py.h5a.create(f.id, b"fixed_nullterm", tid, space)
        attr.write(np.array(b"nullterm", dtype="S10"))
        f.attrs["variable"] = "variable length \u00e9"                                     # h5py: vlen utf-8
        f.attrs["fixed_array"] = np.array([b"conv2d_1", b"bn", b"dense_10"])                  # S8 array, NULLPAD
        f.attrs.create("variable_array", ["kernel:0", "bias:0"], dtype=h5py.string_dtype())
        f.attrs["empty"] = np.array([], dtype=np.float64)                                    # h5py's empty list
        f["group"].attrs["layer_names0"] = np.array([b"a", b"b"])                             # Keras' split attributes
        f["group"].attrs["layer_names1"] = np.array([b"c"])
        f.attrs["number"] = 3.5


def main():
    hdf5_wrapper_fixture()
    for index, (name, build) in enumerate(MODELS.items()):
        rng = np.random.default_rng(1000 + index)
        k3 = build(keras)
        values = randomize(k3, rng)
        tk = build(tf_keras)
        for layer in tk.layers:
            if layer.name in values:
                layer.set_weights(values[layer.name])
        shape = (1,) + tuple(k3.inputs[0].shape[1:])
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        np.save(os.path.join(HERE, f"{name}.input.npy"), x)

        def save_outputs(prefix, outs):
            if not isinstance(outs, (list, tuple)):
                outs = [outs]
            for k, o in enumerate(outs):
                np.save(os.path.join(HERE, f"{name}.{prefix}.out{k}.npy"), np.asarray(o, dtype=np.float32))

        save_outputs("keras3", k3.predict(x, verbose=0))
        save_outputs("tfkeras", tk.predict(x, verbose=0))
        k3.save(os.path.join(HERE, f"{name}.keras"))
        k3.save(os.path.join(HERE, f"{name}.keras3.h5"))
        tk.save(os.path.join(HERE, f"{name}.tfkeras.h5"))
        if name in WEIGHTS_ONLY:
            with open(os.path.join(HERE, f"{name}.tfkeras.json"), "w") as f:
                f.write(tk.to_json())
            # '.weights.h5' -> the Keras 3 style layout (layers/<class path>/vars/<i>); other '.h5' -> legacy layer_names/weight_names.
            tk.save_weights(os.path.join(HERE, f"{name}.tfkeras.weights.h5"))
            tk.save_weights(os.path.join(HERE, f"{name}.tfkeras_legacy_weights.h5"))
        print(name, "saved; outputs", [o.shape for o in (k3.outputs)], file=sys.stderr)


if __name__ == "__main__":
    main()
