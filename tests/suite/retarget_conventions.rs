//! One performance, written as motion capture in the conventions real exporters use,
//! must drive the robot the same way in every one of them.
//!
//! The performance is defined once, as each joint's turn in world axes on a performer
//! who stands Y up, faces +z, has its left on +x and its arms hanging. A convention
//! then says how a file holds it: the world's up (Y or Z), and each joint's local axes
//! (identity as CMU's; every bone along +X with the standing orientation carried in the
//! channels, as Bandai Namco's; A-pose and T-pose rests whose pre-rotations sit in the
//! channels). Whatever the convention, the joints are in the same places in the
//! (turned) world, so the tracks must agree within 0.1°. ASF/AMC, with a non-trivial
//! `axis` on every bone and a Z-up world, must agree too.

use aibo_motion::retarget::{retarget, Options, Tracks};
use aibo_motion::robot::profile::Profile;
use aibo_motion::source::{self, amc, asf, Clip};
use glam::{DQuat, DVec3, EulerRot};
use std::fmt::Write as _;

/// The performer's joints: name, parent, rest offset (Y up, facing +z, left +x).
const JOINTS: [(&str, Option<usize>, [f64; 3]); 16] = [
    ("Hips", None, [0.0, 90.0, 0.0]),
    ("Spine", Some(0), [0.0, 10.0, 0.0]),
    ("Neck", Some(1), [0.0, 30.0, 0.0]),
    ("Head", Some(2), [0.0, 8.0, 0.0]),
    ("LeftArm", Some(1), [18.0, 25.0, 0.0]),
    ("LeftForeArm", Some(4), [0.0, -28.0, 0.0]),
    ("LeftHand", Some(5), [0.0, -25.0, 0.0]),
    ("RightArm", Some(1), [-18.0, 25.0, 0.0]),
    ("RightForeArm", Some(7), [0.0, -28.0, 0.0]),
    ("RightHand", Some(8), [0.0, -25.0, 0.0]),
    ("LeftUpLeg", Some(0), [9.0, 0.0, 0.0]),
    ("LeftLeg", Some(10), [0.0, -42.0, 0.0]),
    ("LeftFoot", Some(11), [0.0, -40.0, 0.0]),
    ("RightUpLeg", Some(0), [-9.0, 0.0, 0.0]),
    ("RightLeg", Some(13), [0.0, -42.0, 0.0]),
    ("RightFoot", Some(14), [0.0, -40.0, 0.0]),
];

/// End sites of the leaves: head top, hands, toes.
fn end_site(joint: usize) -> Option<DVec3> {
    match JOINTS[joint].0 {
        "Head" => Some(DVec3::new(0.0, 10.0, 0.0)),
        "LeftHand" | "RightHand" => Some(DVec3::new(0.0, -8.0, 0.0)),
        "LeftFoot" | "RightFoot" => Some(DVec3::new(0.0, -5.0, 12.0)),
        _ => None,
    }
}

fn children(joint: usize) -> impl Iterator<Item = usize> {
    (0..JOINTS.len()).filter(move |&c| JOINTS[c].1 == Some(joint))
}

/// One frame of the performance: every joint's turn (world axes, relative to the rest
/// pose) and the hips' position.
struct Pose {
    turns: Vec<DQuat>,
    hips: DVec3,
}

fn deg(d: f64) -> f64 {
    d.to_radians()
}

