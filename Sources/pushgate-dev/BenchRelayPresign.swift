import Dispatch
import Foundation
import PushgateCommandLine
import PushgateCore
import Synchronization

/// `pushgate-dev bench relay-presign`: writes `count` signed `register-token` bodies, one per line,
/// each for a distinct token and stamped now, for `wrk` to post once each (Scripts/bench); with
/// `--hosts N` body `i` is signed by the `i mod N`-th of N fresh host keys.
enum BenchRelayPresign {
    static let usage = "pushgate-dev bench relay-presign --count N --out FILE [--key FILE | --hosts N]"

    /// Bodies signed per unit of parallel work.
    private static let chunkSize = 4_096

    static func run(_ arguments: inout ArgumentList, report: (BenchFigure) -> Void) throws {
        let count = try arguments.wholeNumber("count", in: 1...10_000_000)
        let path = try arguments.requiredOption("out")
        let key = try arguments.option("key").map(ToolFile.privateKey)
        let hosts = try arguments.wholeNumber("hosts", in: 1...100_000, default: 1)
        try arguments.finish()
        guard key == nil || hosts == 1 else { throw UsageError("--key and --hosts exclude each other") }

        let signers = key.map { [RelayRequestSigner(key: $0)] } ?? (0..<hosts).map { _ in RelayRequestSigner(key: P256PrivateKey()) }
        let ts = SystemClock().nowMilliseconds
        // A random prefix keeps the tokens of separate runs apart.
        let prefix = Hex.encode(SecureRandom.bytes(16))
        let chunks = Mutex<[Int: Result<[UInt8], any Error>]>([:])
        let chunkCount = (count + chunkSize - 1) / chunkSize
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let result = Result { () throws -> [UInt8] in
                var lines: [UInt8] = []
                for number in (chunk * chunkSize)..<min(count, (chunk + 1) * chunkSize) {
                    let hex = String(number, radix: 16)
                    let token = prefix + String(repeating: "0", count: 32 - hex.count) + hex
                    lines += try signers[number % signers.count].registerToken(token, ts: ts)
                    lines.append(0x0A)
                }
                return lines
            }
            chunks.withLock { $0[chunk] = result }
        }
        var file: [UInt8] = []
        for chunk in 0..<chunkCount {
            file += try chunks.withLock { $0[chunk] ?? .failure(ToolFailure("chunk \(chunk) was not signed")) }.get()
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(file)) else { throw ToolFailure("cannot write \(path)") }
        ToolCommand.printError("pushgate-dev bench relay-presign: \(count) register-token bodies from \(signers.count) host(s) (ts \(ts)) in \(path)")
    }
}
