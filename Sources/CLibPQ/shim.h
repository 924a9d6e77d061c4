#ifndef LIVERY_CLIBPQ_SHIM_H
#define LIVERY_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>
#endif
