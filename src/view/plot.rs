//! Every joint's angle over time as an SVG chart (plotters' SVG backend): one panel per
//! limb, one light band for the range the panel's joints may take and each joint's own
//! limits as thin dashed lines in its colour, keyframes marked where a joint moves,
//! traces that lie on an earlier one dashed so that both show, and values past a limit
//! and segments faster than the joint circled and drawn in red.

use plotters::prelude::*;

use crate::check::{check, Violation};
use crate::mtn::{self, Motion, DENSE_FRAME_MS};
use crate::robot::profile::Profile;
use crate::units::urad_to_deg;

/// The panels, by joint-name prefix; joints that match none go to "other".
const GROUPS: [(&str, &[&str]); 6] = [
    ("Head", &["head_", "mouth", "l_ear", "r_ear"]),
    ("Left front leg", &["lf_"]),
    ("Right front leg", &["rf_"]),
    ("Left hind leg", &["lh_"]),
    ("Right hind leg", &["rh_"]),
    ("Tail", &["tail_"]),
];

const PANEL_HEIGHT: u32 = 230;
/// Past this many keyframes, keyframes are ticks on the time axis, not dots per joint.
const MAX_KEYFRAME_DOTS: usize = 400;
const WIDTH: u32 = 1200;
const TITLE_HEIGHT: u32 = 50;
/// The legend's left edge, in the right margin the charts leave free.
const LEGEND_X: i32 = (WIDTH - 180) as i32;

/// A colour per joint within a panel, distinct and readable on white.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
    RGBColor(140, 86, 75),
];

/// Two traces lie on each other where their keyframe values are this close (degrees).
const COINCIDENT_DEG: f64 = 0.5;

/// Points in time at which two traces are compared.
const COMPARED_TIMES: usize = 200;

/// Whether `b`'s trace lies on `a`'s for at least a fifth of the motion's time, so that
/// the one drawn second would hide the first there. The traces are the straight lines
/// between keyframes, as the plot draws them (and Sony's player plays them).
fn coincides(motion: &Motion, a: usize, b: usize) -> bool {
    let times = motion.keyframe_times_ms();
    let Some(&end) = times.last() else {
        return false;
    };
    let value = |j: usize, t: f64| -> f64 {
        let k = times.partition_point(|&x| (x as f64) <= t);
        let (k0, k1) = (k.saturating_sub(1), k.min(times.len() - 1));
        let (t0, t1) = (times[k0] as f64, times[k1] as f64);
        let (v0, v1) = (
            urad_to_deg(motion.keyframes[k0].joints[j]),
            urad_to_deg(motion.keyframes[k1].joints[j]),
        );
        if t1 > t0 {
            v0 + (v1 - v0) * (t - t0) / (t1 - t0)
        } else {
            v0
        }
    };
    let close = (0..COMPARED_TIMES)
        .map(|i| end as f64 * i as f64 / (COMPARED_TIMES - 1) as f64)
        .filter(|&t| (value(a, t) - value(b, t)).abs() < COINCIDENT_DEG)
        .count();
    close * 5 >= COMPARED_TIMES
}

/// Keyframes where joint `j` moves: its value differs from the keyframe before or after
/// (a flat stretch needs no marks).
fn moving_keyframes(motion: &Motion, j: usize) -> Vec<usize> {
    let v: Vec<i32> = motion.keyframes.iter().map(|kf| kf.joints[j]).collect();
    (0..v.len())
        .filter(|&k| {
            let before = k.checked_sub(1).map(|p| v[p]);
            let after = v.get(k + 1).copied();
            before.is_some_and(|b| b != v[k]) || after.is_some_and(|a| a != v[k])
        })
        .collect()
}

/// For each member of a panel, whether its trace lies on one drawn before it.
fn dashed_members(motion: &Motion, members: &[usize]) -> Vec<bool> {
    members
        .iter()
        .enumerate()
        .map(|(n, &j)| {
            members[..n]
                .iter()
                .any(|&earlier| coincides(motion, earlier, j))
        })
        .collect()
}

