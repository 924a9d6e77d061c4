#define _GNU_SOURCE
#include "CSystemCalls.h"

int livery_accept4(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
