import PushgateCore
import PushgateProviders
import PushgateStore
import Synchronization

/// One attempt at a window whose notifications wait in the outbox table: its expired
/// notifications go, its rows are claimed (only those this relay still holds are sent), the
/// summary is sent, then the rows are deleted or, after a passing failure, kept with the attempt
/// recorded for a retry.
///
/// - Important: docs/gateway.md "Coalescing and delivery" — the registration is looked up again (deleted, dead
///   or another host's meanwhile → nothing is sent); a dead answer marks it dead if it
///   still has that token. Pushgate retries what failed for a passing reason until an hour after
///   acceptance (docs/gateway.md "Coalescing and delivery"). Logs name the platform, outcome,
///   reason and 4 characters of the fingerprint, never a token or a notification's text.
struct GatewayOutboxDelivery: Sendable {
    let deliverer: GatewayDeliverer
    let store: any GatewayStore
    let clock: any WallClock
    let counters: GatewayCounters
    let attempts: GatewayAttemptCounter
    let logger: Logger
    let unsettled = GatewayUnsettledDeletes()

    /// Tries `window` once; returns it to try again (attempts and due time updated), or `nil`
    /// when it is done with. Never throws.
    func attempt(_ window: GatewayWindow) async -> GatewayWindow? {
        var window = window
        let host = Redact.serverId(window.hostFingerprint)
        do {
            try await unsettled.settle(in: store)
        } catch {
            // Kept for the next attempt; nothing of this window depends on them.
            logger.error("gateway outbox: deleting delivered rows failed again", ["error": "\(type(of: error))", "host": host])
        }
        let expired = expiredNotifications(of: window, nowMs: clock.nowMilliseconds)
        if !expired.isEmpty {
            window.notifications.removeAll { expired.contains($0) }
            drop(expired, attempts: window.attempts, host: host)
            await delete(expired.map(\.sendId), host: host)
        }
        guard !window.notifications.isEmpty else { return nil }

        let device: GatewayDevice?
        do {
            device = try await store.device(registrationId: window.registrationId)
        } catch {
            // The push never left: as safe to try again as a provider that was not reached.
            logger.error("gateway delivery: registration lookup failed", ["error": "\(type(of: error))", "host": host])
            attempts.count(.failed(reason: "store", failure: .notSent))
            return await postpone(window, reason: "store", failure: .notSent, platform: "unknown", host: host)
        }
        guard let device, device.hostFingerprint == window.hostFingerprint, !device.dead else {
            await delete(window.sendIds, host: host)
            return nil
        }
        let windowId = window.windowId ?? window.notifications[0].sendId
        let held: [String]
        do {
            held = try await store.claimOutbox(sendIds: window.sendIds, windowId: windowId)
        } catch {
            logger.error("gateway delivery: claiming the outbox rows failed", ["error": "\(type(of: error))", "host": host])
            attempts.count(.failed(reason: "store", failure: .notSent))
            return await postpone(window, reason: "store", failure: .notSent, platform: device.platform, host: host)
        }
        // Rows another relay took over (this one had lost its holder lock) are that relay's to send.
        window.notifications.removeAll { !held.contains($0.sendId) }
        guard !window.notifications.isEmpty else {
            logger.warning("gateway delivery: the window's rows were taken over by another relay; not sent", ["host": host])
            return nil
        }
        window.windowId = windowId
        let outcome = await deliverer.send(window.delivery, to: device)
        attempts.count(outcome)
        switch outcome {
        case .sent:
            counters.count(.deliverySent)
        case .dead(let reason):
            counters.count(.deliveryDead)
            logger.info("gateway delivery: the provider says the token is dead; registration marked dead",
                        ["platform": device.platform, "outcome": "dead", "reason": reason, "host": host])
            do {
                try await store.markDead(registrationId: device.registrationId, token: device.token, nowMs: clock.nowMilliseconds)
            } catch {
                logger.error("gateway delivery: marking the registration dead failed", ["error": "\(type(of: error))", "host": host])
            }
        case .failed(let reason, let failure) where GatewayRetryPolicy.retries(after: failure):
            return await postpone(window, reason: reason, failure: failure, platform: device.platform, host: host)
        case .failed(let reason, _):
            counters.count(.deliveryError)
            logger.warning("gateway delivery refused; not retried", ["platform": device.platform, "outcome": "error", "reason": reason,
                                                                     "host": host])
        }
        await delete(window.sendIds, host: host)
        return nil
    }

