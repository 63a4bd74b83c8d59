// Host stand-in (see ant.h).
#ifndef STANDIN_ENDPOINTTYPES_H
#define STANDIN_ENDPOINTTYPES_H
const int EndpointType_TCP = 1;
struct IPAddress {
    longword address;
};
const IPAddress IP_ADDR_ANY = {0};
#endif
