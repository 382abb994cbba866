import FoldKitCore

/// How an image is fitted to the network input (the names of Apple Vision's crop-and-scale options).
public enum ResizeMode: String, CaseIterable, Sendable, Codable {
    /// Scale each axis independently to fill the input (Vision scaleFill; Darknet `resize_image`).
    case stretch
    /// Keep the aspect ratio, fit inside, pad the rest with grey 0.5 (Vision scaleFit; Darknet `letterbox_image`).
    case letterbox
    /// Keep the aspect ratio, fill the input, crop the centre (Vision centerCrop).
    case centerCrop = "center-crop"
}
