import FoldKitCore

/// One line of ncnn's param file, `Type name inputs outputs in... out... k=v...`, with the weight buffers
/// the layer reads from model.bin in the order its `load_model` reads them
/// (docs/developer-guide/param-and-model-file-structure.md in Tencent/ncnn).
struct NCNNLayer {
    /// The ncnn layer type (`Convolution`, `BinaryOp`, ...).
    var type: String
    /// Input blob names.
    var bottoms: [String]
    /// Output blob names.
    var tops: [String]
    /// Parameters by id, in the order written.
    var params: [(id: Int, value: NCNNParam)] = []
    /// Weight buffers, in the order ncnn reads them.
    var weights: [NCNNWeight] = []

    /// The layer's name in the file: its first output blob (blob names are unique, so layer names are).
    var name: String { tops.first ?? type }
}

/// A value of a param line: an int, a float (written so ncnn's own parser reads back the same float,
/// `NCNNParamFile.format`), or an array of either (`-23300-id=count,v,v,...`).
enum NCNNParam {
    case int(Int)
    case float(Float)
    case ints([Int])
    case floats([Float])
}

/// One weight buffer of model.bin.
struct NCNNWeight {
    /// How ncnn reads it: `flagged` buffers (`ModelBin::load(w, 0)`: Convolution, ConvolutionDepthWise,
    /// Deconvolution, DeconvolutionDepthWise, InnerProduct weights, MemoryData with load_type 0) start with a
    /// 4-byte storage flag and may be float16; `raw` ones (`load(w, 1)`: biases, Scale, PReLU) are float32
    /// with no flag.
    enum Storage { case flagged, raw }

    var storage: Storage
    /// Number of values.
    var count: Int
    /// What the values are, for errors ("W", "bias", ...).
    var hint: String
    /// The layer the buffer belongs to, as errors name it.
    var layer: String?
    /// The file that layer came from.
    var file: String?
    /// Reads the values (when the file is written).
    var values: () throws -> [Float]
}
