#!/usr/bin/env python3
"""Keras' own predictions for the real Keras models in ../shared/real-models/keras*.

For each model: load it with Keras itself (tf_keras, the Keras 2 API, or Keras 3), feed a seeded
input (numpy default_rng(seed).random, float32, batch 1, in the model's own layout) and save
    <model>/input.npy        the input exactly as fed to model.predict
    <model>/out<k>.npy       Keras' k-th model output (NHWC for feature maps, (1, N) for vectors)
    <model>/meta.json        what was loaded, by which Keras and how (see README.md)
These are the references Tests/FoldKitKerasTests/KerasRealPredictionTests.swift reproduces.

Keras 1 configs (Convolution2D, nb_filter, border_mode, dim_ordering ...) load in no Keras here, so
for those the Keras 1 config is translated layer by layer into the equivalent tf_keras layers and
the weights are loaded by tf_keras' own legacy HDF5 loader (`model.load_weights`, which does the
Keras 1 -> 2 kernel transposition itself). Theano kernels: Theano's conv2d is a true convolution
(filter_flip=True), TensorFlow's a cross-correlation; Keras 2.x rotated kernels 180 degrees on load
when the file's `backend` attribute was 'theano' (`_need_convert_kernel` + `convert_kernel` in
keras/engine/saving.py, removed from tf_keras). This script applies that same rotation where the
model's convolutions were computed by Theano, and records it in meta.json.

Run from the repository root with ../shared present:
    pip install tensorflow-cpu tf-keras      # (keras 3 comes with tensorflow)
    python3 Fixtures/keras-real/generate.py
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import h5py
import numpy as np
import tensorflow as tf
import tf_keras
import keras

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))
if len(sys.argv) > 1:
    SHARED = sys.argv[1]


def shared(rel):
    return os.path.join(SHARED, rel)


def convert_kernel(kernel):
    """Keras 2.x `conv_utils.convert_kernel`: flips every axis but the last two (the spatial
    axes of a (kh, kw, in, out) kernel), i.e. a 180 degree rotation. Its own inverse."""
    kernel = np.asarray(kernel)
    slices = [slice(None, None, -1) for _ in range(kernel.ndim)]
    slices[-2:] = (slice(None, None), slice(None, None))
    return np.copy(kernel[tuple(slices)])


def rotate_conv_kernels(model):
    """What Keras 2's loader did for Theano-saved weights (`_need_convert_kernel`)."""
    rotated = []
    for layer in model.layers:
        if layer.__class__.__name__ in ("Conv2D",):
            weights = layer.get_weights()
            weights[0] = convert_kernel(weights[0])
            layer.set_weights(weights)
            rotated.append(layer.name)
    return rotated


# ----------------------------------------------------------------------------------------------
# Keras 1 config -> tf_keras layers (only what the real Keras 1 files here use)

def keras1_activation(name):
    return name if name else "linear"


def keras1_layer(cls, cfg):
    L = tf_keras.layers
    name = cfg["name"]
    extra = {}
    if "batch_input_shape" in cfg:
        extra["batch_input_shape"] = tuple(cfg["batch_input_shape"])
    if cls == "Convolution2D":
        return L.Conv2D(filters=cfg["nb_filter"], kernel_size=(cfg["nb_row"], cfg["nb_col"]),
                        strides=tuple(cfg.get("subsample", (1, 1))), padding=cfg.get("border_mode", "valid"),
                        data_format="channels_first" if cfg.get("dim_ordering") == "th" else "channels_last",
                        dilation_rate=tuple(cfg.get("atrous_rate", (1, 1))),
                        use_bias=cfg.get("bias", True), activation=keras1_activation(cfg.get("activation")),
                        name=name, **extra)
    if cls == "Dense":
        return L.Dense(cfg["output_dim"], use_bias=cfg.get("bias", True),
                       activation=keras1_activation(cfg.get("activation")), name=name, **extra)
    if cls == "Activation":
        return L.Activation(cfg["activation"], name=name, **extra)
    if cls == "MaxPooling2D":
        return L.MaxPooling2D(pool_size=tuple(cfg["pool_size"]), strides=tuple(cfg["strides"]),
                              padding=cfg.get("border_mode", "valid"),
                              data_format="channels_first" if cfg.get("dim_ordering") == "th" else "channels_last",
                              name=name, **extra)
    if cls == "Dropout":
        return L.Dropout(cfg["p"], name=name, **extra)
    if cls == "Flatten":
        # Keras 1 flattens the tensor in its stored order (C, H, W for 'th'); tf_keras' Flatten
        # with the default data_format does exactly that (channels_first would transpose first).
        return L.Flatten(data_format="channels_last", name=name, **extra)
    if cls == "Reshape":
        return L.Reshape(tuple(cfg["target_shape"]), name=name, **extra)
    if cls == "BatchNormalization":
        if cfg.get("mode", 0) != 0:
            raise ValueError("BatchNormalization mode %r" % cfg.get("mode"))
        # Keras 1 running_std holds the variance (K.batch_normalization(x, mean, std, ...) computes
        # (x - mean) / sqrt(std + eps)); tf_keras' moving_variance is used the same way.
        return L.BatchNormalization(axis=cfg.get("axis", -1), epsilon=cfg.get("epsilon", 1e-3),
                                    momentum=cfg.get("momentum", 0.99), name=name, **extra)
    raise ValueError("no translation for Keras 1 class %s" % cls)


