// The C side of the system-call layer: Linux calls Swift's Glibc module does not export (they need _GNU_SOURCE),
// and the socket send/receive that C callers (the OpenSSL socket BIO in COpenSSL's shim) share with `Syscall`.
#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

#include <sys/socket.h>
#include <sys/types.h>

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC. Returns the new descriptor or -1 with errno set.
int livery_accept4(int fd, struct sockaddr *address, socklen_t *length);

/// send(2) with MSG_NOSIGNAL added to `flags` (a closed peer is EPIPE, never SIGPIPE), retrying EINTR.
/// Returns the count sent or -1 with errno set (EAGAIN on a non-blocking socket that is full).
ssize_t livery_send(int fd, const void *data, size_t length, int flags);

/// sendmsg(2) of two byte runs, one after the other (a response head and a body held elsewhere, sent without copying
/// them together), with MSG_NOSIGNAL, retrying EINTR. Returns the count sent or -1 with errno set.
ssize_t livery_send_pair(int fd, const void *first, size_t first_length, const void *second, size_t second_length);

/// recv(2), retrying EINTR. Returns the count received, 0 when the peer closed, or -1 with errno set.
ssize_t livery_recv(int fd, void *data, size_t length);

#endif
