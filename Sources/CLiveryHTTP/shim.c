#define _GNU_SOURCE
#include "CLiveryHTTP.h"

#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int livery_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int livery_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

int livery_epoll_wait(int epfd, int32_t *fds, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event ready[256];
    if (max > 256) max = 256;
    int count = epoll_wait(epfd, ready, max, timeout_ms);
    for (int index = 0; index < count; index++) {
        fds[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}

int livery_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int livery_eventfd_signal(int fd) {
    eventfd_t one = 1;
    return eventfd_write(fd, one);
}

int livery_eventfd_drain(int fd) {
    eventfd_t value;
    return eventfd_read(fd, &value);
}

int livery_allowed_cpus(int32_t *cpus, int max) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    int count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && count < max; cpu++) {
        if (CPU_ISSET(cpu, &set)) cpus[count++] = cpu;
    }
    return count;
}

int livery_pin_current_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

int livery_incoming_cpu(int fd) {
    int cpu = -1;
    socklen_t length = sizeof(cpu);
    if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_CPU, &cpu, &length) != 0) return -1;
    return cpu;
}

int livery_current_cpu(void) { return sched_getcpu(); }

void livery_name_current_thread(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }
