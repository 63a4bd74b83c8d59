/*
 * replay: plays a script of received bytes and servo frames into the bridge core through
 * its C interface, and prints every reply and every frame. Built natively and as a static
 * mipsel Linux executable (run under qemu-mipsel), it shows the core doing the same on the
 * robot's CPU as on the host: the two transcripts must be identical.
 *
 * Script, one command per line (blank lines and lines starting with # are skipped):
 *   new MODEL SLOTS KEYFRAMES ENTROPY KEY   a fresh bridge (ENTROPY: 64 hex digits;
 *                                           KEY: 64 hex digits or -)
 *   rx HEX                                  bytes received (may be empty: "rx")
 *   tick N                                  N servo frames of 8 ms
 *   lost                                    the link went away
 *   measured A B C ...                      where the servos are, µrad
 *   counters                                the bridge's counters
 * Transcript lines: "reply HEX", "frame KIND STATE A B C ...", "counters ...", "new ok"
 * or "new null", and "error LINE: what" for a script line it cannot read (exit 2).
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aibo_bridge.h"

#define MAX_LINE 65536
#define MAX_JOINTS 32

void *aibo_bridge_alloc(size_t size, size_t align) {
    void *p = NULL;
    if (align <= sizeof(void *) * 2) return malloc(size ? size : 1);
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

void aibo_bridge_dealloc(void *ptr, size_t size, size_t align) {
    (void)size;
    (void)align;
    free(ptr);
}

void aibo_bridge_abort(void) {
    fputs("abort\n", stdout);
    fflush(stdout);
    abort();
}

static void print_hex(const uint8_t *bytes, size_t len) {
    size_t i;
    for (i = 0; i < len; i++) printf("%02x", bytes[i]);
}

static void reply(void *context, const uint8_t *bytes, size_t len) {
    (void)context;
    fputs("reply ", stdout);
    print_hex(bytes, len);
    putchar('\n');
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex digits into out (at most cap bytes); the count, or -1. */
static long from_hex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = 0;
    while (hex[0] && hex[0] != ' ' && hex[0] != '\n') {
        int hi = hex_value(hex[0]), lo = hex[1] ? hex_value(hex[1]) : -1;
        if (hi < 0 || lo < 0 || n >= cap) return -1;
        out[n++] = (uint8_t)(hi * 16 + lo);
        hex += 2;
    }
    return (long)n;
}

static char line[MAX_LINE];
static uint8_t bytes[MAX_LINE / 2];

int main(void) {
    AiboBridge *bridge = NULL;
    unsigned long number = 0;
    while (fgets(line, sizeof line, stdin)) {
        char *arg;
        number++;
        if (!strchr(line, '\n') && !feof(stdin)) {
            printf("error %lu: a line over %d bytes\n", number, MAX_LINE);
            return 2;
        }
        line[strcspn(line, "\n")] = 0;
        if (line[0] == 0 || line[0] == '#') continue;
        arg = strchr(line, ' ');
        arg = arg ? arg + 1 : line + strlen(line);
        if (strncmp(line, "new ", 4) == 0) {
            char model[32], entropy_hex[80], key_hex[80];
            unsigned long slots, keyframes;
            uint8_t entropy[AIBO_BRIDGE_ENTROPY_LEN], key[AIBO_BRIDGE_KEY_LEN];
            if (sscanf(arg, "%31s %lu %lu %79s %79s", model, &slots, &keyframes, entropy_hex,
                       key_hex) != 5 ||
                from_hex(entropy_hex, entropy, sizeof entropy) != AIBO_BRIDGE_ENTROPY_LEN ||
                (strcmp(key_hex, "-") != 0 &&
                 from_hex(key_hex, key, sizeof key) != AIBO_BRIDGE_KEY_LEN)) {
                printf("error %lu: new MODEL SLOTS KEYFRAMES ENTROPY KEY\n", number);
                return 2;
            }
            aibo_bridge_free(bridge);
            bridge = aibo_bridge_new((const uint8_t *)model, strlen(model), entropy,
                                     strcmp(key_hex, "-") == 0 ? NULL : key,
                                     (uint32_t)slots, (uint32_t)keyframes, NULL, 0);
            puts(bridge ? "new ok" : "new null");
        } else if (strcmp(line, "rx") == 0 || strncmp(line, "rx ", 3) == 0) {
            long n = from_hex(arg, bytes, sizeof bytes);
            if (n < 0) {
                printf("error %lu: rx HEX\n", number);
                return 2;
            }
            aibo_bridge_receive(bridge, bytes, (size_t)n, reply, NULL);
        } else if (strncmp(line, "tick ", 5) == 0) {
            long i, ticks = strtol(arg, NULL, 10);
            for (i = 0; i < ticks; i++) {
                int32_t pose[MAX_JOINTS];
                size_t j, joints = aibo_bridge_joints(bridge);
                int32_t kind = aibo_bridge_tick(bridge, pose, MAX_JOINTS, reply, NULL);
                printf("frame %ld %lu", (long)kind, (unsigned long)aibo_bridge_state(bridge));
                for (j = 0; j < joints && j < MAX_JOINTS; j++) printf(" %ld", (long)pose[j]);
                putchar('\n');
            }
        } else if (strcmp(line, "lost") == 0) {
            aibo_bridge_link_lost(bridge);
        } else if (strncmp(line, "measured ", 9) == 0) {
            int32_t pose[MAX_JOINTS];
            size_t n = 0;
            char *p = arg, *end;
            while (n < MAX_JOINTS) {
                long v = strtol(p, &end, 10);
                if (end == p) break;
                pose[n++] = (int32_t)v;
                p = end;
            }
            aibo_bridge_set_measured(bridge, pose, n);
        } else if (strcmp(line, "counters") == 0) {
            uint32_t counters[16];
            size_t i, n = aibo_bridge_counters(bridge, counters, 16);
            fputs("counters", stdout);
            for (i = 0; i < n && i < 16; i++) printf(" %lu", (unsigned long)counters[i]);
            putchar('\n');
        } else {
            printf("error %lu: unknown command\n", number);
            return 2;
        }
    }
    aibo_bridge_free(bridge);
    return 0;
}
