import ArgumentParser

/// `--durable`, shared by the commands that write an output folder (`convert`, `fixtures`). Without it
/// the folder is atomic (complete or absent, never half-written) but not flushed to disk; with it every
/// file and the folder are `fsync`ed before the swap, so the output also survives a power loss
/// (Docs/Security.md, "Output safety", item "Durability").
struct DurabilityArguments: ParsableArguments {
    @Flag(
        help:
            "Flush every output file and the folder to disk (fsync) before it is put in place, so the output survives a power loss; slower (Docs/Security.md)."
    )
    var durable = false
}
