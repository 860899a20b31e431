import PushgateCommandLine
import PushgateCore

/// `pushgate verify`: checks a signature as the relay does (protocol/signed-relay.md §1).
enum VerifyCommand {
    static let usage = "pushgate verify --jwk FILE --message TEXT --sig SIG"

    static func run(_ arguments: inout ArgumentList) throws -> Int32 {
        let path = try arguments.requiredOption("jwk")
        let message = try arguments.requiredOption("message")
        let signatureText = try arguments.requiredOption("sig")
        try arguments.finish()
        let reason: String
        do {
            let key = try ToolFile.publicKey(path)
            let signature = try P1363Signature.decode(base64url: signatureText)
            if key.verify(signature: signature, message: Array(message.utf8)) {
                print("valid")
                return 0
            }
            reason = "signature does not verify"
        } catch let failure as ToolFailure {
            reason = failure.message
        } catch {
            reason = "\(error)"
        }
        print("invalid")
        ToolCommand.printError("pushgate verify: \(reason)")
        return 1
    }
}
