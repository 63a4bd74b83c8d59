//
// The one place BridgeObject reaches the OPEN-R SDK. On the robot build these are the
// owner's SDK headers and the glue its stubgen2 makes of stub.cfg (def.h, entry.h); the
// host test defines AIBO_BRIDGE_STANDIN and gets our own stand-in instead
// (host/openr_standin.h), which declares only the names the object uses.
//
#ifndef AIBO_BRIDGE_SDK_H
#define AIBO_BRIDGE_SDK_H

#ifdef AIBO_BRIDGE_STANDIN
#include "openr_standin.h"
#else
#include <OPENR/OObject.h>
#include <OPENR/OSubject.h>
#include <OPENR/OObserver.h>
#include <OPENR/ODataFormats.h>
#include <OPENR/OPENRAPI.h>
#include <OPENR/OSyslog.h>
#include <OPENR/RCRegion.h>
#include <OPENR/core_macro.h>
#include <ant.h>
#include <EndpointTypes.h>
#include <TCPEndpointMsg.h>
#include "def.h"
#include "entry.h"
#endif

#endif // AIBO_BRIDGE_SDK_H