def keras1_sequential(config):
    assert config["class_name"] == "Sequential", config["class_name"]
    layers = config["config"]
    if isinstance(layers, dict):
        layers = layers["layers"]
    return tf_keras.Sequential([keras1_layer(l["class_name"], l["config"]) for l in layers])


# ----------------------------------------------------------------------------------------------

def load_tf_keras(path):
    return tf_keras.models.load_model(shared(path), compile=False)


def load_tf_keras_json(json_path, weights_path):
    with open(shared(json_path)) as f:
        model = tf_keras.models.model_from_json(without_function_initializers(f.read()))
    model.load_weights(shared(weights_path))
    return model


def without_function_initializers(config_json):
    """hls4ml's conv2d_1layer names a plain Python function (`random_kernel`) as kernel
    initializer, which no Keras can deserialize. Initializers are never used when the stored
    weights are loaded, so such an entry is replaced by Zeros; nothing else changes."""
    def walk(node):
        if isinstance(node, dict):
            if node.get("class_name") == "function" and node.get("module") == "builtins":
                return {"class_name": "Zeros", "config": {}}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return json.dumps(walk(json.loads(config_json)))


def load_tf_keras_patched(path):
    """Full-model .h5 whose config needs `without_function_initializers`: the config from the
    file's model_config attribute, the weights by tf_keras' HDF5 loader from the same file."""
    model = tf_keras.models.model_from_json(without_function_initializers(h5_attr(path, "model_config")))
    model.load_weights(shared(path))
    return model


def h5_attr(path, name):
    with h5py.File(shared(path), "r") as f:
        value = f.attrs.get(name)
        if isinstance(value, bytes):
            value = value.decode()
        return value


def make_input(shape, seed):
    return np.random.default_rng(seed).random(shape, dtype=np.float64).astype(np.float32)


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def write(name, files, loader, model, x, notes, input_layout, rotated=None, keras3_model=None):
    out_dir = os.path.join(HERE, name)
    os.makedirs(out_dir, exist_ok=True)
    for stale in os.listdir(out_dir):
        if stale.endswith(".npy"):
            os.remove(os.path.join(out_dir, stale))
    np.save(os.path.join(out_dir, "input.npy"), x)
    outputs = [np.asarray(o, dtype=np.float32) for o in as_list(model.predict(x, verbose=0))]
    meta = {
        "files": files,
        "loadedBy": loader,
        "input": {"file": "input.npy", "shape": list(x.shape), "layout": input_layout, "dtype": "float32",
                  "generator": ("numpy.random.default_rng(%d).random(shape).astype(float32)" % SEEDS[name]
                                if SEEDS[name] >= 0 else "given by the model's source (see notes)")},
        "outputs": [],
        "notes": notes,
    }
    if rotated is not None:
        meta["theanoKernelRotation"] = rotated
    names = getattr(model, "output_names", None) or [t.name for t in as_list(model.outputs)]
    for k, o in enumerate(outputs):
        np.save(os.path.join(out_dir, "out%d.npy" % k), o)
        meta["outputs"].append({"file": "out%d.npy" % k, "name": names[k], "shape": list(o.shape),
                                "layout": "nhwc" if o.ndim == 4 else ("vector" if o.ndim == 2 else "nd"),
                                "maxAbs": float(np.abs(o).max())})
    if keras3_model is not None:
        # Cross-check: the same file loaded by Keras 3 must agree with tf_keras.
        other = [np.asarray(o) for o in as_list(keras3_model.predict(x, verbose=0))]
        deviation = max(float(np.abs(a - b).max() / max(np.abs(a).max(), 1e-30)) for a, b in zip(outputs, other))
        meta["keras3CrossCheck"] = {"keras": keras.__version__, "maxRelativeDeviation": deviation}
        assert deviation < 1e-5, (name, deviation)
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print("%-40s %s -> %s" % (name, list(x.shape), [list(o.shape) for o in outputs]))


