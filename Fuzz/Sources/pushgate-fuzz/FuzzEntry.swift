import Glibc

// libFuzzer's own main runs the process (SwiftPM builds this module as a library under
// `--sanitize fuzzer`); these are the two functions it calls (docs/fuzzing.md).

/// Called once before libFuzzer reads its flags: `pushgate-fuzz TARGET [flags] [corpus…]` names
/// the target first. The name is taken off the arguments and put in PUSHGATE_FUZZ_TARGET, so the
/// processes libFuzzer starts itself (-fork, -merge) run the same target. `pushgate-fuzz list`
/// prints the targets' names.
@_cdecl("LLVMFuzzerInitialize")
func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>,
                      _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> Int32 {
    let names = FuzzTarget.all.map(\.name)
    if argc.pointee == 2, let first = argv.pointee[1], String(cString: first) == "list" {
        print(names.joined(separator: "\n"))
        exit(0)
    }
    if argc.pointee > 1, let first = argv.pointee[1], FuzzTarget.named(String(cString: first)) != nil {
        setenv(FuzzTarget.environmentKey, first, 1)
        for index in 1..<Int(argc.pointee) { argv.pointee[index] = argv.pointee[index + 1] }
        argc.pointee -= 1
    }
    guard FuzzTarget.selected != nil else {
        print("usage: pushgate-fuzz TARGET|list [libFuzzer flags] [corpus directories]\ntargets: \(names.joined(separator: " "))")
        exit(2)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.selected?.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}
