//! The bridge core behind a C interface (`aibo_bridge.h`), for a program on the robot to
//! embed: an OPEN-R object on an AIBO, or a microcontroller's firmware.
//!
//! Only integers and pointers cross the boundary. The embedder creates a bridge, feeds it
//! whatever bytes arrive, ticks it once per 8 ms servo frame for the pose to command, and
//! frees it. Replies to the host go to a callback the embedder passes with each call.
//!
//! With the `robot` feature the library is `no_std`: the embedder supplies allocation and
//! abort (`aibo_bridge_alloc`, `aibo_bridge_dealloc`, `aibo_bridge_abort`), and entropy for
//! every start comes in `aibo_bridge_new`. The core never panics on any input; the abort
//! is there for an allocation that fails.

#![cfg_attr(feature = "robot", no_std)]
#![deny(unsafe_op_in_unsafe_fn)]

extern crate alloc;

use alloc::boxed::Box;
use core::ffi::c_void;
use firmware_bridge::{Bridge, Config, Key, Model, OutputKind};

/// A bridge, as the embedder holds it: an opaque pointer.
pub struct AiboBridge {
    bridge: Bridge,
}

/// Where replies go: `context` is the embedder's own, passed back untouched.
pub type ReplyFn = Option<unsafe extern "C" fn(context: *mut c_void, bytes: *const u8, len: usize)>;

/// `aibo_bridge_tick`'s answers: what the frame did, or that it could not run.
pub const AIBO_BRIDGE_RELAXED: i32 = 0;
pub const AIBO_BRIDGE_HELD: i32 = 1;
pub const AIBO_BRIDGE_PLAYED: i32 = 2;
pub const AIBO_BRIDGE_RAMPED: i32 = 3;
pub const AIBO_BRIDGE_NULL: i32 = -1;

/// Length of the entropy `aibo_bridge_new` takes, and of a signing key.
pub const AIBO_BRIDGE_ENTROPY_LEN: usize = 32;
pub const AIBO_BRIDGE_KEY_LEN: usize = 32;

/// The slice `ptr[..len]`, empty for a null pointer.
///
/// # Safety
/// A non-null `ptr` must point to `len` readable values that outlive the returned slice.
unsafe fn slice<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: the caller promises `len` readable values at `ptr`.
        unsafe { core::slice::from_raw_parts(ptr, len) }
    }
}

/// The embedder's reply callback as the core takes one.
fn replies(reply: ReplyFn, context: *mut c_void) -> impl FnMut(&[u8]) {
    move |bytes: &[u8]| {
        if let Some(reply) = reply {
            // SAFETY: the embedder gave this callback for this context; the bytes are
            // valid for the call.
            unsafe { reply(context, bytes.as_ptr(), bytes.len()) }
        }
    }
}

/// A new bridge, relaxed, for the model named `model` (`ERS-7`, `ERS-210`, `ERS-220`, or a
/// design label such as `DRX-1000`; `model_len` bytes, no terminator needed).
///
/// - `entropy`: 32 fresh random bytes from the robot (its clock, sensor noise), new at
///   every start, so a restarted bridge never repeats its challenges. Required.
/// - `key`: 32 bytes to accept only signed frames, or null for an unsigned link.
/// - `motion_slots`, `max_keyframes`: the store for uploaded motions (at most 255 and
///   65535); it takes up to `motion_slots × max_keyframes × (1 + joints) × 4` bytes.
/// - `start`: the servos' angles now, µrad, one per joint (a short list is filled from the
///   rest posture); null for the rest posture.
///
/// Returns null when the model is unknown, the entropy is missing, or a figure is out of
/// range. The bridge's large parts are made directly on the heap: creating one uses a
/// little stack, never the bridge's whole size.
///
/// # Safety
/// `model`, `entropy`, `key` and `start` must be null or point to as many readable bytes
/// or values as stated.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_new(
    model: *const u8,
    model_len: usize,
    entropy: *const u8,
    key: *const u8,
    motion_slots: u32,
    max_keyframes: u32,
    start: *const i32,
    start_len: usize,
) -> *mut AiboBridge {
    // SAFETY: the caller promises the lengths.
    let (name, entropy, start) = unsafe {
        (
            slice(model, model_len),
            slice(entropy, AIBO_BRIDGE_ENTROPY_LEN),
            slice(start, start_len),
        )
    };
    let Some(model) = core::str::from_utf8(name).ok().and_then(Model::find) else {
        return core::ptr::null_mut();
    };
    let (Ok(entropy), Ok(motion_slots), Ok(max_keyframes)) = (
        <[u8; AIBO_BRIDGE_ENTROPY_LEN]>::try_from(entropy),
        u8::try_from(motion_slots),
        u16::try_from(max_keyframes),
    ) else {
        return core::ptr::null_mut();
    };
    let key = if key.is_null() {
        None
    } else {
        // SAFETY: a non-null key is 32 readable bytes.
        let bytes = unsafe { slice(key, AIBO_BRIDGE_KEY_LEN) };
        <[u8; AIBO_BRIDGE_KEY_LEN]>::try_from(bytes)
            .ok()
            .map(Key::new)
    };
    // A robot's settings: its link is Wi-Fi, whose delays and stalls they ride out.
    let config = Config {
        key,
        entropy,
        motion_slots,
        max_keyframes,
        ..Config::robot()
    };
    Box::into_raw(Box::new(AiboBridge {
        bridge: Bridge::new(model, config, start),
    }))
}

