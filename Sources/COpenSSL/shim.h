#ifndef LIVERY_COPENSSL_SHIM_H
#define LIVERY_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <openssl/ssl.h>
#include <sys/socket.h>
#include <errno.h>
#include <stdint.h>

/// BIO_get_mem_data is a macro; Swift cannot call it.
static inline long livery_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

// MARK: - TLS (LiveryHTTP's TLSContext and TLSSession)

/// SSL_CTX_set_min_proto_version, SSL_CTX_set_mode and SSL_CTX_set_session_cache_mode are macros.
static inline int livery_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline void livery_SSL_CTX_set_server_defaults(SSL_CTX *ctx) {
    // Partial writes and a moving buffer: the connection retries an unfinished write from its own queue.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                              | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF
                                 | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    static const unsigned char context[] = "livery";
    SSL_CTX_set_session_id_context(ctx, context, sizeof context - 1);
}

/// ALPN: the server speaks only HTTP/1.1; a client offering something else goes on without ALPN.
static int livery_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                              unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char http11[] = "\x08http/1.1";
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, http11, sizeof http11 - 1, in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}
static inline void livery_SSL_CTX_use_http11_alpn(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, livery_alpn_select, NULL);
}

/// The system-call layer's socket calls (defined in Sources/CSystemCalls, linked through SystemCalls, which every
/// target using this BIO depends on): EINTR retried, MSG_NOSIGNAL on sends.
ssize_t livery_send(int fd, const void *data, size_t length, int flags);
ssize_t livery_recv(int fd, void *data, size_t length);

/// A socket BIO whose writes pass MSG_NOSIGNAL (OpenSSL's own socket BIO calls write(2), which raises SIGPIPE
/// on a closed peer) and whose reads use recv(2). The descriptor is stored as the BIO's data; it is never closed here.
static int livery_bio_write(BIO *bio, const char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t sent = livery_send(fd, data, (size_t)length, 0);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
    return (int)sent;
}
static int livery_bio_read(BIO *bio, char *data, int length) {
    int fd = (int)(intptr_t)BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    ssize_t received = livery_recv(fd, data, (size_t)length);
    if (received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_read(bio);
    return (int)received;
}
static long livery_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)bio; (void)number; (void)pointer;
    return command == BIO_CTRL_FLUSH ? 1 : 0;
}
static int livery_bio_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}
/// The method table; create once per process and keep.
static inline BIO_METHOD *livery_socket_bio_method_new(void) {
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "livery socket");
    if (method == NULL) return NULL;
    BIO_meth_set_write(method, livery_bio_write);
    BIO_meth_set_read(method, livery_bio_read);
    BIO_meth_set_ctrl(method, livery_bio_ctrl);
    BIO_meth_set_create(method, livery_bio_create);
    return method;
}
/// Attaches `fd` to `ssl` through a BIO of `method` (for both directions). Returns 0 on failure.
static inline int livery_SSL_set_socket(SSL *ssl, BIO_METHOD *method, int fd) {
    BIO *bio = BIO_new(method);
    if (bio == NULL) return 0;
    BIO_set_data(bio, (void *)(intptr_t)fd);
    SSL_set_bio(ssl, bio, bio);
    return 1;
}

// MARK: - TLS client (the ops CLI)

/// SSL_set_tlsext_host_name is a macro.
static inline int livery_SSL_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
#endif
