//
// BridgeObject: the aibo-motion bridge as an OPEN-R object on the robot.
//
// A TCP listener on the robot's Wi-Fi (the ANT IP stack) takes the host's frames and hands
// them to the bridge core (aibo_bridge.h); every Ready() from OVirtualRobotComm ticks the
// core four times and sends the four 8 ms poses as one OCommandVectorData. The core's guard
// and watchdog hold: nothing past a joint's limit or speed reaches a servo, and a lost
// connection holds the pose, then takes the robot to lying down.
//
// Written from the OPEN-R SDK's documented API. It builds against the owner's SDK (see the
// Makefile); the host test builds it against our own stand-in (host/openr_standin.h).
//
#ifndef AIBO_BRIDGE_OBJECT_H
#define AIBO_BRIDGE_OBJECT_H

#include "sdk.h"

extern "C" {
#include "aibo_bridge.h"
}

// The TCP port `aibo-motion play --tcp ROBOT:PORT` connects to.
const int BRIDGE_PORT = 7000;
// 8 ms frames per command vector, as Tekkotsu sends them: one vector every 32 ms.
const int BRIDGE_FRAMES_PER_VECTOR = 4;
// Vectors allocated: OVirtualRobotComm holds the ones in flight, the object fills a free one.
const int BRIDGE_VECTORS = 4;
// Most joints of any model.
const int BRIDGE_MAX_JOINTS = 32;
// One send at most: the IP stack holds larger sends about 200 ms.
const int BRIDGE_SEND_CHUNK = 1000;
// Replies waiting to be sent; a host that does not read them loses the oldest.
const int BRIDGE_PENDING = 8192;
const int BRIDGE_RECEIVE_BUFFER = 1024;
// The store for uploaded motions: 4 of up to 2048 keyframes is at most 172 KB on an
// ERS-7, well inside an ERS-210's 32 MB.
const int BRIDGE_MOTION_SLOTS = 4;
const int BRIDGE_MAX_KEYFRAMES = 2048;

// Fresh bytes for the core at every start: the robot's clock and its joints' sensor noise.
class Entropy {
public:
    explicit Entropy(uint8_t* out);
    void Fold(const void* bytes, size_t len);

private:
    uint8_t* out;
    uint32_t hash;
    size_t at;
};

class BridgeObject : public OObject {
public:
    BridgeObject();
    virtual ~BridgeObject() {}

    OSubject* subject[numOfSubject];
    OObserver* observer[numOfObserver];

    virtual OStatus DoInit(const OSystemEvent& event);
    virtual OStatus DoStart(const OSystemEvent& event);
    virtual OStatus DoStop(const OSystemEvent& event);
    virtual OStatus DoDestroy(const OSystemEvent& event);

    // OVirtualRobotComm is ready for the next command vector.
    void Ready(const OReadyEvent& event);

    // The IP stack's continuations (stub.cfg's Extra entries).
    void ListenCont(ANTENVMSG msg);
    void ReceiveCont(ANTENVMSG msg);
    void SendCont(ANTENVMSG msg);
    void CloseCont(ANTENVMSG msg);

    // What the core replies; queued for the link.
    void Queue(const uint8_t* bytes, size_t len);

private:
    enum LinkState { LINK_CLOSED, LINK_LISTENING, LINK_CONNECTED, LINK_CLOSING };

    bool OpenJoints();
    bool NewCommandVectors();
    RCRegion* FreeRegion();
    void SetGains(bool on);
    void Listen();
    void Receive();
    void SendPending();
    void Close();
    void LinkLost();

    AiboBridge* bridge;
    size_t joints;
    OPrimitiveID jointID[BRIDGE_MAX_JOINTS];
    ODataType jointType[BRIDGE_MAX_JOINTS];
    RCRegion* region[BRIDGE_VECTORS];
    bool gainsOn;

    antStackRef ipstackRef;
    antModuleRef endpoint;
    antSharedBuffer sendBuffer, receiveBuffer;
    uint8_t* sendData;
    uint8_t* receiveData;
    LinkState link;
    bool sending;

    // Replies not yet sent, a ring.
    uint8_t pending[BRIDGE_PENDING];
    size_t pendingStart, pendingLen;
    size_t inFlight;
};

#endif // AIBO_BRIDGE_OBJECT_H
