//! Acclaim ASF skeletons, read as the 1995 spec says (commas and parentheses are
//! whitespace, `#` comments, unknown keywords skipped) and as real files write them.
//!
//! Each bone becomes a joint at the bone's start (its parent's tip); the bone's own
//! direction × length is the joint's `end`, and the offset of its children. A bone's
//! `axis` gives its local frame C in world space; AMC rotations M act in that frame, so
//! the rotation relative to the rest pose, in world axes, is C·M·C⁻¹.

use super::text::{strip_bom, Syntax, TextError, Token, Tokens};
use super::{CaptureJoint, CaptureSkeleton};
use crate::units::axis_rotation;
use glam::{DQuat, DVec3};
use std::collections::{HashMap, HashSet};

const SYNTAX: Syntax = Syntax {
    single: b"",
    extra_space: b",()",
    comments: true,
};

/// One degree of freedom of a bone or the root, in AMC value order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dof {
    Translate(usize),
    Rotate(usize),
    /// Movement along the bone.
    Length,
}

impl Dof {
    fn parse(token: &[u8]) -> Option<Dof> {
        let lower = token.to_ascii_lowercase();
        let axis = |c: u8| match c {
            b'x' => Some(0),
            b'y' => Some(1),
            b'z' => Some(2),
            _ => None,
        };
        match lower.as_slice() {
            [b't', c] => axis(*c).map(Dof::Translate),
            [b'r', c] => axis(*c).map(Dof::Rotate),
            [b'l'] => Some(Dof::Length),
            _ => None,
        }
    }
}

/// What the AMC reader needs to know of each joint.
#[derive(Debug, Clone, PartialEq)]
pub struct AsfBone {
    /// Degrees of freedom in AMC value order (the root's `order`).
    pub dof: Vec<Dof>,
    /// Local frame C in world space (identity for a bone without `axis`).
    pub axis: DQuat,
    /// Unit direction at rest, world space.
    pub direction: DVec3,
    /// Length after the `:units length` multiplier.
    pub length: f64,
}

/// A parsed ASF file.
#[derive(Debug, Clone, PartialEq)]
pub struct Asf {
    /// CaptureJoint 0 is `root`; parents come before children.
    pub skeleton: CaptureSkeleton,
    /// One per joint, same order.
    pub bones: Vec<AsfBone>,
    /// The `:units length` multiplier, for AMC translations too.
    pub length_unit: f64,
    /// Whether angles are in radians (`:units angle rad`).
    pub radians: bool,
    /// The root's `position` offset (scaled).
    pub root_position: DVec3,
    pub warnings: Vec<String>,
}

/// Composes Euler rotations in evaluation order: the first listed acts first, so
/// `x y z` gives Rz·Ry·Rx.
pub fn euler(rotations: impl IntoIterator<Item = (usize, f64)>) -> DQuat {
    rotations
        .into_iter()
        .fold(DQuat::IDENTITY, |q, (axis, angle)| {
            axis_rotation(axis, angle) * q
        })
}

struct RawBone {
    name: String,
    direction: DVec3,
    length: f64,
    axis_angles: DVec3,
    axis_order: Vec<usize>,
    dof: Vec<Dof>,
    line: usize,
}

fn eof(tokens: &Tokens, what: &str) -> TextError {
    let (line, column) = tokens.here();
    TextError::new(
        line,
        column,
        format!("the file ends where {what} should be"),
    )
}

fn next<'a>(tokens: &mut Tokens<'a>, what: &str) -> Result<Token<'a>, TextError> {
    tokens.next_token().ok_or_else(|| eof(tokens, what))
}

fn number(tokens: &mut Tokens, what: &str) -> Result<f64, TextError> {
    next(tokens, what)?.number(what)
}

fn vec3(tokens: &mut Tokens, what: &str) -> Result<DVec3, TextError> {
    Ok(DVec3::new(
        number(tokens, what)?,
        number(tokens, what)?,
        number(tokens, what)?,
    ))
}

/// An axis order token such as `XYZ` or `zyx`.
fn axis_order(token: &Token) -> Result<Vec<usize>, TextError> {
    let order: Option<Vec<usize>> = token
        .text
        .iter()
        .map(|c| match c.to_ascii_lowercase() {
            b'x' => Some(0),
            b'y' => Some(1),
            b'z' => Some(2),
            _ => None,
        })
        .collect();
    match order {
        Some(o) if o.len() == 3 => Ok(o),
        _ => Err(token.error(format!(
            "expected a rotation order such as XYZ, found {:?}",
            token.lossy()
        ))),
    }
}

fn is_keyword(t: &Token) -> bool {
    t.text.first() == Some(&b':')
}

/// Skips tokens until the next `:keyword` (or the end).
fn skip_section(tokens: &mut Tokens) {
    while let Some(t) = tokens.peek() {
        if is_keyword(&t) {
            return;
        }
        tokens.next_token();
    }
}

