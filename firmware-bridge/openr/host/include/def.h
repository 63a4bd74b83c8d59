// Host stand-in for what the SDK's stubgen makes of stub.cfg (one subject, no observer).
#ifndef STANDIN_DEF_H
#define STANDIN_DEF_H
const int numOfSubject = 1;
const int numOfObserver = 0;
const int sbjMove = 0;
#endif
