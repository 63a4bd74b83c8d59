//! Clip + profile → joint-angle tracks: what each AIBO joint does on each frame of a
//! human (or headset) motion.
//!
//! The source skeleton is read for its body parts by name (any vocabulary: Biovision,
//! CMU BVH and ASF, Mixamo, MotionBuilder, Rokoko, Bandai Namco, MRTK), each part found
//! as the nearest ancestor of the next one down its limb, so that a clavicle named
//! `LeftShoulder` is not taken for an upper arm. Every measure is taken in the body's
//! own frame (up, forward, the body's left), relative to the chest or pelvis, so that a
//! performer who turns around still nods, swings and bends the same way:
//! - `head.yaw` (turned to its left +), `head.pitch` (nodding down +), `head.roll`
//!   (right ear down +): the head's rotation relative to the chest;
//! - `<limb>.swing` (forward +, 0 hanging straight down), `<limb>.abduction` (outward +):
//!   the direction of the upper bone; `<limb>.bend` (0 straight): the elbow or knee.
//!
//! A profile's `[[mapping]]` entries turn measures into joint values:
//! `joint = sign · scale · measure + offset`.

use crate::kinematics::world_pose;
use crate::legs::{Leg, LegId};
use crate::profile::{Mapping, Profile};
use crate::source::{Clip, Format, Skeleton};
use glam::{DQuat, DVec3};

/// A limb of the source body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limb {
    LeftArm,
    RightArm,
    LeftLeg,
    RightLeg,
}

impl Limb {
    const ALL: [Limb; 4] = [Limb::LeftArm, Limb::RightArm, Limb::LeftLeg, Limb::RightLeg];

    fn name(self) -> &'static str {
        match self {
            Limb::LeftArm => "left_arm",
            Limb::RightArm => "right_arm",
            Limb::LeftLeg => "left_leg",
            Limb::RightLeg => "right_leg",
        }
    }

    fn is_left(self) -> bool {
        matches!(self, Limb::LeftArm | Limb::LeftLeg)
    }

    /// Name forms of the limb's upper bone, lower bone and end, normalized (lower case,
    /// no namespace, no separators), nearest-first preference within each list.
    fn aliases(self) -> [Vec<String>; 3] {
        let (arm, side) = match self {
            Limb::LeftArm => (true, ("left", 'l')),
            Limb::RightArm => (true, ("right", 'r')),
            Limb::LeftLeg => (false, ("left", 'l')),
            Limb::RightLeg => (false, ("right", 'r')),
        };
        let (word, letter) = side;
        let forms = |stems: &[&str]| -> Vec<String> {
            stems
                .iter()
                .flat_map(|s| {
                    [
                        format!("{word}{s}"),
                        format!("{s}{letter}"),
                        format!("{letter}{s}"),
                        format!("{s}{word}"),
                    ]
                })
                .collect()
        };
        if arm {
            [
                forms(&["arm", "uparm", "upperarm", "humerus", "shoulder"]),
                forms(&["forearm", "lowarm", "lowerarm", "radius", "elbow"]),
                forms(&["hand", "wrist"]),
            ]
        } else {
            [
                forms(&["upleg", "upperleg", "thigh", "femur", "hip"]),
                forms(&["leg", "lowleg", "lowerleg", "shin", "tibia", "knee"]),
                forms(&["foot", "ankle"]),
            ]
        }
    }
}

/// A joint name as the aliases are written: lower case, without a namespace
/// (`mixamorig:`), a MotionBuilder character prefix, or separators.
pub fn normalize(name: &str) -> String {
    let base = name.rsplit(':').next().unwrap_or(name).to_ascii_lowercase();
    let base = base.strip_prefix("character1_").unwrap_or(&base);
    base.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}

/// The body parts found in a skeleton (joint indices).
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub head: Option<usize>,
    /// Upper bone, lower bone, end, per limb in [`Limb::ALL`] order.
    pub limbs: [Option<[usize; 3]>; 4],
    /// Parent of the upper arms (or of the head) and of the upper legs.
    pub chest: Option<usize>,
    pub pelvis: Option<usize>,
}

