import FoldKitCore
import Foundation

/// How `foldkit fixtures` lays out each tensor in its .npy file.
public enum FixtureLayout: String, CaseIterable, Sendable, Codable {
    /// (1, C, H, W), channel-major.
    case nchw
    /// (1, H, W, C), channel-minor.
    case nhwc
    /// MPSImage texture slices (S, H, W, 4), S = ceil(C/4), last slice zero-padded; (H, W, C) for C <= 2.
    case sliced
}
