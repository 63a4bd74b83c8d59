// Host stand-in (see OObject.h): the OPEN-R calls BridgeObject makes.
#ifndef STANDIN_OPENRAPI_H
#define STANDIN_OPENRAPI_H
#include <OPENR/ODataFormats.h>

typedef longword OPower;
const OPower opowerOFF = 0;
const OPower opowerON = 1;
const size_t orobotdesignNAME_MAX = 127;
struct OTime {
    longword seconds;
    longword useconds;
};

namespace OPENR {
OStatus OpenPrimitive(const char* locator, OPrimitiveID* primitiveID);
OStatus NewCommandVectorData(size_t numCommands, MemoryRegionID* memID, OCommandVectorData** baseAddr);
OStatus EnableJointGain(OPrimitiveID primitiveID);
OStatus DisableJointGain(OPrimitiveID primitiveID);
OStatus SetDefaultJointGain(OPrimitiveID primitiveID);
OStatus GetJointValue(OPrimitiveID primitiveID, OJointValue* value);
OStatus SetMotorPower(OPower power);
OStatus GetRobotDesign(char* robotDesign);
OStatus GetTime(OTime* time);
}
#endif
