//
// BridgeObject: see BridgeObject.h.
//
#include <stdlib.h>
#include <string.h>
#include "BridgeObject.h"

// What the core needs of its embedder: memory (the object's heap, which grows in the
// .ocf's steps) and an abort for an allocation that fails.
extern "C" void* aibo_bridge_alloc(size_t size, size_t align) {
    if (align > 8) return 0;  // malloc's alignment on the robot's MIPS
    return malloc(size ? size : 1);
}

extern "C" void aibo_bridge_dealloc(void* ptr, size_t, size_t) { free(ptr); }

extern "C" void aibo_bridge_abort(void) {
    OSYSLOG1((osyslogERROR, "BridgeObject: out of memory"));
    abort();
}

static void ReplyToHost(void* object, const uint8_t* bytes, size_t len) {
    static_cast<BridgeObject*>(object)->Queue(bytes, len);
}

BridgeObject::BridgeObject()
    : bridge(0), joints(0), gainsOn(false), sendData(0), receiveData(0),
      link(LINK_CLOSED), sending(false), pendingStart(0), pendingLen(0), inFlight(0) {
    for (int i = 0; i < BRIDGE_VECTORS; i++) region[i] = 0;
}

OStatus BridgeObject::DoInit(const OSystemEvent&) {
    NEW_ALL_SUBJECT_AND_OBSERVER;
    REGISTER_ALL_ENTRY;
    SET_ALL_READY_AND_NOTIFY_ENTRY;

    char design[orobotdesignNAME_MAX + 1];
    memset(design, 0, sizeof design);
    if (OPENR::GetRobotDesign(design) != oSUCCESS) return oFAIL;
    // Entropy from the clock first; a first bridge gives the joints to open, whose sensors
    // add their noise; then the bridge that runs is made with both.
    uint8_t entropy[AIBO_BRIDGE_ENTROPY_LEN];
    Entropy entropySource(entropy);
    OTime now;
    OPENR::GetTime(&now);
    entropySource.Fold(&now, sizeof now);
    bridge = aibo_bridge_new((const uint8_t*)design, strlen(design), entropy, 0, 1, 1, 0, 0);
    if (!bridge) {
        OSYSLOG1((osyslogERROR, "BridgeObject: no bridge for robot design %s", design));
        return oFAIL;
    }
    joints = aibo_bridge_joints(bridge);
    if (joints > BRIDGE_MAX_JOINTS || !OpenJoints()) return oFAIL;
    for (size_t j = 0; j < joints; j++) {
        OJointValue value;
        if (OPENR::GetJointValue(jointID[j], &value) == oSUCCESS) {
            entropySource.Fold(&value, sizeof value);
        }
    }
    aibo_bridge_free(bridge);
    bridge = aibo_bridge_new((const uint8_t*)design, strlen(design), entropy, 0,
                             BRIDGE_MOTION_SLOTS, BRIDGE_MAX_KEYFRAMES, 0, 0);
    if (!bridge || !NewCommandVectors()) return oFAIL;

    ipstackRef = antStackRef("IPStack");
    antEnvCreateSharedBufferMsg sendMsg(BRIDGE_SEND_CHUNK);
    sendMsg.Call(ipstackRef, sizeof(sendMsg));
    antEnvCreateSharedBufferMsg receiveMsg(BRIDGE_RECEIVE_BUFFER);
    receiveMsg.Call(ipstackRef, sizeof(receiveMsg));
    if (sendMsg.error != ANT_SUCCESS || receiveMsg.error != ANT_SUCCESS) return oFAIL;
    sendBuffer = sendMsg.buffer;
    sendBuffer.Map();
    sendData = (uint8_t*)sendBuffer.GetAddress();
    receiveBuffer = receiveMsg.buffer;
    receiveBuffer.Map();
    receiveData = (uint8_t*)receiveBuffer.GetAddress();
    return oSUCCESS;
}

OStatus BridgeObject::DoStart(const OSystemEvent&) {
    OPENR::SetMotorPower(opowerON);
    Listen();
    ENABLE_ALL_SUBJECT;
    ASSERT_READY_TO_ALL_OBSERVER;
    return oSUCCESS;
}

OStatus BridgeObject::DoStop(const OSystemEvent&) {
    Close();
    DISABLE_ALL_SUBJECT;
    DEASSERT_READY_TO_ALL_OBSERVER;
    return oSUCCESS;
}

OStatus BridgeObject::DoDestroy(const OSystemEvent&) {
    aibo_bridge_free(bridge);
    bridge = 0;
    DELETE_ALL_SUBJECT_AND_OBSERVER;
    return oSUCCESS;
}

Entropy::Entropy(uint8_t* out) : out(out), hash(2166136261u), at(0) {
    memset(out, 0, AIBO_BRIDGE_ENTROPY_LEN);
}

