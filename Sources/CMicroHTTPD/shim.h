#ifndef PUSHGATE_CMICROHTTPD_SHIM_H
#define PUSHGATE_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Fixed-arity wrappers for libmicrohttpd's variadic functions, which Swift cannot import. */

/* Starts a daemon. The accept-policy (may be NULL), request-completed and connection callbacks
   get `context` too; every other option comes from `options`, an array ended by an
   MHD_OPTION_END item. */
static inline struct MHD_Daemon *pg_mhd_start_daemon(unsigned int flags,
                                                     MHD_AcceptPolicyCallback accept,
                                                     MHD_AccessHandlerCallback handler,
                                                     void *context,
                                                     MHD_RequestCompletedCallback completed,
                                                     MHD_NotifyConnectionCallback connection,
                                                     const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, accept, context, handler, context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection, context,
                            MHD_OPTION_ARRAY, (struct MHD_OptionItem *)options,
                            MHD_OPTION_END);
}

/* The port the daemon's listening socket is bound to, or 0 when unknown. */
static inline uint16_t pg_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The daemon's epoll descriptor (a daemon started with MHD_USE_EPOLL and no thread), or -1. */
static inline int pg_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info == NULL ? -1 : info->epoll_fd;
}

/* The peer address of a connection, or NULL. */
static inline const struct sockaddr *pg_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/* The socket of a connection, or -1. */
static inline int pg_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The context set by the connection-started notification, or NULL. */
static inline void *pg_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

#endif
