import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// `KerasReader.inputDeclaration`: the input sizes (None = nil) and axis order the description
/// declares, read from every file kind without building the network.
final class KerasInputDeclarationTests: XCTestCase {
    func testFixtureFileKindsDeclareTheirBatchInputShape() throws {
        let kinds: [[String]] = [["keras/dag.tfkeras.h5"], ["keras/dag.tfkeras.json", "keras/dag.tfkeras.weights.h5"], ["keras/dag.keras"]]
        for paths in kinds {
            let declaration = try KerasReader.inputDeclaration(paths: paths.map { TestData.fixture($0).path })
            XCTAssertEqual(declaration, KerasInputDeclaration(dims: [12, 12, 3], channelsFirst: false), "\(paths)")
        }
    }

    func testRealModelsUndefinedSizesVectorsAndChannelsFirst() throws {
        let pnet = try KerasReader.inputDeclaration(paths: [TestData.sharedFile("real-models/keras_dl4j_mtcnn_12net/12net.h5").path])
        XCTAssertEqual(pnet.dims, [nil, nil, 3])
        XCTAssertEqual(pnet.heightAxis, 0)
        XCTAssertEqual(pnet.filled(height: 12, width: 13), [12, 13, 3])
        let vector = try KerasReader.inputDeclaration(paths: [
            TestData.sharedFile("real-models/keras1_dl4j_batch_to_conv2d/batch_to_conv2d_tensorflow_1.h5").path
        ])
        XCTAssertEqual(vector.dims, [100])
        XCTAssertNil(vector.heightAxis)
        let mnist = "real-models/keras1_dl4j_mnist_cnn_th/"
        let theano = try KerasReader.inputDeclaration(paths: [
            TestData.sharedFile(mnist + "mnist_cnn_th_keras_1_config.json").path,
            TestData.sharedFile(mnist + "mnist_cnn_th_keras_1_weights.h5").path,
        ])
        XCTAssertEqual(theano, KerasInputDeclaration(dims: [1, 28, 28], channelsFirst: true))
        XCTAssertEqual(theano.heightAxis, 1)
        XCTAssertEqual(theano.widthAxis, 2)
        XCTAssertEqual(KerasInputDeclaration.text(pnet.dims), "(None, None, None, 3)")
    }

    /// The library reader still needs the size when the model leaves it undefined, and says which option gives it.
    func testReaderWithoutSizeNamesTheOptions() throws {
        let path = try TestData.sharedFile("real-models/keras_dl4j_mtcnn_12net/12net.h5").path
        XCTAssertThrowsError(try KerasReader.read(paths: [path])) { error in
            XCTAssertTrue((error as? FoldKitError)?.message.contains("KerasReadOptions.inputHeight/inputWidth") ?? false, "\(error)")
        }
        let network = try KerasReader.read(paths: [path], options: KerasReadOptions(inputHeight: 12, inputWidth: 12))
        XCTAssertEqual(network.inputShape, ActivationShape(channels: 3, height: 12, width: 12))
    }
}
