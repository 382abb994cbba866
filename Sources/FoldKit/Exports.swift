@_exported import FoldKitCore
@_exported import FoldKitDarknet
@_exported import FoldKitKeras
