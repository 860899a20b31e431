#ifndef PUSHGATE_COPENSSL_TLS_SHIM_H
#define PUSHGATE_COPENSSL_TLS_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* TLS-side fixed-arity wrappers (SSL_CTX_* macros) used by the HTTP/2 client and test servers. */

/* SSL_CTX_set_mode is a macro over SSL_CTX_ctrl. Partial writes and a moving write buffer let a
   non-blocking writer retry with whatever remains of its own buffer. */
static inline long pg_tls_ctx_enable_partial_writes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/* SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl. Returns 1 on success. */
static inline int pg_tls_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/* SSL_OP_* are built by the SSL_OP_BIT macro, which Swift cannot import. */
static inline void pg_tls_ctx_set_safe_options(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
}

/* SSL_CTX_add1_chain_cert is a macro over SSL_CTX_ctrl (takes its own reference). */
static inline int pg_tls_ctx_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

/* SSL_set_tlsext_host_name is a macro over SSL_ctrl (sets SNI). Returns 1 on success. */
static inline int pg_tls_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif
