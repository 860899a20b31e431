#ifndef PUSHGATE_COPENSSL_ECDSA_SHIM_H
#define PUSHGATE_COPENSSL_ECDSA_SHIM_H

#include <stdint.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

/*
 * ECDSA P-256 verification with a per-key precomputed table.
 *
 * Verification computes u1*G + u2*Q. OpenSSL keeps a fixed-base table for the generator G
 * only, so u2*Q is a variable-base multiplication, about two thirds of the work. A copy of
 * the P-256 group whose generator is Q, with EC_GROUP_precompute_mult, gives Q a fixed-base
 * table of its own (about 150 KiB), and the verification becomes two fixed-base
 * multiplications and one point addition.
 */

/* 256-bit numbers as four 64-bit limbs, least significant first. */

/* The P-256 group order n. */
static const uint64_t pg_p256_order[4] = {
    0xF3B9CAC2FC632551ULL, 0xBCE6FAADA7179E84ULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFF00000000ULL,
};

static inline uint64_t pg_u256_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += (unsigned __int128)a[i] + b[i];
        r[i] = (uint64_t)carry;
        carry >>= 64;
    }
    return (uint64_t)carry;
}

static inline uint64_t pg_u256_sub(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t difference = a[i] - b[i];
        uint64_t next = (a[i] < b[i]) | (difference < borrow);
        r[i] = difference - borrow;
        borrow = next;
    }
    return borrow;
}

/* a = (a >> 1) with top as the new bit 255. */
static inline void pg_u256_halve(uint64_t a[4], uint64_t top) {
    for (int i = 0; i < 3; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[3] = (a[3] >> 1) | (top << 63);
}

static inline int pg_u256_is_one(const uint64_t a[4]) { return a[0] == 1 && (a[1] | a[2] | a[3]) == 0; }
static inline int pg_u256_is_zero(const uint64_t a[4]) { return (a[0] | a[1] | a[2] | a[3]) == 0; }

/* x / 2 mod n, for x in [0, n). */
static inline void pg_order_halve(uint64_t x[4]) {
    uint64_t top = 0;
    if (x[0] & 1) top = pg_u256_add(x, x, pg_p256_order);
    pg_u256_halve(x, top);
}

/* x - y mod n, for x and y in [0, n). */
static inline void pg_order_sub(uint64_t x[4], const uint64_t y[4]) {
    if (pg_u256_sub(x, x, y)) pg_u256_add(x, x, pg_p256_order);
}

/*
 * inverse = s^-1 mod n for s in [1, n-1], by the binary extended Euclidean algorithm. Not
 * constant-time: it only ever sees the public s of a signature being verified, where OpenSSL's
 * BN_mod_inverse takes four times as long. Returns 0 for s outside [1, n-1].
 */
static inline int pg_p256_order_inverse(uint64_t inverse[4], const uint64_t s[4]) {
    uint64_t u[4], v[4], x1[4] = {1, 0, 0, 0}, x2[4] = {0, 0, 0, 0}, scratch[4];
    if (pg_u256_is_zero(s) || !pg_u256_sub(scratch, s, pg_p256_order)) return 0;
    for (int i = 0; i < 4; i++) { u[i] = s[i]; v[i] = pg_p256_order[i]; }
    /* Invariants: x1 * s = u and x2 * s = v (mod n); gcd(u, v) = 1, so neither becomes 0. */
    while (!pg_u256_is_one(u) && !pg_u256_is_one(v)) {
        while ((u[0] & 1) == 0) { pg_u256_halve(u, 0); pg_order_halve(x1); }
        while ((v[0] & 1) == 0) { pg_u256_halve(v, 0); pg_order_halve(x2); }
        if (pg_u256_sub(scratch, u, v) == 0) {
            for (int i = 0; i < 4; i++) u[i] = scratch[i];
            pg_order_sub(x1, x2);
        } else {
            pg_u256_sub(v, v, u);
            pg_order_sub(x2, x1);
        }
    }
    for (int i = 0; i < 4; i++) inverse[i] = pg_u256_is_one(u) ? x1[i] : x2[i];
    return 1;
}

/* The 32 big-endian bytes at in as limbs, and back. */
static inline void pg_u256_from_bytes(uint64_t a[4], const unsigned char *in) {
    for (int i = 0; i < 4; i++) {
        uint64_t limb = 0;
        for (int j = 0; j < 8; j++) limb = (limb << 8) | in[(3 - i) * 8 + j];
        a[i] = limb;
    }
}

static inline void pg_u256_to_bytes(unsigned char *out, const uint64_t a[4]) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) out[(3 - i) * 8 + j] = (unsigned char)(a[i] >> (56 - 8 * j));
}

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/* The P-256 group with generator (x, y) and its table, or NULL (point not on the curve, or
   no memory). x and y are 32 big-endian bytes each. */
