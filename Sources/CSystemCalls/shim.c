#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <errno.h>
#include <sys/uio.h>

int livery_accept4(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

ssize_t livery_send(int fd, const void *data, size_t length, int flags) {
    ssize_t sent;
    do { sent = send(fd, data, length, flags | MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t livery_send_pair(int fd, const void *first, size_t first_length, const void *second, size_t second_length) {
    struct iovec parts[2] = {{(void *)first, first_length}, {(void *)second, second_length}};
    struct msghdr message = {0};
    message.msg_iov = parts;
    message.msg_iovlen = 2;
    ssize_t sent;
    do { sent = sendmsg(fd, &message, MSG_NOSIGNAL); } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t livery_recv(int fd, void *data, size_t length) {
    ssize_t received;
    do { received = recv(fd, data, length, 0); } while (received < 0 && errno == EINTR);
    return received;
}