/// Frees a bridge made by `aibo_bridge_new`; null is ignored.
///
/// # Safety
/// `bridge` must come from `aibo_bridge_new` and not be used again.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_free(bridge: *mut AiboBridge) {
    if !bridge.is_null() {
        // SAFETY: made by Box::into_raw in aibo_bridge_new, freed once.
        drop(unsafe { Box::from_raw(bridge) });
    }
}

/// The model's joint count: the length of a pose.
///
/// # Safety
/// `bridge` must be null or a live bridge.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_joints(bridge: *const AiboBridge) -> usize {
    // SAFETY: null or live, as the caller promises.
    unsafe { bridge.as_ref() }.map_or(0, |b| b.bridge.applied().len())
}

/// Joint `index`'s OPEN-R locator (`PRM:/r1/c1-Joint2:11`): copies at most `cap` bytes,
/// no terminator, into `out` and returns its whole length; 0 for an index past the last.
///
/// # Safety
/// `bridge` must be null or a live bridge, `out` null or `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_joint_locator(
    bridge: *const AiboBridge,
    index: usize,
    out: *mut u8,
    cap: usize,
) -> usize {
    // SAFETY: null or live, as the caller promises.
    let Some(joint) = (unsafe { bridge.as_ref() }).and_then(|b| b.bridge.model().joints.get(index))
    else {
        return 0;
    };
    let locator = joint.locator.as_bytes();
    if !out.is_null() {
        let n = locator.len().min(cap);
        // SAFETY: n <= cap writable bytes; the locator is n readable bytes.
        unsafe { core::ptr::copy_nonoverlapping(locator.as_ptr(), out, n) };
    }
    locator.len()
}

/// Whether joint `index` is a binary output (an ear: OPEN-R's states 0 and 1), 1 or 0;
/// 0 for an index past the last.
///
/// # Safety
/// `bridge` must be null or a live bridge.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_joint_binary(bridge: *const AiboBridge, index: usize) -> u32 {
    // SAFETY: null or live, as the caller promises.
    let joint = unsafe { bridge.as_ref() }.and_then(|b| b.bridge.model().joints.get(index));
    joint.map_or(0, |j| u32::from(j.binary))
}

/// Takes received bytes (any amount, any split); replies go to `reply`.
///
/// # Safety
/// `bridge` must be null or a live bridge, `bytes` null or `len` readable bytes, and
/// `reply` safe to call with `context`.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_receive(
    bridge: *mut AiboBridge,
    bytes: *const u8,
    len: usize,
    reply: ReplyFn,
    context: *mut c_void,
) {
    // SAFETY: as the caller promises.
    let (Some(b), bytes) = (unsafe { bridge.as_mut() }, unsafe { slice(bytes, len) }) else {
        return;
    };
    b.bridge.receive(bytes, &mut replies(reply, context));
}

