//! An animated stick figure of the robot performing a motion: forward kinematics over the
//! profile's skeleton, seen from the side and from above, at true speed, looping. As SVG
//! (SMIL animation, no script) or HTML (a canvas and a few lines of script), or as one
//! still frame.

use std::fmt::Write as _;

use glam::DVec3;

use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::profile::Profile;
use crate::robot::skeleton::{Skeleton, SkeletonError};
use crate::stability::plan::PAWS;

/// Most frames an animation holds; longer motions are sampled more sparsely (the
/// viewer interpolates between samples).
const MAX_SAMPLES: usize = 1500;

const VIEW_W: f64 = 460.0;
const VIEW_H: f64 = 400.0;
const HEADER: f64 = 36.0;
/// Pixels per millimetre.
const SCALE: f64 = 1.1;

/// The legs' colours, by side: their lines and their footfalls.
const LEFT_LEGS: &str = "#1f77b4";
const RIGHT_LEGS: &str = "#d62728";

/// The figure's lines, as pairs of bone indices, and the colour of each.
/// Why a motion cannot be previewed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PreviewError {
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    #[error("cannot simulate it: {0}")]
    Physics(String),
}

/// Which body the figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Figure {
    /// The joints as the motion sets them, the body standing where its first frame rests.
    #[default]
    Kinematic,
    /// The simulated robot (`simulate`): where physics puts it, falls included.
    Physics,
}