TF_KERAS = "tf_keras %s (TensorFlow %s)" % (tf_keras.__version__, tf.__version__)
SEEDS = {}


def seed(name, value):
    SEEDS[name] = value
    return value


def keras3_or_none(path):
    try:
        return keras.models.load_model(shared(path), compile=False)
    except Exception:  # noqa: BLE001 - only a cross-check
        return None


def main():
    if not os.path.isdir(os.path.join(SHARED, "real-models")):
        sys.exit("../shared/real-models not found at %s" % SHARED)

    # --- Keras 2 / tf.keras full-model files -------------------------------------------------
    full_models = [
        ("fer2013_mini_XCEPTION", "real-models/keras_fer2013_mini_XCEPTION/fer2013_mini_XCEPTION.102-0.66.hdf5"),
        ("gender_mini_XCEPTION", "real-models/keras_fer2013_mini_XCEPTION/gender_mini_XCEPTION.21-0.95.hdf5"),
        ("aXeleRate_mobilenet_yolov2", "real-models/keras_aXeleRate_mobilenet_yolov2/YOLO_best_mAP.h5"),
        ("hls4ml_conv2d_model_sequential", "real-models/keras_hls4ml_conv2d_model_sequential/keras_conv2d_model.h5"),
        ("hls4ml_jetTagger_Conv2D_Small", "real-models/keras_hls4ml_jetTagger_Conv2D_Small/keras_jetTagger_Conv2D_small.h5"),
        ("keras2_batch_to_conv2d_tensorflow_2", "real-models/keras1_dl4j_batch_to_conv2d/batch_to_conv2d_tensorflow_2.h5"),
    ]
    for i, (name, path) in enumerate(full_models):
        model = load_tf_keras(path)
        x = make_input((1,) + tuple(model.input_shape[1:]), seed(name, 100 + i))
        write(name, [path], TF_KERAS + ": models.load_model(compile=False)", model, x,
              "file keras_version %s, backend %s" % (h5_attr(path, "keras_version"), h5_attr(path, "backend")),
              "nhwc" if x.ndim == 4 else "vector", keras3_model=keras3_or_none(path))

    name, path = "hls4ml_conv2d_1layer_tf213", "real-models/keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.h5"
    model = load_tf_keras_patched(path)
    x = make_input((1, 5, 5, 1), seed(name, 150))
    write(name, [path], TF_KERAS + ": model_from_json(model_config with the 'random_kernel' function initializer "
          "replaced by Zeros) + load_weights from the same file", model, x,
          "file keras_version %s; load_model fails on the custom initializer function" % h5_attr(path, "keras_version"), "nhwc")

    # --- JSON config + weights-only files ------------------------------------------------------
    json_models = [
        ("hls4ml_conv2d_1layer_tf213_json", "real-models/keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.json",
         "real-models/keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer_weights.h5"),
        ("hls4ml_conv2d_model_sequential_json", "real-models/keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model.json",
         "real-models/keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model_weights.h5"),
        ("hls4ml_jetTagger_Conv2D_Small_json", "real-models/keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small.json",
         "real-models/keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small_weights.h5"),
    ]
    for i, (name, jpath, wpath) in enumerate(json_models):
        model = load_tf_keras_json(jpath, wpath)
        x = make_input((1,) + tuple(model.input_shape[1:]), seed(name, 200 + i))
        write(name, [jpath, wpath], TF_KERAS + ": models.model_from_json + load_weights", model, x,
              "weights keras_version %s" % h5_attr(wpath, "keras_version"), "nhwc")

    # --- MTCNN P-Net: input size None x None; 24 x 24 chosen here ----------------------------------
    name, path = "dl4j_mtcnn_12net", "real-models/keras_dl4j_mtcnn_12net/12net.h5"
    model = load_tf_keras(path)
    x = make_input((1, 24, 24, 3), seed(name, 300))
    write(name, [path], TF_KERAS + ": models.load_model(compile=False)", model, x,
          "model input (None, None, None, 3); evaluated at 24 x 24 (the size comes from the input array)",
          "nhwc", keras3_model=keras3_or_none(path))
    # The size the P-Net was trained at: 12 x 12 gives one window, outputs (1, 1, 1, 2) and (1, 1, 1, 4).
    name = "dl4j_mtcnn_12net_12x12"
    x = make_input((1, 12, 12, 3), seed(name, 301))
    write(name, [path], TF_KERAS + ": models.load_model(compile=False)", model, x,
          "model input (None, None, None, 3); evaluated at 12 x 12, the P-Net's own window",
          "nhwc", keras3_model=keras3_or_none(path))

    # --- DL4J's cnn_batch_norm: ships its own input.npy (5, 10, 10, 3) float64 and Keras' predictions ---
    # Batch 1 here: the first sample, cast to float32; source_prediction.npy is the source's own
    # prediction for that sample (computed by Keras from the float64 input), an independent reference.
    name, path = "dl4j_cnn_batch_norm", "real-models/keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5"
    SEEDS[name] = -1
    model = load_tf_keras(path)
    source_input = np.load(shared("real-models/keras_dl4j_cnn_batch_norm/input.npy"))
    source_prediction = np.load(shared("real-models/keras_dl4j_cnn_batch_norm/predictions.npy"))
    x = source_input[0:1].astype(np.float32)
    write(name, [path], TF_KERAS + ": models.load_model(compile=False)", model, x,
          "file keras_version %s, backend %s; input = the source's input.npy[0:1] (float64) cast to float32 "
          "(no seed); source_prediction.npy = the source's predictions.npy[0:1]"
          % (h5_attr(path, "keras_version"), h5_attr(path, "backend")),
          "nhwc", keras3_model=keras3_or_none(path))
    np.save(os.path.join(HERE, name, "source_prediction.npy"), source_prediction[0:1].astype(np.float32))

    # --- Keras 2.1.3 saved with the Theano backend ---------------------------------------------------
    # tf_keras loads it but no longer converts kernels; Keras 2.1.3 itself (the version that wrote
    # it) rotated them because backend == 'theano'. The reference applies that rotation.
    name, path = "keras2_batch_to_conv2d_theano_2", "real-models/keras1_dl4j_batch_to_conv2d/batch_to_conv2d_theano_2.h5"
    model = load_tf_keras(path)
    rotated = rotate_conv_kernels(model)
    x = make_input((1, 100), seed(name, 400))
    write(name, [path], TF_KERAS + ": models.load_model(compile=False), then Keras 2.x convert_kernel on Conv2D kernels",
          model, x, "file keras_version %s, backend %s: Keras 2.x's loader (_need_convert_kernel) rotates "
          "the kernels of Theano-saved files loaded into TensorFlow" % (h5_attr(path, "keras_version"), h5_attr(path, "backend")),
          "vector", rotated=rotated)

    # --- Keras 1.2.2 full-model files (no backend attribute, dim_ordering tf) ------------------------
    for i, stem in enumerate(["batch_to_conv2d_tensorflow_1", "batch_to_conv2d_theano_1"]):
        name, path = "keras1_" + stem, "real-models/keras1_dl4j_batch_to_conv2d/%s.h5" % stem
        config = json.loads(h5_attr(path, "model_config"))
        model = keras1_sequential(config)
        model.load_weights(shared(path))
        x = make_input((1, 100), seed(name, 500 + i))
        write(name, [path], TF_KERAS + ": Keras 1 config translated to tf_keras layers, weights via tf_keras' legacy HDF5 loader",
              model, x, "file keras_version %s, no backend attribute, dim_ordering tf: Keras 2's loader does "
              "not rotate kernels without a backend attribute, and neither does this reference" % h5_attr(path, "keras_version"),
              "vector", rotated=[])

    # --- Keras 1 mnist_cnn trained with Theano, dim_ordering 'th' (channels first) --------------------
    name = "keras1_mnist_cnn_th"
    jpath = "real-models/keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_config.json"
    wpath = "real-models/keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_weights.h5"
    with open(shared(jpath)) as f:
        config = json.load(f)
    x = make_input((1, 1, 28, 28), seed(name, 600))
    # Without rotation: what tf_keras computes from the stored kernels (cross-correlation), kept as
    # a control that the rotation matters for this model.
    plain = keras1_sequential(config)
    plain.load_weights(shared(wpath))
    control = np.asarray(plain.predict(x, verbose=0), dtype=np.float32)
    model = keras1_sequential(config)
    model.load_weights(shared(wpath))
    rotated = rotate_conv_kernels(model)
    write(name, [jpath, wpath], TF_KERAS + ": Keras 1 config translated to tf_keras layers (channels_first), "
          "weights via tf_keras' legacy HDF5 loader, then Keras 2.x convert_kernel on Conv2D kernels",
          model, x, "trained with Theano (dim_ordering th; weights-only file without keras_version/backend "
          "attributes): Theano's conv2d flips the kernel, so the Theano network equals TensorFlow's "
          "cross-correlation with kernels rotated 180 degrees (Keras' convert_kernel). "
          "control_unrotated.npy holds the prediction without the rotation.",
          "nchw", rotated=rotated)
    np.save(os.path.join(HERE, name, "control_unrotated.npy"), control)


if __name__ == "__main__":
    main()
