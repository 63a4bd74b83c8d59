//! Clip + profile → joint-angle tracks: what each AIBO joint does on each frame of a
//! human (or headset) motion.
//!
//! The source skeleton is read for its body parts by name (`body.rs`), and the performer
//! is measured from world positions in its own body frame, taken anew on every frame
//! (`performer.rs`), so that neither the skeleton's joint-axis conventions nor a
//! performer who turns around change what the robot does:
//! - `head.yaw` (turned to its left +), `head.pitch` (nodding down +), `head.roll`
//!   (right ear down +): the head's turn relative to the body frame, against a neutral
//!   relation in which the performer looks straight ahead;
//! - `<limb>.swing` (forward +, 0 hanging straight down), `<limb>.abduction` (outward +):
//!   the direction of the upper bone; `<limb>.bend` (0 straight): the elbow or knee.
//!
//! A profile's `[[mapping]]` entries turn measures into joint values:
//! `joint = sign · scale · measure + offset`.

mod body;
pub mod calibration;
pub mod locomotion;
mod performer;

pub use body::{normalize, Body, Limb};
pub use performer::{BodyFrame, HeadTrack, LimbTrack, Neutral, Performer};

use crate::robot::legs::{Leg, LegId};
use crate::robot::profile::{Mapping, Profile};
use crate::source::Clip;
use glam::DVec3;

/// What drove a robot joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Driver {
    pub joint: String,
    pub measure: String,
    /// The source joints the measure reads.
    pub source: Vec<String>,
}

/// Robot joint tracks, one per profile joint (radians, one value per clip frame), and
/// which ones had a source; joints without one hold `None` (the caller holds a posture).
#[derive(Debug, Clone, PartialEq)]
pub struct Tracks {
    pub joints: Vec<Option<Vec<f64>>>,
    pub drivers: Vec<Driver>,
    pub frame_time: f64,
    /// Frames of the source, which the motion lasts whatever drives it.
    pub frames: usize,
    /// The source body's roll (leaning right +), pitch (leaning back +) and yaw (turned
    /// left + since the first frame), radians per frame, as MTN's body attitude means
    /// them; `None` without a pelvis.
    pub body: Option<[Vec<f64>; 3]>,
    /// What the tracks were measured from.
    pub performer: Performer,
    /// Body parts a mapping asked for that the source lacks (`head`, `left_arm`, …),
    /// each with the robot joints that therefore have no track.
    pub unmeasured: Vec<(String, Vec<String>)>,
}

impl Tracks {
    /// Seconds from the first frame to the last, as [`crate::source::Clip::duration`].
    pub fn duration(&self) -> f64 {
        self.frame_time * self.frames.saturating_sub(1) as f64
    }

    /// The tracks with the performer holding still: frame `f` plays `times[f]` times
    /// ([`hold_times`]), and what follows that much later. Measured once: a take's
    /// averages (the head's straight ahead) are the performance's, not the waits'.
    pub fn holding(&self, times: &[usize]) -> Tracks {
        Tracks {
            joints: self
                .joints
                .iter()
                .map(|j| j.as_ref().map(|track| repeated(track, times)))
                .collect(),
            drivers: self.drivers.clone(),
            frame_time: self.frame_time,
            frames: times.iter().sum(),
            body: self
                .body
                .as_ref()
                .map(|b| b.each_ref().map(|track| repeated(track, times))),
            performer: self.performer.holding(times),
            unmeasured: self.unmeasured.clone(),
        }
    }

    /// What a missing body part means for the motion, a sentence each, for people.
    pub fn unmeasured_sentences(&self) -> Vec<String> {
        self.unmeasured
            .iter()
            .map(|(part, joints)| {
                let chain = match part.as_str() {
                    "head" => "a joint named as a head",
                    p if p.ends_with("_arm") => {
                        "an upper arm with a forearm and a hand below it, such as LeftArm → \
                         LeftForeArm → LeftHand"
                    }
                    _ => {
                        "a thigh with a shin and a foot below it, such as LeftUpLeg → \
                         LeftLeg → LeftFoot"
                    }
                };
                format!(
                    "no {} found in the source ({chain}): {} hold the start posture",
                    part.replace('_', " "),
                    joints.join(", ")
                )
            })
            .collect()
    }
}

