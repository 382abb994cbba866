import FoldKitCore
import Foundation

/// One `[section]` of a Darknet .cfg file with its options in file order.
struct CfgSection: Sendable {
    /// The name between the brackets, e.g. `convolutional`.
    var name: String
    /// 1-based line number of the `[name]` header.
    var line: Int
    /// Every option line of the section in file order, repeated keys included.
    var options: [CfgOption]
    /// The .cfg file the section was read from (for error messages).
    var file: String

    init(name: String, line: Int, options: [CfgOption], file: String) {
        self.name = name
        self.line = line
        self.options = options
        self.file = file
    }

    /// `[convolutional]`, as errors print it.
    var header: String { "[\(name)]" }

    /// The option Darknet uses for `key`: the FIRST occurrence. Darknet's `option_insert` appends
    /// to a list and `option_find` returns the first match, so a repeated key's later lines are ignored.
    func option(_ key: String) -> CfgOption? {
        options.first { $0.key == key }
    }

    /// True when the section sets `key` at all.
    func has(_ key: String) -> Bool { option(key) != nil }

    /// The raw string value of `key`, or `defaultValue`.
    func string(_ key: String, default defaultValue: String) -> String {
        option(key)?.value ?? defaultValue
    }

    /// An integer option. Darknet uses `atoi`; FoldKit is strict and refuses text that is not an
    /// integer, naming the line, instead of silently reading 0.
    func int(_ key: String, default defaultValue: Int) throws -> Int {
        guard let option = option(key) else { return defaultValue }
        // Darknet reads ints as C int (32 bits); the bound also keeps products of two options in Int.
        guard let value = Int32(option.value) else {
            throw badValue(option, expected: "an integer from \(Int32.min) to \(Int32.max)")
        }
        return Int(value)
    }

    /// A floating-point option (Darknet `atof`), strict like `int(_:default:)`.
    func float(_ key: String, default defaultValue: Float) throws -> Float {
        guard let option = option(key) else { return defaultValue }
        guard let value = Float(option.value) else {
            throw badValue(option, expected: "a number")
        }
        return value
    }

    /// A comma-separated list of integers (`layers=-1,61`, `mask=0,1,2`), or nil when absent.
    func intList(_ key: String) throws -> [Int]? {
        guard let option = option(key) else { return nil }
        var result: [Int] = []
        for item in option.value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int32(item) else { throw badValue(option, expected: "a comma-separated list of 32-bit integers") }
            result.append(Int(value))
        }
        return result
    }

    /// A comma-separated list of numbers (`anchors=...`), or nil when absent. A trailing comma is allowed.
    func floatList(_ key: String) throws -> [Float]? {
        guard let option = option(key) else { return nil }
        var result: [Float] = []
        let items = option.value.split(separator: ",", omittingEmptySubsequences: false)
        for (i, item) in items.enumerated() {
            if item.isEmpty && i == items.count - 1 && i > 0 { break }
            guard let value = Float(item) else { throw badValue(option, expected: "a comma-separated list of numbers") }
            result.append(value)
        }
        return result
    }

    /// A `FoldKitError` located at this section's header line.
    func error(_ kind: FoldKitError.Kind, _ message: String, layer: String? = nil, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: file, line: line, layer: layer ?? header, expected: expected, found: found)
    }

    /// A `FoldKitError` located at the line of `option`.
    func error(at option: CfgOption, _ kind: FoldKitError.Kind, _ message: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: file, line: option.line, layer: header, expected: expected, found: found)
    }

    private func badValue(_ option: CfgOption, expected: String) -> FoldKitError {
        error(at: option, .badInput, "bad value for '\(option.key)'", expected: expected, found: "'\(option.value)'")
    }
}