/// Reads an ASF skeleton.
pub fn read(data: &[u8]) -> Result<Asf, TextError> {
    let mut tokens = Tokens::new(strip_bom(data), SYNTAX);
    let mut warnings = Vec::new();
    let mut length_unit = 1.0;
    let mut radians = false;
    let mut root_order: Vec<Dof> = Vec::new();
    let mut root_axis = vec![0, 1, 2];
    let mut root_position = DVec3::ZERO;
    let mut root_orientation = DVec3::ZERO;
    let mut raw_bones: Vec<RawBone> = Vec::new();
    let mut hierarchy: Vec<Vec<Token>> = Vec::new();
    let mut saw_bonedata = false;

    while let Some(t) = tokens.next_token() {
        if !is_keyword(&t) {
            return Err(t.error(format!("expected a :keyword, found {:?}", t.lossy())));
        }
        match t.text.to_ascii_lowercase().as_slice() {
            b":units" => {
                while let Some(k) = tokens.peek().filter(|k| !is_keyword(k)) {
                    tokens.next_token();
                    if k.is("length") {
                        length_unit = number(&mut tokens, "the length unit")?;
                        if !(length_unit.is_finite() && length_unit > 0.0) {
                            return Err(k.error("the length unit must be a positive number"));
                        }
                    } else if k.is("angle") {
                        let v = next(&mut tokens, "deg or rad")?;
                        radians = if v.is("rad") {
                            true
                        } else if v.is("deg") {
                            false
                        } else {
                            return Err(
                                v.error(format!("expected deg or rad, found {:?}", v.lossy()))
                            );
                        };
                    } else {
                        next(&mut tokens, "a unit value")?; // mass, or a vendor's unit
                    }
                }
            }
            b":root" => {
                while let Some(k) = tokens.peek().filter(|k| !is_keyword(k)) {
                    tokens.next_token();
                    if k.is("order") {
                        root_order.clear();
                        while let Some(d) = tokens.peek().and_then(|d| Dof::parse(d.text)) {
                            tokens.next_token();
                            root_order.push(d);
                        }
                    } else if k.is("axis") {
                        root_axis = axis_order(&next(&mut tokens, "the root axis order")?)?;
                    } else if k.is("position") {
                        root_position = vec3(&mut tokens, "the root position")?;
                    } else if k.is("orientation") {
                        root_orientation = vec3(&mut tokens, "the root orientation")?;
                    }
                    // Anything else: skipped token by token until a known key.
                }
            }
            b":bonedata" => {
                saw_bonedata = true;
                read_bonedata(&mut tokens, &mut raw_bones)?;
            }
            b":hierarchy" => {
                hierarchy = read_hierarchy(&mut tokens)?;
            }
            // :version, :name, :documentation, :skin and vendor keywords.
            _ => skip_section(&mut tokens),
        }
    }
    if !saw_bonedata && hierarchy.is_empty() {
        let (line, column) = tokens.here();
        return Err(TextError::new(
            line,
            column,
            "no :bonedata or :hierarchy: not an ASF skeleton",
        ));
    }

    let angle = |deg: f64| if radians { deg } else { deg.to_radians() };
    let root_axis_q = euler(root_axis.iter().map(|&a| (a, angle(root_orientation[a]))));
    let mut joints = vec![CaptureJoint {
        name: "root".to_string(),
        parent: None,
        offset: DVec3::ZERO,
        end: None,
        axis: root_axis_q,
    }];
    let mut bones = vec![AsfBone {
        dof: if root_order.is_empty() {
            vec![
                Dof::Translate(0),
                Dof::Translate(1),
                Dof::Translate(2),
                Dof::Rotate(0),
                Dof::Rotate(1),
                Dof::Rotate(2),
            ]
        } else {
            root_order
        },
        axis: root_axis_q,
        direction: DVec3::ZERO,
        length: 0.0,
    }];

    // Place bones in hierarchy order, so that parents come before children.
    let mut placed: Vec<Option<usize>> = vec![None; raw_bones.len()];
    // AsfBone names are case-insensitive (the spec says so); a table keeps this linear.
    let by_name: HashMap<Vec<u8>, usize> = raw_bones
        .iter()
        .enumerate()
        .map(|(i, b)| (b.name.to_ascii_lowercase().into_bytes(), i))
        .collect();
    let find = |name: &[u8], placed: &[Option<usize>]| -> Option<(usize, Option<usize>)> {
        by_name
            .get(&name.to_ascii_lowercase())
            .map(|&i| (i, placed[i]))
    };
    for line in &hierarchy {
        let parent_token = &line[0];
        let parent = if parent_token.is("root") {
            0
        } else {
            match find(parent_token.text, &placed) {
                Some((_, Some(j))) => j,
                Some((_, None)) => {
                    return Err(parent_token.error(format!(
                        "bone {:?} is a parent before it is anyone's child",
                        parent_token.lossy()
                    )))
                }
                None => {
                    return Err(parent_token.error(format!(
                        "the hierarchy names {:?}, which :bonedata does not define",
                        parent_token.lossy()
                    )))
                }
            }
        };
        for child in &line[1..] {
            let Some((i, already)) = find(child.text, &placed) else {
                return Err(child.error(format!(
                    "the hierarchy names {:?}, which :bonedata does not define",
                    child.lossy()
                )));
            };
            if already.is_some() {
                return Err(child.error(format!("bone {:?} has two parents", child.lossy())));
            }
            let raw = &raw_bones[i];
            let axis = euler(
                raw.axis_order
                    .iter()
                    .map(|&a| (a, angle(raw.axis_angles[a]))),
            );
            let length = raw.length * length_unit;
            let offset = bones[parent].direction * bones[parent].length;
            joints.push(CaptureJoint {
                name: raw.name.clone(),
                parent: Some(parent),
                offset,
                end: Some(raw.direction * length),
                axis,
            });
            bones.push(AsfBone {
                dof: raw.dof.clone(),
                axis,
                direction: raw.direction,
                length,
            });
            placed[i] = Some(joints.len() - 1);
        }
    }
    for (raw, p) in raw_bones.iter().zip(&placed) {
        if p.is_none() {
            warnings.push(format!(
                "bone {:?} (line {}) is not in the hierarchy; ignored",
                raw.name, raw.line
            ));
        }
    }
    Ok(Asf {
        skeleton: CaptureSkeleton { joints },
        bones,
        length_unit,
        radians,
        root_position: root_position * length_unit,
        warnings,
    })
}

