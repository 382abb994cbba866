import FoldKitCore

/// The channel order the network expects its input image in.
public enum ChannelOrder: String, CaseIterable, Sendable, Codable { case rgb, bgr }
