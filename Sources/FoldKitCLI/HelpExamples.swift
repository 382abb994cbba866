/// The EXAMPLES part of each command's `--help` (its `discussion`), which Docs/CLI.md shows too
/// (`DocsCommand` renders the help text into it).
enum HelpExamples {
    static let root = """
        EXAMPLES:
          foldkit convert yolov3-tiny.cfg yolov3-tiny.weights --out tiny-blobs
          foldkit verify yolov3-tiny.cfg yolov3-tiny.weights --blobs tiny-blobs --fp16 --report audit.html
          foldkit inspect model.h5 --json | jq '.layers[] | select(.bnEpsilon != null) | .name'
          foldkit --generate-completion-script bash > /etc/bash_completion.d/foldkit

        Exit codes: 0 success, 1 error (bad input, usage), 2 checked and over tolerance. Colour only on a
        terminal and without NO_COLOR. Docs/CLI.md describes every command.
        """

    static let convert = """
        EXAMPLES:
          foldkit convert yolov3-tiny.cfg yolov3-tiny.weights --out tiny-blobs
          foldkit convert model.keras --out blobs --layout hwio
          foldkit convert 12net.h5 --height 12 --width 12 --out pnet --json > pnet.json
        """

    static let export = """
        The folder holds the model (onnx: model.onnx; ncnn: model.param, model.bin and metadata.json; tflite: \
        model.tflite, input [1, H, W, C]) and \
        test_data_set_0/ (input_0.pb, output_0.pb, ...: the input and FoldKit's float64 reference outputs), the \
        layout onnx_test_runner reads. Docs/Export.md lists every operation's lowering for each format and what \
        each refuses.

        EXAMPLES:
          foldkit export yolov4-tiny.cfg yolov4-tiny.weights --format onnx --out tiny-onnx
          foldkit export model.keras --format onnx --dtype float16 --input-layout nhwc --out model-onnx
          foldkit export yolov4-tiny.cfg yolov4-tiny.weights --format ncnn --out tiny-ncnn
          foldkit export yolov4-tiny.cfg yolov4-tiny.weights --format tflite --dtype float16 --out tiny-tflite
        """

    static let verify = """
        Exit codes: 0 everything within tolerance, 1 error (bad input, usage, missing blob file), 2 checked \
        and over tolerance or blobs changed.

        EXAMPLES:
          foldkit verify yolov3-tiny.cfg yolov3-tiny.weights
          foldkit verify yolov3-tiny.cfg yolov3-tiny.weights --blobs tiny-blobs --fp16 --json report.json
          foldkit verify yolov3-tiny.cfg yolov3-tiny.weights --image dog.jpg --resize letterbox --report audit.html
          foldkit verify model.h5 --input x.npy --json - --quiet | jq .verdict
        """

    static let fixtures = """
        With --check DIR, recompute an existing pack and report drift (exit 2 when beyond --rtol).

        EXAMPLES:
          foldkit fixtures yolov3-tiny.cfg yolov3-tiny.weights --out fixtures --layout nhwc --npz
          foldkit fixtures yolov3-tiny.cfg yolov3-tiny.weights --image dog.jpg --out fixtures-dog
          foldkit fixtures yolov3-tiny.cfg yolov3-tiny.weights --layers outputs --onnx --out fixtures-heads
          foldkit fixtures yolov3-tiny.cfg yolov3-tiny.weights --layers 0,15,16,23 --out fixtures-some
          foldkit fixtures yolov3-tiny.cfg yolov3-tiny.weights --check fixtures --json
        """

    static let inspect = """
        EXAMPLES:
          foldkit inspect yolov3-tiny.cfg
          foldkit inspect yolov3-tiny.cfg yolov3-tiny.weights
          foldkit inspect model.h5 --json | jq '.parameterCount'
        """

    static let seedWeights = """
        EXAMPLES:
          foldkit seed-weights yolov3-tiny.cfg --out tiny.weights
          foldkit seed-weights yolov4.cfg --generator wide --seed 2 --out wide.weights
        """

    static let bench = """
        Each figure is the minimum (and median) wall time of --runs runs after one warm-up run.

        EXAMPLES:
          foldkit bench
          foldkit bench --cfg yolov3.cfg --weights yolov3.weights --runs 5 --json bench.json
        """
}
