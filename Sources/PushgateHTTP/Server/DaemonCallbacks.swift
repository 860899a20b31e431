internal import CMicroHTTPD

/// The C callbacks handed to libmicrohttpd. They capture nothing: the daemon context is the
/// ``ServerCore`` and each connection's context its ``ConnectionState``.
enum DaemonCallbacks {
    /// Asked before a new connection is set up: refuses a client at its connection cap.
    static let acceptPolicy: MHD_AcceptPolicyCallback = { context, address, _ in
        guard let context, let address else { return .NO }
        return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().admits(address) ? .YES : .NO
    }

    /// Every step of every request.
    static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, requestContext in
        guard let context, let connection, let url, let method, let uploadSize, let requestContext else { return .NO }
        return Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue().access(
            connection, url: url, method: method, upload: upload, uploadSize: uploadSize, requestContext: requestContext)
    }

    /// A request ended, answered or not.
    static let requestCompleted: MHD_RequestCompletedCallback = { context, _, requestContext, _ in
        guard let context, let requestContext, let raw = requestContext.pointee else { return }
        requestContext.pointee = nil
        Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
            .requestCompleted(Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue())
    }

    /// A connection opened or is closing; its state is retained in between.
    static let connection: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
        guard let context, let connection, let socketContext else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(context).takeUnretainedValue()
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            socketContext.pointee = Unmanaged.passRetained(core.connectionStarted(connection)).toOpaque()
        case .CONNECTION_NOTIFY_CLOSED:
            guard let raw = socketContext.pointee else { return }
            socketContext.pointee = nil
            core.connectionClosed(Unmanaged<ConnectionState>.fromOpaque(raw).takeRetainedValue())
        @unknown default:
            return
        }
    }
}
