import FoldKitCore
import Foundation
import XCTest

final class TensorRoleTests: XCTestCase {
    /// The manifest's role strings (Docs/BlobFormat.md, "manifest.json") are the JSON of the roles.
    func testEncodesAsTheManifestStrings() throws {
        let roles: [TensorRole] = [.weights, .bias, .scale, .shift, .alpha, .gamma, .beta, .mean, .variance]
        let json = String(decoding: try JSONEncoder().encode(roles), as: UTF8.self)
        XCTAssertEqual(json, #"["weights","bias","scale","shift","alpha","bn_gamma","bn_beta","bn_mean","bn_variance"]"#)
        XCTAssertEqual(try JSONDecoder().decode([TensorRole].self, from: Data(json.utf8)), roles)
        XCTAssertThrowsError(try JSONDecoder().decode([TensorRole].self, from: Data(#"["kernel"]"#.utf8)))
    }
}
