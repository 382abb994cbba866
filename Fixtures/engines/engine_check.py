#!/usr/bin/env python3
"""Runs a model `foldkit export` wrote on the engines themselves and judges what they compute.

What it proves, for one model (the files as foldkit takes them: cfg + weights, or one .h5/.keras), with
ONNX Runtime and OpenVINO on `foldkit export --format onnx`:

1. the exported model.onnx is valid ONNX (`onnx.checker.check_model(path, full_check=True)`: the graph, the
   opset's operator schemas and shape inference), its one input is named `input` and its outputs are the
   tensors of test_data_set_0/output_k.pb, in order and by name;
2. ONNX Runtime (CPUExecutionProvider, default graph optimizations) computes on test_data_set_0/input_0.pb
   what FoldKit's float64 reference says, per output: max |ort - ref| <= 1e-4 x max |ref| (1e-3 when the
   model has more than 60 layers, metadata `foldkit.layers`);
3. OpenVINO (CPU, INFERENCE_PRECISION_HINT f32) computes the same as ONNX Runtime, per output:
   max |ov - ort| <= 1e-4 x max |ort|;
4. `foldkit verify MODEL... --engine-outputs WORKDIR/<engine> --input .../input_0.pb` judges each engine's
   outputs (written as WORKDIR/<engine>/<output name>.npy) against its own reference and exits 0.

and with ncnn on `foldkit export --format ncnn` (model.param, model.bin, metadata.json, the same
test_data_set_0):

5. ncnn (the PyPI package's CPU build; Vulkan off; use_fp16_packed/storage/arithmetic and use_bf16_storage
   off, so it computes in float32) reads the param and bin files (load_param and load_model return 0), takes
   test_data_set_0/input_0.pb as the blob `input` and gives every output blob named in metadata.json's
   `foldkit.outputs` (Extractor.extract returns 0); max |ncnn - ref| <= 1e-4 x max |ref| (1e-3 past 60
   layers), per output;
6. `foldkit verify --engine-outputs WORKDIR/ncnn` on those outputs exits 0.

and with LiteRT on `foldkit export --format tflite` (model.tflite, the same test_data_set_0):

7. the model is read by LiteRT's own flatc-generated reader (`ai_edge_litert.schema_py_generated`): file
   identifier "TFL3", one subgraph whose one input is named `input`, its outputs named as `foldkit.outputs` in
   the model's metadata entry "foldkit" (a JSON object), every operator a builtin;
8. LiteRT's interpreter (`ai_edge_litert.interpreter.Interpreter`, 2 threads) takes test_data_set_0/input_0.pb
   transposed to NHWC and gives every output (NHWC, transposed back to FoldKit's [1, C, H, W]), both with its
   default kernels (XNNPACK's delegate where it takes an operator: `litert`) and with its builtin kernels alone
   (`litert-builtin`); max |litert - ref| <= 1e-4 x max |ref| (1e-3 past 60 layers), per output, for each;
9. `foldkit verify --engine-outputs WORKDIR/litert` on those outputs exits 0.

A float16 model (--dtype float16) is judged by step 4 only (`verify --fp16`): steps 2 and 3 still print their
figures, marked "not judged". OpenVINO is given INFERENCE_PRECISION_HINT f32 for float16 models too: the
weights stay float16 as stored and the arithmetic is float32, never bfloat16 on CPUs that have it. ncnn
likewise keeps its fp16 and bf16 options off for float16 models: it widens the half weights to float32 when
it loads them and computes in float32 (the float16 model is smaller, not computed in half).

A float16 LiteRT model keeps its float16 weights behind DEQUANTIZE operators, which LiteRT widens to float32
when it prepares the model: it computes in float32 too.

--dtype, --opset and --decode-heads (onnx only: detection heads output darknet's own buffer, judged on it) go to
export; --height/--width (a fully convolutional network at another size) to export and
verify; --engines picks any of onnxruntime, openvino, ncnn and litert (default the first two; OpenVINO alone is judged by
verify only); --json writes every figure. WORKDIR/export, WORKDIR/export-ncnn, WORKDIR/export-tflite and WORKDIR/<engine> are replaced
on each run.

Exit status: 0 every check passed, 1 an error (a command failed, a file is missing, an engine refused the
model), 2 a check failed (and no error). The last line printed is the summary, naming every output.

    python3 Fixtures/engines/engine_check.py --foldkit .build/debug/foldkit --out /tmp/ec \\
        -- ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.weights

    python3 Fixtures/engines/engine_check.py --foldkit .build/debug/foldkit --out /tmp/ec --engines ncnn \\
        -- ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.weights

    python3 Fixtures/engines/engine_check.py --foldkit .build/debug/foldkit --out /tmp/ec --engines litert \\
        -- ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg ../shared/real-models/yolo-fastest-1.1/yolo-fastest-1.1.weights

Written against Python 3.11, numpy 2.4, onnx 1.19.1, onnxruntime 1.32.0, openvino 2026.4.1, ncnn 1.0.20261020,
ai-edge-litert 2.3.0 (pinned in .ci/install); the versions used are printed first and recorded in --json.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy
import onnx
from onnx import numpy_helper

ENGINES = ("onnxruntime", "openvino", "ncnn", "litert")
ONNX_ENGINES = ("onnxruntime", "openvino")
REF_BOUND, REF_BOUND_DEEP, DEEP_LAYERS = 1e-4, 1e-3, 60  # ONNX Runtime vs FoldKit's reference
ENGINE_BOUND = 1e-4  # OpenVINO vs ONNX Runtime
OPENVINO_CONFIG = {"INFERENCE_PRECISION_HINT": "f32"}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 1 (an error), not 2 (which here means a check failed)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


class CheckError(Exception):
    """Something that keeps a check from running (exit 1), as opposed to a check that ran and failed."""


def versions():
    found = {"python": platform.python_version(), "numpy": numpy.__version__, "onnx": onnx.__version__}
    for engine in ENGINES:
        try:
            if engine == "litert":
                from importlib import metadata
                found[engine] = metadata.version("ai-edge-litert")
                continue
            module = __import__(engine)
            found[engine] = module.get_version() if engine == "openvino" else module.__version__
        except ImportError:
            found[engine] = "not installed"
        except Exception:  # importlib.metadata.PackageNotFoundError
            found[engine] = "not installed"
    return found


def run(command):
    """Runs a command, echoing it; returns (exit status, stdout + stderr)."""
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def size_options(args):
    return (["--height", str(args.height)] if args.height else []) + (["--width", str(args.width)] if args.width else [])


def export(args, models, folder, format="onnx"):
    command = [args.foldkit, "export", *models, "--format", format, "--out", folder, "--dtype", args.dtype]
    command += (["--opset", str(args.opset)] if args.opset and format == "onnx" else [])
    command += (["--decode-heads"] if args.decode_heads and format == "onnx" else []) + size_options(args)
    status, output = run(command)
    if status != 0:
        raise CheckError(f"foldkit export exited {status}:\n{output.rstrip()}")


def read_tensor(file):
    """(name, array) of an onnx TensorProto file of test_data_set_0."""
    if not os.path.isfile(file):
        raise CheckError(f"missing {file}")
    proto = onnx.load_tensor(file)
    return proto.name, numpy_helper.to_array(proto)


def read_export(folder):
    """Checks model.onnx and reads it with test_data_set_0: (model path, layer count, input, [(name, reference)],
    problems), problems being the checks on the export's form that failed."""
    path = os.path.join(folder, "model.onnx")
    cases = os.path.join(folder, "test_data_set_0")
    problems = []
    if not os.path.isfile(path):
        raise CheckError(f"missing {path}")
    try:
        onnx.checker.check_model(path, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as error:
        problems.append(f"onnx.checker.check_model(full_check=True): {error}")
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as error:  # protobuf's DecodeError and its kin
        raise CheckError(f"{path}: onnx.load: {type(error).__name__}: {error}") from error
    metadata = {entry.key: entry.value for entry in model.metadata_props}
    if "foldkit.layers" not in metadata or not metadata["foldkit.layers"].isdecimal():
        raise CheckError(f"{path}: metadata_props has no decimal foldkit.layers (found {metadata.get('foldkit.layers')!r})")
    inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    if inputs != ["input"]:
        problems.append(f"graph inputs are {inputs}, expected one named 'input'")

    _, x = read_tensor(os.path.join(cases, "input_0.pb"))
    names = [o.name for o in model.graph.output]
    references = [read_tensor(os.path.join(cases, f"output_{k}.pb")) for k in range(len(names))]
    extra = sorted(set(os.listdir(cases)) - {"input_0.pb"} - {f"output_{k}.pb" for k in range(len(names))})
    if extra:
        problems.append(f"test_data_set_0 holds files for no graph output: {extra}")
    if [name for name, _ in references] != names:
        problems.append(f"output_k.pb names {[name for name, _ in references]} differ from the graph outputs {names}")
    return path, int(metadata["foldkit.layers"]), x, list(zip(names, (array for _, array in references))), problems


def read_ncnn_export(folder):
    """Reads what `foldkit export --format ncnn` wrote: (param path, bin path, layer count, input, [(name, reference)],
    problems), the outputs in metadata.json's `foldkit.outputs` order, which test_data_set_0/output_k.pb follow."""
    param, weights = os.path.join(folder, "model.param"), os.path.join(folder, "model.bin")
    cases = os.path.join(folder, "test_data_set_0")
    problems = []
    for path in (param, weights, os.path.join(folder, "metadata.json")):
        if not os.path.isfile(path):
            raise CheckError(f"missing {path}")
    with open(os.path.join(folder, "metadata.json")) as file:
        metadata = json.load(file)
    layers = metadata.get("foldkit.layers")
    if not isinstance(layers, int):
        raise CheckError(f"{folder}/metadata.json has no integer foldkit.layers (found {layers!r})")
    with open(param) as file:
        lines = file.read().split("\n")
    if lines[0].strip() != "7767517":
        problems.append(f"model.param starts with {lines[0]!r}, not ncnn's magic 7767517")
    counts = lines[1].split() if len(lines) > 1 else []
    body = [line.split() for line in lines[2:] if line.strip()]
    tops = [blob for fields in body for blob in fields[4 + int(fields[2]):4 + int(fields[2]) + int(fields[3])]]
    if counts != [str(len(body)), str(len(set(tops)))]:
        problems.append(f"model.param counts {counts} differ from its {len(body)} layers and {len(set(tops))} blobs")
    readers = {}
    for fields in body:
        for blob in fields[4:4 + int(fields[2])]:
            readers[blob] = readers.get(blob, 0) + 1
    shared = sorted(blob for blob, n in readers.items() if n > 1)
    if shared:
        problems.append(f"blobs read by more than one layer without a Split: {shared[:5]}")

    _, x = read_tensor(os.path.join(cases, "input_0.pb"))
    names = [output["name"] for output in metadata["foldkit.outputs"]]
    references = [read_tensor(os.path.join(cases, f"output_{k}.pb")) for k in range(len(names))]
    if [name for name, _ in references] != names:
        problems.append(f"output_k.pb names {[name for name, _ in references]} differ from metadata's outputs {names}")
    dims = metadata["foldkit.input"]["dims"]
    if x.size != numpy.prod(dims):
        raise CheckError(f"input_0.pb has {x.size} values, metadata.json's input dims {dims} {numpy.prod(dims)}")
    # The blob `input` is C x H x W (a Keras vector input's [1, N] is N x 1 x 1).
    return param, weights, layers, x.reshape([1] + dims), list(zip(names, (array for _, array in references))), problems


def run_ncnn(param, weights, x, references):
    """ncnn on the CPU in float32 (Vulkan, fp16 and bf16 options off): each output blob by name, reshaped to its
    reference's shape (ncnn's Mat is C x H x W, the batch axis left out)."""
    import ncnn

    net = ncnn.Net()
    net.opt.use_vulkan_compute = False
    net.opt.use_fp16_packed = False
    net.opt.use_fp16_storage = False
    net.opt.use_fp16_arithmetic = False
    net.opt.use_bf16_storage = False
    net.opt.num_threads = 2
    for what, path, load in (("load_param", param, net.load_param), ("load_model", weights, net.load_model)):
        status = load(path)
        if status != 0:
            raise CheckError(f"ncnn {what}({path}) returned {status}")
    results = {}
    extractor = net.create_extractor()
    # A Mat of its own (clone): ncnn.Mat(array) wraps the array without a reference count, and an in-place
    # layer reading the input blob (Scale, ReLU, ...) dereferences that count in light mode.
    extractor.input("input", ncnn.Mat(numpy.ascontiguousarray(x[0], dtype=numpy.float32)).clone())
    for name, reference in references:
        status, mat = extractor.extract(name)
        if status != 0:
            raise CheckError(f"ncnn extract({name}) returned {status}")
        array = numpy.array(mat, dtype=numpy.float32)
        if array.size != reference.size:
            raise CheckError(f"ncnn output {name} has {array.size} values ({array.shape}), the reference {reference.size} ({reference.shape})")
        results[name] = array.reshape(reference.shape)
    return results


def read_tflite_export(folder):
    """Reads what `foldkit export --format tflite` wrote with LiteRT's own flatc-generated reader: (model path,
    layer count, input as FoldKit's [1, C, H, W], [(name, reference)], problems), the outputs in the metadata's
    `foldkit.outputs` order, which test_data_set_0/output_k.pb follow."""
    from ai_edge_litert import schema_py_generated as schema

    path = os.path.join(folder, "model.tflite")
    cases = os.path.join(folder, "test_data_set_0")
    problems = []
    if not os.path.isfile(path):
        raise CheckError(f"missing {path}")
    with open(path, "rb") as file:
        data = bytearray(file.read())
    if not schema.Model.ModelBufferHasIdentifier(data, 0):
        problems.append(f"model.tflite lacks the file identifier TFL3 (found {bytes(data[4:8])!r})")
    model = schema.Model.GetRootAsModel(data, 0)
    metadata = None
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        if entry.Name() == b"foldkit":
            metadata = json.loads(model.Buffers(entry.Buffer()).DataAsNumpy().tobytes().decode())
    if metadata is None:
        raise CheckError(f"{path}: no metadata entry named foldkit")
    layers = metadata.get("foldkit.layers")
    if not isinstance(layers, int):
        raise CheckError(f"{path}: the foldkit metadata has no integer foldkit.layers (found {layers!r})")
    if model.SubgraphsLength() != 1:
        problems.append(f"model.tflite has {model.SubgraphsLength()} subgraphs, expected 1")
    graph = model.Subgraphs(0)
    inputs = [graph.Tensors(graph.Inputs(i)).Name().decode() for i in range(graph.InputsLength())]
    if inputs != ["input"]:
        problems.append(f"graph inputs are {inputs}, expected one named 'input'")
    outputs = [graph.Tensors(graph.Outputs(i)).Name().decode() for i in range(graph.OutputsLength())]
    names = [output["name"] for output in metadata["foldkit.outputs"]]
    if outputs != names:
        problems.append(f"graph outputs {outputs} differ from the metadata's outputs {names}")
    for i in range(model.OperatorCodesLength()):
        code = model.OperatorCodes(i)
        if code.CustomCode() is not None or max(code.BuiltinCode(), code.DeprecatedBuiltinCode()) == 32:  # 32: CUSTOM
            problems.append(f"operator code {i} is a custom operator")

    _, x = read_tensor(os.path.join(cases, "input_0.pb"))
    references = [read_tensor(os.path.join(cases, f"output_{k}.pb")) for k in range(len(names))]
    if [name for name, _ in references] != names:
        problems.append(f"output_k.pb names {[name for name, _ in references]} differ from metadata's outputs {names}")
    dims = metadata["foldkit.input"]["dims"]
    if x.size != numpy.prod(dims):
        raise CheckError(f"input_0.pb has {x.size} values, the metadata's input dims {dims} {numpy.prod(dims)}")
    # FoldKit's [1, C, H, W] (a Keras vector input's [1, N] is N x 1 x 1).
    _, h, w, c = dims
    return path, layers, x.reshape([1, c, h, w]), list(zip(names, (array for _, array in references))), problems


def run_litert(path, x, references, builtin=False):
    """LiteRT's interpreter on the CPU (2 threads): the input transposed to NHWC, each output by name, transposed
    from NHWC to FoldKit's [1, C, H, W] and reshaped to its reference's shape. By default LiteRT's own choice of
    kernels (XNNPACK's delegate for what it takes, the builtin kernels for the rest); `builtin`: the builtin
    kernels alone (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    resolver = OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES if builtin else OpResolverType.AUTO
    interpreter = Interpreter(model_path=path, num_threads=2, experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    (given,) = interpreter.get_input_details()
    interpreter.set_tensor(given["index"], numpy.ascontiguousarray(x.transpose(0, 2, 3, 1), dtype=numpy.float32))
    interpreter.invoke()
    found = {detail["name"]: detail for detail in interpreter.get_output_details()}
    results = {}
    for name, reference in references:
        if name not in found:
            raise CheckError(f"LiteRT has no output {name} (outputs: {sorted(found)})")
        array = interpreter.get_tensor(found[name]["index"])
        if array.ndim == 4:
            array = array.transpose(0, 3, 1, 2)
        if array.size != reference.size:
            raise CheckError(f"LiteRT output {name} has {array.size} values ({array.shape}), the reference {reference.size} ({reference.shape})")
        results[name] = numpy.ascontiguousarray(array).reshape(reference.shape)
    return results


def run_onnxruntime(path, x, names):
    import onnxruntime

    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    return dict(zip(names, session.run(names, {"input": x})))


def run_openvino(path, x, names):
    import openvino

    compiled = openvino.Core().compile_model(path, "CPU", OPENVINO_CONFIG)
    precision = compiled.get_property("INFERENCE_PRECISION_HINT")
    print(f"openvino: CPU, INFERENCE_PRECISION_HINT set {OPENVINO_CONFIG['INFERENCE_PRECISION_HINT']}, in effect {precision.to_string()}")
    results = compiled({"input": x})
    return {name: results[compiled.output(name)] for name in names}


def write_outputs(outputs, folder):
    """Writes each output as <name>.npy (float32; float16 widens exactly) into a fresh folder."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, array in outputs.items():
        if os.sep in name or name.startswith("."):
            raise CheckError(f"output name {name!r} is not a plain file name")
        numpy.save(os.path.join(folder, name + ".npy"), numpy.asarray(array, dtype=numpy.float32))


def deviation(found, expected):
    """(max |found - expected|, max |expected|, their ratio) in float64; a shape mismatch or a non-finite value
    where the expected one is finite gives an infinite ratio."""
    found, expected = numpy.asarray(found, numpy.float64), numpy.asarray(expected, numpy.float64)
    if found.shape != expected.shape:
        return float("inf"), float("nan"), float("inf")
    scale = float(numpy.max(numpy.abs(expected))) if expected.size else 0.0
    difference = numpy.abs(found - expected)
    difference[numpy.isnan(found) & numpy.isnan(expected)] = 0
    largest = float(numpy.max(difference)) if difference.size else 0.0
    if numpy.isnan(largest):
        largest = float("inf")
    ratio = largest / scale if scale > 0 else (0.0 if largest == 0 else float("inf"))
    return largest, scale, ratio


def compare(engine, found, against, expected, bound, judged):
    """Prints one line, max |engine - against| in output units and as a fraction of max |against|, and returns
    the figures; `passed` is None when not judged."""
    largest, scale, ratio = deviation(found, expected)
    passed = (ratio <= bound) if judged else None
    shape = tuple(numpy.shape(found))
    if numpy.shape(found) != numpy.shape(expected):
        shape = f"{shape}, {against} {tuple(numpy.shape(expected))}"
    verdict = {True: "ok", False: "OVER", None: "not judged (float16: foldkit verify --fp16 judges)"}[passed]
    print(f"  {engine} {shape}: max|{engine} - {against}| = {largest:.3e} (output units) = {ratio:.3e} x max|{against}| ({scale:.4g}); "
          f"bound {bound:.0e} x max|{against}| = {bound * scale:.3e}  {verdict}")
    return {"shape": list(numpy.shape(found)), "against": against, "maxAbsDeviation": largest, "maxAbsExpected": scale,
            "relative": ratio, "bound": bound, "passed": passed}


def fresh_export(args, record, folder, format, reader):
    """Exports the models as `format` into a fresh `folder` and reads it with `reader`: what the reader returns
    but its problems, which are recorded as failures; the layer count and input shape go into the record."""
    shutil.rmtree(folder, ignore_errors=True)
    export(args, args.models, folder, format)
    *found, problems = reader(folder)
    record["failures"] += problems
    for problem in problems:
        print("FAIL: " + problem)
    layers, x = found[-3], found[-2]
    record.update(layers=layers, input=list(x.shape))
    return found


def check_onnx(args, onnx_engines, record, float32):
    """Steps 1 to 4 on `foldkit export --format onnx`; returns the output names."""
    folder = os.path.join(args.out, "export")
    path, layers, x, references = fresh_export(args, record, folder, "onnx", read_export)
    names = [name for name, _ in references]
    bound = REF_BOUND_DEEP if layers > DEEP_LAYERS else REF_BOUND
    print(f"model.onnx: {layers} layers, input {tuple(x.shape)} {x.dtype}, outputs {', '.join(names)}")
    computed = {}
    for engine in onnx_engines:
        try:
            computed[engine] = (run_onnxruntime if engine == "onnxruntime" else run_openvino)(path, x, names)
        except Exception as error:  # the engine's own exception types differ; each is an error here
            raise CheckError(f"{engine} could not run {path}: {type(error).__name__}: {error}") from error
        write_outputs(computed[engine], os.path.join(args.out, engine))
    for name, reference in references:
        print(f"{name} (reference: FoldKit's float64 forward pass, stored as float32):")
        figures = record["outputs"].setdefault(name, {})
        if "onnxruntime" in computed:
            figures["onnxruntime"] = compare("onnxruntime", computed["onnxruntime"][name], "reference", reference, bound, float32)
        if "openvino" in computed and "onnxruntime" in computed:
            figures["openvino"] = compare(
                "openvino", computed["openvino"][name], "onnxruntime", computed["onnxruntime"][name], ENGINE_BOUND, float32)
        for engine, figure in figures.items():
            if figure["passed"] is False:
                record["failures"].append(f"{engine} {name}: {figure['relative']:.3e} x max abs, bound {figure['bound']:.0e}")
    for engine in onnx_engines:
        verify(args, engine, os.path.join(folder, "test_data_set_0", "input_0.pb"), record, float32)
    return names


def check_ncnn(args, record, float32):
    """Steps 5 and 6 on `foldkit export --format ncnn`; returns the output names."""
    folder = os.path.join(args.out, "export-ncnn")
    param, weights, layers, x, references = fresh_export(args, record, folder, "ncnn", read_ncnn_export)
    names = [name for name, _ in references]
    bound = REF_BOUND_DEEP if layers > DEEP_LAYERS else REF_BOUND
    sizes = {name: os.path.getsize(os.path.join(folder, name)) for name in ("model.param", "model.bin")}
    record["ncnnBytes"] = sizes
    print(f"model.param + model.bin ({sizes['model.param']} + {sizes['model.bin']} bytes): {layers} layers, input {tuple(x.shape)} {x.dtype}, "
          f"outputs {', '.join(names)}")
    try:
        computed = run_ncnn(param, weights, x, references)
    except CheckError:
        raise
    except Exception as error:  # the engine's own exception types; each is an error here
        raise CheckError(f"ncnn could not run {param}: {type(error).__name__}: {error}") from error
    write_outputs(computed, os.path.join(args.out, "ncnn"))
    for name, reference in references:
        print(f"{name} (reference: FoldKit's float64 forward pass, stored as float32):")
        figure = compare("ncnn", computed[name], "reference", reference, bound, float32)
        record["outputs"].setdefault(name, {})["ncnn"] = figure
        if figure["passed"] is False:
            record["failures"].append(f"ncnn {name}: {figure['relative']:.3e} x max abs, bound {figure['bound']:.0e}")
    verify(args, "ncnn", os.path.join(folder, "test_data_set_0", "input_0.pb"), record, float32)
    return names


def check_litert(args, record, float32):
    """Steps 7 to 9 on `foldkit export --format tflite`; returns the output names."""
    folder = os.path.join(args.out, "export-tflite")
    path, layers, x, references = fresh_export(args, record, folder, "tflite", read_tflite_export)
    names = [name for name, _ in references]
    bound = REF_BOUND_DEEP if layers > DEEP_LAYERS else REF_BOUND
    record["tfliteBytes"] = os.path.getsize(path)
    print(f"model.tflite ({record['tfliteBytes']} bytes): {layers} layers, input {tuple(x.shape)} {x.dtype}, outputs {', '.join(names)}")
    try:
        computed = run_litert(path, x, references)
        builtin = run_litert(path, x, references, builtin=True)
    except CheckError:
        raise
    except Exception as error:  # the engine's own exception types; each is an error here
        raise CheckError(f"LiteRT could not run {path}: {type(error).__name__}: {error}") from error
    write_outputs(computed, os.path.join(args.out, "litert"))
    for name, reference in references:
        print(f"{name} (reference: FoldKit's float64 forward pass, stored as float32):")
        for engine, outputs in (("litert", computed), ("litert-builtin", builtin)):
            figure = compare(engine, outputs[name], "reference", reference, bound, float32)
            record["outputs"].setdefault(name, {})[engine] = figure
            if figure["passed"] is False:
                record["failures"].append(f"{engine} {name}: {figure['relative']:.3e} x max abs, bound {figure['bound']:.0e}")
    verify(args, "litert", os.path.join(folder, "test_data_set_0", "input_0.pb"), record, float32)
    return names


def verify(args, engine, input_path, record, float32):
    """`foldkit verify --engine-outputs WORKDIR/<engine>` (with --fp16 for a float16 model), recorded."""
    command = [args.foldkit, "verify", *args.models, "--engine-outputs", os.path.join(args.out, engine),
               "--input", input_path] + size_options(args)
    status, output = run(command + ([] if float32 else ["--fp16"]))
    # verify's verdict line when it passed; its whole report otherwise.
    print(output.rstrip().split("\n")[-1] if status == 0 else output.rstrip())
    record["verify"][engine] = status
    if status == 2:
        record["failures"].append(f"foldkit verify --engine-outputs {engine} exited 2")
    elif status != 0:
        record["errors"].append(f"foldkit verify --engine-outputs {engine} exited {status}")


def main():
    parser = Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--foldkit", required=True, help="the foldkit binary")
    parser.add_argument("--out", required=True, help="work folder: export/, export-ncnn/, export-tflite/ and one folder per engine are replaced")
    parser.add_argument("--engines", default=",".join(ONNX_ENGINES), help=f"a comma-separated subset of {','.join(ENGINES)}")
    parser.add_argument("--dtype", choices=["float32", "float16"], default="float32")
    parser.add_argument("--opset", type=int)
    parser.add_argument("--decode-heads", action="store_true", help="export --decode-heads")
    parser.add_argument("--height", type=int, help="passed to export and verify (fully convolutional networks)")
    parser.add_argument("--width", type=int)
    parser.add_argument("--json", help="write the per-output figures here")
    parser.add_argument("models", nargs="+", help="model files, after --")
    args = parser.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    onnx_engines = [e for e in engines if e in ONNX_ENGINES]
    if not engines or set(engines) - set(ENGINES):
        parser.error(f"--engines takes a comma-separated subset of {','.join(ENGINES)}, found {args.engines!r}")

    started = time.monotonic()
    record = {"versions": versions(), "models": args.models, "dtype": args.dtype, "opset": args.opset, "engines": engines,
              "outputs": {}, "verify": {}, "errors": [], "failures": []}
    print("engine_check: " + ", ".join(f"{k} {v}" for k, v in record["versions"].items()))
    float32 = args.dtype == "float32"
    names = []
    try:
        os.makedirs(args.out, exist_ok=True)
        if onnx_engines:
            names += check_onnx(args, onnx_engines, record, float32)
        if "ncnn" in engines:
            names += [name for name in check_ncnn(args, record, float32) if name not in names]
        if "litert" in engines:
            names += [name for name in check_litert(args, record, float32) if name not in names]
    except (CheckError, OSError) as error:
        record["errors"].append(str(error))
        print(f"error: {error}", file=sys.stderr)

    status = 1 if record["errors"] else 2 if record["failures"] else 0
    record["exit"] = status
    if args.json:
        with open(args.json, "w") as file:
            json.dump(record, file, indent=1)
    verdict = {0: "PASS", 1: "ERROR", 2: "FAIL"}[status]
    judged = "engines vs reference and each other" if float32 else "foldkit verify --fp16 only"
    verdicts = ", ".join(f"{engine} {code}" for engine, code in record["verify"].items()) or "not run"
    print(f"engine_check {verdict}: {' '.join(os.path.basename(m) for m in args.models)} {args.dtype}; outputs {', '.join(names) or 'none'}; "
          f"engines {', '.join(engines)} ({judged}); foldkit verify exit {verdicts}; {len(record['failures'])} failed, "
          f"{len(record['errors'])} errors; {time.monotonic() - started:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