/// How the legs follow the performer's limbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegMode {
    /// Joint angles from the limbs' swing, abduction and bend (the profile's mappings).
    #[default]
    Angles,
    /// Paw positions: each hand and foot, relative to its shoulder or hip and scaled to
    /// the leg's length, moves the paw from its stand position; inverse kinematics
    /// finds the angles.
    Ik,
}

/// How a clip is retargeted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// Mappings that replace the profile's for the same joint.
    pub overrides: Vec<Mapping>,
    pub legs: LegMode,
    /// Where the performer's head looks straight ahead.
    pub neutral: Neutral,
}

/// Why a mapping cannot drive its joint.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetError {
    #[error("mapping for {joint:?}: the {model} has no such joint")]
    NoSuchJoint { joint: String, model: String },
    #[error("mapping for {joint:?}: measure {measure:?} is not one of head.yaw|pitch|roll or <left_arm|right_arm|left_leg|right_leg>.swing|abduction|bend")]
    UnknownMeasure { joint: String, measure: String },
}

/// The pose a performer standing straight gives (arms and legs hanging, looking
/// ahead), every profile joint, radians: each joint `tracks` drives at its mapping's
/// offset (its value for a zero measure), the others at the stand posture. With
/// [`LegMode::Ik`] the legs stand as the posture does, as hanging limbs move no paw
/// there. A joint the take does not drive (a take without legs, such as an MRTK
/// recording) stands as the posture does too: the performer has no limb there to be
/// neutral.
pub fn neutral_pose(profile: &Profile, options: &Options, tracks: &Tracks) -> Vec<f64> {
    let mut pose = profile
        .postures
        .get("stand")
        .map(|p| p.joints.clone())
        .unwrap_or_else(|| vec![0.0; profile.joints.len()]);
    let leg = |name: &str| {
        ["lf_", "rf_", "lh_", "rh_"]
            .iter()
            .any(|p| name.starts_with(p))
    };
    for m in profile
        .mappings
        .iter()
        .filter(|m| !options.overrides.iter().any(|o| o.joint == m.joint))
        .chain(&options.overrides)
    {
        if options.legs == LegMode::Ik && leg(&m.joint) {
            continue;
        }
        let Some(i) = profile.joint_index(&m.joint) else {
            continue;
        };
        if tracks.joints.get(i).is_some_and(Option::is_some) {
            pose[i] = m.offset_deg.to_radians();
        }
    }
    pose
}