struct StickFigure {
    skeleton: Skeleton,
    segments: Vec<(usize, usize, &'static str)>,
    /// The paws' bones, in [`PAWS`] order, where the skeleton has them.
    paws: Vec<(&'static str, usize)>,
}

impl StickFigure {
    fn of(profile: &Profile) -> Result<StickFigure, SkeletonError> {
        let skeleton = Skeleton::of(profile)?;
        let find = |name: &str| skeleton.bones.iter().position(|b| b.name == name);
        let mut segments = Vec::new();
        for (i, b) in skeleton.bones.iter().enumerate() {
            let Some(p) = b.parent else { continue };
            if p == 0 {
                continue; // the torso is drawn below
            }
            if b.offset.length() < 1e-9 {
                continue; // joints that share a point (pan over tilt, J2 over J1)
            }
            let colour = match b.name.get(..2) {
                Some("lf" | "lh") => LEFT_LEGS,
                Some("rf" | "rh") => RIGHT_LEGS,
                Some("ta") => "#8c564b",
                _ => "#2ca02c",
            };
            segments.push((p, i, colour));
        }
        // Torso: the four hips in a ring, and the neck and tail bases joined to it.
        let hips: Vec<usize> = ["lf_j1", "rf_j1", "rh_j1", "lh_j1"]
            .iter()
            .filter_map(|n| find(n))
            .collect();
        for k in 0..hips.len() {
            segments.push((hips[k], hips[(k + 1) % hips.len()], "#444444"));
        }
        if let (Some(neck), Some(&a), Some(&b)) = (
            find("head_tilt").or(find("head_pan")),
            hips.first(),
            hips.get(1),
        ) {
            segments.push((a, neck, "#444444"));
            segments.push((b, neck, "#444444"));
        }
        if let (Some(tail), Some(&a), Some(&b)) = (
            find("tail_tilt").or(find("tail_pan")),
            hips.get(2),
            hips.get(3),
        ) {
            segments.push((a, tail, "#444444"));
            segments.push((b, tail, "#444444"));
        }
        let paws = PAWS
            .iter()
            .filter_map(|&p| find(&format!("{p}_paw")).map(|b| (p, b)))
            .collect();
        Ok(StickFigure {
            skeleton,
            segments,
            paws,
        })
    }
}

/// The bones' positions, sampled through the motion, with the time between samples.
struct Samples {
    frames: Vec<Vec<DVec3>>,
    step_s: f64,
    /// Where the profile has a mass model: each sample's support and centre of mass.
    support: Option<Vec<Support>>,
    footfalls: Vec<Footfall>,
}

/// Where a paw came down, for the top view: the sample it lands at, the point (pixels)
/// and the paw's side colour.
struct Footfall {
    sample: usize,
    at: (f64, f64),
    colour: &'static str,
}

/// A simulated paw's centre is down below this height (mm), and up again above the
/// second: the gap keeps a paw that trembles at the floor from landing twice.
const PAW_DOWN_MM: f64 = 3.0;
const PAW_UP_MM: f64 = 8.0;

/// The footfalls: each time a paw comes down (`down[sample][paw]`, and at the first
/// sample every paw that is down), where it is in the top view of `frames`.
fn footfalls(figure: &StickFigure, frames: &[Vec<DVec3>], down: &[Vec<bool>]) -> Vec<Footfall> {
    let mut out = Vec::new();
    for (i, (f, now)) in frames.iter().zip(down).enumerate() {
        for (k, &(name, bone)) in figure.paws.iter().enumerate() {
            let was = i > 0 && down[i - 1].get(k).copied().unwrap_or(false);
            if now.get(k).copied().unwrap_or(false) && !was {
                out.push(Footfall {
                    sample: i,
                    at: project(f[bone], 1),
                    colour: if name.starts_with('l') {
                        LEFT_LEGS
                    } else {
                        RIGHT_LEGS
                    },
                });
            }
        }
    }
    out
}

/// Which simulated paws are down at each sample (their centres at the ground line).
fn simulated_down(figure: &StickFigure, frames: &[Vec<DVec3>]) -> Vec<Vec<bool>> {
    let mut state = vec![false; figure.paws.len()];
    frames
        .iter()
        .map(|f| {
            for (k, &(_, bone)) in figure.paws.iter().enumerate() {
                let z = f[bone].z;
                state[k] = if state[k] {
                    z < PAW_UP_MM
                } else {
                    z < PAW_DOWN_MM
                };
            }
            state.clone()
        })
        .collect()
}

/// What the top view shows of the balance: the support polygon, the centre of mass, and
/// whether the frame tips (the static test of `check --balance`), drawn in the figure's
/// own frame, under the paws meant to carry it; and which paws those are.
struct Support {
    polygon: Vec<(f64, f64)>,
    com: (f64, f64),
    tips: bool,
    /// Per paw of the figure (`StickFigure::paws`): meant to be down.
    carrying: Vec<bool>,
}

impl Support {
    fn points(&self) -> String {
        let pts: Vec<String> = self
            .polygon
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        pts.join(" ")
    }

    fn colour(&self) -> &'static str {
        if self.tips {
            "#d62728"
        } else {
            "#2ca02c"
        }
    }
}

/// The bones where the simulation has them at the dense frames `indices`; `progress`
/// hears how far it has come (ms played, of ms to play), each whole second.
fn simulated(
    motion: &Motion,
    profile: &Profile,
    indices: &[u64],
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Vec<Vec<DVec3>>, PreviewError> {
    #[cfg(feature = "physics")]
    {
        use crate::stability::physics::{self, Progress};
        let mut frames = physics::bones_at(
            motion,
            profile,
            physics::SERVO_TORQUE_NM,
            indices,
            &mut |p| {
                if let Progress::Simulated { done_ms, total_ms } = p {
                    progress(done_ms, total_ms);
                }
            },
        )
        .map_err(|e| PreviewError::Physics(e.to_string()))?;
        // The simulation has the paws' centres a paw's radius over the floor; the figure
        // draws bones, so its paws' centres go on the ground line, as the still figure's.
        let radius = profile.mass.as_ref().map_or(0.0, |m| m.paw_radius);
        for p in frames.iter_mut().flatten() {
            p.z -= radius;
        }
        Ok(frames)
    }
    #[cfg(not(feature = "physics"))]
    {
        let _ = (motion, profile, indices, progress);
        Err(PreviewError::Physics(
            "this build has no physics (the `physics` feature)".into(),
        ))
    }
}

fn sample(
    figure: &StickFigure,
    motion: &Motion,
    profile: &Profile,
    body: Figure,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Samples, PreviewError> {
    // The 16 ms grid, or sparser for long motions; frames are computed one by one, so a
    // motion of hours (or a hostile file) costs no more than a short one.
    let count = mtn::dense_frame_count(motion);
    let stride = 2u64.max(count.div_ceil(MAX_SAMPLES as u64));
    let mut indices: Vec<u64> = (0..count).step_by(stride as usize).collect();
    if count > 0 && indices.last() != Some(&(count - 1)) {
        indices.push(count - 1);
    }
    let picked: Vec<mtn::DenseFrame> = indices
        .iter()
        .filter_map(|&i| mtn::dense_frame_at(motion, i))
        .collect();
    let pose = |f: &mtn::DenseFrame| {
        let angles: Vec<f64> = f.joints.iter().map(|&u| u as f64 * 1e-6).collect();
        let body = f.body.map(|u| u as f64 * 1e-6);
        figure.skeleton.pose(&angles, body).positions
    };
    let step_s = (stride * DENSE_FRAME_MS) as f64 / 1000.0;
    if body == Figure::Physics {
        let mut frames = simulated(motion, profile, &indices, progress)?;
        let down = simulated_down(figure, &frames);
        fit_to_views(&mut frames);
        return Ok(Samples {
            footfalls: footfalls(figure, &frames, &down),
            frames,
            step_s,
            support: None,
        });
    }
    let mut frames: Vec<Vec<DVec3>> = picked.iter().map(pose).collect();
    // The static test at the same samples (none without a mass model).
    let support = crate::stability::statics::stances_at(motion, profile, indices.iter().copied())
        .ok()
        .map(|stances| {
            stances
                .iter()
                .map(|st| {
                    // The static test turns the robot to the attitude it means to stand
                    // at; turned back, its support lies under the figure's paws.
                    let back = st.meant.inverse();
                    let at = |x: f64, y: f64| project(back * DVec3::new(x, y, st.floor_mm), 1);
                    Support {
                        polygon: st.support.iter().map(|p| at(p.x, p.y)).collect(),
                        com: at(st.com.x, st.com.y),
                        tips: st.verdict(crate::stability::statics::DEFAULT_MARGIN_MM)
                            == crate::stability::statics::Verdict::Unstable,
                        carrying: figure
                            .paws
                            .iter()
                            .map(|(p, _)| st.stands_on_paw(p))
                            .collect(),
                    }
                })
                .collect()
        });
    // Stand the figure on the ground: the lowest point of the first frame at z = 0.
    let lowest = frames
        .first()
        .map_or(0.0, |f| f.iter().map(|p| p.z).fold(f64::INFINITY, f64::min));
    for f in &mut frames {
        for p in f {
            p.z -= lowest;
        }
    }
    // The figure stands where it is: its footfalls are the planned contacts' landings.
    let down: Vec<Vec<bool>> = support
        .iter()
        .flatten()
        .map(|s: &Support| s.carrying.clone())
        .collect();
    Ok(Samples {
        footfalls: footfalls(figure, &frames, &down),
        frames,
        step_s,
        support,
    })
}

/// The support polygon and centre of mass in the top view, animated with the figure
/// (green while it stands, red while it tips).
fn support_svg(out: &mut String, support: &[Support], duration: f64, animate: bool) {
    let Some(first) = support.first() else {
        return;
    };
    let _ = write!(
        out,
        r##"<polygon points="{}" fill="{}" fill-opacity="0.15" stroke="{}" stroke-width="1.5">"##,
        first.points(),
        first.colour(),
        first.colour()
    );
    if animate && support.len() > 1 {
        let points: Vec<String> = support.iter().map(Support::points).collect();
        let colours: Vec<&str> = support.iter().map(Support::colour).collect();
        let _ = write!(
            out,
            r#"<animate attributeName="points" dur="{duration:.3}s" repeatCount="indefinite" calcMode="discrete" values="{}"/>"#,
            points.join(";")
        );
        for attr in ["fill", "stroke"] {
            let _ = write!(
                out,
                r#"<animate attributeName="{attr}" dur="{duration:.3}s" repeatCount="indefinite" calcMode="discrete" values="{}"/>"#,
                colours.join(";")
            );
        }
    }
    out.push_str("</polygon>\n");
    let _ = write!(
        out,
        r##"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{}" stroke="#fff" stroke-width="1">"##,
        first.com.0,
        first.com.1,
        first.colour()
    );
    if animate && support.len() > 1 {
        for (attr, pick) in [("cx", 0usize), ("cy", 1)] {
            let values: Vec<String> = support
                .iter()
                .map(|s| format!("{:.1}", [s.com.0, s.com.1][pick]))
                .collect();
            let _ = write!(
                out,
                r#"<animate attributeName="{attr}" dur="{duration:.3}s" repeatCount="indefinite" values="{}"/>"#,
                values.join(";")
            );
        }
        let colours: Vec<&str> = support.iter().map(Support::colour).collect();
        let _ = write!(
            out,
            r#"<animate attributeName="fill" dur="{duration:.3}s" repeatCount="indefinite" calcMode="discrete" values="{}"/>"#,
            colours.join(";")
        );
    }
    out.push_str("</circle>\n");
}

/// A ring on each paw while it is meant to carry the robot (the static test's meant
/// support: the planned contacts of a built motion), in `view`.
fn paws_svg(
    out: &mut String,
    figure: &StickFigure,
    frames: &[Vec<DVec3>],
    support: &[Support],
    view: usize,
    duration: f64,
    animate: bool,
) {
    let (Some(first), Some(first_support)) = (frames.first(), support.first()) else {
        return;
    };
    for (k, &(_, bone)) in figure.paws.iter().enumerate() {
        let down = |s: &Support| s.carrying.get(k).copied().unwrap_or(false);
        let (x, y) = project(first[bone], view);
        let _ = write!(
            out,
            r##"<circle cx="{x:.1}" cy="{y:.1}" r="7" fill="none" stroke="#222" stroke-width="2" opacity="{}">"##,
            u8::from(down(first_support))
        );
        if animate && frames.len() > 1 {
            for (attr, pick) in [("cx", 0usize), ("cy", 1)] {
                let values: Vec<String> = frames
                    .iter()
                    .map(|f| {
                        let (x, y) = project(f[bone], view);
                        format!("{:.1}", [x, y][pick])
                    })
                    .collect();
                let _ = write!(
                    out,
                    r#"<animate attributeName="{attr}" dur="{duration:.3}s" repeatCount="indefinite" values="{}"/>"#,
                    values.join(";")
                );
            }
            let shown: Vec<&str> = support
                .iter()
                .map(|s| if down(s) { "1" } else { "0" })
                .collect();
            let _ = write!(
                out,
                r#"<animate attributeName="opacity" dur="{duration:.3}s" repeatCount="indefinite" calcMode="discrete" values="{}"/>"#,
                shown.join(";")
            );
        }
        out.push_str("</circle>\n");
    }
}

/// A dot in the top view where each paw came down, shown from the moment it lands.
fn footfalls_svg(out: &mut String, samples: &Samples, duration: f64, animate: bool) {
    for f in &samples.footfalls {
        let (x, y) = f.at;
        let lands = f.sample as f64 * samples.step_s;
        let _ = write!(
            out,
            r#"<circle class="footfall" cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{}" opacity="{}">"#,
            f.colour,
            if animate && lands > 0.0 { "0" } else { "0.6" }
        );
        if animate && lands > 0.0 && duration > 0.0 {
            let _ = write!(
                out,
                r#"<animate attributeName="opacity" dur="{duration:.3}s" repeatCount="indefinite" calcMode="discrete" keyTimes="0;{:.4}" values="0;0.6"/>"#,
                (lands / duration).min(1.0)
            );
        }
        out.push_str("</circle>\n");
    }
}

/// How far from a view's centre a figure may reach, mm at [`SCALE`]: sideways in both
/// views, and up or down in the top view, clear of its label above and the clock below.
const ROOM_X_MM: f64 = (VIEW_W * 0.48 - 12.0) / SCALE;
const ROOM_Y_MM: f64 = (VIEW_H / 2.0 - 40.0) / SCALE;

/// A simulated body travels (it slides, turns, falls): its whole path is centred in the
/// views, and drawn smaller where it would reach past them or under the clock. The
/// ground stays at z = 0.
fn fit_to_views(frames: &mut [Vec<DVec3>]) {
    let points = || frames.iter().flatten();
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for p in points() {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return;
    }
    let centre = DVec3::new((lo.x + hi.x) / 2.0, (lo.y + hi.y) / 2.0, 0.0);
    let half = (hi - lo) / 2.0;
    let zoom = [ROOM_X_MM / half.x, ROOM_Y_MM / half.y, 1.0]
        .into_iter()
        .filter(|z| z.is_finite())
        .fold(1.0_f64, f64::min);
    for p in frames.iter_mut().flatten() {
        *p = (*p - centre) * zoom;
    }
}

/// Side view: forward to the right, up is up. Top view: forward to the right, left is up.
fn project(p: DVec3, view: usize) -> (f64, f64) {
    let x0 = if view == 0 { 0.0 } else { VIEW_W };
    let cx = x0 + VIEW_W * 0.48;
    if view == 0 {
        (cx + p.x * SCALE, HEADER + VIEW_H - 40.0 - p.z * SCALE)
    } else {
        (cx + p.x * SCALE, HEADER + VIEW_H / 2.0 - p.y * SCALE)
    }
}

fn frame_of(motion: &Motion, at_s: f64) -> Motion {
    // One keyframe holding the dense frame at `at_s`.
    let index = (at_s * 1000.0 / DENSE_FRAME_MS as f64).round().max(0.0) as u64;
    let last = mtn::dense_frame_count(motion).saturating_sub(1);
    let frame = mtn::dense_frame_at(motion, index.min(last));
    let mut still = motion.clone();
    if let Some(f) = frame {
        still.keyframes = vec![mtn::Keyframe {
            frames_before: 0,
            roll: f.body[0],
            pitch: f.body[1],
            yaw: f.body[2],
            joints: f.joints,
        }];
    }
    still
}

/// The colours of the figure's parts, as the legend names them.
const LEGEND: [(&str, &str); 5] = [
    (LEFT_LEGS, "left legs"),
    (RIGHT_LEGS, "right legs"),
    ("#2ca02c", "head"),
    ("#8c564b", "tail"),
    ("#444444", "body"),
];

/// The legend, top right: which colour is which side.
fn legend(out: &mut String) {
    let mut x = 2.0 * VIEW_W - 12.0 - 88.0 * LEGEND.len() as f64 - 132.0 - 84.0;
    // The dot marks where a paw came down, in the top view.
    let _ = writeln!(
        out,
        r##"<circle cx="{:.0}" cy="19" r="3.5" fill="#888"/><text x="{:.0}" y="23" font-family="sans-serif" font-size="12" fill="#333">footfall</text>"##,
        x + 5.0,
        x + 14.0
    );
    x += 84.0;
    // The ring marks a paw meant to carry the robot (drawn where there is a mass model).
    let _ = writeln!(
        out,
        r##"<circle cx="{:.0}" cy="19" r="6" fill="none" stroke="#222" stroke-width="2"/><text x="{:.0}" y="23" font-family="sans-serif" font-size="12" fill="#333">paw meant down</text>"##,
        x + 7.0,
        x + 18.0
    );
    x += 132.0;
    for (colour, name) in LEGEND {
        let _ = writeln!(
            out,
            r##"<line x1="{x:.0}" y1="19" x2="{:.0}" y2="19" stroke="{colour}" stroke-width="4" stroke-linecap="round"/><text x="{:.0}" y="23" font-family="sans-serif" font-size="12" fill="#333">{name}</text>"##,
            x + 14.0,
            x + 20.0
        );
        x += 88.0;
    }
}

/// Where the clock sits: the lower right of the top view.
fn clock_position() -> (f64, f64) {
    (2.0 * VIEW_W - 12.0, HEADER + VIEW_H - 14.0)
}

/// A still's time, `2.50 s of 4.22 s`, drawn where the clock sits.
fn still_time(out: &mut String, at_s: f64, duration_s: f64) {
    let (x, y) = clock_position();
    let _ = writeln!(
        out,
        r##"<text x="{x:.0}" y="{y:.0}" text-anchor="end" font-family="sans-serif" font-size="14" fill="#333">{at_s:.2} s of {duration_s:.2} s</text>"##
    );
}

/// A running clock for the SMIL animation: a bar that fills over the motion's length,
/// with its start and end times (SMIL cannot change text, so the bar is the clock).
fn running_clock(out: &mut String, duration_s: f64) {
    let (right, y) = clock_position();
    let (width, left) = (160.0, right - 160.0);
    let _ = write!(
        out,
        r##"<rect x="{left:.0}" y="{:.0}" width="{width:.0}" height="6" fill="#e6e6e6"/>
<rect x="{left:.0}" y="{:.0}" width="0" height="6" fill="#666"><animate attributeName="width" dur="{duration_s:.3}s" repeatCount="indefinite" values="0;{width:.0}"/></rect>
<text x="{:.0}" y="{:.0}" text-anchor="end" font-family="sans-serif" font-size="12" fill="#333">0 s</text>
<text x="{right:.0}" y="{:.0}" text-anchor="end" font-family="sans-serif" font-size="12" fill="#333">{duration_s:.2} s</text>
"##,
        y - 10.0,
        y - 10.0,
        left - 6.0,
        y - 4.0,
        y + 10.0,
    );
}

fn backdrop(out: &mut String, title: &str) {
    let w = 2.0 * VIEW_W;
    let h = HEADER + VIEW_H;
    let _ = write!(
        out,
        r##"<rect width="{w}" height="{h}" fill="#ffffff"/>
<text x="12" y="24" font-family="sans-serif" font-size="16">{}</text>
<text x="{:.0}" y="{:.0}" font-family="sans-serif" font-size="13" fill="#666">side (forward →)</text>
<text x="{:.0}" y="{:.0}" font-family="sans-serif" font-size="13" fill="#666">top (forward →, left ↑)</text>
<line x1="10" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#bbb" stroke-width="1"/>
<line x1="{VIEW_W}" y1="{HEADER}" x2="{VIEW_W}" y2="{h}" stroke="#ddd" stroke-width="1"/>
"##,
        xml_escape(title),
        12.0,
        HEADER + 18.0,
        VIEW_W + 12.0,
        HEADER + 18.0,
        HEADER + VIEW_H - 40.0,
        VIEW_W - 10.0,
        HEADER + VIEW_H - 40.0,
    );
    legend(out);
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An animated SVG (SMIL: every line's ends move through the samples, looping). With
/// `at_s`, a still SVG of that moment instead. With [`Figure::Physics`], `progress` hears
/// how far the simulation has come (ms played, of ms to play), each whole second.
pub fn svg(
    motion: &Motion,
    profile: &Profile,
    title: &str,
    at_s: Option<f64>,
    body: Figure,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<String, PreviewError> {
    let figure = StickFigure::of(profile)?;
    let count = mtn::dense_frame_count(motion);
    let length_s = count.saturating_sub(1) as f64 * DENSE_FRAME_MS as f64 / 1000.0;
    let samples = match (at_s, body) {
        // A still of the simulation: played up to that moment, the views fitted to the
        // path so far, with the footfalls on it.
        (Some(t), Figure::Physics) => {
            let index = ((t * 1000.0 / DENSE_FRAME_MS as f64).round().max(0.0) as u64)
                .min(count.saturating_sub(1));
            let stride = 2u64.max((index + 1).div_ceil(MAX_SAMPLES as u64));
            let mut indices: Vec<u64> = (0..index).step_by(stride as usize).collect();
            indices.push(index);
            let mut frames = simulated(motion, profile, &indices, progress)?;
            let down = simulated_down(&figure, &frames);
            fit_to_views(&mut frames);
            let footfalls = footfalls(&figure, &frames, &down);
            Samples {
                footfalls: footfalls
                    .into_iter()
                    .map(|f| Footfall { sample: 0, ..f })
                    .collect(),
                frames: frames.split_off(frames.len().saturating_sub(1)),
                step_s: DENSE_FRAME_MS as f64 / 1000.0,
                support: None,
            }
        }
        (Some(t), Figure::Kinematic) => {
            sample(&figure, &frame_of(motion, t), profile, body, progress)?
        }
        (None, _) => sample(&figure, motion, profile, body, progress)?,
    };
    let (w, h) = (2.0 * VIEW_W, HEADER + VIEW_H);
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">
"#
    );
    backdrop(&mut out, title);
    let n = samples.frames.len();
    let duration = (n.saturating_sub(1)) as f64 * samples.step_s;
    match at_s {
        Some(t) => still_time(&mut out, t.min(length_s), length_s),
        None if n > 1 => running_clock(&mut out, duration),
        None => {}
    }
    if let Some(support) = &samples.support {
        support_svg(&mut out, support, duration, at_s.is_none());
    }
    footfalls_svg(&mut out, &samples, duration, at_s.is_none());
    for view in 0..2 {
        if let Some(support) = &samples.support {
            paws_svg(
                &mut out,
                &figure,
                &samples.frames,
                support,
                view,
                duration,
                at_s.is_none(),
            );
        }
        for &(a, b, colour) in &figure.segments {
            let end = |f: &Vec<DVec3>| (project(f[a], view), project(f[b], view));
            let Some(first) = samples.frames.first() else {
                continue;
            };
            let ((x1, y1), (x2, y2)) = end(first);
            let _ = write!(
                out,
                r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{colour}" stroke-width="4" stroke-linecap="round">"#
            );
            if n > 1 && at_s.is_none() {
                for (attr, pick) in [("x1", 0usize), ("y1", 1), ("x2", 2), ("y2", 3)] {
                    let values: Vec<String> = samples
                        .frames
                        .iter()
                        .map(|f| {
                            let ((x1, y1), (x2, y2)) = end(f);
                            format!("{:.1}", [x1, y1, x2, y2][pick])
                        })
                        .collect();
                    let _ = write!(
                        out,
                        r#"<animate attributeName="{attr}" dur="{duration:.3}s" repeatCount="indefinite" values="{}"/>"#,
                        values.join(";")
                    );
                }
            }
            out.push_str("</line>\n");
        }
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// An HTML page with the same figure drawn on a canvas by a short script, at true
/// speed, looping, with the time shown; `progress` as [`svg`]'s.
pub fn html(
    motion: &Motion,
    profile: &Profile,
    title: &str,
    body: Figure,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<String, PreviewError> {
    let figure = StickFigure::of(profile)?;
    let samples = sample(&figure, motion, profile, body, progress)?;
    let (w, h) = (2.0 * VIEW_W, HEADER + VIEW_H);
    // Per sample: the support polygon's points, the centre of mass, and 1 while it tips.
    let support = samples.support.as_ref().map_or("[]".to_string(), |all| {
        let each: Vec<String> = all
            .iter()
            .map(|s| {
                let pts: Vec<String> = s
                    .polygon
                    .iter()
                    .map(|(x, y)| format!("{x:.1},{y:.1}"))
                    .collect();
                format!(
                    "[[{}],{:.1},{:.1},{}]",
                    pts.join(","),
                    s.com.0,
                    s.com.1,
                    u8::from(s.tips)
                )
            })
            .collect();
        format!("[{}]", each.join(","))
    });
    // Per sample: each paw meant to be down, where it is (side view, then top view).
    let paws = samples.support.as_ref().map_or("[]".to_string(), |all| {
        let each: Vec<String> = all
            .iter()
            .zip(&samples.frames)
            .map(|(s, f)| {
                let down: Vec<String> = figure
                    .paws
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| s.carrying.get(*k).copied().unwrap_or(false))
                    .map(|(_, &(_, bone))| {
                        let ((a, b), (c, d)) = (project(f[bone], 0), project(f[bone], 1));
                        format!("{a:.1},{b:.1},{c:.1},{d:.1}")
                    })
                    .collect();
                format!("[{}]", down.join(","))
            })
            .collect();
        format!("[{}]", each.join(","))
    });
    // Per footfall: the sample it lands at, its top-view point, its colour.
    let footfalls: Vec<String> = samples
        .footfalls
        .iter()
        .map(|f| {
            format!(
                "[{},{:.1},{:.1},\"{}\"]",
                f.sample, f.at.0, f.at.1, f.colour
            )
        })
        .collect();
    let footfalls = format!("[{}]", footfalls.join(","));
    let mut frames = String::from("[");
    for (i, f) in samples.frames.iter().enumerate() {
        if i > 0 {
            frames.push(',');
        }
        frames.push('[');
        for (k, &(a, b, _)) in figure.segments.iter().enumerate() {
            for view in 0..2 {
                let ((x1, y1), (x2, y2)) = (project(f[a], view), project(f[b], view));
                if k > 0 || view > 0 {
                    frames.push(',');
                }
                let _ = write!(frames, "{x1:.1},{y1:.1},{x2:.1},{y2:.1}");
            }
        }
        frames.push(']');
    }
    frames.push(']');
    let colours = figure
        .segments
        .iter()
        .map(|s| format!("\"{}\"", s.2))
        .collect::<Vec<_>>()
        .join(",");
    let mut backdrop_svg = String::new();
    backdrop(&mut backdrop_svg, title);
    Ok(format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{margin:0;font-family:sans-serif}} #stage{{position:relative;width:{w}px;height:{h}px}} #stage>*{{position:absolute;left:0;top:0}} #clock{{position:absolute;left:auto;right:12px;top:auto;bottom:8px;font-size:14px;color:#333}}</style>
</head><body>
<div id="stage">
<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">{backdrop_svg}</svg>
<canvas id="figure" width="{w}" height="{h}"></canvas>
<div id="clock"></div>
</div>
<script>
// Generated by aibo-motion preview: line ends per frame (side view, then top view, per segment).
const frames = {frames};
// The support polygon (x, y, …), centre of mass and 1 while tipping, per frame.
const support = {support};
// The paws meant to carry the robot (side x, y, top x, y each), per frame.
const paws = {paws};
// Where each paw came down: the frame it lands at, top x, y, and its colour.
const footfalls = {footfalls};
const colours = [{colours}];
const step = {step};
const duration = Math.max(step * (frames.length - 1), step);
const ctx = document.getElementById("figure").getContext("2d");
const clock = document.getElementById("clock");
ctx.lineWidth = 4; ctx.lineCap = "round";
const start = performance.now();
function draw(now) {{
  // The first frame's timestamp may come before `start`: keep t in [0, duration).
  const t = (((now - start) / 1000) % duration + duration) % duration;
  const i = Math.max(0, Math.min(Math.floor(t / step), frames.length - 1));
  const j = Math.min(i + 1, frames.length - 1);
  const u = frames.length > 1 ? (t - i * step) / step : 0;
  const a = frames[i], b = frames[j];
  ctx.clearRect(0, 0, {w}, {h});
  if (support.length > i) {{
    const [pts, cx, cy, tips] = support[i];
    const colour = tips ? 'rgb(214,39,40)' : 'rgb(44,160,44)';
    ctx.save(); ctx.lineWidth = 1.5; ctx.strokeStyle = colour; ctx.fillStyle = colour;
    ctx.globalAlpha = 0.15; ctx.beginPath();
    for (let q = 0; q < pts.length; q += 2) {{ q ? ctx.lineTo(pts[q], pts[q + 1]) : ctx.moveTo(pts[q], pts[q + 1]); }}
    ctx.closePath(); ctx.fill(); ctx.globalAlpha = 1; ctx.stroke();
    ctx.beginPath(); ctx.arc(cx, cy, 5, 0, 2 * Math.PI); ctx.fill(); ctx.restore();
  }}
  ctx.save(); ctx.globalAlpha = 0.6;
  for (const [at, x, y, colour] of footfalls) {{
    if (at <= i) {{ ctx.fillStyle = colour; ctx.beginPath(); ctx.arc(x, y, 3.5, 0, 2 * Math.PI); ctx.fill(); }}
  }}
  ctx.restore();
  if (paws.length > i) {{
    ctx.save(); ctx.lineWidth = 2; ctx.strokeStyle = '#222';
    const p = paws[i];
    for (let q = 0; q < p.length; q += 2) {{ ctx.beginPath(); ctx.arc(p[q], p[q + 1], 7, 0, 2 * Math.PI); ctx.stroke(); }}
    ctx.restore();
  }}
  for (let s = 0; s < colours.length; s++) {{
    ctx.strokeStyle = colours[s];
    for (let v = 0; v < 2; v++) {{
      const k = (s * 2 + v) * 4;
      const p = q => a[k + q] + (b[k + q] - a[k + q]) * u;
      ctx.beginPath(); ctx.moveTo(p(0), p(1)); ctx.lineTo(p(2), p(3)); ctx.stroke();
    }}
  }}
  clock.textContent = t.toFixed(2) + " / " + duration.toFixed(2) + " s";
  requestAnimationFrame(draw);
}}
requestAnimationFrame(draw);
</script>
</body></html>
"#,
        title = xml_escape(title),
        step = samples.step_s,
    ))
}