static inline EC_GROUP *pg_p256_key_group_new(const unsigned char *x, const unsigned char *y) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BN_CTX *ctx = BN_CTX_new();
    EC_POINT *point = group ? EC_POINT_new(group) : NULL;
    BIGNUM *bx = BN_bin2bn(x, 32, NULL), *by = BN_bin2bn(y, 32, NULL);
    int ok = group && ctx && point && bx && by
        && EC_POINT_set_affine_coordinates(group, point, bx, by, ctx) == 1
        && EC_POINT_is_on_curve(group, point, ctx) == 1
        && EC_POINT_is_at_infinity(group, point) == 0
        && EC_GROUP_set_generator(group, point, EC_GROUP_get0_order(group), BN_value_one()) == 1
        && EC_GROUP_precompute_mult(group, ctx) == 1
        && EC_GROUP_have_precompute_mult(group) == 1;
    BN_free(bx);
    BN_free(by);
    EC_POINT_free(point);
    BN_CTX_free(ctx);
    if (!ok) {
        EC_GROUP_free(group);
        return NULL;
    }
    return group;
}

static inline void pg_p256_key_group_free(EC_GROUP *group) { EC_GROUP_free(group); }

/* The standard P-256 group (generator G, OpenSSL's built-in table), or NULL. */
static inline EC_GROUP *pg_p256_group_new(void) { return EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1); }

/*
 * 1 when signature = r || s (32 + 32 big-endian bytes) is a valid ECDSA signature of the
 * 32-byte digest under the key whose group is key_group (from pg_p256_key_group_new); 0 when
 * it is not, or on any failure. standard is the P-256 group. Both groups are only read.
 */
static inline int pg_p256_verify_with_table(const EC_GROUP *standard, const EC_GROUP *key_group,
                                            const unsigned char *digest, const unsigned char *signature) {
    const BIGNUM *n = EC_GROUP_get0_order(standard);
    uint64_t s_limbs[4], w_limbs[4];
    unsigned char w_bytes[32];
    pg_u256_from_bytes(s_limbs, signature + 32);
    /* s in [1, n-1] */
    if (!pg_p256_order_inverse(w_limbs, s_limbs)) return 0;
    pg_u256_to_bytes(w_bytes, w_limbs);
    BN_CTX *ctx = BN_CTX_new();
    if (!ctx) return 0;
    BN_CTX_start(ctx);
    BIGNUM *r = BN_CTX_get(ctx), *e = BN_CTX_get(ctx);
    BIGNUM *w = BN_CTX_get(ctx), *u1 = BN_CTX_get(ctx), *u2 = BN_CTX_get(ctx), *x = BN_CTX_get(ctx);
    EC_POINT *sum = EC_POINT_new(standard), *second = EC_POINT_new(standard);
    int valid = x && sum && second
        && BN_bin2bn(signature, 32, r) && BN_bin2bn(w_bytes, 32, w) && BN_bin2bn(digest, 32, e)
        /* r in [1, n-1] */
        && !BN_is_zero(r) && BN_cmp(r, n) < 0
        /* the digest is as long as n, so e is the whole digest (reduced by the products) */
        && BN_mod_mul(u1, e, w, n, ctx) && BN_mod_mul(u2, r, w, n, ctx)
        && EC_POINT_mul(standard, sum, u1, NULL, NULL, ctx) == 1
        && EC_POINT_mul(key_group, second, u2, NULL, NULL, ctx) == 1
        && EC_POINT_add(standard, sum, sum, second, ctx) == 1
        /* the point at infinity has no affine coordinates: rejected here */
        && EC_POINT_get_affine_coordinates(standard, sum, x, NULL, ctx) == 1
        && BN_nnmod(x, x, n, ctx) && BN_cmp(x, r) == 0;
    EC_POINT_free(second);
    EC_POINT_free(sum);
    BN_CTX_end(ctx);
    BN_CTX_free(ctx);
    return valid ? 1 : 0;
}

#pragma clang diagnostic pop

#endif
