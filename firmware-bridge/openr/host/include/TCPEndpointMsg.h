// Host stand-in (see ant.h): each message's Send() hands it to the test's IP stack in
// standin.cc, which completes it later through the entry it names.
#ifndef STANDIN_TCPENDPOINTMSG_H
#define STANDIN_TCPENDPOINTMSG_H
#include <ant.h>
#include <EndpointTypes.h>

typedef int TCPEndpointError;
const TCPEndpointError TCP_SUCCESS = 0;
const TCPEndpointError TCP_CONNECTION_CLOSED = 5;

enum StandinMsgKind { STANDIN_LISTEN, STANDIN_RECEIVE, STANDIN_SEND, STANDIN_CLOSE };

struct StandinTCPMsg {
    StandinTCPMsg(StandinMsgKind kind, antModuleRef endpoint)
        : kind(kind), endpoint(endpoint), continuation(0), error(TCP_SUCCESS), buffer(0),
          sizeMin(0), sizeMax(0) {}
    void Send(antStackRef, OID, int entry, size_t size);
    StandinMsgKind kind;
    antModuleRef endpoint;
    void* continuation;
    TCPEndpointError error;
    byte* buffer;
    int sizeMin, sizeMax;
};

struct TCPEndpointListenMsg : StandinTCPMsg {
    TCPEndpointListenMsg(antModuleRef e, IPAddress, int port)
        : StandinTCPMsg(STANDIN_LISTEN, e), lPort(port) {}
    int lPort;
};
struct TCPEndpointReceiveMsg : StandinTCPMsg {
    TCPEndpointReceiveMsg(antModuleRef e, void* buf, int min, int max) : StandinTCPMsg(STANDIN_RECEIVE, e) {
        buffer = (byte*)buf;
        sizeMin = min;
        sizeMax = max;
    }
};
struct TCPEndpointSendMsg : StandinTCPMsg {
    TCPEndpointSendMsg(antModuleRef e, void* buf, int size) : StandinTCPMsg(STANDIN_SEND, e) {
        buffer = (byte*)buf;
        sizeMin = sizeMax = size;
    }
};
struct TCPEndpointCloseMsg : StandinTCPMsg {
    explicit TCPEndpointCloseMsg(antModuleRef e) : StandinTCPMsg(STANDIN_CLOSE, e) {}
};
#endif
