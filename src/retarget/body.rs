//! The body parts of a source skeleton, found by name in any vocabulary (Biovision, CMU
//! BVH and ASF, Mixamo, MotionBuilder, Rokoko, Bandai Namco, MRTK): each part is the
//! nearest ancestor of the next one down its limb, so that a clavicle named
//! `LeftShoulder` is not taken for an upper arm.

use crate::source::CaptureSkeleton;

/// A limb of the source body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limb {
    LeftArm,
    RightArm,
    LeftLeg,
    RightLeg,
}

impl Limb {
    pub const ALL: [Limb; 4] = [Limb::LeftArm, Limb::RightArm, Limb::LeftLeg, Limb::RightLeg];

    pub fn name(self) -> &'static str {
        match self {
            Limb::LeftArm => "left_arm",
            Limb::RightArm => "right_arm",
            Limb::LeftLeg => "left_leg",
            Limb::RightLeg => "right_leg",
        }
    }

    pub fn is_left(self) -> bool {
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
    pub fn find(skeleton: &CaptureSkeleton) -> Body {
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

    pub fn limb(&self, limb: Limb) -> Option<[usize; 3]> {
        self.limbs[Limb::ALL.iter().position(|&l| l == limb).unwrap_or(0)]
    }
}