// Each byte stirred into an FNV-1a hash, whose top byte goes into the next output byte in
// turn: the core derives its challenges from the 32 bytes through HMAC-SHA-256, so they
// need to differ from start to start, not to be uniform.
void Entropy::Fold(const void* bytes, size_t len) {
    const uint8_t* b = (const uint8_t*)bytes;
    for (size_t i = 0; i < len; i++, at++) {
        hash = (hash ^ b[i]) * 16777619u;
        out[at % AIBO_BRIDGE_ENTROPY_LEN] ^= (uint8_t)(hash >> 24);
    }
}

// Each joint's primitive, by the locator the core's model gives; binary ears take OPEN-R's
// JOINT_COMMAND4 (ERS-7) or JOINT_COMMAND3 (ERS-210/220), angles JOINT_COMMAND2.
bool BridgeObject::OpenJoints() {
    for (size_t j = 0; j < joints; j++) {
        char locator[64];
        size_t n = aibo_bridge_joint_locator(bridge, j, (uint8_t*)locator, sizeof locator - 1);
        if (n == 0 || n >= sizeof locator) return false;
        locator[n] = 0;
        if (OPENR::OpenPrimitive(locator, &jointID[j]) != oSUCCESS) {
            OSYSLOG1((osyslogERROR, "BridgeObject: no primitive %s", locator));
            return false;
        }
        if (!aibo_bridge_joint_binary(bridge, j)) {
            jointType[j] = odataJOINT_COMMAND2;
        } else if (strstr(locator, "-Joint4:")) {
            jointType[j] = odataJOINT_COMMAND4;
        } else {
            jointType[j] = odataJOINT_COMMAND3;
        }
    }
    return true;
}

bool BridgeObject::NewCommandVectors() {
    for (int i = 0; i < BRIDGE_VECTORS; i++) {
        MemoryRegionID id;
        OCommandVectorData* vector;
        if (OPENR::NewCommandVectorData(joints, &id, &vector) != oSUCCESS) return false;
        region[i] = new RCRegion(vector->vectorInfo.memRegionID, vector->vectorInfo.offset,
                                 (void*)vector, vector->vectorInfo.totalSize);
        vector->SetNumData(joints);
        for (size_t j = 0; j < joints; j++) {
            vector->GetInfo(j)->Set(jointType[j], jointID[j], BRIDGE_FRAMES_PER_VECTOR);
        }
    }
    return true;
}

// A vector OVirtualRobotComm no longer holds.
RCRegion* BridgeObject::FreeRegion() {
    for (int i = 0; i < BRIDGE_VECTORS; i++) {
        if (region[i] && region[i]->NumberOfReference() == 1) return region[i];
    }
    return 0;
}

void BridgeObject::SetGains(bool on) {
    if (on == gainsOn) return;
    for (size_t j = 0; j < joints; j++) {
        if (jointType[j] != odataJOINT_COMMAND2) continue;
        if (on) {
            OPENR::EnableJointGain(jointID[j]);
            OPENR::SetDefaultJointGain(jointID[j]);
        } else {
            OPENR::DisableJointGain(jointID[j]);
        }
    }
    gainsOn = on;
}

// Four 8 ms frames from the core into the next vector. While the core is relaxed, the
// servos' measured angles go to it (gains come on where the joints are) and to the vector,
// which keeps OVirtualRobotComm's Ready() coming while nothing is commanded.
void BridgeObject::Ready(const OReadyEvent&) {
    RCRegion* rgn = FreeRegion();
    if (!bridge || !rgn) return;
    OCommandVectorData* vector = (OCommandVectorData*)rgn->Base();
    bool commanded = false;
    for (int f = 0; f < BRIDGE_FRAMES_PER_VECTOR; f++) {
        int32_t pose[BRIDGE_MAX_JOINTS];
        if (aibo_bridge_state(bridge) == 0) {
            for (size_t j = 0; j < joints; j++) {
                OJointValue value;
                pose[j] = OPENR::GetJointValue(jointID[j], &value) == oSUCCESS ? value.value : 0;
            }
            aibo_bridge_set_measured(bridge, pose, joints);
        }
        int32_t kind = aibo_bridge_tick(bridge, pose, joints, ReplyToHost, this);
        commanded = commanded || kind != AIBO_BRIDGE_RELAXED;
        for (size_t j = 0; j < joints; j++) {
            OCommandData* data = vector->GetData(j);
            if (jointType[j] == odataJOINT_COMMAND2) {
                ((OJointCommandValue2*)data->value)[f].value = pose[j];
            } else if (jointType[j] == odataJOINT_COMMAND4) {
                OJointCommandValue4* ear = (OJointCommandValue4*)data->value;
                ear[f].value = pose[j] ? ojoint4_STATE1 : ojoint4_STATE0;
                ear[f].period = 1;
            } else {
                OJointCommandValue3* ear = (OJointCommandValue3*)data->value;
                ear[f].value = pose[j] ? ojoint3_STATE1 : ojoint3_STATE0;
            }
        }
    }
    SetGains(commanded);
    subject[sbjMove]->SetData(rgn);
    subject[sbjMove]->NotifyObservers();
}

