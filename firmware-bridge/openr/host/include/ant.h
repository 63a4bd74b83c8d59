// Host stand-in for the ANT IP stack's API, written for aibo-motion's tests: only the
// names and signatures BridgeObject uses, as the SDK documents them. Not Sony's header.
#ifndef STANDIN_ANT_H
#define STANDIN_ANT_H
#include <OPENR/OObject.h>

typedef int antError;
const antError ANT_SUCCESS = 0;
const antError ANT_FAIL = 1;

struct antStackRef {
    antStackRef() {}
    explicit antStackRef(const char*) {}
};
struct antModuleRef {
    int id;
};

class antSharedBuffer {
public:
    antSharedBuffer() : address(0) {}
    void Map() {}
    void* GetAddress() const { return address; }
    void* address;
};

struct antEnvCreateSharedBufferMsg {
    explicit antEnvCreateSharedBufferMsg(size_t size);
    void Call(antStackRef, size_t);
    size_t size;
    antError error;
    antSharedBuffer buffer;
};

struct antEnvCreateEndpointMsg {
    antEnvCreateEndpointMsg(int type, size_t size) : type(type), size(size), error(ANT_FAIL) {}
    void Call(antStackRef, size_t);
    int type;
    size_t size;
    antError error;
    antModuleRef moduleRef;
};

typedef void* ANTENVMSG;
struct antEnvMsg {
    static void* Receive(ANTENVMSG msg) { return msg; }
};
#endif
