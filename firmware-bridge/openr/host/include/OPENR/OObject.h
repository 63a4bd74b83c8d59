// Host stand-in for the OPEN-R SDK, written for aibo-motion's tests: only the names and
// signatures BridgeObject uses, as the SDK documents them. Not Sony's header.
#ifndef STANDIN_OOBJECT_H
#define STANDIN_OOBJECT_H
#include <stddef.h>
#include <stdint.h>

typedef unsigned char byte;
typedef uint16_t word;
typedef int16_t sword;
typedef uint32_t longword;
typedef int32_t slongword;

typedef int OStatus;
const OStatus oSUCCESS = 0;
const OStatus oFAIL = 1;

struct OID {
    int id;
};
struct OSystemEvent {};
struct OReadyEvent {};
struct ONotifyEvent {};

class OObject {
public:
    OObject() { myOID_.id = 1; }
    virtual ~OObject() {}
    virtual OStatus DoInit(const OSystemEvent&) = 0;
    virtual OStatus DoStart(const OSystemEvent&) = 0;
    virtual OStatus DoStop(const OSystemEvent&) = 0;
    virtual OStatus DoDestroy(const OSystemEvent&) = 0;

protected:
    OID myOID_;
};
#endif
