//! What the performer does, measured from world positions in the performer's own body
//! frame, taken anew on every frame.
//!
//! Nothing here reads a joint's local axes: exporters disagree on them (Y or Z up,
//! bones along +X with the standing orientation in the channels, A-pose rests,
//! pre-rotations), but they agree on where the joints are. So:
//! - **The body frame** of a frame: up from the hips' midpoint (or the pelvis) to the
//!   shoulders' midpoint (or the chest, or the head); left from the right hip to the
//!   left hip (or shoulder to shoulder), made orthogonal to up; forward = left × up.
//! - **Limbs**: the upper and lower bone of each limb, from the world positions of
//!   shoulder or hip, elbow or knee, and wrist or ankle, in that body frame.
//! - **The head**: its turn relative to the body frame, against a neutral relation in
//!   which the performer looks straight ahead: by default the take's typical relation
//!   (the mean over every frame), or the relation on a frame the user names. A headset's
//!   camera says where it looks by itself.
//!
//! Body coordinates are x forward, y left, z up: the robot's own axes, so that a
//! performer's direction and a robot's compare directly.

use super::body::{Body, Limb};
use crate::source::kinematics::{world_pose, WorldPose};
use crate::source::{Clip, Format};
use glam::{DMat3, DQuat, DVec3};

/// The performer's body axes on one frame, in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyFrame {
    pub forward: DVec3,
    pub left: DVec3,
    pub up: DVec3,
}

impl BodyFrame {
    /// World axes as a performer facing +z with its left on +x and Y up stands: the
    /// frame of a clip with no body to measure.
    pub const WORLD: BodyFrame = BodyFrame {
        forward: DVec3::Z,
        left: DVec3::X,
        up: DVec3::Y,
    };

    /// Body coordinates to world: the rotation whose columns are forward, left, up.
    pub fn rotation(&self) -> DQuat {
        DQuat::from_mat3(&DMat3::from_cols(self.forward, self.left, self.up))
    }

    /// `v` (world) in body coordinates: x forward, y left, z up.
    pub fn express(&self, v: DVec3) -> DVec3 {
        DVec3::new(v.dot(self.forward), v.dot(self.left), v.dot(self.up))
    }

    /// The frame with `up` from `bottom` to `top` and left along `across` (made
    /// orthogonal to up); `None` when the points do not span one.
    pub fn from_points(bottom: DVec3, top: DVec3, across: DVec3) -> Option<BodyFrame> {
        let up = (top - bottom).try_normalize()?;
        let left = (across - up * across.dot(up)).try_normalize()?;
        let frame = BodyFrame {
            forward: left.cross(up),
            left,
            up,
        };
        frame.forward.is_finite().then_some(frame)
    }

    /// The body frame of one pose, from the body parts `body` found.
    pub fn of(pose: &WorldPose, body: &Body) -> Option<BodyFrame> {
        let at = |j: usize| pose.positions.get(j).copied();
        let pair = |a: Limb, b: Limb| -> Option<(DVec3, DVec3)> {
            Some((at(body.limb(a)?[0])?, at(body.limb(b)?[0])?))
        };
        let hips = pair(Limb::LeftLeg, Limb::RightLeg);
        let shoulders = pair(Limb::LeftArm, Limb::RightArm);
        let mid = |p: Option<(DVec3, DVec3)>| p.map(|(l, r)| (l + r) / 2.0);
        let distinct_pelvis = body.pelvis.filter(|&p| Some(p) != body.chest);
        let bottom = mid(hips).or_else(|| at(distinct_pelvis?));
        let top = mid(shoulders)
            .or_else(|| at(body.chest.filter(|&c| Some(c) != distinct_pelvis)?))
            .or_else(|| at(body.head?));
        // Without a lower body, the neck (chest to head) stands for the trunk.
        let (bottom, top) = match (bottom, top) {
            (Some(b), Some(t)) => (b, t),
            (None, Some(t)) => (at(body.chest?)?, at(body.head?).filter(|&h| h != t)?),
            _ => return None,
        };
        let across = hips.or(shoulders).map(|(l, r)| l - r)?;
        BodyFrame::from_points(bottom, top, across)
    }
}