impl Body {
    /// Finds the body parts of `skeleton` by name.
    pub fn find(skeleton: &Skeleton) -> Body {
        let names: Vec<String> = skeleton.joints.iter().map(|j| normalize(&j.name)).collect();
        let is = |i: usize, list: &[String]| list.iter().any(|a| *a == names[i]);
        let nearest_ancestor = |from: usize, list: &[String]| -> Option<usize> {
            let mut at = skeleton.joints[from].parent;
            while let Some(p) = at {
                if is(p, list) {
                    return Some(p);
                }
                at = skeleton.joints[p].parent;
            }
            None
        };
        let mut limbs = [None; 4];
        for (slot, limb) in limbs.iter_mut().zip(Limb::ALL) {
            let [upper, lower, end] = limb.aliases();
            *slot = (0..names.len()).filter(|&i| is(i, &end)).find_map(|e| {
                let l = nearest_ancestor(e, &lower)?;
                let u = nearest_ancestor(l, &upper)?;
                Some([u, l, e])
            });
        }
        let head = (0..names.len()).find(|&i| names[i] == "head");
        let common = |a: Option<usize>, b: Option<usize>| -> Option<usize> {
            let (a, b) = (a?, b?);
            let ancestors = |mut at: Option<usize>| {
                let mut v = Vec::new();
                while let Some(p) = at {
                    v.push(p);
                    at = skeleton.joints[p].parent;
                }
                v
            };
            let of_a = ancestors(skeleton.joints[a].parent);
            ancestors(skeleton.joints[b].parent)
                .into_iter()
                .find(|p| of_a.contains(p))
        };
        let upper = |k: usize| limbs[k].map(|l| l[0]);
        let chest =
            common(upper(0), upper(1)).or_else(|| head.and_then(|h| skeleton.joints[h].parent));
        let pelvis = common(upper(2), upper(3)).or(chest);
        Body {
            head,
            limbs,
            chest,
            pelvis,
        }
    }

    fn limb(&self, limb: Limb) -> Option<[usize; 3]> {
        self.limbs[Limb::ALL.iter().position(|&l| l == limb).unwrap_or(0)]
    }
}

/// The body's axes at rest: up, forward, and its left (up × forward).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub up: DVec3,
    pub forward: DVec3,
    pub left: DVec3,
}

impl Frame {
    /// Y is up in every reader's output. The body's left comes from its hips (or
    /// shoulders) at rest; without them, the format's convention for forward.
    fn of(clip: &Clip, body: &Body) -> Frame {
        let up = DVec3::Y;
        let rest = rest_positions(&clip.skeleton);
        let across = [
            (Limb::LeftLeg, Limb::RightLeg),
            (Limb::LeftArm, Limb::RightArm),
        ]
        .iter()
        .find_map(|&(l, r)| {
            let (l, r) = (body.limb(l)?, body.limb(r)?);
            let v = rest[l[0]] - rest[r[0]];
            let v = v - up * v.dot(up);
            (v.length() > 1e-9).then(|| v.normalize())
        });
        let left = across.unwrap_or(match clip.format {
            // The HoloLens camera looks down Unity's +z, which is −z once right-handed.
            Format::Mrtk => DVec3::NEG_X,
            _ => DVec3::X,
        });
        Frame {
            up,
            forward: left.cross(up),
            left,
        }
    }
}

fn rest_positions(skeleton: &Skeleton) -> Vec<DVec3> {
    let mut out: Vec<DVec3> = Vec::with_capacity(skeleton.joints.len());
    for (i, j) in skeleton.joints.iter().enumerate() {
        let base = j.parent.filter(|&p| p < i).map_or(DVec3::ZERO, |p| out[p]);
        out.push(base + j.offset);
    }
    out
}

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
}

/// How the legs follow the performer's limbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LegMode {
    /// Joint angles from the limbs' swing, abduction and bend (the profile's mappings).
    #[default]
    Angles,
    /// Paw positions: each hand and foot, relative to its shoulder or hip and scaled to
    /// the leg's length, moves the paw from its stand position; inverse kinematics
    /// finds the angles.
    Ik,
}