/// Tracks for every profile joint that a mapping drives and the clip can measure.
/// With [`LegMode::Ik`], legs with geometry in the profile follow paw positions instead.
pub fn retarget(
    clip: &Clip,
    profile: &Profile,
    options: &Options,
) -> Result<Tracks, RetargetError> {
    let mut mappings: Vec<&Mapping> = profile.mappings.iter().collect();
    let no_such_joint = |joint: &str| RetargetError::NoSuchJoint {
        joint: joint.to_string(),
        model: profile.model.clone(),
    };
    let unknown_measure = |m: &Mapping| RetargetError::UnknownMeasure {
        joint: m.joint.clone(),
        measure: m.measure.clone(),
    };
    for o in &options.overrides {
        if profile.joint_by_name(&o.joint).is_none() {
            return Err(no_such_joint(&o.joint));
        }
        mappings.retain(|m| m.joint != o.joint);
        mappings.push(o);
    }
    let body = Body::find(&clip.skeleton);
    let performer = Performer::measure(clip, &body, options.neutral);

    let mut joints: Vec<Option<Vec<f64>>> = vec![None; profile.joints.len()];
    let mut drivers = Vec::new();
    let mut unmeasured: Vec<(String, Vec<String>)> = Vec::new();
    let mut missing = |part: &str, joint: &str| match unmeasured.iter_mut().find(|(p, _)| p == part)
    {
        Some((_, joints)) => joints.push(joint.to_string()),
        None => unmeasured.push((part.to_string(), vec![joint.to_string()])),
    };
    for m in mappings {
        let Some(index) = profile.joint_index(&m.joint) else {
            return Err(no_such_joint(&m.joint));
        };
        let Some((part, what)) = m.measure.split_once('.') else {
            return Err(unknown_measure(m));
        };
        let (values, source) = if part == "head" {
            let Some(head) = &performer.head else {
                missing(part, &m.joint);
                continue;
            };
            let values = head
                .axes
                .iter()
                .map(|&(forward, left)| head_measure(forward, left, what))
                .collect::<Option<Vec<f64>>>();
            (values, vec![head.source.clone()])
        } else {
            let Some(limb) = Limb::ALL.iter().copied().find(|l| l.name() == part) else {
                return Err(unknown_measure(m));
            };
            let Some(track) = performer.limb(limb) else {
                missing(part, &m.joint);
                continue;
            };
            let values = track
                .bones
                .iter()
                .map(|&(upper, lower)| limb_measure(upper, lower, limb.is_left(), what))
                .collect::<Option<Vec<f64>>>();
            (values, track.source.clone())
        };
        let Some(values) = values else {
            return Err(unknown_measure(m));
        };
        drivers.push(Driver {
            joint: m.joint.clone(),
            measure: m.measure.clone(),
            source,
        });
        let (k, offset) = (m.sign * m.scale, m.offset_deg.to_radians());
        joints[index] = Some(values.into_iter().map(|v| k * v + offset).collect());
    }
    if options.legs == LegMode::Ik {
        // The four legs solve independently: one thread each.
        let solved: Vec<SolvedLeg> = std::thread::scope(|scope| {
            let handles: Vec<_> = LegId::ALL
                .into_iter()
                .zip(Limb::ALL)
                .filter_map(|(id, limb)| Some((Leg::of(profile, id)?, limb, performer.limb(limb)?)))
                .map(|(leg, limb, track)| {
                    scope.spawn(move || {
                        let angles = follow_paw(&leg, profile, track);
                        (leg, limb, track.source.clone(), angles)
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        for (leg, limb, source, angles) in solved {
            for (k, &joint) in leg.joints.iter().enumerate() {
                let name = &profile.joints[joint].name;
                joints[joint] = Some(angles.iter().map(|a| a[k]).collect());
                drivers.retain(|d| &d.joint != name);
                drivers.push(Driver {
                    joint: name.clone(),
                    measure: format!("{}.ik", limb.name()),
                    source: source.clone(),
                });
            }
        }
    }
    let body = body.pelvis.map(|_| performer.attitude());
    Ok(Tracks {
        joints,
        drivers,
        frame_time: clip.frame_time,
        frames: clip.frames,
        body,
        performer,
        unmeasured,
    })
}

/// A leg, the limb that drove it, the limb's source joints, and its angles per frame.
type SolvedLeg = (Leg, Limb, Vec<String>, Vec<[f64; 3]>);

/// Leg angles per frame that put the paw where the performer's hand or foot is: its
/// offset from hanging straight down, scaled from the limb's length to the leg's, added
/// to the paw's stand position. A frame the solver cannot reach keeps the last angles.
/// (The unreachable: the performer's hand behind the back, a foot above the hip.)
fn follow_paw(leg: &Leg, profile: &Profile, track: &LimbTrack) -> Vec<[f64; 3]> {
    let stand = profile
        .postures
        .get("stand")
        .map_or([0.0; 3], |p| leg.joints.map(|j| p.joints[j]));
    let stand_paw = leg.paw(stand);
    let scale = if track.length > 1e-9 {
        leg.length / track.length
    } else {
        0.0
    };
    let hanging = DVec3::new(0.0, 0.0, -track.length);
    // Each frame starts from the last: the solution nearest it is the smooth one.
    let mut current = stand;
    track
        .bones
        .iter()
        .map(|&(upper, lower)| {
            let target = stand_paw + (upper + lower - hanging) * scale;
            if let Some(angles) = leg.reach(target, current) {
                current = angles;
            }
            current
        })
        .collect()
}

/// yaw (to the left +), pitch (nodding down +), roll (right ear down +) of the head
/// from its forward and left axes in body coordinates, radians; `None` for an unknown
/// measure.
fn head_measure(forward: DVec3, left: DVec3, what: &str) -> Option<f64> {
    let f = forward;
    Some(match what {
        "yaw" => f.y.atan2(f.x),
        "pitch" => (-f.z).atan2(f.x.hypot(f.y)),
        "roll" => left.z.atan2(left.y),
        _ => return None,
    })
}

/// swing (forward +, 0 straight down), abduction (outward +), bend (0 straight) of a
/// limb from its upper and lower bones in body coordinates.
fn limb_measure(upper: DVec3, lower: DVec3, left: bool, what: &str) -> Option<f64> {
    let d = upper.normalize_or_zero();
    let (f, l, u) = (d.x, d.y, d.z);
    let outward = if left { l } else { -l };
    Some(match what {
        "swing" => f.atan2(-u),
        "abduction" => outward.atan2(f.hypot(u)),
        "bend" => upper.angle_between(lower).min(std::f64::consts::PI),
        _ => return None,
    })
}

/// How many times each of `frames` frames plays where each `(frame, count)` of `holds`
/// plays `frame`'s pose (the last frame's, past the end) `count` frames more.
pub fn hold_times(frames: usize, holds: &[(usize, usize)]) -> Vec<usize> {
    let last = frames.saturating_sub(1);
    let mut times = vec![1usize; frames];
    for &(frame, count) in holds {
        if let Some(t) = times.get_mut(frame.min(last)) {
            *t = t.saturating_add(count);
        }
    }
    times
}

/// `values` (one a frame) with each frame's `f` repeated `times[f]` times; values past
/// `times` as they are.
fn repeated<T: Clone>(values: &[T], times: &[usize]) -> Vec<T> {
    let mut out = Vec::with_capacity(times.iter().sum::<usize>().max(values.len()));
    for (f, v) in values.iter().enumerate() {
        let n = times.get(f).copied().unwrap_or(1);
        out.extend(std::iter::repeat_n(v, n).cloned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_across_vocabularies() {
        assert_eq!(normalize("mixamorig:LeftArm"), "leftarm");
        assert_eq!(normalize("Character1_LeftUpLeg"), "leftupleg");
        assert_eq!(normalize("UpperArm_L"), "upperarml");
        assert_eq!(normalize("lhumerus"), "lhumerus");
    }

    #[test]
    fn tracks_holding_play_the_held_frame_longer_and_the_rest_later() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh");
        let clip = crate::source::bvh::read(&std::fs::read(path).unwrap()).unwrap();
        let profile = Profile::builtin("ERS-7").unwrap();
        let tracks = retarget(&clip, &profile, &Options::default()).unwrap();
        let n = tracks.frames;
        // Frame 10 three frames more, the last (and past it) two more.
        let held = tracks.holding(&hold_times(n, &[(10, 3), (n - 1, 1), (n + 5, 1)]));
        assert_eq!(held.frames, n + 5);
        // Where each of the held tracks' frames comes from.
        let from: Vec<usize> = (0..n)
            .flat_map(|f| {
                let times = match f {
                    10 => 4,
                    f if f == n - 1 => 3,
                    _ => 1,
                };
                std::iter::repeat_n(f, times)
            })
            .collect();
        assert_eq!(from.len(), held.frames);
        for (k, &f) in from.iter().enumerate() {
            for (a, b) in held.joints.iter().zip(&tracks.joints) {
                if let (Some(a), Some(b)) = (a, b) {
                    assert_eq!(a[k], b[f], "frame {k} of {f}");
                }
            }
            let (a, b) = (&held.performer, &tracks.performer);
            assert_eq!(a.root[k], b.root[f]);
            assert_eq!(a.frames[k].forward, b.frames[f].forward);
            for (x, y) in a.limbs.iter().zip(&b.limbs) {
                if let (Some(x), Some(y)) = (x, y) {
                    assert_eq!(x.bones[k], y.bones[f]);
                }
            }
            if let (Some(x), Some(y)) = (&a.head, &b.head) {
                assert_eq!(x.axes[k], y.axes[f]);
            }
            if let (Some(x), Some(y)) = (&held.body, &tracks.body) {
                assert_eq!(x[1][k], y[1][f]);
            }
        }
    }
}