/// Head turns and nods, arms swing, lift and bend, legs swing and bend, the spine
/// bends, and the performer turns right round; `still` stands without moving.
fn performance(frames: usize, still: bool) -> Vec<Pose> {
    (0..frames)
        .map(|k| {
            let t = k as f64 / (frames - 1) as f64;
            let s = |cycles: f64| (std::f64::consts::TAU * cycles * t).sin();
            let mut turns = vec![DQuat::IDENTITY; JOINTS.len()];
            let mut set = |name: &str, q: DQuat| {
                let i = JOINTS.iter().position(|j| j.0 == name).unwrap();
                turns[i] = q;
            };
            let hips = DVec3::new(5.0 * t, 90.0, 20.0 * t);
            if !still {
                set(
                    "Hips",
                    DQuat::from_rotation_y(deg(220.0 * t))
                        * DQuat::from_rotation_x(deg(8.0 * s(1.0))),
                );
                set("Spine", DQuat::from_rotation_x(deg(15.0 * s(0.5))));
                set(
                    "Head",
                    DQuat::from_rotation_y(deg(40.0 * s(1.0)))
                        * DQuat::from_rotation_x(deg(25.0 * s(2.0)))
                        * DQuat::from_rotation_z(deg(10.0 * s(1.5))),
                );
                set(
                    "LeftArm",
                    DQuat::from_rotation_z(deg(20.0 * s(0.5)))
                        * DQuat::from_rotation_x(deg(-70.0 * s(0.5))),
                );
                set(
                    "LeftForeArm",
                    DQuat::from_rotation_x(deg(-60.0 * s(0.5).abs())),
                );
                set(
                    "RightArm",
                    DQuat::from_rotation_z(deg(-25.0 * s(1.0).abs()))
                        * DQuat::from_rotation_x(deg(-35.0 * s(1.0))),
                );
                set("RightForeArm", DQuat::from_rotation_x(deg(-45.0 * t)));
                set("LeftHand", DQuat::from_rotation_y(deg(30.0 * s(1.0))));
                set("LeftUpLeg", DQuat::from_rotation_x(deg(-40.0 * s(1.0))));
                set("LeftLeg", DQuat::from_rotation_x(deg(60.0 * s(0.5).abs())));
                set(
                    "RightUpLeg",
                    DQuat::from_rotation_x(deg(30.0 * s(1.0)))
                        * DQuat::from_rotation_z(deg(-10.0 * s(0.5))),
                );
                set("RightLeg", DQuat::from_rotation_x(deg(45.0 * s(1.0).abs())));
                set("RightFoot", DQuat::from_rotation_x(deg(20.0 * s(2.0))));
            }
            Pose { turns, hips }
        })
        .collect()
}

/// How a file holds the performance.
struct Convention {
    name: &'static str,
    /// Turns the performer's world into the file's (Y up into Z up, say).
    world: DQuat,
    /// Each joint's local axes, in the performer's world at rest.
    axes: Vec<DQuat>,
    /// Channel order, as the letters of the BVH rotation channels.
    order: &'static str,
    /// Position channels on every joint, not only the root.
    positions_everywhere: bool,
}

fn turn_of(order: &str) -> EulerRot {
    match order {
        "ZXY" => EulerRot::ZXY,
        "ZYX" => EulerRot::ZYX,
        "XYZ" => EulerRot::XYZ,
        "YXZ" => EulerRot::YXZ,
        "YZX" => EulerRot::YZX,
        _ => EulerRot::XZY,
    }
}

/// Euler angles (degrees) of `q` in a BVH channel order: `ZXY` means Rz·Rx·Ry.
fn euler_deg(q: DQuat, order: &str) -> [f64; 3] {
    let (a, b, c) = q.to_euler(turn_of(order));
    // The generator's own check: composing the channels as BVH does gives q back.
    let axis = |ch: u8| match ch {
        b'X' => DVec3::X,
        b'Y' => DVec3::Y,
        _ => DVec3::Z,
    };
    let o = order.as_bytes();
    let back = DQuat::from_axis_angle(axis(o[0]), a)
        * DQuat::from_axis_angle(axis(o[1]), b)
        * DQuat::from_axis_angle(axis(o[2]), c);
    assert!(back.dot(q).abs() > 1.0 - 1e-12, "{order}: {q} vs {back}");
    [a.to_degrees(), b.to_degrees(), c.to_degrees()]
}

fn identity_axes() -> Vec<DQuat> {
    vec![DQuat::IDENTITY; JOINTS.len()]
}

/// Every bone along its joint's local +X (the first child's direction, or the end
/// site's), as Bandai Namco's files lay them.
fn bones_along_x() -> Vec<DQuat> {
    (0..JOINTS.len())
        .map(|j| {
            let towards = children(j)
                .next()
                .map(|c| DVec3::from(JOINTS[c].2))
                .or_else(|| end_site(j))
                .unwrap();
            DQuat::from_rotation_arc(DVec3::X, towards.normalize())
        })
        .collect()
}

/// Arms raised `degrees` sideways at rest (45: an A-pose, 90: a T-pose): the arm
/// joints' local axes turned so that their offsets point along the raised arm.
fn raised_arms(degrees: f64) -> Vec<DQuat> {
    (0..JOINTS.len())
        .map(|j| {
            let name = JOINTS[j].0;
            if name.starts_with("Left") && (name.contains("Arm") || name.contains("Hand")) {
                DQuat::from_rotation_z(deg(-degrees))
            } else if name.starts_with("Right") && (name.contains("Arm") || name.contains("Hand")) {
                DQuat::from_rotation_z(deg(degrees))
            } else {
                DQuat::IDENTITY
            }
        })
        .collect()
}

