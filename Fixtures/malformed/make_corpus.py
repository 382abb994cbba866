#!/usr/bin/env python3
"""Writes FoldKit's malformed-input corpus and its table (cases.json) into this folder.

Every case is a small broken or hostile input that `foldkit` must refuse with exit 1 and a message
naming the file, the layer and the byte offset or cfg line, and what was expected
(Docs/Security.md, "What is checked"). Tests/FoldKitCLITests/MalformedCorpusTests.swift runs each
case. Regenerate with:

    python3 Fixtures/malformed/make_corpus.py

Needs numpy and h5py only. The output is deterministic (fixed values, no clock), so regenerating
changes no bytes unless this script changes.
"""
import io
import json
import os
import re
import shutil
import struct
import zipfile
import zlib

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


def path(*parts):
    return os.path.join(HERE, *parts)


def case(name, command, files, must_contain, extra_args=()):
    """One row of the table: `foldkit <command> <files> <extra_args>`, expected exit 1.

    `files` and `extra_args` are relative to this folder; `must_contain` are substrings the error
    message (stderr) must hold - the file, the layer, the offset or line, what was expected."""
    CASES.append({"name": name, "command": command, "files": list(files), "args": list(extra_args),
                  "exit": 1, "stderr": list(must_contain)})


# ---------------------------------------------------------------------------------------------
# Darknet: one small network, its exact weights, and every way to break them.

NET = """[net]
width=6
height=6
channels=2

[convolutional]
batch_normalize=1
filters=3
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
filters=2
size=1
stride=1
pad=1
activation=linear
"""

HEADER = struct.pack("<iiiq", 0, 2, 5, 0)  # major 0, minor 2, revision 5, 64-bit seen: 20 bytes
# Section boundaries in floats: conv0 biases 3, scales 3, mean 3, variance 3, weights 3*2*3*3 = 54;
# conv2 biases 2, weights 2*3 = 6.
CONV0 = [("biases", 3), ("scales", 3), ("mean", 3), ("variance", 3), ("weights", 54)]
CONV2 = [("biases", 2), ("weights", 6)]


def good_floats():
    """Deterministic healthy weights: variances positive, everything finite."""
    values = []
    for name, n in CONV0 + CONV2:
        if name == "variance":
            values += [0.5 + 0.25 * i for i in range(n)]
        elif name == "scales":
            values += [1.0 + 0.1 * i for i in range(n)]
        else:
            values += [((i * 7919) % 13 - 6) / 10.0 for i in range(n)]
    return np.array(values, dtype="<f4")


