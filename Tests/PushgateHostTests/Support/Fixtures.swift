import Foundation
@testable import PushgateHost

/// Files under the package's Fixtures/ directory.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: root.appendingPathComponent(path))) }

    static func titles() throws -> NotificationTitles { try NotificationTitles(json: bytes("titles/notification-titles.json")) }
}
