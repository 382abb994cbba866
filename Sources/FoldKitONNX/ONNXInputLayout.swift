/// How the exported graph takes its input: NCHW `[1, C, H, W]` (the default, FoldKit's own channel-major
/// order) or NHWC `[1, H, W, C]`, for engines and apps that feed images channels-last (a Transpose with
/// perm [0, 3, 1, 2] is the graph's first node then).
public enum ONNXInputLayout: String, Sendable, CaseIterable {
    /// `[1, C, H, W]`.
    case nchw
    /// `[1, H, W, C]`.
    case nhwc
}
