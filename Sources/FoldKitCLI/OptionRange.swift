import ArgumentParser

/// The ranges numeric options must lie in, checked in the commands' `validate()` (before anything is
/// read), so that `--threshold 1.5` is a usage error naming the option, the value and the range (exit 1;
/// Docs/CLI.md "Conventions") rather than a run that silently finds no box.
enum OptionRange {
    /// A range of floating-point values.
    enum Real {
        /// [0, 1]: scores, IoU thresholds.
        case unitInterval
        /// A finite number >= 0: tolerances, epsilon.
        case nonNegative

        var text: String {
            switch self {
            case .unitInterval: return "a number in [0, 1]"
            case .nonNegative: return "a finite number >= 0"
            }
        }

        func contains<T: BinaryFloatingPoint>(_ value: T) -> Bool {
            switch self {
            case .unitInterval: return value >= 0 && value <= 1
            case .nonNegative: return value.isFinite && value >= 0
            }
        }
    }

    /// Throws a `ValidationError` "--option VALUE is out of range: expected RANGE" unless `value` is in `range`.
    static func check<T: BinaryFloatingPoint & CustomStringConvertible>(_ option: String, _ value: T?, _ range: Real) throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("\(option) \(value) is out of range: expected \(range.text)")
    }

    /// Throws a `ValidationError` unless `value` is at least `minimum` (and, when given, a multiple of `multiple`).
    static func check(_ option: String, _ value: Int?, atLeast minimum: Int, multipleOf multiple: Int = 1) throws {
        guard let value else { return }
        guard value >= minimum, value % multiple == 0 else {
            let what = multiple == 1 ? "an integer >= \(minimum)" : "a multiple of \(multiple), at least \(minimum)"
            throw ValidationError("\(option) \(value) is out of range: expected \(what)")
        }
    }
}
