//
// Our own stand-in for the few OPEN-R and ANT names BridgeObject uses, so that its logic
// is tested on any machine (xtask/tests/openr_object.rs). Written for this project from
// the names the SDK's documents give; it is not the SDK, declares no more than the object
// needs, and lays nothing out as the SDK does: the object only calls these names. The
// behaviour behind them (standin.cc) records what the object does for the test.
//
#ifndef AIBO_BRIDGE_OPENR_STANDIN_H
#define AIBO_BRIDGE_OPENR_STANDIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// ---- Integers, status, events, the object ----
typedef uint16_t word;
typedef uint32_t longword;
typedef int32_t slongword;
typedef int OStatus;
enum { oSUCCESS = 0, oFAIL = 1 };
struct OID { int id; };
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

// ---- What stubgen2 makes of stub.cfg: one subject, no observer, four continuations ----
enum { numOfSubject = 1, numOfObserver = 0, sbjMove = 0 };
enum { entryListenCont, entrySendCont, entryReceiveCont, entryCloseCont, numOfExtraEntry };
static const int Extra_Entry[numOfExtraEntry] = {0, 1, 2, 3};

// ---- Command vectors: a header, then per joint an info and its frames ----
typedef longword ODataType;
typedef longword OPrimitiveID;
typedef longword MemoryRegionID;
enum StandinCommandKind { odataJOINT_COMMAND2 = 2, odataJOINT_COMMAND3 = 3, odataJOINT_COMMAND4 = 4 };
enum { ojoint3_STATE0 = 0, ojoint3_STATE1 = 1, ojoint4_STATE0 = 0, ojoint4_STATE1 = 1 };

struct OJointCommandValue2 { slongword value; slongword unused; };
struct OJointCommandValue3 { longword value; longword unused; };
struct OJointCommandValue4 { longword value; word period; word unused; };
struct OJointValue { slongword value; slongword unused[3]; };

// Room for the 16 frames of 8 bytes a vector's joint may carry.
struct OCommandData { slongword value[32]; };

struct OCommandInfo {
    ODataType type;
    OPrimitiveID primitiveID;
    size_t numFrames;
    size_t dataOffset;  // from the vector's start to this joint's frames
    void Set(ODataType kind, OPrimitiveID joint, size_t frames) {
        type = kind, primitiveID = joint, numFrames = frames;
    }
};

struct ODataVectorInfo { size_t numData; MemoryRegionID memRegionID; size_t offset, totalSize; };

struct OCommandVectorData {
    ODataVectorInfo vectorInfo;
    OCommandInfo info[1];  // numData of them, then their frames
    void SetNumData(size_t n) { vectorInfo.numData = n; }
    OCommandInfo* GetInfo(int i) { return info + i; }
    OCommandData* GetData(int i) {
        return reinterpret_cast<OCommandData*>(reinterpret_cast<char*>(this) + info[i].dataOffset);
    }
};

// A shared region, whose count the stand-in OVirtualRobotComm raises while it holds it.
class RCRegion {
public:
    RCRegion(MemoryRegionID, size_t, void* base, size_t) : base_(base), count_(1) {}
    void* Base() const { return base_; }
    int NumberOfReference() const { return count_; }
    void AddReference() { ++count_; }
    void RemoveReference() { --count_; }
private:
    void* base_;
    int count_;
};

class OSubject {
public:
    OSubject() : data_(0) {}
    OStatus SetData(RCRegion* region);
    OStatus NotifyObservers();
private:
    RCRegion* data_;
};
class OObserver {};

#define NEW_ALL_SUBJECT_AND_OBSERVER for (int s_ = 0; s_ < numOfSubject; s_++) subject[s_] = new OSubject
#define DELETE_ALL_SUBJECT_AND_OBSERVER for (int s_ = 0; s_ < numOfSubject; s_++) delete subject[s_]
#define REGISTER_ALL_ENTRY
#define SET_ALL_READY_AND_NOTIFY_ENTRY
#define ENABLE_ALL_SUBJECT
#define DISABLE_ALL_SUBJECT
#define ASSERT_READY_TO_ALL_OBSERVER
#define DEASSERT_READY_TO_ALL_OBSERVER

