import ArgumentParser
import FoldKit
import Foundation

/// Thrown by commands that finished their check and found it over tolerance (exit code 2).
struct CheckFailed: Error {}
