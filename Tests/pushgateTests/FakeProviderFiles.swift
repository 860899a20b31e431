import Foundation
import PushgateTesting

/// The files of one `pushgate-dev fake-apns` / `fake-fcm` run, in a test directory of their own.
struct FakeProviderFiles {
    let directory: URL
    var p8: String { directory.appendingPathComponent("AuthKey.p8").path }
    var account: String { directory.appendingPathComponent("service-account.json").path }
    var script: String { directory.appendingPathComponent("script.json").path }
    var record: String { directory.appendingPathComponent("record.jsonl").path }
    var certificate: String { directory.appendingPathComponent("ca.pem").path }

    static func make() throws -> FakeProviderFiles { FakeProviderFiles(directory: try TemporaryDirectory.create("pushgate-tool")) }
    func remove() { try? FileManager.default.removeItem(at: directory) }
}