/// The joints of each non-empty panel, in profile order.
fn panels(profile: &Profile) -> Vec<(String, Vec<usize>)> {
    let mut used = vec![false; profile.joints.len()];
    let mut out = Vec::new();
    for (title, prefixes) in GROUPS {
        let members: Vec<usize> = (0..profile.joints.len())
            .filter(|&j| {
                prefixes
                    .iter()
                    .any(|p| profile.joints[j].name.starts_with(p))
            })
            .collect();
        for &j in &members {
            used[j] = true;
        }
        if !members.is_empty() {
            out.push((title.to_string(), members));
        }
    }
    let rest: Vec<usize> = (0..profile.joints.len()).filter(|&j| !used[j]).collect();
    if !rest.is_empty() {
        out.push(("Other".to_string(), rest));
    }
    out
}

fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// Why a motion cannot be plotted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlotError {
    #[error("the motion has {motion} joints and the {model} profile {profile}")]
    JointCount {
        motion: usize,
        model: String,
        profile: usize,
    },
    /// The SVG backend failed (it writes to memory, so this is not expected).
    #[error("drawing the plot: {message}")]
    Draw { message: String },
}

/// The chart of `motion` against `profile`, as SVG text.
pub fn svg(motion: &Motion, profile: &Profile, title: &str) -> Result<String, PlotError> {
    let joints = motion.keyframes.first().map_or(0, |k| k.joints.len());
    if joints != profile.joints.len() {
        return Err(PlotError::JointCount {
            motion: joints,
            model: profile.model.clone(),
            profile: profile.joints.len(),
        });
    }
    let drawing = |e: &dyn std::fmt::Display| PlotError::Draw {
        message: e.to_string(),
    };
    let report = check(motion, profile);
    let panels = panels(profile);
    // Where the profile has a mass model, a last panel: how far inside its support the
    // centre of mass is, frame by frame (the static test of `check --balance`).
    let balance = margin_samples(motion, profile);
    let extra = u32::from(balance.is_some());
    let height = TITLE_HEIGHT + PANEL_HEIGHT * (panels.len() as u32 + extra);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        draw(
            &root,
            motion,
            profile,
            title,
            &panels,
            &report.violations,
            balance.as_deref(),
        )
        .map_err(|e| drawing(&e))?;
        root.present().map_err(|e| drawing(&e))?;
    }
    Ok(text)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

fn draw(
    root: &Area<'_>,
    motion: &Motion,
    profile: &Profile,
    title: &str,
    panels: &[(String, Vec<usize>)],
    violations: &[Violation],
    balance: Option<&[(f64, crate::stability::statics::Stance)]>,
) -> DrawResult {
    root.fill(&WHITE)?;
    let (head, body) = root.split_vertically(TITLE_HEIGHT);
    let frames = mtn::dense_frame_count(motion);
    let duration = seconds(frames.saturating_sub(1) * DENSE_FRAME_MS).max(0.016);
    let flagged = violations.len();
    head.titled(
        &format!(
            "{title} — {} ({}), {:.2} s, {} keyframes, {}",
            profile.model,
            profile.design_label,
            duration,
            motion.keyframes.len(),
            match flagged {
                0 => "within every limit and speed".to_string(),
                n => format!("{n} limit or speed violations (red)"),
            }
        ),
        ("sans-serif", 20),
    )?;
    // Keyframe times in seconds.
    let mut times = Vec::with_capacity(motion.keyframes.len());
    let mut t = 0u64;
    for (k, kf) in motion.keyframes.iter().enumerate() {
        if k > 0 {
            t += (u64::from(kf.frames_before) + 1) * u64::from(mtn::FRAME_MS);
        }
        times.push(seconds(t));
    }
    let rows = panels.len() + usize::from(balance.is_some());
    let areas = body.split_evenly((rows, 1));
    for (area, (name, members)) in areas.iter().zip(panels) {
        draw_panel(
            area, name, members, &times, motion, profile, violations, duration,
        )?;
    }
    if let (Some(stances), Some(area)) = (balance, areas.last()) {
        draw_margin_panel(area, stances, duration)?;
    }
    Ok(())
}