def write_darknet():
    os.makedirs(path("darknet"), exist_ok=True)
    with open(path("darknet", "net.cfg"), "w") as f:
        f.write(NET)
    floats = good_floats()
    good = HEADER + floats.tobytes()
    with open(path("darknet", "good.weights"), "wb") as f:
        f.write(good)

    def weights(name, data):
        with open(path("darknet", name), "wb") as f:
            f.write(data)
        return "darknet/" + name

    # Truncated at every section boundary and inside tensors.
    offset = 20
    boundaries = []
    for layer, sections in ((0, CONV0), (2, CONV2)):
        for section, n in sections:
            boundaries.append((layer, section, offset, n))
            offset += 4 * n
    for layer, section, start, n in boundaries:
        cut = weights(f"truncated-before-{layer}-{section}.weights", good[:start])
        case(f"weights truncated before layer {layer} {section}", "convert", ["darknet/net.cfg", cut],
             ["truncated-before", f"layer {layer}", "at byte", "expected"])
        if n > 1:
            mid = weights(f"truncated-inside-{layer}-{section}.weights", good[:start + 4 * (n // 2) + 2])
            case(f"weights truncated inside layer {layer} {section}", "convert", ["darknet/net.cfg", mid],
                 ["truncated-inside", f"layer {layer}", "at byte", "expected"])
    case("weights: empty file", "convert", ["darknet/net.cfg", weights("empty.weights", b"")],
         ["empty.weights", "at byte 0", "expected"])
    case("weights: header cut off", "convert", ["darknet/net.cfg", weights("header-cut.weights", HEADER[:10])],
         ["header-cut.weights", "header", "expected"])
    case("weights: 4 extra bytes", "convert", ["darknet/net.cfg", weights("extra-float.weights", good + b"\0\0\0\0")],
         ["extra-float.weights", f"at byte {len(good)}", "expected"])
    case("weights: 1 extra byte", "convert", ["darknet/net.cfg", weights("extra-byte.weights", good + b"\x01")],
         ["extra-byte.weights", f"at byte {len(good)}", "expected"])
    # A 16-byte header (major 0, minor 1: 32-bit seen) before tensors laid out for 20: 4 bytes left over.
    case("weights: header says 32-bit seen", "convert",
         ["darknet/net.cfg", weights("short-seen.weights", struct.pack("<iiiq", 0, 1, 0, 0) + floats.tobytes())],
         ["short-seen.weights", "at byte", "expected"])
    case("weights: absurd header", "convert",
         ["darknet/net.cfg", weights("absurd-header.weights", struct.pack("<iiiq", -7, 2**31 - 1, -1, 2**63 - 1) + floats.tobytes())],
         ["absurd-header.weights", "expected"])
    # Weights written for another network (6 filters in the first convolution, not 3).
    other = HEADER + np.zeros(6 * 4 + 6 * 2 * 9 + 2 + 2 * 6, dtype="<f4").tobytes()
    case("weights of another network", "convert", ["darknet/net.cfg", weights("other-network.weights", other)],
         ["other-network.weights", "at byte", "expected"])

    # Non-finite values and variances no epsilon rescues: refused by convert and fixtures.
    def poisoned(name, index, value):
        bad = floats.copy()
        bad[index] = value
        return weights(name, HEADER + bad.tobytes())

    weight0 = 12 + 5  # element 5 of layer 0's weights
    nan = poisoned("nan-weight.weights", weight0, np.float32("nan"))
    case("NaN in a convolution's weights (convert)", "convert", ["darknet/net.cfg", nan],
         ["nan-weight.weights", "layer 0 [convolutional]", f"at byte {20 + 4 * weight0}", "NaN", "element 5", "--allow-nonfinite"])
    case("NaN in a convolution's weights (fixtures)", "fixtures", ["darknet/net.cfg", nan],
         ["nan-weight.weights", "layer 0 [convolutional]", f"at byte {20 + 4 * weight0}", "NaN", "element 5"])
    inf = poisoned("inf-bias.weights", 54 + 12 + 1, np.float32("inf"))
    case("infinity in a bias", "convert", ["darknet/net.cfg", inf],
         ["inf-bias.weights", "layer 2 [convolutional]", f"at byte {20 + 4 * 67}", "infinity", "bias", "element 1"])
    neg = poisoned("negative-variance.weights", 9 + 2, -1.0)
    case("negative variance, epsilon inside", "convert", ["darknet/net.cfg", neg],
         ["negative-variance.weights", "layer 0 [convolutional]", f"at byte {20 + 4 * 11}", "variance", "element 2"])
    case("negative variance, epsilon outside", "convert", ["darknet/net.cfg", neg],
         ["negative-variance.weights", "layer 0 [convolutional]", f"at byte {20 + 4 * 11}", "variance"],
         ["--bn-epsilon-mode", "outside"])
    zero = poisoned("zero-variance.weights", 9, 0.0)
    case("zero variance with epsilon 0", "convert", ["darknet/net.cfg", zero],
         ["zero-variance.weights", "layer 0 [convolutional]", f"at byte {20 + 4 * 9}", "variance", "element 0"],
         ["--bn-epsilon", "0"])

    # Broken cfgs (with the good weights where a weights file is needed).
    def cfg(name, text, must_contain, command="convert", names_cfg=True):
        with open(path("darknet", name), "w") as f:
            f.write(text)
        files = ["darknet/" + name] + (["darknet/good.weights"] if command != "inspect" else [])
        case(f"cfg {name}", command, files, ([name] if names_cfg else []) + must_contain)

    cfg("empty.cfg", "", ["no sections"])
    cfg("no-net.cfg", NET.replace("[net]", "[convolutional]", 1), [":1", "expected"])
    cfg("unclosed-header.cfg", NET.replace("[maxpool]", "[maxpool"), [":14", "without ']'"])
    cfg("option-without-value.cfg", NET.replace("filters=3", "filters"), [":8", "key=value"])
    cfg("option-before-section.cfg", "width=6\n" + NET, [":1", "before the first [section]"])
    cfg("unknown-section.cfg", NET.replace("[maxpool]", "[teleport]"), [":14", "layer 1", "[teleport]"])
    cfg("unknown-activation.cfg", NET.replace("activation=leaky", "activation=sparkle"), [":12", "layer 0", "expected"])
    cfg("zero-filters.cfg", NET.replace("filters=3", "filters=0"), [":6", "layer 0", "at least 1", "filters=0"])
    cfg("negative-filters.cfg", NET.replace("filters=3", "filters=-3"), [":6", "layer 0", "at least 1", "filters=-3"])
    cfg("huge-filters.cfg", NET.replace("filters=3", "filters=2000000000"), [":6", "layer 0", "expected"], command="inspect")
    cfg("huge-filters-weights.cfg", NET.replace("filters=3", "filters=2000000000"), [":6", "layer 0", "2^31", "expected"])
    cfg("huge-kernel.cfg", NET.replace("size=3", "size=2000000000"), [":6", "layer 0", "expected"], command="inspect")
    cfg("huge-kernel-weights.cfg", NET.replace("size=3", "size=2000000000"), ["good.weights", "layer 0", "at byte 68", "expected"], names_cfg=False)
    cfg("beyond-int32.cfg", NET.replace("filters=3", "filters=99999999999"), [":8", "layer 0", "expected"])
    cfg("not-a-number.cfg", NET.replace("filters=3", "filters=three"), [":8", "layer 0", "expected"])
    cfg("zero-size.cfg", NET.replace("size=3", "size=0"), [":6", "layer 0", "at least 1", "size=0"])
    cfg("zero-stride.cfg", NET.replace("size=2\nstride=2", "size=2\nstride=0"), [":14", "layer 1", "at least 1", "stride=0"])
    cfg("zero-width.cfg", NET.replace("width=6", "width=0"), [":1", "[net]", "positive", "width=0"])
    cfg("negative-channels.cfg", NET.replace("channels=2", "channels=-2"), [":1", "[net]", "positive", "channels=-2"])
    cfg("huge-input.cfg", NET.replace("width=6", "width=2000000000").replace("height=6", "height=2000000000"),
        [":1", "[net]", "expected"], command="inspect")
    cfg("huge-activation.cfg", NET.replace("filters=3", "filters=200000").replace("width=6", "width=4000").replace("height=6", "height=4000"),
        [":6", "layer 0", "expected"], command="inspect")
    cfg("route-to-later.cfg", NET.replace("[maxpool]\nsize=2\nstride=2", "[route]\nlayers=2"), [":15", "layer 1", "expected"])
    cfg("route-to-missing.cfg", NET.replace("[maxpool]\nsize=2\nstride=2", "[route]\nlayers=-9"), [":15", "layer 1", "expected"])
    cfg("shortcut-to-self.cfg", NET.replace("[maxpool]\nsize=2\nstride=2", "[shortcut]\nfrom=1\nactivation=linear"),
        [":15", "layer 1", "expected"])
    # A misspelt key is ignored (as Darknet ignores it), so filters falls back to 1: the weights no longer fit.
    cfg("misspelt-key.cfg", NET.replace("filters=3", "fliters=3"), ["good.weights", "layer 2", "at byte 124", "expected"], names_cfg=False)


# ---------------------------------------------------------------------------------------------
# Keras: a small Sequential model written the way tf.keras 2 writes .h5, then broken.

def keras_layer(class_name, config):
    return {"class_name": class_name, "config": config}


def sequential_config(layers):
    return {"class_name": "Sequential", "config": {"name": "small", "layers": layers}}


SMALL_LAYERS = [
    keras_layer("InputLayer", {"batch_input_shape": [None, 5, 5, 2], "dtype": "float32", "name": "input_1"}),
    keras_layer("Conv2D", {"name": "conv1", "filters": 3, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid",
                           "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1, "activation": "linear",
                           "use_bias": True}),
    keras_layer("BatchNormalization", {"name": "bn1", "axis": [3], "epsilon": 0.001, "center": True, "scale": True}),
    keras_layer("Flatten", {"name": "flatten", "data_format": "channels_last"}),
    keras_layer("Dense", {"name": "fc1", "units": 2, "activation": "linear", "use_bias": True}),
]


def small_weights():
    rng = np.random.RandomState(7)
    return {
        "conv1": [("kernel:0", rng.uniform(-1, 1, (3, 3, 2, 3)).astype("<f4")), ("bias:0", np.zeros(3, "<f4"))],
        "bn1": [("gamma:0", np.ones(3, "<f4")), ("beta:0", np.zeros(3, "<f4")),
                ("moving_mean:0", np.zeros(3, "<f4")), ("moving_variance:0", np.ones(3, "<f4"))],
        "flatten": [],
        "fc1": [("kernel:0", rng.uniform(-1, 1, (27, 2)).astype("<f4")), ("bias:0", np.zeros(2, "<f4"))],
    }


def write_h5(name, config, weights, edit=None):
    """A legacy tf.keras .h5: model_config, then model_weights/<layer>/<layer>/<name> in weight_names order."""
    target = path("keras", name)
    with h5py.File(target, "w", libver="earliest") as f:
        f.attrs["keras_version"] = "2.15.0"
        f.attrs["backend"] = "tensorflow"
        f.attrs["model_config"] = json.dumps(config)
        group = f.create_group("model_weights")
        group.attrs["layer_names"] = np.array([n.encode() for n in weights], dtype="S")
        for layer, tensors in weights.items():
            g = group.create_group(layer)
            g.attrs["weight_names"] = np.array([f"{layer}/{t}".encode() for t, _ in tensors], dtype="S")
            for tensor, values in tensors:
                g.create_dataset(f"{layer}/{tensor}", data=values)
        if edit:
            edit(f)
    return "keras/" + name


def heap_ids(data):
    """The global heap IDs in `data`: (offset of the 16-byte ID, collection address, object index, the
    object's bytes) for every 16 bytes equal to (object length, 'GCOL' collection address, index) of an
    object of a collection, as variable-length string attributes store them."""
    objects = []
    for match in re.finditer(rb"GCOL", data):
        start, size = match.start(), struct.unpack_from("<Q", data, match.start() + 8)[0]
        at = start + 16
        while at + 16 <= start + size and struct.unpack_from("<H", data, at)[0] != 0:
            index, length = struct.unpack_from("<H", data, at)[0], struct.unpack_from("<Q", data, at + 8)[0]
            objects.append((start, index, data[at + 16:at + 16 + length]))
            at += 16 + (length + 7) // 8 * 8
    found = []
    for address, index, body in objects:
        pattern = struct.pack("<IQI", len(body), address, index)
        at = data.find(pattern)
        while at >= 0:
            found.append((at, address, index, body))
            at = data.find(pattern, at + 1)
    return sorted(found)


def write_keras():
    os.makedirs(path("keras"), exist_ok=True)
    config = sequential_config(SMALL_LAYERS)
    write_h5("good.h5", config, small_weights())

    def missing(f):
        del f["model_weights/bn1/bn1/moving_variance:0"]
    case("HDF5: dataset missing", "convert", [write_h5("missing-dataset.h5", config, small_weights(), missing)],
         ["missing-dataset.h5", "bn1", "moving_variance", "not found"])

    w = small_weights()
    w["conv1"][0] = ("kernel:0", np.zeros((3, 3, 2, 4), "<f4"))
    case("HDF5: kernel of the wrong shape", "convert", [write_h5("wrong-shape.h5", config, w)],
         ["wrong-shape.h5", "conv1", "expected"])
    w = small_weights()
    w["fc1"][0] = ("kernel:0", np.zeros((27, 2), "<i4"))
    case("HDF5: integer kernel", "convert", [write_h5("wrong-dtype.h5", config, w)],
         ["wrong-dtype.h5", "fc1", "expected"])
    w = small_weights()
    w["fc1"][0] = ("kernel:0", np.array([[b"ab", b"cd"]] * 27, dtype="S2"))
    case("HDF5: string kernel", "convert", [write_h5("string-kernel.h5", config, w)],
         ["string-kernel.h5", "fc1", "expected"])
    w = small_weights()
    w["conv1"][0] = ("kernel:0", np.zeros((3, 3, 2), "<f4"))
    case("HDF5: kernel with too few axes", "convert", [write_h5("wrong-rank.h5", config, w)],
         ["wrong-rank.h5", "conv1", "expected"])

    def unwritten(f):
        del f["model_weights/fc1/fc1/kernel:0"]
        f["model_weights/fc1/fc1"].create_dataset("kernel:0", shape=(1 << 27, 1 << 10), dtype="<f4", chunks=(64, 64))
    case("HDF5: kernel declares 2^37 values and stores none", "convert",
         [write_h5("unwritten-huge.h5", config, small_weights(), unwritten)], ["unwritten-huge.h5", "fc1", "kernel:0", "expected"])

    def unwritten_small(f):
        del f["model_weights/fc1/fc1/kernel:0"]
        f["model_weights/fc1/fc1"].create_dataset("kernel:0", shape=(1 << 16, 1 << 10), dtype="<f4", chunks=(64, 64))
    case("HDF5: kernel declares 256 MiB and stores none", "convert",
         [write_h5("unwritten.h5", config, small_weights(), unwritten_small)], ["unwritten.h5", "fc1", "kernel:0", "expected"])

    # Hostile storage: values read from another file would land in a blob.
    with open(path("keras", "outside.bin"), "wb") as f:
        f.write(np.arange(54, dtype="<f4").tobytes())

    def external_storage(f):
        del f["model_weights/fc1/fc1/kernel:0"]
        f["model_weights/fc1/fc1"].create_dataset("kernel:0", shape=(27, 2), dtype="<f4", external=[("outside.bin", 0, 216)])
    case("HDF5: kernel stored in another file (external storage)", "convert",
         [write_h5("external-storage.h5", config, small_weights(), external_storage)],
         ["external-storage.h5", "fc1", "external files", "expected"])

    def external_link(f):
        del f["model_weights/fc1"]
        f["model_weights/fc1"] = h5py.ExternalLink("good.h5", "/model_weights/fc1")
    case("HDF5: a layer's weights are an external link to another file", "convert",
         [write_h5("external-link.h5", config, small_weights(), external_link)],
         ["external-link.h5", "external link", "expected"])

    # The global-heap object holding model_config declares 2^63 - 1 bytes: libhdf5 1.10 copied that
    # many in H5Aread and crashed (SIGSEGV in H5HG_read).
    with open(path("keras", "good.h5"), "rb") as f:
        heap = bytearray(f.read())
    at = heap.find(b"GCOL")
    while at != -1:
        collection_end = at + struct.unpack_from("<Q", heap, at + 8)[0]
        p = at + 16
        while p + 16 <= collection_end and struct.unpack_from("<H", heap, p)[0] != 0:
            size = struct.unpack_from("<Q", heap, p + 8)[0]
            if heap[p + 16:p + 29] == b'{"class_name"':
                struct.pack_into("<Q", heap, p + 8, (1 << 63) - 1)
            p += 16 + (size + 7) // 8 * 8
        at = heap.find(b"GCOL", at + 4)
    with open(path("keras", "heap-object-size.h5"), "wb") as f:
        f.write(bytes(heap))
    case("HDF5: model_config's heap object declares 2^63 - 1 bytes", "convert", ["keras/heap-object-size.h5"],
         ["heap-object-size.h5", "global heap object", "at byte", "expected"])

    # Damaged structures libhdf5 1.10 trusts: it crashes, or allocates what a length field says, inside
    # H5Aread or a B-tree lookup. foldkit reads HDF5 in a helper process first (Docs/Security.md).
    with open(path("keras", "good.h5"), "rb") as f:
        good = f.read()
    config_id = next(spot for spot in heap_ids(good) if spot[3].startswith(b'{"class_name"'))

    def damaged_copy(name, offset, fmt, value):
        copy = bytearray(good)
        struct.pack_into(fmt, copy, offset, value)
        with open(path("keras", name), "wb") as f:
            f.write(bytes(copy))
        return "keras/" + name

    case("HDF5: model_config's heap ID names an object past the collection's table (SIGSEGV in libhdf5 1.10)", "convert",
         [damaged_copy("heap-id-index.h5", config_id[0] + 12, "<I", config_id[2] + 0x10000)],
         ["heap-id-index.h5", "expected"])
    case("HDF5: model_config's heap ID says 4 GiB (libhdf5 1.10 allocates it before reading)", "convert",
         [damaged_copy("heap-id-length.h5", config_id[0], "<I", 0xFFFF0006)],
         ["heap-id-length.h5", "model_config"])
    # The heap object holding the backend string renumbered (its 2-byte index in the collection): the
    # attribute's ID names an index no object has, and libhdf5 1.10 reads an empty string, so the file
    # would convert as a TensorFlow one (a Theano file's kernels would go unflipped).
    backend = good.find(b"tensorflow", good.find(b"GCOL"))
    case("HDF5: the backend string's global heap object renumbered (libhdf5 1.10 reads '')", "convert",
         [damaged_copy("heap-object-index.h5", backend - 16, "<H", 0xFF)],
         ["heap-object-index.h5", "backend", "expected"])
    tree = good.find(b"TREE\x00")  # a group B-tree node (type 0): its first child at byte 32
    assert tree > 0, "no group B-tree node"
    case("HDF5: a group B-tree child address past the end of the file (SIGSEGV in libhdf5 1.10)", "convert",
         [damaged_copy("btree-child.h5", tree + 32, "<Q", 0xFFFFFFFF)],
         ["btree-child.h5", "expected"])

    # fc1's bias address moved into the superblock (one byte of its layout message, as Fuzz/mutate.py
    # found in a real file): libhdf5 reads the superblock's bytes as the bias.
    with h5py.File(path("keras", "good.h5"), "r") as f:
        bias = f["model_weights/fc1/fc1/bias:0"]
        bias_address, bias_header = bias.id.get_offset(), h5py.h5o.get_info(bias.id).addr
    at = good.find(struct.pack("<Q", bias_address), bias_header)
    assert bias_header < at < bias_header + 1024, "fc1 bias's layout message not found"
    case("HDF5: a dataset's address points into the superblock", "convert",
         [damaged_copy("address-in-superblock.h5", at, "<Q", 16)],
         ["address-in-superblock.h5", "fc1/bias:0", "superblock", "address 16", "expected"])

    def repeated_weight_name(f):
        f["model_weights/fc1"].attrs["weight_names"] = np.array([b"fc1/kernel:0", b"fc1/kernel:0"], dtype="S")
    case("HDF5: weight_names lists one array twice", "convert",
         [write_h5("repeated-weight-name.h5", config, small_weights(), repeated_weight_name)],
         ["repeated-weight-name.h5", "fc1", "lists 'fc1/kernel:0' twice", "expected"])

    # fc1's kernel type says its sign bit is bit 0, inside the mantissa (one byte of the datatype
    # message, as Fuzz/mutate.py found): libhdf5 1.10 converted the stored floats through that layout and
    # convert wrote a different blob with exit 0.
    with open(path("keras", "good.h5"), "rb") as f:
        damaged = bytearray(f.read())
    with h5py.File(path("keras", "good.h5"), "r") as f:
        header = h5py.h5o.get_info(f["model_weights/fc1/fc1/kernel:0"].id).addr
    float32 = bytes.fromhex("11201f00040000000000200017080017" "7f000000")  # class 1 v1, LE, sign bit 31, 4 bytes
    at = damaged.find(float32, header)
    assert header < at < header + 512, "fc1 kernel's datatype message not found"
    damaged[at + 2] = 0
    with open(path("keras", "float-sign-in-mantissa.h5"), "wb") as f:
        f.write(bytes(damaged))
    case("HDF5: kernel's float type puts the sign bit inside the mantissa", "convert", ["keras/float-sign-in-mantissa.h5"],
         ["float-sign-in-mantissa.h5", "fc1", "kernel:0", "not a standard number", "sign bit 0", "expected"])

    for label, dims in (("huge", [100000, 100000, 2]), ("overflowing", [1 << 40, 1 << 40, 2])):
        layers = json.loads(json.dumps(SMALL_LAYERS))
        layers[0]["config"]["batch_input_shape"] = [None] + dims
        case(f"HDF5: {label} input shape", "inspect", [write_h5(f"{label}-input.h5", sequential_config(layers), small_weights())],
             [f"{label}-input.h5", "expected"])
    layers = json.loads(json.dumps(SMALL_LAYERS))
    layers[1]["config"]["filters"] = 2000000000
    case("HDF5: 2e9 filters", "inspect", [write_h5("huge-filters.h5", sequential_config(layers), small_weights())],
         ["huge-filters.h5", "conv1", "expected"])

    layers = json.loads(json.dumps(SMALL_LAYERS))
    layers[3] = keras_layer("WarpDrive", {"name": "flatten"})
    case("HDF5: unknown layer class", "inspect", [write_h5("unknown-layer.h5", sequential_config(layers), small_weights())],
         ["unknown-layer.h5", "flatten", "WarpDrive"])

    for label, bad in (("slash", "conv/1"), ("dotdot", ".."), ("nul", "conv\u00001")):
        layers = json.loads(json.dumps(SMALL_LAYERS))
        layers[1]["config"]["name"] = bad
        w = small_weights()
        case(f"HDF5: layer name with {label}", "convert",
             [write_h5(f"name-{label}.h5", sequential_config(layers), w)], [f"name-{label}.h5", "expected"])

    # A functional graph whose layers feed each other in a circle.
    functional = {"class_name": "Functional", "config": {
        "name": "loop",
        "layers": [
            {"class_name": "InputLayer", "name": "input_1", "inbound_nodes": [],
             "config": {"batch_input_shape": [None, 4], "dtype": "float32", "name": "input_1"}},
            {"class_name": "Dense", "name": "a", "inbound_nodes": [[["b", 0, 0, {}]]],
             "config": {"name": "a", "units": 4, "activation": "linear", "use_bias": True}},
            {"class_name": "Dense", "name": "b", "inbound_nodes": [[["a", 0, 0, {}]]],
             "config": {"name": "b", "units": 4, "activation": "linear", "use_bias": True}},
        ],
        "input_layers": [["input_1", 0, 0]], "output_layers": [["b", 0, 0]]}}
    dense = {"a": [("kernel:0", np.eye(4, dtype="<f4")), ("bias:0", np.zeros(4, "<f4"))],
             "b": [("kernel:0", np.eye(4, dtype="<f4")), ("bias:0", np.zeros(4, "<f4"))]}
    case("HDF5: cycle in a functional graph", "inspect", [write_h5("cycle.h5", functional, dense)], ["cycle.h5", "cyclic"])
    functional_missing = json.loads(json.dumps(functional))
    functional_missing["config"]["layers"][1]["inbound_nodes"] = [[["nowhere", 0, 0, {}]]]
    case("HDF5: input from a layer that does not exist", "inspect", [write_h5("dangling.h5", functional_missing, dense)],
         ["dangling.h5", "nowhere"])

    def no_config(f):
        del f.attrs["model_config"]
    case("HDF5: no model_config", "inspect", [write_h5("no-config.h5", config, small_weights(), no_config)],
         ["no-config.h5", "model_config"])

    def bad_json(f):
        f.attrs["model_config"] = '{"class_name": "Sequential", "config": {"layers": [}'
    case("HDF5: model_config is not JSON", "inspect", [write_h5("bad-json.h5", config, small_weights(), bad_json)],
         ["bad-json.h5", "JSON"])

    with open(path("keras", "good.h5"), "rb") as f:
        good = f.read()
    with open(path("keras", "truncated.h5"), "wb") as f:
        f.write(good[:len(good) // 2])
    case("HDF5: file cut in half", "convert", ["keras/truncated.h5"], ["truncated.h5"])
    with open(path("keras", "not-hdf5.h5"), "wb") as f:
        f.write(b"this is not an HDF5 file\n" * 4)
    case("HDF5: not an HDF5 file", "inspect", ["keras/not-hdf5.h5"], ["not-hdf5.h5"])

    write_archives(config)


def keras3_zip(name, entries, compression=zipfile.ZIP_STORED):
    target = path("keras", name)
    with zipfile.ZipFile(target, "w", compression) as z:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = compression
            z.writestr(info, data)
    return "keras/" + name


def handmade_zip(name, entries):
    """A zip written byte by byte: each entry (name, data, declared) is deflated and its headers declare
    `declared` uncompressed bytes (None: the truth), so a small file can claim a huge entry."""
    local_part, central_part = b"", b""
    for entry, data, declared in entries:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = packer.compress(data) + packer.flush()
        size = len(data) if declared is None else declared
        crc = zlib.crc32(data)
        name_bytes = entry.encode()
        offset = len(local_part)
        local_part += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(packed), size,
                                  len(name_bytes), 0) + name_bytes + packed
        central_part += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(packed), size,
                                    len(name_bytes), 0, 0, 0, 0, 0, offset) + name_bytes
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central_part), len(local_part), 0)
    with open(path("keras", name), "wb") as f:
        f.write(local_part + central_part + end)
    return "keras/" + name


def write_archives(config):
    with open(path("keras", "good.h5"), "rb") as f:
        weights_h5 = f.read()
    metadata = json.dumps({"keras_version": "3.6.0", "date_saved": "1980-01-01@00:00:00"})
    keras3 = json.dumps({"module": "keras", "class_name": "Sequential", "config": {"name": "small", "layers": []}})
    entries = [("metadata.json", metadata), ("config.json", keras3), ("model.weights.h5", weights_h5)]
    archive = keras3_zip("whole.keras", entries)
    with open(path(archive), "rb") as f:
        whole = f.read()
    os.remove(path(archive))
    with open(path("keras", "truncated.keras"), "wb") as f:
        f.write(whole[:len(whole) // 3])
    case(".keras: zip cut short", "inspect", ["keras/truncated.keras"], ["truncated.keras", "zip"])
    case(".keras: no config.json", "inspect",
         [keras3_zip("no-config.keras", [("metadata.json", metadata), ("model.weights.h5", weights_h5)])],
         ["no-config.keras", "config.json"])
    zeros = b"\0" * 4096
    case(".keras: config.json declares 3 GiB", "inspect",
         [handmade_zip("bomb-config.keras", [("metadata.json", metadata.encode(), None), ("config.json", zeros, 3 << 30),
                                              ("model.weights.h5", weights_h5, None)])],
         ["bomb-config.keras", "config.json", "zip bomb", "expected"])
    case(".keras: weights declare 4 GiB", "inspect",
         [handmade_zip("bomb-weights.keras", [("metadata.json", metadata.encode(), None), ("config.json", keras3.encode(), None),
                                               ("model.weights.h5", zeros, (4 << 30) - 1)])],
         ["bomb-weights.keras", "model.weights.h5", "zip bomb", "expected"])
    case(".keras: entry larger than declared", "inspect",
         [handmade_zip("overrun.keras", [("metadata.json", metadata.encode(), None), ("config.json", keras3.encode(), 16),
                                          ("model.weights.h5", weights_h5, None)])],
         ["overrun.keras", "config.json", "expected 16 bytes"])
    with open(path("keras", "not-a-zip.keras"), "wb") as f:
        f.write(b"PK\x03\x04 not really a zip file" * 3)
    case(".keras: not a zip", "inspect", ["keras/not-a-zip.keras"], ["not-a-zip.keras"])


# ---------------------------------------------------------------------------------------------
# .npy inputs: the Darknet network above takes (1, 2, 6, 6) or (2, 6, 6) float32.

def npy_bytes(descr, shape, fortran, data, version=(1, 0)):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    prefix = 10 if version[0] == 1 else 12
    pad = (64 - (prefix + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    size = struct.pack("<H", len(header)) if version[0] == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes(version) + size + header.encode("latin1") + data


def write_npy():
    os.makedirs(path("npy"), exist_ok=True)
    good = np.arange(72, dtype="<f4").reshape(1, 2, 6, 6)

    def npy(name, data, must_contain):
        with open(path("npy", name), "wb") as f:
            f.write(data)
        case(f"npy {name}", "fixtures", ["darknet/net.cfg", "darknet/good.weights"], [name] + must_contain,
             ["--input", "npy/" + name])

    npy("wrong-shape.npy", npy_bytes("<f4", (1, 3, 6, 6), False, np.zeros(108, "<f4").tobytes()), ["expected"])
    npy("wrong-dtype.npy", npy_bytes("<i4", (1, 2, 6, 6), False, good.astype("<i4").tobytes()), ["expected"])
    # Big-endian float64 (read since float64 and '>' dtypes are taken) with one value float32 cannot hold.
    big = good.astype(">f8")
    big[0, 1, 2, 3] = 1e39
    npy("float64-overflow.npy", npy_bytes(">f8", (1, 2, 6, 6), False, big.tobytes()), ["at byte", "element 51 [0, 1, 2, 3]", "expected"])
    npy("fortran.npy", npy_bytes("<f4", (1, 2, 6, 6), True, np.asfortranarray(good).tobytes(order="F")), ["expected"])
    npy("truncated.npy", npy_bytes("<f4", (1, 2, 6, 6), False, good.tobytes()[:100]), ["at byte", "expected"])
    npy("huge-shape.npy", npy_bytes("<f4", (1 << 40, 1 << 40), False, b""), ["at byte", "expected"])
    npy("overflowing-shape.npy", npy_bytes("<f4", (1 << 62, 8), False, b""), ["at byte", "expected"])
    npy("negative-shape.npy", npy_bytes("<f4", (-1, 72), False, good.tobytes()), ["at byte"])
    npy("not-npy.npy", b"just some text, not an array", ["at byte 0", "expected"])
    npy("header-cut.npy", npy_bytes("<f4", (1, 2, 6, 6), False, b"")[:30], ["at byte"])
    npy("huge-header-length.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{'descr': '<f4'", ["at byte"])


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_images():
    os.makedirs(path("images"), exist_ok=True)
    args = ["darknet/net.cfg", "darknet/good.weights"]
    # A PNG whose header declares 1,000,000 x 1,000,000 RGB pixels (libpng's own width limit) with one tiny IDAT.
    ihdr = struct.pack(">IIBBBBB", 1000000, 1000000, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + png_chunk(b"IEND", b"")
    with open(path("images", "huge.png"), "wb") as f:
        f.write(png)
    case("PNG declaring 10^12 pixels", "fixtures", args, ["huge.png", "1000000 x 1000000", "expected"], ["--image", "images/huge.png"])
    # A baseline JPEG whose frame header (SOF0) declares 65000 x 65000 pixels, with no scan data.
    sof = struct.pack(">BHHB", 8, 65000, 65000, 3) + b"\x01\x22\x00\x02\x11\x00\x03\x11\x00"
    dqt = b"\x00" + bytes([1] * 64)
    jpeg = (b"\xff\xd8" + b"\xff\xdb" + struct.pack(">H", len(dqt) + 2) + dqt
            + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof
            + b"\xff\xda" + struct.pack(">HB", 12, 3) + b"\x01\x00\x02\x11\x03\x11\x00\x3f\x00" + b"\x00" * 16 + b"\xff\xd9")
    with open(path("images", "huge.jpg"), "wb") as f:
        f.write(jpeg)
    case("JPEG declaring 65000 x 65000 pixels", "fixtures", args, ["huge.jpg", "expected"], ["--image", "images/huge.jpg"])
    with open(path("images", "cut.png"), "wb") as f:
        f.write(png[:20])
    case("PNG cut inside its header", "fixtures", args, ["cut.png"], ["--image", "images/cut.png"])


def main():
    for sub in ("darknet", "keras", "npy", "images"):
        shutil.rmtree(path(sub), ignore_errors=True)
    write_darknet()
    write_keras()
    write_npy()
    write_images()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "case names must be unique"
    with open(path("cases.json"), "w") as f:
        json.dump({"about": "Generated by make_corpus.py: every case must exit 1 with each stderr substring.",
                   "cases": CASES}, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(HERE) for n in ns)
    print(f"{len(CASES)} cases, {total} bytes in {HERE}")


if __name__ == "__main__":
    main()