void BridgeObject::Listen() {
    if (link != LINK_CLOSED) return;
    antEnvCreateEndpointMsg create(EndpointType_TCP, BRIDGE_RECEIVE_BUFFER * 2);
    create.Call(ipstackRef, sizeof(create));
    if (create.error != ANT_SUCCESS) {
        OSYSLOG1((osyslogERROR, "BridgeObject: no TCP endpoint (%d)", create.error));
        return;
    }
    endpoint = create.moduleRef;
    TCPEndpointListenMsg listen(endpoint, IP_ADDR_ANY, BRIDGE_PORT);
    listen.continuation = (void*)this;
    listen.Send(ipstackRef, myOID_, Extra_Entry[entryListenCont], sizeof(listen));
    link = LINK_LISTENING;
}

void BridgeObject::ListenCont(ANTENVMSG msg) {
    TCPEndpointListenMsg* listen = (TCPEndpointListenMsg*)antEnvMsg::Receive(msg);
    if (listen->error != TCP_SUCCESS) {
        link = LINK_CONNECTED;  // so that Close() closes the endpoint, and listens again
        Close();
        return;
    }
    link = LINK_CONNECTED;
    pendingStart = pendingLen = 0;
    Receive();
}

void BridgeObject::Receive() {
    if (link != LINK_CONNECTED) return;
    TCPEndpointReceiveMsg receive(endpoint, receiveData, 1, BRIDGE_RECEIVE_BUFFER);
    receive.continuation = (void*)this;
    receive.Send(ipstackRef, myOID_, Extra_Entry[entryReceiveCont], sizeof(receive));
}

void BridgeObject::ReceiveCont(ANTENVMSG msg) {
    TCPEndpointReceiveMsg* receive = (TCPEndpointReceiveMsg*)antEnvMsg::Receive(msg);
    if (receive->error != TCP_SUCCESS) {
        // The host closed the connection, or the link failed: the core holds the pose,
        // then takes the robot to rest.
        LinkLost();
        Close();
        return;
    }
    aibo_bridge_receive(bridge, receiveData, receive->sizeMin, ReplyToHost, this);
    Receive();
}

void BridgeObject::Queue(const uint8_t* bytes, size_t len) {
    if (link != LINK_CONNECTED) return;
    for (size_t i = 0; i < len; i++) {
        if (pendingLen == BRIDGE_PENDING) {
            // The host does not read: its oldest unsent reply bytes go (never the chunk
            // being sent).
            if (pendingLen <= inFlight) return;
            pendingStart = (pendingStart + 1) % BRIDGE_PENDING;
            pendingLen--;
        }
        pending[(pendingStart + pendingLen) % BRIDGE_PENDING] = bytes[i];
        pendingLen++;
    }
    SendPending();
}

// The next chunk, under 1 KB, once the previous one is sent.
void BridgeObject::SendPending() {
    if (sending || link != LINK_CONNECTED || pendingLen == 0) return;
    size_t n = pendingLen < (size_t)BRIDGE_SEND_CHUNK ? pendingLen : BRIDGE_SEND_CHUNK;
    for (size_t i = 0; i < n; i++) sendData[i] = pending[(pendingStart + i) % BRIDGE_PENDING];
    TCPEndpointSendMsg send(endpoint, sendData, n);
    send.continuation = (void*)this;
    send.Send(ipstackRef, myOID_, Extra_Entry[entrySendCont], sizeof(send));
    sending = true;
    inFlight = n;
}

void BridgeObject::SendCont(ANTENVMSG msg) {
    TCPEndpointSendMsg* send = (TCPEndpointSendMsg*)antEnvMsg::Receive(msg);
    sending = false;
    if (send->error != TCP_SUCCESS) {
        LinkLost();
        Close();
        return;
    }
    pendingStart = (pendingStart + inFlight) % BRIDGE_PENDING;
    pendingLen -= inFlight;
    inFlight = 0;
    SendPending();
}

void BridgeObject::Close() {
    if (link != LINK_CONNECTED && link != LINK_LISTENING) return;
    TCPEndpointCloseMsg close(endpoint);
    close.continuation = (void*)this;
    close.Send(ipstackRef, myOID_, Extra_Entry[entryCloseCont], sizeof(close));
    link = LINK_CLOSING;
}

void BridgeObject::CloseCont(ANTENVMSG) {
    link = LINK_CLOSED;
    sending = false;
    pendingStart = pendingLen = inFlight = 0;
    Listen();
}

void BridgeObject::LinkLost() {
    aibo_bridge_link_lost(bridge);
    pendingStart = pendingLen = 0;
}
