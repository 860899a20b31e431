import PushgateCommandLine
import PushgateCore

/// `pushgate sign`: signs a message as a host does (protocol/signed-relay.md §1).
enum SignCommand {
    static let usage = "pushgate sign --key FILE --message TEXT"

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let path = try arguments.requiredOption("key")
        let message = try arguments.requiredOption("message")
        try arguments.finish()
        let key = try ToolFile.privateKey(path)
        print(Base64URL.encode(try key.sign(Array(message.utf8))))
        return 0
    }
}