#define osyslogERROR 0
#define STANDIN_SYSLOG(level, ...) (printf("syslog "), printf(__VA_ARGS__), printf("\n"))
#define OSYSLOG1(args) STANDIN_SYSLOG args

// ---- The OPEN-R calls ----
typedef int OPower;
enum { opowerOFF = 0, opowerON = 1 };
enum { orobotdesignNAME_MAX = 127 };
struct OTime { longword seconds, useconds; };

namespace OPENR {
OStatus OpenPrimitive(const char* locator, OPrimitiveID* id);
OStatus NewCommandVectorData(size_t joints, MemoryRegionID* id, OCommandVectorData** vector);
OStatus EnableJointGain(OPrimitiveID id);
OStatus DisableJointGain(OPrimitiveID id);
OStatus SetDefaultJointGain(OPrimitiveID id);
OStatus GetJointValue(OPrimitiveID id, OJointValue* value);
OStatus SetMotorPower(OPower power);
OStatus GetRobotDesign(char* design);
OStatus GetTime(OTime* time);
}  // namespace OPENR

// ---- ANT: the IP stack, its buffers and TCP messages ----
typedef int antError;
enum { ANT_SUCCESS = 0, ANT_FAIL = 1 };
struct antStackRef {
    antStackRef() {}
    explicit antStackRef(const char*) {}
};
struct antModuleRef { int id; };
struct antSharedBuffer {
    antSharedBuffer() : address(0) {}
    void Map() {}
    void* GetAddress() const { return address; }
    void* address;
};
struct antEnvCreateSharedBufferMsg {
    explicit antEnvCreateSharedBufferMsg(size_t bytes) : size(bytes), error(ANT_FAIL) {}
    void Call(antStackRef, size_t);
    size_t size;
    antError error;
    antSharedBuffer buffer;
};
enum { EndpointType_TCP = 1 };
struct antEnvCreateEndpointMsg {
    antEnvCreateEndpointMsg(int, size_t) : error(ANT_FAIL) {}
    void Call(antStackRef, size_t);
    antError error;
    antModuleRef moduleRef;
};
typedef void* ANTENVMSG;
struct antEnvMsg {
    static void* Receive(ANTENVMSG msg) { return msg; }
};

struct IPAddress { longword address; };
static const IPAddress IP_ADDR_ANY = {0};
typedef int TCPEndpointError;
enum { TCP_SUCCESS = 0, TCP_CONNECTION_CLOSED = 5 };

// Every TCP message: Send() hands it to the stand-in stack, which keeps a copy for the
// driver to complete through the entry it names.
enum StandinMsgKind { STANDIN_LISTEN, STANDIN_RECEIVE, STANDIN_SEND, STANDIN_CLOSE };
struct StandinTCPMsg {
    StandinTCPMsg(StandinMsgKind k, antModuleRef e, void* buf, int min, int max)
        : kind(k), endpoint(e), continuation(0), error(TCP_SUCCESS),
          buffer(static_cast<unsigned char*>(buf)), sizeMin(min), sizeMax(max), lPort(0) {}
    void Send(antStackRef, OID, int entry, size_t size);
    StandinMsgKind kind;
    antModuleRef endpoint;
    void* continuation;
    TCPEndpointError error;
    unsigned char* buffer;
    int sizeMin, sizeMax;
    int lPort;
};
struct TCPEndpointListenMsg : StandinTCPMsg {
    TCPEndpointListenMsg(antModuleRef e, IPAddress, int port)
        : StandinTCPMsg(STANDIN_LISTEN, e, 0, 0, 0) { lPort = port; }
};
struct TCPEndpointReceiveMsg : StandinTCPMsg {
    TCPEndpointReceiveMsg(antModuleRef e, void* buf, int min, int max)
        : StandinTCPMsg(STANDIN_RECEIVE, e, buf, min, max) {}
};
struct TCPEndpointSendMsg : StandinTCPMsg {
    TCPEndpointSendMsg(antModuleRef e, void* buf, int size)
        : StandinTCPMsg(STANDIN_SEND, e, buf, size, size) {}
};
struct TCPEndpointCloseMsg : StandinTCPMsg {
    explicit TCPEndpointCloseMsg(antModuleRef e) : StandinTCPMsg(STANDIN_CLOSE, e, 0, 0, 0) {}
};

#endif  // AIBO_BRIDGE_OPENR_STANDIN_H
