@testable import PushgateHost
import Synchronization

/// The web side of protocol/hapi-push.md §10, recording which branch it was asked for.
final class RecordingWebFallback: WebFallbackChannel {
    private let state = Mutex<(visible: Int, calls: [String])>((0, []))

    /// How many visible web clients receive a toast.
    func setVisibleClients(_ count: Int) { state.withLock { $0.visible = count } }
    var calls: [String] { state.withLock { $0.calls } }
    func reset() { state.withLock { $0.calls = [] } }

    func showToast(_ notification: WebFallbackNotification) async -> Int {
        state.withLock { state in
            state.calls.append("toast")
            return state.visible
        }
    }

    func sendWebPush(_ notification: WebFallbackNotification) async {
        state.withLock { $0.calls.append("webPush") }
    }
}
