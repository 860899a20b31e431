#ifndef PUSHGATE_COPENSSL_TLS_SHIM_H
#define PUSHGATE_COPENSSL_TLS_SHIM_H

#include <stddef.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* TLS-side fixed-arity wrappers (SSL_CTX_* macros) used by the HTTP/2 client and test servers. */

#endif
