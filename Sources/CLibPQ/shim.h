#ifndef LIVERY_CLIBPQ_SHIM_H
#define LIVERY_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>
#include <sys/prctl.h>

/// Names the calling thread as `ps -L` and /proc show it (the kernel keeps 15 bytes), so the threads that make
/// libpq's blocking calls can be told apart. `prctl` is variadic, which Swift cannot call.
static inline void livery_name_current_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}
#endif
