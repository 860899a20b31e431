#ifndef PUSHGATE_COPENSSL_SHIM_H
#define PUSHGATE_COPENSSL_SHIM_H

#include <stddef.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
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

#endif
