import FoldKit

/// A `--json` document of convert, fixtures or inspect (Docs/CLI.md "JSON documents"): one object
/// whose first fields say which command wrote it, the FoldKit version, the document's schema version and
/// every file the command read (`FileDigest`: role, path, bytes, SHA-256), followed by the command's own
/// fields (`body`, encoded into the same object):
///
///     { "tool": "foldkit inspect", "toolVersion": "1.0.0", "schemaVersion": 1, "filesRead": [...], ...body's fields }
///
/// `schemaVersion` is raised whenever a field changes meaning or disappears; adding a field does not raise it.
struct JSONDocument<Body: Encodable>: Encodable {
    var tool: String
    var toolVersion: String
    var schemaVersion: Int
    var filesRead: [FileDigest]
    var body: Body

    init(command: String, schemaVersion: Int = 1, filesRead: [FileDigest], _ body: Body) {
        tool = "foldkit \(command)"
        toolVersion = FoldKitVersion.string
        self.schemaVersion = schemaVersion
        self.filesRead = filesRead
        self.body = body
    }

    private enum CodingKeys: String, CodingKey { case tool, toolVersion, schemaVersion, filesRead }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tool, forKey: .tool)
        try container.encode(toolVersion, forKey: .toolVersion)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(filesRead, forKey: .filesRead)
        try body.encode(to: encoder)
    }
}