/// The root of one pose (see [`Performer::root`]).
fn root_of(pose: &WorldPose, body: &Body) -> Option<DVec3> {
    let at = |j: usize| pose.positions.get(j).copied();
    let hip = |l: Limb| at(body.limb(l)?[0]);
    match (hip(Limb::LeftLeg), hip(Limb::RightLeg)) {
        (Some(l), Some(r)) => Some((l + r) / 2.0),
        _ => [body.pelvis, body.chest, body.head]
            .into_iter()
            .flatten()
            .find_map(at),
    }
}

/// A limb's bones on every frame, in body coordinates: shoulder (or hip) to elbow (or
/// knee), and on to the wrist (or ankle).
#[derive(Debug, Clone, PartialEq)]
pub struct LimbTrack {
    pub bones: Vec<(DVec3, DVec3)>,
    /// Shoulder or hip to hand or foot, hanging straight.
    pub length: f64,
    /// The source joints it reads.
    pub source: Vec<String>,
}

/// The head's forward and left axes on every frame, in body coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadTrack {
    pub axes: Vec<(DVec3, DVec3)>,
    pub source: String,
}

/// Everything the retargeting and the likeness figure read of a performance.
#[derive(Debug, Clone, PartialEq)]
pub struct Performer {
    /// The body frame of every frame (world axes).
    pub frames: Vec<BodyFrame>,
    /// Per limb, in [`Limb::ALL`] order.
    pub limbs: [Option<LimbTrack>; 4],
    pub head: Option<HeadTrack>,
    /// The world's up: the world axis nearest the body's mean up.
    pub world_up: DVec3,
    /// Where the root is on every frame (world, the clip's units): the hips' midpoint, or
    /// the pelvis, chest or head where there are no hips. Its path over the floor is
    /// where the performer travels.
    pub root: Vec<DVec3>,
}

/// Where a HoloLens wearer's shoulders are, relative to the head (m): 18 cm to the side,
/// 25 cm down; and the arm's length when it hangs. Estimates: MRTK records no arms.
const MRTK_SHOULDER_SIDE: f64 = 0.18;
const MRTK_SHOULDER_DROP: f64 = 0.25;
const MRTK_ARM_LENGTH: f64 = 0.6;

/// A HoloLens camera's forward and left axes in its own frame: Unity's camera looks down
/// +z, which the reader's right-handed clip makes −z, with its left on −x.
const CAMERA_AXES: (DVec3, DVec3) = (DVec3::NEG_Z, DVec3::NEG_X);

/// Where the performer's head looks straight ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Neutral {
    /// The take's typical relation of head to body: the mean over every frame.
    #[default]
    Typical,
    /// The relation on this frame (clamped to the clip).
    Frame(usize),
}

impl Performer {
    /// The performance with each frame `f` played `times[f]` times (see
    /// [`super::Tracks::holding`]).
    pub fn holding(&self, times: &[usize]) -> Performer {
        Performer {
            frames: super::repeated(&self.frames, times),
            limbs: self.limbs.clone().map(|limb| {
                limb.map(|l| LimbTrack {
                    bones: super::repeated(&l.bones, times),
                    ..l
                })
            }),
            head: self.head.as_ref().map(|h| HeadTrack {
                axes: super::repeated(&h.axes, times),
                source: h.source.clone(),
            }),
            world_up: self.world_up,
            root: super::repeated(&self.root, times),
        }
    }