type Panel<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// A panel over the motion's time, with its caption and a quiet grid (major lines only,
/// so the traces stand out).
fn panel_chart<'a, 'b>(
    area: &'a Area<'b>,
    caption: &str,
    duration: f64,
    y: std::ops::Range<f64>,
    unit: &str,
) -> Result<Panel<'a, 'b>, DrawingAreaErrorKind<std::io::Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin_left(10)
        .margin_right(190)
        .margin_top(4)
        .x_label_area_size(36)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..duration, y)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(unit)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(228, 228, 228))
        .draw()?;
    Ok(chart)
}

/// The static test at about two thousand frames through the motion (every frame of a
/// short one), with their times in seconds; `None` without a mass model.
fn margin_samples(
    motion: &Motion,
    profile: &Profile,
) -> Option<Vec<(f64, crate::stability::statics::Stance)>> {
    let count = mtn::dense_frame_count(motion);
    let stride = count.div_ceil(2000).max(1);
    let indices: Vec<u64> = (0..count).step_by(stride as usize).collect();
    let stances =
        crate::stability::statics::stances_at(motion, profile, indices.iter().copied()).ok()?;
    Some(
        indices
            .iter()
            .map(|&i| seconds(i * DENSE_FRAME_MS))
            .zip(stances)
            .collect(),
    )
}

