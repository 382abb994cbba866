/// A project fixture a test is written against is missing or no longer what the test expects (a cfg whose
/// layer changed kind, a model without the batch norm the test injects into). Thrown to fail the test
/// naming the fixture and what is wrong: a changed fixture must turn the run red, never skip quietly.
/// (A missing `../shared` file is `TestData.sharedFile`'s business: a skip, or a failure under CI.)
public struct FixtureProblem: Error, CustomStringConvertible {
    /// The fixture, as a path below the repository (or the model's name).
    public let fixture: String
    /// What is wrong with it.
    public let problem: String

    public init(_ fixture: String, _ problem: String) {
        self.fixture = fixture
        self.problem = problem
    }

    public var description: String {
        "fixture \(fixture) is not what this test was written against: \(problem)"
    }
}