fn conventions() -> Vec<Convention> {
    let z_up = DQuat::from_rotation_x(deg(90.0));
    vec![
        Convention {
            name: "identity rest, Y up (CMU)",
            world: DQuat::IDENTITY,
            axes: identity_axes(),
            order: "ZYX",
            positions_everywhere: false,
        },
        Convention {
            name: "bones along +X, orientation in the channels (Bandai Namco)",
            world: DQuat::IDENTITY,
            axes: bones_along_x(),
            order: "ZXY",
            positions_everywhere: true,
        },
        Convention {
            name: "Z up",
            world: z_up,
            axes: identity_axes(),
            order: "XYZ",
            positions_everywhere: false,
        },
        Convention {
            name: "A-pose rest, pre-rotations in the channels",
            world: DQuat::IDENTITY,
            axes: raised_arms(45.0),
            order: "YXZ",
            positions_everywhere: false,
        },
        Convention {
            name: "T-pose rest, Z up, bones along +X",
            world: z_up,
            axes: {
                let t = raised_arms(90.0);
                bones_along_x().iter().zip(t).map(|(a, t)| t * *a).collect()
            },
            order: "YZX",
            positions_everywhere: false,
        },
    ]
}

/// World turns of every joint on a frame, in the performer's world.
fn world_turns(pose: &Pose) -> Vec<DQuat> {
    let mut world: Vec<DQuat> = Vec::with_capacity(JOINTS.len());
    for (j, (_, parent, _)) in JOINTS.iter().enumerate() {
        let p = parent.map_or(DQuat::IDENTITY, |p| world[p]);
        world.push(p * pose.turns[j]);
    }
    world
}

