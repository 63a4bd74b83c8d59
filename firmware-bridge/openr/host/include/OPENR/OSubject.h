// Host stand-in (see OObject.h): a subject hands each region to the recorder in standin.cc.
#ifndef STANDIN_OSUBJECT_H
#define STANDIN_OSUBJECT_H
#include <OPENR/OObject.h>
class RCRegion;
class OSubject {
public:
    OSubject() : data(0) {}
    OStatus SetData(RCRegion* region);
    OStatus NotifyObservers();
    bool IsReady() const { return true; }

private:
    RCRegion* data;
};
#endif
