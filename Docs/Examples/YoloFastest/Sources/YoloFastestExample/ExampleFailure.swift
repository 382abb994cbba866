/// Why the example could not read the generated blobs.
struct ExampleFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