fn bvh(c: &Convention, poses: &[Pose], frame_time: f64) -> String {
    let w = c.world;
    let mut text = String::from("HIERARCHY\n");
    // A joint's offset in its parent's local axes: A_p⁻¹ · W · o.
    fn write_joint(text: &mut String, c: &Convention, j: usize, depth: usize) {
        let pad = " ".repeat(depth);
        let (name, parent, offset) = JOINTS[j];
        let local = |p: Option<usize>, v: DVec3| {
            p.map_or(DQuat::IDENTITY, |p| c.axes[p]).inverse() * (c.world * v)
        };
        let o = if parent.is_none() {
            DVec3::ZERO
        } else {
            local(parent, DVec3::from(offset))
        };
        let kind = if parent.is_none() { "ROOT" } else { "JOINT" };
        let _ = writeln!(text, "{pad}{kind} {name}\n{pad}{{");
        let _ = writeln!(text, "{pad} OFFSET {:.10} {:.10} {:.10}", o.x, o.y, o.z);
        let rot: Vec<String> = c.order.chars().map(|a| format!("{a}rotation")).collect();
        if parent.is_none() || c.positions_everywhere {
            let _ = writeln!(
                text,
                "{pad} CHANNELS 6 Xposition Yposition Zposition {}",
                rot.join(" ")
            );
        } else {
            let _ = writeln!(text, "{pad} CHANNELS 3 {}", rot.join(" "));
        }
        for child in children(j) {
            write_joint(text, c, child, depth + 1);
        }
        if let Some(e) = end_site(j) {
            let e = c.axes[j].inverse() * (c.world * e);
            let _ = writeln!(
                text,
                "{pad} End Site\n{pad} {{\n{pad}  OFFSET {:.10} {:.10} {:.10}\n{pad} }}",
                e.x, e.y, e.z
            );
        }
        let _ = writeln!(text, "{pad}}}");
    }
    write_joint(&mut text, c, 0, 0);
    let _ = writeln!(
        text,
        "MOTION\nFrames: {}\nFrame Time: {frame_time}",
        poses.len()
    );
    // Channel order in the file is depth-first, as written.
    let mut order = Vec::new();
    fn visit(j: usize, order: &mut Vec<usize>) {
        order.push(j);
        for c in children(j) {
            visit(c, order);
        }
    }
    visit(0, &mut order);
    for pose in poses {
        // In the file's world: G' = W·G·W⁻¹; each local turn L' = (G'_p·A_p)⁻¹·G'_j·A_j.
        let world: Vec<DQuat> = world_turns(pose)
            .into_iter()
            .map(|g| w * g * w.inverse())
            .collect();
        let mut values = Vec::new();
        for &j in &order {
            let parent = JOINTS[j].1;
            match parent {
                None => values.extend((w * pose.hips).to_array()),
                Some(p) if c.positions_everywhere => {
                    let o = c.axes[p].inverse() * (w * DVec3::from(JOINTS[j].2));
                    values.extend(o.to_array());
                }
                Some(_) => {}
            }
            let frame_of = |k: usize| world[k] * c.axes[k];
            let local = match parent {
                Some(p) => frame_of(p).inverse() * frame_of(j),
                None => frame_of(j),
            };
            values.extend(euler_deg(local, c.order));
        }
        let line: Vec<String> = values.iter().map(|v| format!("{v:.10}")).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text
}

/// The ASF bones standing for the performer's joints: (bone, parent bone, the joint
/// whose turn it carries, the point at its tip). Bones without a joint carry no dof
/// (the hip and clavicle links).
const BONES: [(&str, &str, Option<&str>, &str); 20] = [
    ("lowerback", "root", None, "Spine"),
    ("upperback", "lowerback", Some("Spine"), "Neck"),
    ("neck", "upperback", Some("Neck"), "Head"),
    ("head", "neck", Some("Head"), "Head+"),
    ("lclavicle", "upperback", None, "LeftArm"),
    ("lhumerus", "lclavicle", Some("LeftArm"), "LeftForeArm"),
    ("lradius", "lhumerus", Some("LeftForeArm"), "LeftHand"),
    ("lhand", "lradius", Some("LeftHand"), "LeftHand+"),
    ("rclavicle", "upperback", None, "RightArm"),
    ("rhumerus", "rclavicle", Some("RightArm"), "RightForeArm"),
    ("rradius", "rhumerus", Some("RightForeArm"), "RightHand"),
    ("rhand", "rradius", Some("RightHand"), "RightHand+"),
    ("lhipjoint", "root", None, "LeftUpLeg"),
    ("lfemur", "lhipjoint", Some("LeftUpLeg"), "LeftLeg"),
    ("ltibia", "lfemur", Some("LeftLeg"), "LeftFoot"),
    ("lfoot", "ltibia", Some("LeftFoot"), "LeftFoot+"),
    ("rhipjoint", "root", None, "RightUpLeg"),
    ("rfemur", "rhipjoint", Some("RightUpLeg"), "RightLeg"),
    ("rtibia", "rfemur", Some("RightLeg"), "RightFoot"),
    ("rfoot", "rtibia", Some("RightFoot"), "RightFoot+"),
];

/// Rest position of a performer joint, Y up; `Name+` is the end of its end site.
fn rest_position(point: &str) -> DVec3 {
    let name = point.trim_end_matches('+');
    let joint = JOINTS.iter().position(|j| j.0 == name).unwrap();
    let mut at = Some(joint);
    let mut p = DVec3::ZERO;
    while let Some(i) = at {
        p += DVec3::from(JOINTS[i].2);
        at = JOINTS[i].1;
    }
    if point.ends_with('+') {
        p += end_site(joint).unwrap();
    }
    p
}

/// Rz·Ry·Rx of degrees about x, y, z: an ASF `axis … XYZ` (the first listed acts first).
fn xyz(a: [f64; 3]) -> DQuat {
    DQuat::from_rotation_z(deg(a[2]))
        * DQuat::from_rotation_y(deg(a[1]))
        * DQuat::from_rotation_x(deg(a[0]))
}

/// AMC values of `rx ry rz` for a local turn `l` (world axes) of a bone with axis frame
/// `c`: M = C⁻¹·L·C, which the dofs compose as Rz·Ry·Rx.
fn amc_values(l: DQuat, c: DQuat) -> [f64; 3] {
    let (z, y, x) = (c.inverse() * l * c).to_euler(EulerRot::ZYX);
    [x.to_degrees(), y.to_degrees(), z.to_degrees()]
}

/// The performance as ASF and AMC, in a Z-up world, with an `axis` on every bone and a
/// turned root orientation.
fn asf_amc(poses: &[Pose]) -> (String, String) {
    let w = DQuat::from_rotation_x(deg(90.0));
    let bone_axis = |i: usize| {
        let i = i as f64 + 1.0;
        [(17.0 * i) % 90.0, -(11.0 * i) % 70.0, (23.0 * i) % 80.0]
    };
    let root_axis = [12.0, -30.0, 45.0];
    let mut asf = String::from(
        ":version 1.10\n:name conventions\n:units\n  mass 1.0\n  length 1.0\n  angle deg\n:root\n  order TX TY TZ RX RY RZ\n  axis XYZ\n  position 0 0 0\n",
    );
    let _ = writeln!(
        asf,
        "  orientation {} {} {}\n:bonedata",
        root_axis[0], root_axis[1], root_axis[2]
    );
    let start = |parent: &str| {
        BONES
            .iter()
            .find(|b| b.0 == parent)
            .map_or_else(|| rest_position("Hips"), |b| rest_position(b.3))
    };
    for (i, (name, parent, turn, tip)) in BONES.iter().enumerate() {
        let v = w * (rest_position(tip) - start(parent));
        let d = v.normalize();
        let a = bone_axis(i);
        let _ = writeln!(
            asf,
            "  begin\n    id {}\n    name {name}\n    direction {:.12} {:.12} {:.12}\n    length {:.12}\n    axis {} {} {} XYZ",
            i + 1,
            d.x,
            d.y,
            d.z,
            v.length(),
            a[0],
            a[1],
            a[2]
        );
        if turn.is_some() {
            asf.push_str(
                "    dof rx ry rz\n    limits (-180, 180)\n      (-180, 180)\n      (-180, 180)\n",
            );
        }
        asf.push_str("  end\n");
    }
    asf.push_str(":hierarchy\n  begin\n");
    for parent in std::iter::once("root").chain(BONES.iter().map(|b| b.0)) {
        let kids: Vec<&str> = BONES
            .iter()
            .filter(|b| b.1 == parent)
            .map(|b| b.0)
            .collect();
        if !kids.is_empty() {
            let _ = writeln!(asf, "    {parent} {}", kids.join(" "));
        }
    }
    asf.push_str("  end\n");

    let mut amc = String::from(":FULLY-SPECIFIED\n:DEGREES\n");
    let joint = |n: &str| JOINTS.iter().position(|j| j.0 == n).unwrap();
    for (k, pose) in poses.iter().enumerate() {
        // Local turns in world axes, in the Z-up world: W·L·W⁻¹.
        let local = |n: &str| w * pose.turns[joint(n)] * w.inverse();
        let p = w * pose.hips;
        let r = amc_values(local("Hips"), xyz(root_axis));
        let _ = writeln!(
            amc,
            "{}\nroot {:.10} {:.10} {:.10} {:.10} {:.10} {:.10}",
            k + 1,
            p.x,
            p.y,
            p.z,
            r[0],
            r[1],
            r[2]
        );
        for (i, (name, _, turn, _)) in BONES.iter().enumerate() {
            let Some(j) = turn else { continue };
            let v = amc_values(local(j), xyz(bone_axis(i)));
            let _ = writeln!(amc, "{name} {:.10} {:.10} {:.10}", v[0], v[1], v[2]);
        }
    }
    (asf, amc)
}

const FRAMES: usize = 61;
const FRAME_TIME: f64 = 0.05;

fn read_bvh(text: &str) -> Clip {
    source::bvh::read(text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn read_asf_amc(asf_text: &str, amc_text: &str) -> Clip {
    let skeleton = asf::read(asf_text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{asf_text}"));
    amc::read(&skeleton, amc_text.as_bytes(), 1.0 / FRAME_TIME).unwrap_or_else(|e| panic!("{e}"))
}

/// Largest difference, in degrees, between two sets of tracks, naming the joint.
fn worst_difference(a: &Tracks, b: &Tracks, profile: &Profile) -> (f64, String) {
    let mut worst = (0.0, String::new());
    for (i, joint) in profile.joints.iter().enumerate() {
        match (&a.joints[i], &b.joints[i]) {
            (Some(x), Some(y)) => {
                assert_eq!(x.len(), y.len());
                for (f, (p, q)) in x.iter().zip(y).enumerate() {
                    let d = (p - q).to_degrees().abs();
                    if d > worst.0 {
                        worst = (d, format!("{} on frame {f}", joint.name));
                    }
                }
            }
            (None, None) => {}
            _ => panic!("{} is driven in one convention only", joint.name),
        }
    }
    let (Some(x), Some(y)) = (&a.body, &b.body) else {
        panic!("no body attitude");
    };
    for (axis, (p, q)) in ["roll", "pitch", "yaw"].iter().zip(x.iter().zip(y)) {
        for (f, (p, q)) in p.iter().zip(q).enumerate() {
            let d = (p - q).to_degrees().abs();
            if d > worst.0 {
                worst = (d, format!("body {axis} on frame {f}"));
            }
        }
    }
    worst
}

fn every_clip(still: bool) -> Vec<(String, Clip)> {
    let poses = performance(FRAMES, still);
    let mut clips: Vec<(String, Clip)> = conventions()
        .iter()
        .map(|c| (c.name.to_string(), read_bvh(&bvh(c, &poses, FRAME_TIME))))
        .collect();
    let (asf_text, amc_text) = asf_amc(&poses);
    clips.push((
        "ASF/AMC, Z up, an axis on every bone".to_string(),
        read_asf_amc(&asf_text, &amc_text),
    ));
    clips
}

#[test]
fn every_convention_writes_the_same_world_positions() {
    // The generator's own check, independent of the retargeting: each file puts the
    // performer's joints where the performance says, in its own world.
    let poses = performance(FRAMES, false);
    for c in conventions() {
        let clip = read_bvh(&bvh(&c, &poses, FRAME_TIME));
        for (f, pose) in poses.iter().enumerate().step_by(7) {
            let world = aibo_motion::source::kinematics::world_pose(&clip, f);
            let turns = world_turns(pose);
            let mut want = vec![DVec3::ZERO; JOINTS.len()];
            for (j, (_, parent, offset)) in JOINTS.iter().enumerate() {
                want[j] = match parent {
                    Some(p) => want[*p] + turns[*p] * DVec3::from(*offset),
                    None => pose.hips,
                };
                let got = world.positions[j];
                assert!(
                    (got - c.world * want[j]).length() < 1e-6,
                    "{}: {} on frame {f}: {got} vs {}",
                    c.name,
                    JOINTS[j].0,
                    c.world * want[j]
                );
            }
        }
    }
}

#[test]
fn every_convention_builds_the_same_tracks() {
    let clips = every_clip(false);
    for model in ["ERS-7", "ERS-210"] {
        let profile = Profile::builtin(model).unwrap();
        let tracks: Vec<Tracks> = clips
            .iter()
            .map(|(_, clip)| retarget(clip, &profile, &Options::default()).unwrap())
            .collect();
        // The reference moves: every leg joint and the head pan travel tens of degrees.
        let reference = &tracks[0];
        for joint in [
            "head_pan",
            "head_tilt",
            "lf_j1",
            "lf_j3",
            "rf_j2",
            "lh_j1",
            "rh_j3",
        ] {
            let i = profile.joint_index(joint).unwrap();
            let t = reference.joints[i].as_ref().unwrap();
            let span = t.iter().cloned().fold(f64::MIN, f64::max)
                - t.iter().cloned().fold(f64::MAX, f64::min);
            assert!(span.to_degrees() > 15.0, "{model} {joint} barely moves");
        }
        let yaw = &reference.body.as_ref().unwrap()[2];
        assert!(
            (yaw.last().unwrap().to_degrees() - 220.0).abs() < 1.0,
            "the performer turns round: {}",
            yaw.last().unwrap().to_degrees()
        );
        for ((name, _), t) in clips.iter().zip(&tracks).skip(1) {
            let (d, at) = worst_difference(reference, t, &profile);
            assert!(d < 0.1, "{model}, {name}: {d:.4}° at {at}");
        }
    }
}

#[test]
fn a_performer_standing_still_gives_the_stand_in_every_convention() {
    for (name, clip) in every_clip(true) {
        for model in ["ERS-210", "ERS-220", "ERS-7"] {
            let profile = Profile::builtin(model).unwrap();
            let tracks = retarget(&clip, &profile, &Options::default()).unwrap();
            let stand = &profile.postures["stand"];
            for (i, joint) in profile.joints.iter().enumerate() {
                let Some(track) = &tracks.joints[i] else {
                    continue;
                };
                let worst = track
                    .iter()
                    .map(|v| (v - stand.joints[i]).to_degrees().abs())
                    .fold(0.0, f64::max);
                assert!(
                    worst <= 5.0 + 1e-6,
                    "{name}, {model}, {}: {worst}°",
                    joint.name
                );
            }
        }
    }
}
