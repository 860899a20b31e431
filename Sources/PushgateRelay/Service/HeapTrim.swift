#if canImport(Glibc)
import Glibc
#endif

/// Hands freed heap pages back to the system.
///
/// glibc keeps memory freed by a burst (a thousand connections' buffers, a flood of
/// registrations) in its arenas, so the relay's resident size would stay at the burst's peak;
/// trimming after each periodic purge lets it fall back (docs/performance.md, relay memory).
/// `malloc_trim` is looked up at run time: `<malloc.h>` is not part of Swift's Glibc module.
enum HeapTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        #if canImport(Glibc)
        // RTLD_DEFAULT: search every object loaded in the process.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    static func release() { _ = trim?(0) }
}
