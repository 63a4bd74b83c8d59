// Host stand-in (see OObject.h): the command vector layout BridgeObject fills.
#ifndef STANDIN_ODATAFORMATS_H
#define STANDIN_ODATAFORMATS_H
#include <OPENR/OObject.h>

typedef longword ODataType;
const ODataType odataJOINT_COMMAND2 = 0x12;
const ODataType odataJOINT_COMMAND3 = 0x13;
const ODataType odataJOINT_COMMAND4 = 0x14;
typedef longword OPrimitiveID;
typedef longword MemoryRegionID;

const size_t ocommandMAX_FRAMES = 16;

typedef longword OJointValue3;
const OJointValue3 ojoint3_STATE0 = 0;
const OJointValue3 ojoint3_STATE1 = 1;
typedef longword OJointValue4;
const OJointValue4 ojoint4_STATE0 = 0;
const OJointValue4 ojoint4_STATE1 = 1;

struct ODataVectorInfo {
    size_t numData;
    MemoryRegionID memRegionID;
    size_t offset;
    size_t totalSize;
};

struct OCommandValue {
    slongword value[2];
};
struct OJointCommandValue2 {
    slongword value;
    slongword padding;
};
struct OJointCommandValue3 {
    OJointValue3 value;
    word reserved;
    word padding;
};
struct OJointCommandValue4 {
    OJointValue4 value;
    word period;
    word reserved;
};

struct OCommandInfo {
    ODataType type;
    OPrimitiveID primitiveID;
    longword frameNumber;
    size_t numFrames;
    size_t frameSize;
    size_t dataOffset;
    size_t dataSize;
    longword padding[1];
    void Set(ODataType t, OPrimitiveID id, size_t nframes) {
        type = t;
        primitiveID = id;
        numFrames = nframes;
    }
};

struct OCommandData {
    OCommandValue value[ocommandMAX_FRAMES];
};

struct OCommandVectorData {
    ODataVectorInfo vectorInfo;
    OCommandInfo info[1];
    void SetNumData(size_t n) { vectorInfo.numData = n; }
    OCommandInfo* GetInfo(int i) { return &info[i]; }
    OCommandData* GetData(int i) { return (OCommandData*)((byte*)&vectorInfo + info[i].dataOffset); }
};

struct OJointValue {
    slongword value;
    word signal;
    sword pwmDuty;
    slongword refValue;
    word refSignal;
    word padding[1];
};
#endif
