/*
 * aibo_bridge.h: the aibo-motion bridge core, for a program on the robot to embed
 * (an OPEN-R object, or a microcontroller's firmware between a serial link and servos).
 *
 * The core speaks the wire protocol of firmware-bridge/PROTOCOL.md: it takes whatever
 * bytes arrive from the host, answers through a callback, and gives the pose to command
 * for every 8 ms servo frame, after its guard (each joint's limits and speed) and with
 * its watchdog (when frames stop: hold about 0.5 s, ramp slowly to lying down, relax).
 *
 * Only integers and pointers cross this interface. Angles are micro-radians, as OPEN-R's
 * OJointCommandValue2 and Sony's MTN files carry them. The core never panics on any input.
 *
 * Built for the robot (`cargo xtask robot`), the library is freestanding; the embedder
 * supplies the functions at the end of this file, and the C library's memcpy, memmove,
 * memset, memcmp and strlen. Stack use per call is checked by the build: see README.md.
 */
#ifndef AIBO_BRIDGE_H
#define AIBO_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A bridge: opaque; made by aibo_bridge_new, freed by aibo_bridge_free. */
typedef struct AiboBridge AiboBridge;

/* Where replies to the host go: `bytes` (one encoded frame, at most 357 bytes) is valid
 * only during the call. `context` is the embedder's own, passed back untouched. */
typedef void (*aibo_bridge_reply_fn)(void *context, const uint8_t *bytes, size_t len);

#define AIBO_BRIDGE_ENTROPY_LEN 32
#define AIBO_BRIDGE_KEY_LEN 32

/* What aibo_bridge_tick's frame did. */
#define AIBO_BRIDGE_RELAXED 0 /* gains off: command nothing */
#define AIBO_BRIDGE_HELD 1    /* the pose did not change on purpose */
#define AIBO_BRIDGE_PLAYED 2  /* a frame of a stream or stored motion, after the guard */
#define AIBO_BRIDGE_RAMPED 3  /* a step of the watchdog's ramp to rest */
#define AIBO_BRIDGE_NULL (-1) /* a null bridge */

/* A new bridge, relaxed, for the model `model` (`model_len` bytes, no terminator needed:
 * "ERS-7", "ERS-210", "ERS-220", or a design label such as "DRX-1000").
 *   entropy       AIBO_BRIDGE_ENTROPY_LEN fresh random bytes, new at every start (the
 *                 robot's clock, sensor noise), so a restarted bridge never repeats its
 *                 challenges. Required.
 *   key           AIBO_BRIDGE_KEY_LEN bytes to accept only signed frames; NULL for none.
 *   motion_slots  motions kept for PLAY (at most 255); max_keyframes: most keyframes in
 *                 one (at most 65535). The store takes up to
 *                 motion_slots * max_keyframes * (1 + joints) * 4 bytes of heap.
 *   start         the servos' angles now, one per joint (a short list is filled from the
 *                 rest posture); NULL for the rest posture.
 * Returns NULL for an unknown model, missing entropy or a figure out of range. */
AiboBridge *aibo_bridge_new(const uint8_t *model, size_t model_len, const uint8_t *entropy,
                            const uint8_t *key, uint32_t motion_slots, uint32_t max_keyframes,
                            const int32_t *start, size_t start_len);

/* Frees a bridge; NULL is ignored. */
void aibo_bridge_free(AiboBridge *bridge);

/* The model's joint count: the length of a pose (0 for NULL). */
size_t aibo_bridge_joints(const AiboBridge *bridge);

/* Joint `index`'s OPEN-R locator ("PRM:/r1/c1-Joint2:11"), for OPENR::OpenPrimitive:
 * copies at most `cap` bytes (no terminator) into `out`, returns its whole length; 0 past
 * the last joint. */
size_t aibo_bridge_joint_locator(const AiboBridge *bridge, size_t index, uint8_t *out,
                                 size_t cap);

/* 1 when joint `index` is a binary output (an ear: OPEN-R's states 0 and 1), else 0. */
uint32_t aibo_bridge_joint_binary(const AiboBridge *bridge, size_t index);

/* Takes received bytes, any amount, split anywhere; replies go to `reply` (may be NULL). */
void aibo_bridge_receive(AiboBridge *bridge, const uint8_t *bytes, size_t len,
                         aibo_bridge_reply_fn reply, void *context);

/* One 8 ms servo frame: writes the pose to command into `pose` (at most `pose_len`
 * values) and returns what the frame did (AIBO_BRIDGE_RELAXED ... AIBO_BRIDGE_RAMPED).
 * State changes are reported to the host through `reply`. */
int32_t aibo_bridge_tick(AiboBridge *bridge, int32_t *pose, size_t pose_len,
                         aibo_bridge_reply_fn reply, void *context);

/* The state as PROTOCOL.md numbers it: 0 relaxed, 1 streaming, 2 playing, 3 holding,
 * 4 stalled, 5 ramping, 6 stopping; 255 for NULL. */
uint32_t aibo_bridge_state(const AiboBridge *bridge);

/* The counters in PROTOCOL.md's wire order (bad, unauthenticated, replayed, lost, late,
 * dropped, guarded, played): writes at most `len`, returns how many there are. */
size_t aibo_bridge_counters(const AiboBridge *bridge, uint32_t *out, size_t len);

/* While relaxed, where the servos are (one angle per joint), so that gains come on at the
 * measured pose; ignored in any other state. */
void aibo_bridge_set_measured(AiboBridge *bridge, const int32_t *pose, size_t len);

/* The link went away (the TCP connection closed): a stream stalls and the watchdog holds
 * the pose, then takes the robot to rest. The next link starts afresh. */
void aibo_bridge_link_lost(AiboBridge *bridge);

/* Supplied by the embedder in the robot build. aibo_bridge_alloc returns `size` bytes
 * aligned to `align` (a power of two, at most 8), or NULL; aibo_bridge_dealloc frees what
 * it returned, with the same size and alignment; aibo_bridge_abort never returns (the
 * core calls it only when an allocation fails). */
void *aibo_bridge_alloc(size_t size, size_t align);
void aibo_bridge_dealloc(void *ptr, size_t size, size_t align);
void aibo_bridge_abort(void);

#ifdef __cplusplus
}
#endif

#endif /* AIBO_BRIDGE_H */