/// Tracks for every profile joint that a mapping drives and the clip can measure.
/// Mappings in `overrides` replace the profile's for the same joint. With
/// [`LegMode::Ik`], legs with geometry in the profile follow paw positions instead.
pub fn retarget(
    clip: &Clip,
    profile: &Profile,
    overrides: &[Mapping],
    legs: LegMode,
) -> Result<Tracks, String> {
    let body = Body::find(&clip.skeleton);
    let frame = Frame::of(clip, &body);
    let mut mappings: Vec<&Mapping> = profile.mappings.iter().collect();
    for o in overrides {
        if profile.joint_by_name(&o.joint).is_none() {
            return Err(format!(
                "mapping for {:?}: the {} has no such joint",
                o.joint, profile.model
            ));
        }
        mappings.retain(|m| m.joint != o.joint);
        mappings.push(o);
    }
    let poses: Vec<_> = (0..clip.frames).map(|f| world_pose(clip, f)).collect();
    // MRTK has no torso: the head is measured against where it first looked.
    let head_reference = match (clip.format, body.head) {
        (Format::Mrtk, Some(h)) if !poses.is_empty() => {
            let f0 = poses[0].rotations[h] * frame.forward;
            let yaw = f0.dot(frame.left).atan2(f0.dot(frame.forward));
            Some(DQuat::from_axis_angle(frame.up, yaw))
        }
        _ => None,
    };

    // Each limb's bones, once, for every mapping and leg that reads them.
    let limbs: Vec<Option<LimbTrack>> = Limb::ALL
        .iter()
        .map(|&limb| limb_track(clip, &body, &poses, limb, &frame, head_reference))
        .collect();
    let limb_of = |limb: Limb| -> Option<&LimbTrack> {
        let i = Limb::ALL.iter().position(|&l| l == limb)?;
        limbs[i].as_ref()
    };

    let mut joints: Vec<Option<Vec<f64>>> = vec![None; profile.joints.len()];
    let mut drivers = Vec::new();
    for m in mappings {
        let Some(index) = profile.joints.iter().position(|j| j.name == m.joint) else {
            return Err(format!(
                "mapping for {:?}: no such joint in the profile",
                m.joint
            ));
        };
        let Some((part, what)) = m.measure.split_once('.') else {
            return Err(format!(
                "mapping for {:?}: measure {:?} is not part.measure",
                m.joint, m.measure
            ));
        };
        let values: Option<Vec<f64>> = if part == "head" {
            let (Some(h), chest) = (body.head, body.chest) else {
                continue;
            };
            let source = vec![clip.skeleton.joints[h].name.clone()];
            let values = poses
                .iter()
                .map(|p| {
                    let torso = chest.map_or(head_reference.unwrap_or(DQuat::IDENTITY), |c| {
                        p.rotations[c]
                    });
                    head_measure(torso.inverse() * p.rotations[h], &frame, what)
                })
                .collect::<Option<Vec<f64>>>();
            if values.is_some() {
                drivers.push(Driver {
                    joint: m.joint.clone(),
                    measure: m.measure.clone(),
                    source,
                });
            }
            values
        } else {
            let Some(limb) = Limb::ALL.iter().copied().find(|l| l.name() == part) else {
                return Err(format!(
                    "mapping for {:?}: unknown body part {part:?}",
                    m.joint
                ));
            };
            let Some(track) = limb_of(limb) else {
                continue;
            };
            let values = track
                .bones
                .iter()
                .map(|&(upper, lower)| limb_measure(upper, lower, &frame, limb.is_left(), what))
                .collect::<Option<Vec<f64>>>();
            if values.is_some() {
                drivers.push(Driver {
                    joint: m.joint.clone(),
                    measure: m.measure.clone(),
                    source: track.source.clone(),
                });
            }
            values
        };
        let Some(values) = values else {
            return Err(format!(
                "mapping for {:?}: unknown measure {:?}",
                m.joint, m.measure
            ));
        };
        let (k, offset) = (m.sign * m.scale, m.offset_deg.to_radians());
        joints[index] = Some(values.into_iter().map(|v| k * v + offset).collect());
    }
    if legs == LegMode::Ik {
        // The four legs solve independently: one thread each.
        let solved: Vec<SolvedLeg> = std::thread::scope(|scope| {
            let handles: Vec<_> = LegId::ALL
                .into_iter()
                .zip(Limb::ALL)
                .filter_map(|(id, limb)| Some((Leg::of(profile, id)?, limb, limb_of(limb)?)))
                .map(|(leg, limb, track)| {
                    let frame = &frame;
                    scope.spawn(move || {
                        let angles = follow_paw(&leg, profile, track, frame);
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
    let body = body
        .pelvis
        .map(|pelvis| body_attitude(&poses, pelvis, &frame));
    Ok(Tracks {
        joints,
        drivers,
        frame_time: clip.frame_time,
        frames: clip.frames,
        body,
    })
}

/// A leg, the limb that drove it, the limb's source joints, and its angles per frame.
type SolvedLeg = (Leg, Limb, Vec<String>, Vec<[f64; 3]>);

/// A limb's bones on every frame, in world axes relative to its torso: the upper bone
/// and the lower one (to the hand or foot).
struct LimbTrack {
    bones: Vec<(DVec3, DVec3)>,
    /// Shoulder or hip to hand or foot, hanging straight.
    length: f64,
    source: Vec<String>,
}

/// Where a HoloLens wearer's shoulders are, relative to the head (m): 18 cm to the side,
/// 25 cm down; and the arm's length when it hangs. Estimates: MRTK records no arms.
const MRTK_SHOULDER_SIDE: f64 = 0.18;
const MRTK_SHOULDER_DROP: f64 = 0.25;
const MRTK_ARM_LENGTH: f64 = 0.6;

fn limb_track(
    clip: &Clip,
    body: &Body,
    poses: &[crate::kinematics::WorldPose],
    limb: Limb,
    frame: &Frame,
    head_reference: Option<DQuat>,
) -> Option<LimbTrack> {
    if let Some(chain) = body.limb(limb) {
        let torso = if matches!(limb, Limb::LeftArm | Limb::RightArm) {
            body.chest
        } else {
            body.pelvis
        };
        let rest = rest_positions(&clip.skeleton);
        let bones = poses
            .iter()
            .map(|p| {
                let t = torso.map_or(DQuat::IDENTITY, |t| p.rotations[t]).inverse();
                (
                    t * (p.positions[chain[1]] - p.positions[chain[0]]),
                    t * (p.positions[chain[2]] - p.positions[chain[1]]),
                )
            })
            .collect();
        return Some(LimbTrack {
            bones,
            length: (rest[chain[1]] - rest[chain[0]]).length()
                + (rest[chain[2]] - rest[chain[1]]).length(),
            source: chain
                .iter()
                .map(|&j| clip.skeleton.joints[j].name.clone())
                .collect(),
        });
    }
    // MRTK: the tracked wrist against a shoulder placed from the head; an untracked hand
    // hangs straight down.
    let side = match (clip.format, limb) {
        (Format::Mrtk, Limb::LeftArm) => "left",
        (Format::Mrtk, Limb::RightArm) => "right",
        _ => return None,
    };
    let head = body.head?;
    let wrist = clip.skeleton.index_of(&format!("{side}_wrist"))?;
    let tracked = clip
        .signals
        .iter()
        .find(|s| s.name == format!("tracked_{side}"))?;
    let reference = head_reference.unwrap_or(DQuat::IDENTITY).inverse();
    let outward = if limb.is_left() {
        frame.left
    } else {
        -frame.left
    };
    let shoulder = outward * MRTK_SHOULDER_SIDE - frame.up * MRTK_SHOULDER_DROP;
    let hanging = -frame.up * MRTK_ARM_LENGTH;
    let bones = poses
        .iter()
        .zip(&tracked.values)
        .map(|(p, &on)| {
            let arm = if on > 0.5 {
                reference * (p.positions[wrist] - p.positions[head]) - shoulder
            } else {
                hanging
            };
            (arm, arm)
        })
        .collect();
    Some(LimbTrack {
        bones,
        length: MRTK_ARM_LENGTH,
        source: vec![
            clip.skeleton.joints[head].name.clone(),
            clip.skeleton.joints[wrist].name.clone(),
        ],
    })
}

/// Leg angles per frame that put the paw where the performer's hand or foot is: its
/// offset from hanging straight down, scaled from the limb's length to the leg's, added
/// to the paw's stand position. A frame the solver cannot reach keeps the last angles.
/// (The unreachable: the performer's hand behind the back, a foot above the hip.)
fn follow_paw(leg: &Leg, profile: &Profile, track: &LimbTrack, frame: &Frame) -> Vec<[f64; 3]> {
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
    let mut current = stand;
    let mut lost = false;
    track
        .bones
        .iter()
        .map(|&(upper, lower)| {
            let s = upper + lower;
            let reach = DVec3::new(s.dot(frame.forward), s.dot(frame.left), s.dot(frame.up));
            let target = stand_paw + (reach - hanging) * scale;
            // After a miss, try only from where the leg is until it finds the path again:
            // a long stretch out of reach would otherwise cost every guess every frame.
            let found = if lost {
                leg.reach_near(target, current)
            } else {
                leg.reach(target, current)
            };
            lost = found.is_none();
            if let Some(angles) = found {
                current = angles;
            }
            current
        })
        .collect()
}

/// The pelvis's attitude per frame; yaw unwrapped and counted from the first frame.
fn body_attitude(
    poses: &[crate::kinematics::WorldPose],
    pelvis: usize,
    frame: &Frame,
) -> [Vec<f64>; 3] {
    let mut roll = Vec::with_capacity(poses.len());
    let mut pitch = Vec::with_capacity(poses.len());
    let mut yaw: Vec<f64> = Vec::with_capacity(poses.len());
    for p in poses {
        let q = p.rotations[pelvis];
        let (f, l) = (q * frame.forward, q * frame.left);
        roll.push(
            l.dot(frame.up)
                .atan2(l.dot(frame.left).hypot(l.dot(frame.forward))),
        );
        pitch.push(
            f.dot(frame.up)
                .atan2(f.dot(frame.forward).hypot(f.dot(frame.left))),
        );
        let heading = f.dot(frame.left).atan2(f.dot(frame.forward));
        let unwrapped = match yaw.last() {
            Some(&prev) => {
                let turn = std::f64::consts::TAU;
                prev + (heading - prev + turn / 2.0).rem_euclid(turn) - turn / 2.0
            }
            None => heading,
        };
        yaw.push(unwrapped);
    }
    let start = yaw.first().copied().unwrap_or(0.0);
    yaw.iter_mut().for_each(|y| *y -= start);
    [roll, pitch, yaw]
}

/// yaw (to the left +), pitch (nodding down +), roll (right ear down +) of a rotation
/// relative to the torso, in radians; `None` for an unknown measure.
fn head_measure(q: DQuat, frame: &Frame, what: &str) -> Option<f64> {
    let f = q * frame.forward;
    let l = q * frame.left;
    Some(match what {
        "yaw" => f.dot(frame.left).atan2(f.dot(frame.forward)),
        "pitch" => (-f.dot(frame.up)).atan2(f.dot(frame.forward).hypot(f.dot(frame.left))),
        "roll" => l.dot(frame.up).atan2(l.dot(frame.left)),
        _ => return None,
    })
}

/// swing (forward +, 0 straight down), abduction (outward +), bend (0 straight) of a
/// limb from its upper and lower bone vectors in the torso's frame.
fn limb_measure(upper: DVec3, lower: DVec3, frame: &Frame, left: bool, what: &str) -> Option<f64> {
    let d = upper.normalize_or_zero();
    let (f, u, l) = (d.dot(frame.forward), d.dot(frame.up), d.dot(frame.left));
    let outward = if left { l } else { -l };
    Some(match what {
        "swing" => f.atan2(-u),
        "abduction" => outward.atan2(f.hypot(u)),
        "bend" => upper.angle_between(lower).min(std::f64::consts::PI),
        _ => return None,
    })
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
}