    /// Measures `clip`, with the head's straight ahead where `neutral` says.
    pub fn measure(clip: &Clip, body: &Body, neutral: Neutral) -> Performer {
        let mut frames = Vec::with_capacity(clip.frames);
        let mut has_torso = false;
        let mut limbs: [Option<LimbTrack>; 4] = Default::default();
        let rest = rest_positions(clip);
        for (slot, limb) in limbs.iter_mut().zip(Limb::ALL) {
            *slot = body.limb(limb).map(|chain| LimbTrack {
                bones: Vec::with_capacity(clip.frames),
                length: rest_length(&rest, chain),
                source: chain
                    .iter()
                    .map(|&j| clip.skeleton.joints[j].name.clone())
                    .collect(),
            });
        }
        let mrtk = clip.format == Format::Mrtk;
        // The head's turn relative to the body frame (head axes to body coordinates).
        let mut head_turns = Vec::with_capacity(if body.head.is_some() { clip.frames } else { 0 });
        let mrtk_arms = mrtk_arms(clip, body);
        let mut previous: Option<BodyFrame> = None;
        let mut root = Vec::with_capacity(clip.frames);
        for f in 0..clip.frames {
            let pose = world_pose(clip, f);
            root.push(
                root_of(&pose, body).unwrap_or_else(|| root.last().copied().unwrap_or_default()),
            );
            let measured = if mrtk {
                None
            } else {
                BodyFrame::of(&pose, body)
            };
            has_torso |= measured.is_some();
            // A frame that cannot be measured (a degenerate pose) keeps the last one.
            let frame = measured
                .or(previous)
                .unwrap_or_else(|| fixed_frame(clip, body));
            previous = Some(frame);
            frames.push(frame);
            if let Some(h) = body.head {
                head_turns.push(frame.rotation().inverse() * pose.rotations[h]);
            }
            for (slot, limb) in limbs.iter_mut().zip(Limb::ALL) {
                let (Some(track), Some([u, l, e])) = (slot.as_mut(), body.limb(limb)) else {
                    continue;
                };
                let p = &pose.positions;
                track
                    .bones
                    .push((frame.express(p[l] - p[u]), frame.express(p[e] - p[l])));
            }
            for (i, arm) in mrtk_arms.iter().enumerate() {
                if let (Some(arm), Some(h)) = (arm, body.head) {
                    let tracked = clip.signals[arm.tracked].values.get(f) > Some(&0.5);
                    let bone = arm.bone(&pose, frame, h, tracked);
                    limbs[i]
                        .get_or_insert_with(|| arm.track(clip, h))
                        .bones
                        .push(bone);
                }
            }
        }
        let head = body.head.filter(|_| !head_turns.is_empty()).map(|h| {
            let (forward, left) = if mrtk {
                CAMERA_AXES
            } else {
                let straight = match neutral {
                    Neutral::Frame(n) => head_turns[n.min(head_turns.len() - 1)],
                    Neutral::Typical => mean_rotation(&head_turns),
                };
                (straight.inverse() * DVec3::X, straight.inverse() * DVec3::Y)
            };
            HeadTrack {
                axes: head_turns
                    .iter()
                    .map(|&turn| (turn * forward, turn * left))
                    .collect(),
                source: clip.skeleton.joints[h].name.clone(),
            }
        });
        // Without a torso the frames are a fixed stand-in (a headset's): Y is up.
        let world_up = if has_torso {
            nearest_axis(frames.iter().map(|f| f.up).sum())
        } else {
            DVec3::Y
        };
        Performer {
            frames,
            limbs,
            head,
            world_up,
            root,
        }
    }

    /// The limb's track, if the performer has that limb.
    pub fn limb(&self, limb: Limb) -> Option<&LimbTrack> {
        self.limbs[Limb::ALL.iter().position(|&l| l == limb)?].as_ref()
    }

    /// The body's roll (leaning right +), pitch (leaning back +) and yaw (turned left +
    /// since the first frame), radians per frame, against the world's up; yaw unwrapped.
    pub fn attitude(&self) -> [Vec<f64>; 3] {
        let up = self.world_up;
        // Horizontal axes from the first frame's heading.
        let heading = self.frames.first().map_or(DVec3::Z, |f| f.forward);
        let ahead = (heading - up * heading.dot(up))
            .try_normalize()
            .unwrap_or_else(|| up.any_orthonormal_vector());
        let aside = up.cross(ahead);
        let n = self.frames.len();
        let (mut roll, mut pitch, mut yaw) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::<f64>::with_capacity(n),
        );
        let level = |v: DVec3| v.dot(ahead).hypot(v.dot(aside));
        for frame in &self.frames {
            let (f, l) = (frame.forward, frame.left);
            roll.push(l.dot(up).atan2(level(l)));
            pitch.push(f.dot(up).atan2(level(f)));
            let heading = f.dot(aside).atan2(f.dot(ahead));
            yaw.push(match yaw.last() {
                Some(&prev) => {
                    let turn = std::f64::consts::TAU;
                    prev + (heading - prev + turn / 2.0).rem_euclid(turn) - turn / 2.0
                }
                None => heading,
            });
        }
        [roll, pitch, yaw]
    }
}

