// The host stand-in's state, shared by standin.cc and the driver.
#ifndef STANDIN_H
#define STANDIN_H
#include "openr_standin.h"

#define STANDIN_MAX_PRIMITIVES 64
#define STANDIN_MAX_PENDING 8

struct StandinPending {
    // The message as sent (every TCP message fits).
    union {
        unsigned char bytes[sizeof(TCPEndpointListenMsg) + 64];
        long double align;
    };
    int entry;
};

struct Standin {
    char design[32];
    unsigned long seconds;
    char locators[STANDIN_MAX_PRIMITIVES][64];
    int primitives;
    slongword measured[STANDIN_MAX_PRIMITIVES];
    int regions, endpoints;
    StandinPending pending[STANDIN_MAX_PENDING];
    int pendingCount;
};

extern Standin standin;
#endif
