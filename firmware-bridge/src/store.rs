//! The motions a bridge keeps by name: an upload assembled keyframe by keyframe, then
//! stored in one of a fixed number of slots (the oldest not playing gives way). Memory
//! is bounded by the caller's limits on slots, keyframes and joints.

use alloc::vec::Vec;

use crate::message::{ack, Angles, MAX_NAME};

/// A motion kept on the bridge: keyframes as (frames before, angles…, [roll, pitch])
/// rows.
#[derive(Debug, Clone)]
pub(crate) struct StoredMotion {
    pub(crate) name: Vec<u8>,
    /// Row-major: `1 + joints` values per keyframe, the first being frames-before, and
    /// where `body`, the body's roll and pitch after the angles.
    pub(crate) rows: Vec<i32>,
    /// Its keyframes said the body's roll and pitch (protocol 2).
    pub(crate) body: bool,
    /// Upload order, to replace the oldest when the store is full.
    uploaded: u32,
}

#[derive(Debug, Clone)]
struct Upload {
    name: Vec<u8>,
    expected: u16,
    joints: usize,
    rows: Vec<i32>,
    received: u16,
    /// Whether its keyframes say the body's roll and pitch: the first says for all.
    body: Option<bool>,
    /// A keyframe came out of order: the upload cannot complete.
    broken: bool,
}

/// Stored motions and the upload under way.
#[derive(Debug, Clone, Default)]
pub(crate) struct Store {
    motions: Vec<StoredMotion>,
    uploads: u32,
    upload: Option<Upload>,
}

impl Store {
    /// Starts an upload of `keyframes` keyframes of `joints` angles, after checking the
    /// name, the joint count against the robot's, and the size; an `ack` code.
    pub(crate) fn begin(
        &mut self,
        name: &[u8],
        keyframes: u16,
        joints: usize,
        robot_joints: usize,
        max_keyframes: u16,
    ) -> u8 {
        self.upload = None;
        if name.is_empty() || name.len() > MAX_NAME {
            return ack::BAD_NAME;
        }
        if joints != robot_joints {
            return ack::JOINT_COUNT;
        }
        if keyframes == 0 || keyframes > max_keyframes {
            return ack::TOO_LARGE;
        }
        let mut rows = Vec::new();
        if rows
            .try_reserve_exact(usize::from(keyframes) * (1 + joints + 2))
            .is_err()
        {
            return ack::TOO_LARGE;
        }
        self.upload = Some(Upload {
            name: name.to_vec(),
            expected: keyframes,
            joints,
            rows,
            received: 0,
            body: None,
            broken: false,
        });
        ack::OK
    }

    /// Takes keyframe `index` of the upload under way, with the body's roll and pitch
    /// where it says them; `false` when there is none (the keyframe is dropped). A repeat
    /// is ignored; a gap, a wrong size, or a keyframe that says the body where the first
    /// did not (or the other way round) breaks the upload.
    pub(crate) fn accept(
        &mut self,
        index: u16,
        frames_before: u16,
        angles: &Angles,
        body: Option<[i32; 2]>,
    ) -> bool {
        let Some(up) = &mut self.upload else {
            return false;
        };
        if index < up.received {
            return true; // a repeat
        }
        let says_body = *up.body.get_or_insert(body.is_some());
        if index != up.received
            || index >= up.expected
            || angles.len() != up.joints
            || says_body != body.is_some()
        {
            up.broken = true;
            return true;
        }
        up.rows.push(i32::from(frames_before));
        up.rows.extend_from_slice(angles.as_slice());
        if let Some(body) = body {
            up.rows.extend_from_slice(&body);
        }
        up.received += 1;
        true
    }

    /// Ends the upload of `keyframes` keyframes and stores it: under its name if it has
    /// one, else in a free slot of `slots`, else over the oldest motion not `playing`.
    /// The slot it went to, or an `ack` code.
    pub(crate) fn finish(
        &mut self,
        keyframes: u16,
        slots: usize,
        playing: Option<usize>,
    ) -> Result<usize, u8> {
        let Some(up) = self.upload.take() else {
            return Err(ack::INCOMPLETE);
        };
        if up.broken || up.received != up.expected || keyframes != up.expected {
            return Err(ack::INCOMPLETE);
        }
        self.uploads = self.uploads.wrapping_add(1);
        let motion = StoredMotion {
            name: up.name,
            rows: up.rows,
            body: up.body == Some(true),
            uploaded: self.uploads,
        };
        if let Some(slot) = self.find(&motion.name) {
            self.motions[slot] = motion;
            Ok(slot)
        } else if self.motions.len() < slots.max(1) {
            self.motions.push(motion);
            Ok(self.motions.len() - 1)
        } else {
            let oldest = (0..self.motions.len())
                .filter(|&i| Some(i) != playing)
                .min_by_key(|&i| self.motions[i].uploaded)
                .ok_or(ack::TOO_LARGE)?;
            self.motions[oldest] = motion;
            Ok(oldest)
        }
    }

    /// The slot of the motion called `name`.
    pub(crate) fn find(&self, name: &[u8]) -> Option<usize> {
        self.motions.iter().position(|m| m.name == name)
    }

    /// The names of the motions held, oldest first.
    pub(crate) fn names(&self) -> impl Iterator<Item = &[u8]> {
        self.motions.iter().map(|m| m.name.as_slice())
    }

    pub(crate) fn get(&self, slot: usize) -> Option<&StoredMotion> {
        self.motions.get(slot)
    }
}