fn read_bonedata(tokens: &mut Tokens, bones: &mut Vec<RawBone>) -> Result<(), TextError> {
    let mut names: HashSet<String> = bones.iter().map(|b| b.name.to_ascii_lowercase()).collect();
    while let Some(t) = tokens.peek() {
        if is_keyword(&t) {
            return Ok(());
        }
        tokens.next_token();
        if !t.is("begin") {
            return Err(t.error(format!("expected begin (a bone), found {:?}", t.lossy())));
        }
        let mut bone = RawBone {
            name: String::new(),
            direction: DVec3::ZERO,
            length: 0.0,
            axis_angles: DVec3::ZERO,
            axis_order: vec![0, 1, 2],
            dof: Vec::new(),
            line: t.line,
        };
        loop {
            let k = next(tokens, "end")?;
            if k.is("end") {
                break;
            }
            if k.is("name") {
                bone.name = next(tokens, "a bone name")?.lossy();
            } else if k.is("direction") {
                let d = vec3(tokens, "the bone direction")?;
                bone.direction = d.try_normalize().unwrap_or(DVec3::ZERO);
            } else if k.is("length") {
                bone.length = number(tokens, "the bone length")?;
            } else if k.is("axis") {
                bone.axis_angles = vec3(tokens, "the bone axis")?;
                bone.axis_order = axis_order(&next(tokens, "the axis order")?)?;
            } else if k.is("dof") {
                while let Some(d) = tokens.peek().and_then(|d| Dof::parse(d.text)) {
                    tokens.next_token();
                    bone.dof.push(d);
                }
            } else if k.is("limits") {
                // One (min max) pair per dof; `inf` allowed. Not needed for playback.
                for _ in 0..2 * bone.dof.len() {
                    next(tokens, "a limit")?;
                }
            }
            // id, bodymass, cofmass and vendor keys: their values are skipped as
            // unknown tokens until the next known key.
        }
        if bone.name.is_empty() {
            return Err(TextError::new(bone.line, 1, "a bone without a name"));
        }
        if !names.insert(bone.name.to_ascii_lowercase()) {
            return Err(TextError::new(
                bone.line,
                1,
                format!("bone {:?} is defined twice", bone.name),
            ));
        }
        bones.push(bone);
    }
    Ok(())
}

/// `begin`, lines of `parent child…`, `end`.
fn read_hierarchy<'a>(tokens: &mut Tokens<'a>) -> Result<Vec<Vec<Token<'a>>>, TextError> {
    let begin = next(tokens, "begin")?;
    if !begin.is("begin") {
        return Err(begin.error(format!("expected begin, found {:?}", begin.lossy())));
    }
    let mut lines: Vec<Vec<Token>> = Vec::new();
    loop {
        let t = next(tokens, "end")?;
        if t.is("end") {
            return Ok(lines);
        }
        match lines.last_mut() {
            Some(line) if line[0].line == t.line => line.push(t),
            _ => lines.push(vec![t]),
        }
    }
}