/// One 8 ms servo frame: writes the pose to command (µrad, `aibo_bridge_joints` values;
/// at most `pose_len` are written) and returns what the frame did (`AIBO_BRIDGE_RELAXED`:
/// gains off; `HELD`, `PLAYED`, `RAMPED`), or `AIBO_BRIDGE_NULL` for a null bridge.
///
/// # Safety
/// `bridge` must be null or a live bridge, `pose` null or `pose_len` writable values, and
/// `reply` safe to call with `context`.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_tick(
    bridge: *mut AiboBridge,
    pose: *mut i32,
    pose_len: usize,
    reply: ReplyFn,
    context: *mut c_void,
) -> i32 {
    // SAFETY: as the caller promises.
    let Some(b) = (unsafe { bridge.as_mut() }) else {
        return AIBO_BRIDGE_NULL;
    };
    let out = b.bridge.tick(&mut replies(reply, context));
    if !pose.is_null() {
        for (i, &v) in out.pose.iter().take(pose_len).enumerate() {
            // SAFETY: i < pose_len writable values.
            unsafe { pose.add(i).write(v) };
        }
    }
    match out.kind {
        OutputKind::Relaxed => AIBO_BRIDGE_RELAXED,
        OutputKind::Held => AIBO_BRIDGE_HELD,
        OutputKind::Played => AIBO_BRIDGE_PLAYED,
        OutputKind::Ramped => AIBO_BRIDGE_RAMPED,
    }
}

/// The bridge's state as PROTOCOL.md numbers it (0 relaxed … 6 stopping), or 255 for a
/// null bridge.
///
/// # Safety
/// `bridge` must be null or a live bridge.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_state(bridge: *const AiboBridge) -> u32 {
    // SAFETY: null or live, as the caller promises.
    unsafe { bridge.as_ref() }.map_or(255, |b| b.bridge.state() as u32)
}

/// The bridge's counters in PROTOCOL.md's wire order (bad, unauthenticated, replayed,
/// lost, late, dropped, guarded, played); writes at most `len`, returns how many there are.
///
/// # Safety
/// `bridge` must be null or a live bridge, `out` null or `len` writable values.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_counters(
    bridge: *const AiboBridge,
    out: *mut u32,
    len: usize,
) -> usize {
    // SAFETY: null or live, as the caller promises.
    let Some(b) = (unsafe { bridge.as_ref() }) else {
        return 0;
    };
    let all = b.bridge.counters().named();
    if !out.is_null() {
        for (i, (_, v)) in all.iter().take(len).enumerate() {
            // SAFETY: i < len writable values.
            unsafe { out.add(i).write(*v) };
        }
    }
    all.len()
}

/// While relaxed, where the servos are (µrad, one per joint), so that gains come on at
/// the measured angles; ignored in any other state.
///
/// # Safety
/// `bridge` must be null or a live bridge, `pose` null or `len` readable values.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_set_measured(
    bridge: *mut AiboBridge,
    pose: *const i32,
    len: usize,
) {
    // SAFETY: as the caller promises.
    if let (Some(b), pose) = (unsafe { bridge.as_mut() }, unsafe { slice(pose, len) }) {
        b.bridge.set_measured(pose);
    }
}

/// The link went away (the TCP connection closed): a stream stalls, and the watchdog
/// holds the pose, then takes the robot to rest.
///
/// # Safety
/// `bridge` must be null or a live bridge.
#[no_mangle]
pub unsafe extern "C" fn aibo_bridge_link_lost(bridge: *mut AiboBridge) {
    // SAFETY: null or live, as the caller promises.
    if let Some(b) = unsafe { bridge.as_mut() } {
        b.bridge.link_lost();
    }
}

#[cfg(feature = "robot")]
mod embedder {
    //! What the embedder supplies on the robot: memory and abort.

    use core::alloc::{GlobalAlloc, Layout};

    extern "C" {
        fn aibo_bridge_alloc(size: usize, align: usize) -> *mut u8;
        fn aibo_bridge_dealloc(ptr: *mut u8, size: usize, align: usize);
        fn aibo_bridge_abort() -> !;
    }

    struct Embedder;

    // SAFETY: the embedder's functions allocate and free as `GlobalAlloc` requires
    // (aibo_bridge.h states the contract).
    unsafe impl GlobalAlloc for Embedder {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the embedder's allocator, per the header's contract.
            unsafe { aibo_bridge_alloc(layout.size(), layout.align()) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from aibo_bridge_alloc with this layout.
            unsafe { aibo_bridge_dealloc(ptr, layout.size(), layout.align()) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Embedder = Embedder;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
        // SAFETY: the embedder's abort never returns.
        unsafe { aibo_bridge_abort() }
    }
}
