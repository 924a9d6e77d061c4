// Linux calls LiveryHTTP needs that Swift's Glibc module does not export: epoll and eventfd
// (accept4 is in CSystemCalls).
// Thin wrappers so Swift never touches the packed `struct epoll_event`.
#ifndef CLIVERYHTTP_H
#define CLIVERYHTTP_H

#include <stdint.h>

enum {
    LIVERY_EPOLLIN = 0x001,
    LIVERY_EPOLLOUT = 0x004,
    LIVERY_EPOLLERR = 0x008,
    LIVERY_EPOLLHUP = 0x010,
    LIVERY_EPOLLRDHUP = 0x2000,
    /// Wake one of the epoll instances waiting on the descriptor, not all (a listening socket shared by loops).
    LIVERY_EPOLLEXCLUSIVE = 0x10000000,
};

enum {
    LIVERY_EPOLL_CTL_ADD = 1,
    LIVERY_EPOLL_CTL_DEL = 2,
    LIVERY_EPOLL_CTL_MOD = 3,
};

/// epoll_create1(EPOLL_CLOEXEC).
int livery_epoll_create(void);

/// epoll_ctl with `data.fd = fd`. Returns 0 or -1 with errno set.
int livery_epoll_ctl(int epfd, int op, int fd, uint32_t events);

/// epoll_wait, writing each ready descriptor and its event mask into two plain arrays of `max` entries.
/// Returns the number of entries, 0 on timeout, or -1 with errno set.
int livery_epoll_wait(int epfd, int32_t *fds, uint32_t *events, int max, int timeout_ms);

/// eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC).
int livery_eventfd(void);

/// Adds one to an eventfd (wakes its reader). Returns 0 or -1 with errno set.
int livery_eventfd_signal(int fd);

/// Resets an eventfd's counter. Returns 0 or -1 with errno set (EAGAIN if it was already zero).
int livery_eventfd_drain(int fd);

/// The CPUs the calling thread may run on (`sched_getaffinity`), at most `max`, in increasing order. Returns how
/// many were written, or -1 with errno set.
int livery_allowed_cpus(int32_t *cpus, int max);

/// Pins the calling thread to one CPU (`sched_setaffinity`). Returns 0 or -1 with errno set.
int livery_pin_current_thread(int cpu);

/// The CPU that processed a socket's most recent packets (`SO_INCOMING_CPU`), or -1.
int livery_incoming_cpu(int fd);

/// The CPU the calling thread runs on now (`sched_getcpu`), or -1.
int livery_current_cpu(void);

/// Names the calling thread for the kernel (`PR_SET_NAME`: `top -H`, `perf`, `/proc/<pid>/task/<tid>/comm`); at
/// most 15 bytes are kept.
void livery_name_current_thread(const char *name);

#endif
