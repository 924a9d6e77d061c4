// Linux calls SystemCalls needs that Swift's Glibc module does not export (they need _GNU_SOURCE).
#ifndef CSYSTEMCALLS_H
#define CSYSTEMCALLS_H

#include <sys/socket.h>

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC. Returns the new descriptor or -1 with errno set.
int livery_accept4(int fd, struct sockaddr *address, socklen_t *length);

#endif
