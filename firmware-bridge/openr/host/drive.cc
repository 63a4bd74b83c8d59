// Drives BridgeObject on the host, as OPEN-R and the IP stack would, from a script on
// standard input; standin.cc prints what the object does. One command per line:
//   design MODEL | clock SECONDS | measured INDEX MICRORADIANS
//   start                 DoInit and DoStart
//   connect | refuse      the pending listen completes, a host connected, or it failed
//   rx HEX                the pending receive completes with these bytes
//   hangup                the pending receive fails: the host closed the connection
//   sent                  the pending send completes
//   flush                 every send completes, and those they lead to
//   closed                the pending close completes
//   ready N               N Ready() events from OVirtualRobotComm
//   stop                  DoStop and DoDestroy
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "BridgeObject.h"
#include "standin_state.h"

static BridgeObject object;

// Takes the first pending message of `kind` off the list, or fails the script.
static StandinTCPMsg* Take(StandinMsgKind kind, StandinPending* out) {
    for (int i = 0; i < standin.pendingCount; i++) {
        StandinTCPMsg* m = (StandinTCPMsg*)standin.pending[i].bytes;
        if (m->kind == kind) {
            *out = standin.pending[i];
            memmove(&standin.pending[i], &standin.pending[i + 1],
                    sizeof(StandinPending) * (standin.pendingCount - i - 1));
            standin.pendingCount--;
            return (StandinTCPMsg*)out->bytes;
        }
    }
    printf("error: no message pending for that\n");
    exit(2);
}

static void Complete(StandinPending* p) {
    switch (p->entry) {
    case entryListenCont: object.ListenCont(p->bytes); break;
    case entryReceiveCont: object.ReceiveCont(p->bytes); break;
    case entrySendCont: object.SendCont(p->bytes); break;
    case entryCloseCont: object.CloseCont(p->bytes); break;
    }
}

int main() {
    static char line[1 << 16];
    strcpy(standin.design, "ERS-7");
    OSystemEvent system;
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        char* arg = strchr(line, ' ');
        arg = arg ? arg + 1 : line + strlen(line);
        StandinPending p;
        if (strncmp(line, "design ", 7) == 0) {
            strncpy(standin.design, arg, sizeof standin.design - 1);
        } else if (strncmp(line, "clock ", 6) == 0) {
            standin.seconds = strtoul(arg, 0, 10);
        } else if (strncmp(line, "measured ", 9) == 0) {
            char* end;
            long index = strtol(arg, &end, 10);
            if (index >= 0 && index < STANDIN_MAX_PRIMITIVES) standin.measured[index] = strtol(end, 0, 10);
        } else if (strcmp(line, "start") == 0) {
            printf("init %s\n", object.DoInit(system) == oSUCCESS ? "ok" : "failed");
            object.DoStart(system);
        } else if (strcmp(line, "connect") == 0 || strcmp(line, "refuse") == 0) {
            StandinTCPMsg* m = Take(STANDIN_LISTEN, &p);
            m->error = line[0] == 'c' ? TCP_SUCCESS : TCP_CONNECTION_CLOSED;
            Complete(&p);
        } else if (strncmp(line, "rx", 2) == 0) {
            StandinTCPMsg* m = Take(STANDIN_RECEIVE, &p);
            int n = 0;
            for (const char* h = arg; h[0] && h[1] && n < m->sizeMax; h += 2) {
                unsigned v;
                sscanf(h, "%2x", &v);
                m->buffer[n++] = (unsigned char)v;
            }
            m->sizeMin = n;
            m->error = TCP_SUCCESS;
            Complete(&p);
        } else if (strcmp(line, "hangup") == 0) {
            StandinTCPMsg* m = Take(STANDIN_RECEIVE, &p);
            m->error = TCP_CONNECTION_CLOSED;
            Complete(&p);
        } else if (strcmp(line, "sent") == 0) {
            Take(STANDIN_SEND, &p)->error = TCP_SUCCESS;
            Complete(&p);
        } else if (strcmp(line, "flush") == 0) {
            for (;;) {
                int i = 0;
                while (i < standin.pendingCount &&
                       ((StandinTCPMsg*)standin.pending[i].bytes)->kind != STANDIN_SEND)
                    i++;
                if (i == standin.pendingCount) break;
                Take(STANDIN_SEND, &p)->error = TCP_SUCCESS;
                Complete(&p);
            }
        } else if (strcmp(line, "closed") == 0) {
            Take(STANDIN_CLOSE, &p)->error = TCP_SUCCESS;
            Complete(&p);
        } else if (strncmp(line, "ready ", 6) == 0) {
            OReadyEvent ready;
            for (long i = strtol(arg, 0, 10); i > 0; i--) object.Ready(ready);
        } else if (strcmp(line, "stop") == 0) {
            object.DoStop(system);
            object.DoDestroy(system);
        } else if (line[0] && line[0] != '#') {
            printf("error: unknown command %s\n", line);
            return 2;
        }
    }
    return 0;
}