    /// A window sent once keeps its notifications together (its push must stay the same), so it
    /// expires as a whole with its newest; one still collecting loses each notification past its hour.
    private func expiredNotifications(of window: GatewayWindow, nowMs: Int64) -> [GatewayQueuedNotification] {
        let expired = { (note: GatewayQueuedNotification) in GatewayRetryPolicy.hasExpired(acceptedAt: note.acceptedAt, nowMs: nowMs) }
        guard window.windowId != nil else { return window.notifications.filter(expired) }
        return window.notifications.allSatisfy(expired) ? window.notifications : []
    }

    private func drop(_ expired: [GatewayQueuedNotification], attempts: Int, host: String) {
        counters.count(.deliveryExpired, by: expired.count)
        logger.warning("gateway notifications undelivered an hour after acceptance; dropped",
                       ["notifications": "\(expired.count)", "attempts": "\(attempts)", "host": host])
    }

    /// Records the failed attempt in the rows and returns the window due again after its back-off;
    /// `nil`, with the rows dropped as expired, when no further attempt fits in their hour.
    private func postpone(_ window: GatewayWindow, reason: String, failure: ProviderFailure, platform: String,
                          host: String) async -> GatewayWindow? {
        var retry = window
        retry.attempts += 1
        let now = clock.nowMilliseconds
        guard let dueAt = GatewayRetryPolicy.nextAttempt(after: failure, attempts: retry.attempts, nowMs: now,
                                                         newestAcceptedAt: window.notifications.map(\.acceptedAt).max() ?? now) else {
            drop(window.notifications, attempts: retry.attempts, host: host)
            await delete(window.sendIds, host: host)
            return nil
        }
        retry.dueAt = dueAt
        logger.warning("gateway delivery failed; tried again later",
                       ["platform": platform, "outcome": "retry", "reason": reason, "attempt": "\(retry.attempts)",
                        "retryInMs": "\(retry.dueAt - now)", "host": host])
        do {
            try await store.postponeOutbox(sendIds: retry.sendIds, attempts: retry.attempts, dueAt: retry.dueAt)
        } catch {
            // The window is retried all the same; after a restart its rows are tried at their older due time.
            logger.error("gateway outbox: recording a failed attempt failed", ["error": "\(type(of: error))", "host": host])
        }
        return retry
    }

    private func delete(_ sendIds: [String], host: String) async {
        do {
            try await store.deleteOutbox(sendIds: sendIds)
        } catch {
            // Kept in memory and deleted before the next attempt, so the window is not sent again.
            unsettled.keep(sendIds)
            logger.error("gateway outbox: deleting delivered rows failed", ["error": "\(type(of: error))", "host": host])
        }
    }
}

/// Outbox rows of finished windows whose delete failed (a store error after the provider's
/// answer): kept here and deleted before any next attempt, so a window that was dealt with is
/// not sent again from its rows at the next start. The host outbox keeps its unsettled rows the
/// same way (docs/gateway.md "Coalescing and delivery").
final class GatewayUnsettledDeletes: Sendable {
    private let sendIds = Mutex<[String]>([])

    /// Keeps `sendIds` for the next ``settle(in:)``.
    func keep(_ ids: [String]) { sendIds.withLock { $0 += ids } }

    /// Deletes the kept rows; gives them back when that fails too.
    func settle(in store: any GatewayStore) async throws {
        let pending = sendIds.withLock { pending in defer { pending = [] }; return pending }
        guard !pending.isEmpty else { return }
        do {
            try await store.deleteOutbox(sendIds: pending)
        } catch {
            keep(pending)
            throw error
        }
    }
}
