// Host stand-in for stubgen's entry table: the Extra entries of stub.cfg, in its order.
#ifndef STANDIN_ENTRY_H
#define STANDIN_ENTRY_H
enum { entryListenCont, entrySendCont, entryReceiveCont, entryCloseCont, numOfExtraEntry };
static const int Extra_Entry[numOfExtraEntry] = {entryListenCont, entrySendCont, entryReceiveCont, entryCloseCont};
#endif