/// The frame of a clip whose torso cannot be measured: a headset's, facing where the
/// wearer first looked; otherwise the world's.
fn fixed_frame(clip: &Clip, body: &Body) -> BodyFrame {
    let first_look = body
        .head
        .filter(|_| clip.format == Format::Mrtk && clip.frames > 0)
        .map(|h| world_pose(clip, 0).rotations[h] * CAMERA_AXES.0);
    match first_look {
        Some(look) => {
            let up = DVec3::Y;
            let forward = (look - up * look.dot(up))
                .try_normalize()
                .unwrap_or(CAMERA_AXES.0);
            BodyFrame {
                forward,
                left: up.cross(forward),
                up,
            }
        }
        None => BodyFrame::WORLD,
    }
}

/// The mean of rotations (their quaternions summed on one hemisphere, normalized): the
/// typical one; the first where they cancel out.
fn mean_rotation(turns: &[DQuat]) -> DQuat {
    let first = turns.first().copied().unwrap_or(DQuat::IDENTITY);
    let sum = turns.iter().fold(glam::DVec4::ZERO, |sum, q| {
        let v = glam::DVec4::from(*q);
        if v.dot(first.into()) < 0.0 {
            sum - v
        } else {
            sum + v
        }
    });
    sum.try_normalize().map_or(first, DQuat::from_vec4)
}

/// The world axis (±x, ±y, ±z) nearest `v`; +y for a zero vector.
fn nearest_axis(v: DVec3) -> DVec3 {
    let a = v.abs();
    if !v.is_finite() || a.max_element() == 0.0 {
        DVec3::Y
    } else if a.x >= a.y && a.x >= a.z {
        DVec3::X * v.x.signum()
    } else if a.y >= a.z {
        DVec3::Y * v.y.signum()
    } else {
        DVec3::Z * v.z.signum()
    }
}

/// Shoulder (or hip) to elbow to hand, in the rest pose.
fn rest_length(rest: &[DVec3], [upper, lower, end]: [usize; 3]) -> f64 {
    (rest[lower] - rest[upper]).length() + (rest[end] - rest[lower]).length()
}

fn rest_positions(clip: &Clip) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::with_capacity(clip.joint_count());
    for (i, j) in clip.skeleton.joints.iter().enumerate() {
        let base = j.parent.filter(|&p| p < i).map_or(DVec3::ZERO, |p| out[p]);
        out.push(base + j.offset);
    }
    out
}

/// A headset wearer's arm: the tracked wrist against a shoulder placed from the head.
struct MrtkArm {
    limb: Limb,
    wrist: usize,
    tracked: usize,
}

/// The MRTK arms, in [`Limb::ALL`] order (legs `None`).
fn mrtk_arms(clip: &Clip, body: &Body) -> [Option<MrtkArm>; 4] {
    let mut arms: [Option<MrtkArm>; 4] = Default::default();
    if clip.format != Format::Mrtk || body.head.is_none() {
        return arms;
    }
    for (slot, limb) in arms.iter_mut().zip(Limb::ALL) {
        let side = match limb {
            Limb::LeftArm => "left",
            Limb::RightArm => "right",
            _ => continue,
        };
        let wrist = clip.skeleton.index_of(&format!("{side}_wrist"));
        let tracked = clip
            .signals
            .iter()
            .position(|s| s.name == format!("tracked_{side}"));
        if let (Some(wrist), Some(tracked)) = (wrist, tracked) {
            *slot = Some(MrtkArm {
                limb,
                wrist,
                tracked,
            });
        }
    }
    arms
}

impl MrtkArm {
    fn track(&self, clip: &Clip, head: usize) -> LimbTrack {
        LimbTrack {
            bones: Vec::with_capacity(clip.frames),
            length: MRTK_ARM_LENGTH,
            source: vec![
                clip.skeleton.joints[head].name.clone(),
                clip.skeleton.joints[self.wrist].name.clone(),
            ],
        }
    }

    /// Shoulder to wrist as both bones (the elbow is not recorded); an untracked hand
    /// hangs straight down.
    fn bone(
        &self,
        pose: &WorldPose,
        frame: BodyFrame,
        head: usize,
        tracked: bool,
    ) -> (DVec3, DVec3) {
        let outward = if self.limb.is_left() { 1.0 } else { -1.0 };
        let shoulder = DVec3::new(0.0, outward * MRTK_SHOULDER_SIDE, -MRTK_SHOULDER_DROP);
        let arm = if tracked {
            frame.express(pose.positions[self.wrist] - pose.positions[head]) - shoulder
        } else {
            DVec3::new(0.0, 0.0, -MRTK_ARM_LENGTH)
        };
        (arm, arm)
    }
}
