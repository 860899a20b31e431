#ifndef PUSHGATE_COPENSSL_X509_SHIM_H
#define PUSHGATE_COPENSSL_X509_SHIM_H

#include <stddef.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Certificate-building wrappers (self-signed certificates for the test servers). */

#endif
