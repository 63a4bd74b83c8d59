// Host stand-in (see OObject.h).
#ifndef STANDIN_OOBSERVER_H
#define STANDIN_OOBSERVER_H
#include <OPENR/OObject.h>
class OObserver {
public:
    void AssertReady() {}
};
#endif
