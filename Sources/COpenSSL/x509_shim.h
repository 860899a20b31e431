#ifndef PUSHGATE_COPENSSL_X509_SHIM_H
#define PUSHGATE_COPENSSL_X509_SHIM_H

#include <stddef.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Certificate-building wrappers (self-signed certificates for the test servers). */

/* BIO_get_mem_data is a macro over BIO_ctrl. */
static inline long pg_x509_bio_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

/* X509V3_set_ctx_nodb is a statement macro. */
static inline void pg_x509_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }

#endif
