#ifndef LIVERY_COPENSSL_SHIM_H
#define LIVERY_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#endif
