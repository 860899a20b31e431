#ifndef PUSHGATE_COPENSSL_SHIM_H
#define PUSHGATE_COPENSSL_SHIM_H

#include <stddef.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

/* Fixed-arity wrappers for macros and variadic functions, which Swift cannot import. */

static inline void pg_openssl_free(void *ptr) { OPENSSL_free(ptr); }

/* OPENSSL_clear_free: wipes then frees memory that held key material. */
static inline void pg_openssl_clear_free(void *ptr, size_t len) { OPENSSL_clear_free(ptr, len); }

/* EVP_PKEY_Q_keygen is variadic: a new P-256 key pair, or NULL. */
static inline EVP_PKEY *pg_ec_p256_generate(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

#endif