/// The balance margin over time: mm inside the support (negative: tipping), with the
/// required margin dashed, and the unstable frames in red.
fn draw_margin_panel(
    area: &Area<'_>,
    stances: &[(f64, crate::stability::statics::Stance)],
    duration: f64,
) -> DrawResult {
    use crate::stability::statics::{Verdict, DEFAULT_MARGIN_MM};
    let points: Vec<(f64, f64, bool)> = stances
        .iter()
        .map(|(t, st)| {
            let t = *t;
            let m = if st.margin_mm.is_finite() {
                st.margin_mm.clamp(-200.0, 200.0)
            } else {
                -200.0
            };
            (t, m, st.verdict(DEFAULT_MARGIN_MM) == Verdict::Unstable)
        })
        .collect();
    let lo = points.iter().map(|p| p.1).fold(-20.0, f64::min);
    let hi = points.iter().map(|p| p.1).fold(60.0, f64::max);
    let pad = (hi - lo) * 0.06;
    // Below the trace, a lane per paw: a bar where it is meant to carry the robot (the
    // static test's meant support; a built motion's planned contacts).
    let lane = (hi - lo) * 0.07;
    let mut chart = panel_chart(
        area,
        "balance: the centre of mass inside the support (mm; red where it tips); \
         bars: the paws meant down",
        duration,
        (lo - pad - 4.6 * lane)..(hi + pad),
        "mm",
    )?;
    for (k, paw) in crate::stability::plan::PAWS.into_iter().enumerate() {
        let y = lo - pad - (k as f64 + 0.8) * lane;
        let colour = match k % 2 {
            0 => RGBColor(31, 119, 180),
            _ => RGBColor(214, 39, 40),
        };
        let down: Vec<bool> = stances
            .iter()
            .map(|(_, st)| st.stands_on_paw(paw))
            .collect();
        // Each stretch it stays down, as one bar.
        let mut first = 0;
        for run in down.chunk_by(|a, b| a == b) {
            let (t0, t1) = (stances[first].0, stances[first + run.len() - 1].0);
            first += run.len();
            if run[0] {
                chart.draw_series(LineSeries::new(
                    [(t0, y), (t1.max(t0 + duration * 0.002), y)],
                    colour.stroke_width(4),
                ))?;
            }
        }
        chart.draw_series(std::iter::once(Text::new(
            paw,
            (duration * 1.005, y + lane * 0.4),
            ("sans-serif", 11).into_font(),
        )))?;
    }
    chart.draw_series(LineSeries::new(
        [(0.0, 0.0), (duration, 0.0)],
        BLACK.mix(0.6),
    ))?;
    chart.draw_series(DashedLineSeries::new(
        [(0.0, DEFAULT_MARGIN_MM), (duration, DEFAULT_MARGIN_MM)],
        6,
        4,
        RGBColor(230, 140, 0).stroke_width(1),
    ))?;
    chart.draw_series(LineSeries::new(
        points.iter().map(|&(t, m, _)| (t, m)),
        RGBColor(31, 119, 180).stroke_width(2),
    ))?;
    chart.draw_series(
        points
            .iter()
            .filter(|p| p.2)
            .map(|&(t, m, _)| Circle::new((t, m), 2, RED.filled())),
    )?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn draw_panel(
    area: &Area<'_>,
    name: &str,
    members: &[usize],
    times: &[f64],
    motion: &Motion,
    profile: &Profile,
    violations: &[Violation],
    duration: f64,
) -> DrawResult {
    // The panel spans every member's limits and values, with a little room.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for &j in members {
        if let Some(l) = profile.joints[j].limits {
            lo = lo.min(l.min.to_degrees());
            hi = hi.max(l.max.to_degrees());
        }
        for kf in &motion.keyframes {
            let v = urad_to_deg(kf.joints[j]);
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if !(lo.is_finite() && hi.is_finite()) || hi - lo < 1.0 {
        lo = lo.min(-1.0);
        hi = hi.max(1.0);
    }
    let pad = (hi - lo) * 0.06;
    let mut chart = panel_chart(area, name, duration, (lo - pad)..(hi + pad), "degrees")?;
    // One light band: where the panel's joints may go.
    let ranges: Vec<(f64, f64)> = members
        .iter()
        .filter_map(|&j| profile.joints[j].limits)
        .map(|l| (l.min.to_degrees(), l.max.to_degrees()))
        .collect();
    if let (Some(low), Some(high)) = (
        ranges.iter().map(|r| r.0).reduce(f64::min),
        ranges.iter().map(|r| r.1).reduce(f64::max),
    ) {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0.0, low), (duration, high)],
            RGBColor(120, 120, 120).mix(0.06).filled(),
        )))?;
    }
    let dashed = dashed_members(motion, members);
    for (n, &j) in members.iter().enumerate() {
        let joint = &profile.joints[j];
        let color = PALETTE[n % PALETTE.len()];
        // Each joint's own limits: thin dashed lines in its colour.
        if let Some(l) = joint.limits {
            for bound in [l.min.to_degrees(), l.max.to_degrees()] {
                chart.draw_series(DashedLineSeries::new(
                    [(0.0, bound), (duration, bound)],
                    4,
                    4,
                    color.mix(0.5).stroke_width(1),
                ))?;
            }
        }
        // Sony's playback is linear between keyframes (to a few µrad of truncation), so
        // the line through the keyframes is the playback, at a fraction of the size.
        let keys = motion
            .keyframes
            .iter()
            .zip(times)
            .map(|(kf, &t)| (t, urad_to_deg(kf.joints[j])));
        if dashed[n] {
            // It lies on a trace drawn before: dashes let that one show between them.
            chart.draw_series(DashedLineSeries::new(keys, 10, 6, color.stroke_width(3)))?;
        } else {
            chart.draw_series(LineSeries::new(keys, color.stroke_width(2)))?;
        }
        if motion.keyframes.len() <= MAX_KEYFRAME_DOTS {
            chart.draw_series(moving_keyframes(motion, j).into_iter().map(|k| {
                let value = urad_to_deg(motion.keyframes[k].joints[j]);
                Circle::new((times[k], value), 3, color.filled())
            }))?;
        }
    }
    if motion.keyframes.len() > MAX_KEYFRAME_DOTS {
        // Too many to dot every joint (a dense mocap build): tick the keyframe times
        // along the panel's floor instead.
        let floor = lo - pad;
        let tick = (hi - lo) * 0.04;
        chart.draw_series(times.iter().map(|&t| {
            PathElement::new(vec![(t, floor), (t, floor + tick)], RGBColor(120, 120, 120))
        }))?;
    }
    // Violations on top, in red: limits circled, too-fast segments drawn over.
    for v in violations {
        match v {
            // A value past a limit, or a binary output off its states: circled.
            Violation::Limit {
                keyframe,
                joint,
                value_urad: value,
                ..
            }
            | Violation::State {
                keyframe,
                joint,
                value,
                ..
            } => {
                if members.iter().any(|&j| profile.joints[j].name == *joint) {
                    let t = times.get(*keyframe).copied().unwrap_or(0.0);
                    chart.draw_series(std::iter::once(Circle::new(
                        (t, urad_to_deg(*value)),
                        7,
                        RED.stroke_width(2),
                    )))?;
                }
            }
            Violation::Speed {
                keyframe,
                joint,
                from_urad,
                to_urad,
                ..
            } => {
                if members.iter().any(|&j| profile.joints[j].name == *joint) && *keyframe > 0 {
                    let (t0, t1) = (times[keyframe - 1], times[*keyframe]);
                    chart.draw_series(LineSeries::new(
                        [(t0, urad_to_deg(*from_urad)), (t1, urad_to_deg(*to_urad))],
                        RED.stroke_width(3),
                    ))?;
                }
            }
        }
    }
    // The legend, drawn by hand right of the chart: plotters sizes its own legend from
    // font metrics, which the SVG backend (text left to the viewer) does not have.
    for (n, &j) in members.iter().enumerate() {
        let color = PALETTE[n % PALETTE.len()];
        let (x, y) = (LEGEND_X, 40 + 18 * n as i32);
        let sample: &[(i32, i32)] = if dashed[n] {
            &[(x, y), (x + 7, y), (x + 11, y), (x + 18, y)]
        } else {
            &[(x, y), (x + 18, y)]
        };
        for piece in sample.chunks(2) {
            area.draw(&PathElement::new(piece.to_vec(), color.stroke_width(3)))?;
        }
        area.draw(&Text::new(
            profile.joints[j].name.clone(),
            (x + 24, y - 7),
            ("sans-serif", 13),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mtn::{Keyframe, Layout};

    fn motion(columns: &[&[i32]]) -> Motion {
        let keyframes = (0..columns[0].len())
            .map(|k| Keyframe {
                frames_before: if k == 0 { 0 } else { 10 },
                roll: 0,
                pitch: 0,
                yaw: 0,
                joints: columns.iter().map(|c| c[k]).collect(),
            })
            .collect();
        Motion {
            name: "m".into(),
            creator: "t".into(),
            design_label: "DRX-1000".into(),
            frame_ms: 16,
            locators: (0..columns.len()).map(|c| format!("L{c}")).collect(),
            keyframes,
            layout: Layout::default(),
        }
    }

    #[test]
    fn a_trace_lying_on_an_earlier_one_is_dashed_and_flat_stretches_are_unmarked() {
        // Five keyframes 176 ms apart (segments of 10 interpolation frames).
        let ten_deg = 174_533;
        let m = motion(&[
            &[0, 0, 0, 0, 0],                       // flat: no marks
            &[0, 0, 0, 0, 0],                       // on the first all along: dashed
            &[0, ten_deg, ten_deg, ten_deg, 0],     // apart, but for the ends
            &[0, ten_deg, ten_deg + 100, 5, 3],     // on the third from 176 to 352 ms
            &[ten_deg, 0, 2 * ten_deg, 0, ten_deg], // crosses the first, never lies on it
        ]);
        assert_eq!(
            dashed_members(&m, &[0, 1, 2, 3, 4]),
            [false, true, false, true, false]
        );
        assert_eq!(dashed_members(&m, &[2, 0]), [false, false]);
        assert!(moving_keyframes(&m, 0).is_empty());
        assert_eq!(moving_keyframes(&m, 2), [0, 1, 3, 4]);
        assert_eq!(moving_keyframes(&m, 4), [0, 1, 2, 3, 4]);
    }
}
