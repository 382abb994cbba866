import FoldKitCore

/// One argument of a layer call as the config writes it: a tensor (an index into the call's inputs), a
/// list of tensors, or a plain value (a constant operand such as the 3 of `x + 3`, a shape, an axis).
enum KerasOperand: Equatable {
    case tensor(Int)
    case tensors([Int])
    case value(KerasJSON)

    /// The number, when the operand is a numeric constant.
    var number: Double? {
        if case .value(let json) = self { return json.double }
        return nil
    }
}
