// Host stand-ins for the OPEN-R and ANT calls BridgeObject makes, written for aibo-motion's
// tests. They print what the object does (vectors sent, gains, sends) and keep the IP
// stack's messages until the test driver (drive.cc) completes them.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "openr_standin.h"
#include "standin_state.h"

Standin standin;

// OVirtualRobotComm holds this many vectors: the ones queued and the one playing.
static const int HELD = 2;
static RCRegion* held[HELD];
static int heldCount = 0;

OStatus OSubject::SetData(RCRegion* region) {
    if (region->NumberOfReference() != 1) printf("error: a vector still held was reused\n");
    data_ = region;
    return oSUCCESS;
}

// Prints the vector as the robot's effectors would take it, then holds it; the oldest
// held vector is let go, as OVirtualRobotComm lets a vector go once it has played it.
OStatus OSubject::NotifyObservers() {
    OCommandVectorData* v = (OCommandVectorData*)data_->Base();
    size_t frames = v->GetInfo(0)->numFrames;
    printf("vector %p frames %lu\n", data_->Base(), (unsigned long)frames);
    for (size_t f = 0; f < frames; f++) {
        printf("frame");
        for (size_t j = 0; j < v->vectorInfo.numData; j++) {
            OCommandInfo* info = v->GetInfo(j);
            OCommandData* d = v->GetData(j);
            if (info->type == odataJOINT_COMMAND2) {
                printf(" %ld", (long)((OJointCommandValue2*)d->value)[f].value);
            } else if (info->type == odataJOINT_COMMAND4) {
                OJointCommandValue4* ear = (OJointCommandValue4*)d->value;
                printf(" e4:%lu/%u", (unsigned long)ear[f].value, (unsigned)ear[f].period);
            } else {
                printf(" e3:%lu", (unsigned long)((OJointCommandValue3*)d->value)[f].value);
            }
        }
        printf("\n");
    }
    data_->AddReference();
    if (heldCount == HELD) {
        held[0]->RemoveReference();
        memmove(held, held + 1, sizeof held[0] * (HELD - 1));
        heldCount--;
    }
    held[heldCount++] = data_;
    return oSUCCESS;
}

namespace OPENR {
OStatus OpenPrimitive(const char* locator, OPrimitiveID* id) {
    if (standin.primitives == STANDIN_MAX_PRIMITIVES) return oFAIL;
    strncpy(standin.locators[standin.primitives], locator, 63);
    *id = 100 + standin.primitives++;
    return oSUCCESS;
}

OStatus NewCommandVectorData(size_t n, MemoryRegionID* memID, OCommandVectorData** out) {
    size_t head = sizeof(ODataVectorInfo) + n * sizeof(OCommandInfo);
    size_t total = head + n * sizeof(OCommandData);
    OCommandVectorData* v = (OCommandVectorData*)calloc(1, total);
    if (!v) return oFAIL;
    v->vectorInfo.totalSize = total;
    v->vectorInfo.memRegionID = *memID = ++standin.regions;
    for (size_t i = 0; i < n; i++) {
        v->info[i].dataOffset = head + i * sizeof(OCommandData);
    }
    *out = v;
    return oSUCCESS;
}

static OStatus Gain(OPrimitiveID id, const char* what) {
    printf("gain %s %s\n", standin.locators[id - 100], what);
    return oSUCCESS;
}
OStatus EnableJointGain(OPrimitiveID id) { return Gain(id, "enable"); }
OStatus DisableJointGain(OPrimitiveID id) { return Gain(id, "disable"); }
OStatus SetDefaultJointGain(OPrimitiveID id) { return Gain(id, "default"); }

OStatus GetJointValue(OPrimitiveID id, OJointValue* value) {
    memset(value, 0, sizeof *value);
    value->value = standin.measured[id - 100];
    return oSUCCESS;
}

OStatus SetMotorPower(OPower power) {
    printf("motor power %s\n", power == opowerON ? "on" : "off");
    return oSUCCESS;
}

OStatus GetRobotDesign(char* design) {
    strcpy(design, standin.design);
    return oSUCCESS;
}

OStatus GetTime(OTime* time) {
    time->seconds = standin.seconds;
    time->useconds = 0;
    return oSUCCESS;
}
}  // namespace OPENR

void antEnvCreateSharedBufferMsg::Call(antStackRef, size_t) {
    buffer.address = calloc(1, size);
    error = buffer.address ? ANT_SUCCESS : ANT_FAIL;
}

void antEnvCreateEndpointMsg::Call(antStackRef, size_t) {
    moduleRef.id = ++standin.endpoints;
    error = ANT_SUCCESS;
}

// The message is kept, a copy, for the driver to complete through its entry.
void StandinTCPMsg::Send(antStackRef, OID, int entry, size_t size) {
    if (standin.pendingCount == STANDIN_MAX_PENDING) {
        printf("error: too many messages pending\n");
        return;
    }
    StandinPending& p = standin.pending[standin.pendingCount++];
    memcpy(p.bytes, this, size < sizeof p.bytes ? size : sizeof p.bytes);
    p.entry = entry;
    static const char* names[] = {"listen", "receive", "send", "close"};
    printf("ant %s", names[kind]);
    if (kind == STANDIN_LISTEN) printf(" port %d", lPort);
    if (kind == STANDIN_SEND) {
        printf(" %d ", sizeMin);
        for (int i = 0; i < sizeMin; i++) printf("%02x", buffer[i]);
    }
    printf("\n");
}
