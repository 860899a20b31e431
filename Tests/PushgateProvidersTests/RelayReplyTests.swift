@testable import PushgateProviders
import Testing

/// A signed relay's result rows, `reason` (issue 16 item 1) included, on the parser alone.
@Suite struct RelayReplyTests {
    private static func rows(_ json: String) -> [RelayReply.TokenResult] {
        RelayReply(status: 200, body: Array(#"{"results":[\#(json)]}"#.utf8)).results
    }

    @Test func reasonIsReadWhenPresentAndNilWhenNot() {
        #expect(Self.rows(#"{"token":"a","ok":true},{"token":"b","ok":false,"reason":"not_bound"},"#
                          + #"{"token":"c","ok":false,"drop":true,"reason":"dead"},{"token":"d","ok":false}"#) == [
            .init(token: "a", ok: true), .init(token: "b", ok: false, reason: RelayReply.TokenResult.notBound),
            .init(token: "c", ok: false, drop: true, reason: "dead"), .init(token: "d", ok: false),
        ])
    }

    @Test func anUnknownReasonIsKeptAsReceived() {
        #expect(Self.rows(#"{"token":"a","ok":false,"reason":"quota_later"}"#) == [.init(token: "a", ok: false, reason: "quota_later")])
    }

    @Test func aRowWhoseReasonIsNotAStringIsSkippedLikeAnyMalformedRow() {
        #expect(Self.rows(#"{"token":"a","ok":false,"reason":1},{"token":"b","ok":false,"reason":null},"#
                          + #"{"token":"c","ok":"no"},{"ok":true},{"token":"d","ok":false,"reason":"transient"}"#)
                == [.init(token: "d", ok: false, reason: "transient")])
    }

    @Test func retryableAndRetryAfterAreReadWhenWellFormed() {
        #expect(Self.rows(#"{"token":"a","ok":false,"reason":"transient","retryable":true,"retryAfter":2},"#
                          + #"{"token":"b","ok":false,"reason":"refused","retryable":false},"#
                          + #"{"token":"c","ok":false,"reason":"transient","retryable":"yes","retryAfter":-5}"#) == [
            .init(token: "a", ok: false, reason: "transient", retryable: true, retryAfterSeconds: 2),
            .init(token: "b", ok: false, reason: "refused", retryable: false),
            .init(token: "c", ok: false, reason: "transient"),
        ])
    }
}
