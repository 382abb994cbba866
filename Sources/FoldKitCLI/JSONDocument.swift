import FoldKit

/// A `--json` document of convert, fixtures or inspect (Docs/CLI.md "JSON documents"): one object
/// whose first fields say which command wrote it, the FoldKit version and the document's schema
/// version, followed by the command's own fields (`body`, encoded into the same object):
///
///     { "tool": "foldkit inspect", "toolVersion": "1.0.0", "schemaVersion": 1, ...body's fields }
///
/// `schemaVersion` is raised whenever a field changes meaning or disappears; adding a field does not raise it.
struct JSONDocument<Body: Encodable>: Encodable {
    var tool: String
    var toolVersion: String
    var schemaVersion: Int
    var body: Body

    init(command: String, schemaVersion: Int = 1, _ body: Body) {
        tool = "foldkit \(command)"
        toolVersion = FoldKitVersion.string
        self.schemaVersion = schemaVersion
        self.body = body
    }

    private enum CodingKeys: String, CodingKey { case tool, toolVersion, schemaVersion }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tool, forKey: .tool)
        try container.encode(toolVersion, forKey: .toolVersion)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try body.encode(to: encoder)
    }
}
