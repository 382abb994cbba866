import XCTest

@testable import FoldKitKeras

/// Which layer entries are operator layers: tf.keras functions, Keras 3 operation classes with or
/// without their module, and the classes an operation shares with a layer told apart by the call.
final class KerasOperationTests: XCTestCase {
    private func tensor(_ name: String) -> KerasJSON {
        .object(["class_name": .string("__keras_tensor__"), "config": .object(["keras_history": .array([.string(name), .number(0), .number(0)])])])
    }

    private func call(_ args: [KerasJSON]) throws -> KerasLayerCall {
        try KerasLayerCall.parse(.object(["args": .array(args), "kwargs": .object([:])]), file: "t", layer: "l")
    }

    func testTFOpLambdaFunctions() {
        let add = KerasOperation.recognise(
            className: "TFOpLambda", module: nil, config: .object(["function": .string("__operators__.add")]), call: nil)
        XCTAssertEqual(add, .operation(.add))
        let exp = KerasOperation.recognise(className: "TFOpLambda", module: nil, config: .object(["function": .string("math.exp")]), call: nil)
        XCTAssertEqual(exp, .unsupported("TFOpLambda math.exp"))
        let slice = KerasOperation.recognise(
            className: "SlicingOpLambda", module: nil, config: .object(["function": .string("__operators__.getitem")]), call: nil)
        XCTAssertEqual(slice, .operation(.slice))
    }

    func testKeras3OperationsByModule() {
        XCTAssertEqual(KerasOperation.recognise(className: "TrueDivide", module: "keras.src.ops.numpy", config: nil, call: nil), .operation(.divide))
        XCTAssertEqual(
            KerasOperation.recognise(className: "Exp", module: "keras.src.ops.numpy", config: nil, call: nil),
            .unsupported("operation Exp from module 'keras.src.ops.numpy'"))
        // A user's class of an operation's name from another module is not an operation.
        XCTAssertEqual(KerasOperation.recognise(className: "Relu6", module: "my_project.layers", config: nil, call: nil), .notAnOperation)
    }

    /// Keras 3 `.h5` files write no module: `Add` with operands as separate arguments is `x + y`, with one
    /// list argument the Add layer.
    func testSharedNamesAreToldApartByTheCall() throws {
        let operation = try call([tensor("conv"), .number(3)])
        let layer = try call([.array([tensor("a"), tensor("b")])])
        XCTAssertEqual(KerasOperation.recognise(className: "Add", module: nil, config: .object([:]), call: operation), .operation(.add))
        XCTAssertEqual(KerasOperation.recognise(className: "Add", module: nil, config: .object([:]), call: layer), .notAnOperation)
        XCTAssertEqual(KerasOperation.recognise(className: "Add", module: "keras.layers", config: .object([:]), call: operation), .notAnOperation)
        XCTAssertEqual(
            KerasOperation.recognise(className: "Reshape", module: nil, config: .object(["newshape": .array([.number(-1)])]), call: operation),
            .operation(.reshape))
        XCTAssertEqual(
            KerasOperation.recognise(className: "Reshape", module: nil, config: .object(["target_shape": .array([.number(4)])]), call: operation),
            .notAnOperation)
    }

    /// tf.keras writes a TFOpLambda's node as one bare entry, a constant first operand as _CONSTANT_VALUE,
    /// and a tensor given by keyword as [name, node, tensor].
    func testTFKerasCallsKeepOperandsInOrder() throws {
        let bare = try KerasLayerCall.parse(
            .array([.string("conv"), .number(0), .number(0), .object(["y": .number(3)])]), file: "t", layer: "l")
        XCTAssertEqual(bare.inputs.map(\.layer), ["conv"])
        XCTAssertEqual(bare.positional, [.tensor(0)])
        XCTAssertEqual(bare.keywords["y"], .value(.number(3)))
        let constantFirst = try KerasLayerCall.parse(
            .array([
                .string("_CONSTANT_VALUE"), .number(-1), .number(1),
                .object(["y": .array([.string("conv"), .number(0), .number(0)])]),
            ]), file: "t", layer: "l")
        XCTAssertEqual(constantFirst.positional, [.value(.number(1))])
        XCTAssertEqual(constantFirst.keywords["y"], .tensor(0))
        XCTAssertEqual(constantFirst.inputs.map(\.layer), ["conv"])
    }
}
