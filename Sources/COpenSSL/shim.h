#ifndef LIVERY_COPENSSL_SHIM_H
#define LIVERY_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/// BIO_get_mem_data is a macro; Swift cannot call it.
static inline long livery_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}
#endif
