//! Where a build's likeness goes, moment by moment: the overall median and each limb
//! segment's, over short windows of the performance, with the balance stage and
//! without it, beside the paws the contact plan has down. `build` gives one figure for
//! the whole take; this shows which moments and which limbs make it.
//!
//! Each window is scored by the build's own likeness (the same frames, directions and
//! walking spans: a window inside a walk prints nothing), so its figures are those the
//! summary pools.
//!
//! `cargo run --release --example likeness_timeline -- TAKE PROFILE [--asf ASF] [--window S]`
//!
//! A line per window: its start (s), the plan's paws at its middle (`lf rf lh rh`, `D`
//! down, `u` up, `-` past the plan), the overall median with the stage and without it,
//! then each segment's median with and without (upper and lower leg of lf, rf, lh, rh).

mod common;

use aibo_motion::likeness::{likeness_of, played};

fn main() {
    let args = common::Args::read("likeness_timeline", " [--window S]");
    let window_s: f64 = match args.option("--window").map(str::parse::<f64>) {
        None => 0.25,
        Some(Ok(w)) if w > 0.0 && w.is_finite() => w,
        Some(_) => args.fail("--window: a number of seconds above 0".into()),
    };
    let (profile, built) = args.build();
    let Some(kept) = built.balance.as_ref() else {
        args.fail("the build ran no balance stage".into())
    };
    let tracks = &built.tracks;
    let frame_s = tracks.frame_time;
    // Both motions at each performance frame, as the likeness reads them.
    let staged: Vec<Vec<f64>> = (0..tracks.frames)
        .map_while(played(&built.motion, built.source_start_ms, tracks))
        .collect();
    let without: Vec<Vec<f64>> = (0..tracks.frames)
        .map_while(played(&kept.without, kept.without_source_start_ms, tracks))
        .collect();
    let walking = built.walking_s();
    let plan = &kept.plan;
    let per_window = ((window_s / frame_s).round() as usize).max(1);
    common::say(format_args!(
        "{}, {}: windows of {:.2} s; the robot walks over [{}] s (not compared)",
        args.take.display(),
        args.model,
        per_window as f64 * frame_s,
        walking
            .iter()
            .map(|&(a, b)| format!("{a:.2}-{b:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    // The plan's lifts beside the gestures they serve, in performance seconds.
    let seconds = |row: usize| row.saturating_sub(plan.padding.lead) as f64 * plan.row_s;
    let spans = |paw: usize, spans: &mut dyn Iterator<Item = (usize, usize)>| {
        let said: Vec<String> = spans
            .map(|(a, b)| format!("{:.2}-{:.2}", seconds(a), seconds(b)))
            .collect();
        format!("{} {}", ["lf", "rf", "lh", "rh"][paw], said.join(" "))
    };
    for paw in 0..4 {
        let lifts = plan.lifts.iter().filter(|l| l.paw == paw);
        let wants = plan.wants.iter().filter(|w| w.paw == paw);
        common::say(format_args!(
            "  lifted: {}; its limb gestures: {}",
            spans(paw, &mut lifts.map(|l| (l.start, l.end))),
            spans(paw, &mut wants.map(|w| (w.start, w.end)))
        ));
    }
    common::say(format_args!(
        "start  paws  overall (without)  segments: with/without"
    ));
    for first in (0..staged.len().min(without.len())).step_by(per_window) {
        let last = (first + per_window).min(staged.len());
        // The likeness of this window alone: everything outside it counts as walking,
        // which the likeness leaves out.
        let (from_s, to_s) = (first as f64 * frame_s, last as f64 * frame_s);
        let mut outside = walking.clone();
        outside.push((f64::NEG_INFINITY, from_s - frame_s / 2.0));
        outside.push((to_s - frame_s / 2.0, f64::INFINITY));
        let with = likeness_of(tracks, &profile, &outside, |f| staged.get(f).cloned());
        let off = likeness_of(tracks, &profile, &outside, |f| without.get(f).cloned());
        let (Some(with), Some(off)) = (with, off) else {
            continue;
        };
        if with.limbs_s == 0.0 {
            continue;
        }
        let row = plan.row_at((from_s + to_s) / 2.0);
        let paws: String = (0..4)
            .map(|p| {
                if row >= plan.rows {
                    '-'
                } else if plan.down(row, p) {
                    'D'
                } else {
                    'u'
                }
            })
            .collect();
        let segments: Vec<String> = with
            .segments
            .iter()
            .zip(&off.segments)
            .map(|(a, b)| format!("{:.0}/{:.0}", a.figure.median_deg, b.figure.median_deg))
            .collect();
        common::say(format_args!(
            "{from_s:6.2} {paws}  {:5.1} ({:5.1})  {}",
            with.overall.median_deg,
            off.overall.median_deg,
            segments.join(" ")
        ));
    }
}
