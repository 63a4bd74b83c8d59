// Host stand-in (see OObject.h): a shared region with a reference count, which the
// stand-in OVirtualRobotComm raises while it holds a vector.
#ifndef STANDIN_RCREGION_H
#define STANDIN_RCREGION_H
#include <OPENR/ODataFormats.h>
class RCRegion {
public:
    RCRegion(MemoryRegionID, size_t, void* base, size_t) : base_(base), references(1) {}
    void* Base() const { return base_; }
    int NumberOfReference() const { return references; }
    void AddReference() { references++; }
    void RemoveReference() { references--; }

private:
    void* base_;
    int references;
};
#endif
