#!/usr/bin/env bash
# The walk table, as Markdown: every shared take in which the robot walks (BVH and
# ASF/AMC in ../shared/mocap-samples), built with the defaults for each model: the walks
# and their steps, the three judges (`check --balance`, `simulate` at the default torque
# and at 80% of it), the gait and steering the build chose, the simulated body's travel
# beside the performer's path scaled by leg length, the final headings, how far apart
# the two ends are and the two paths run at most, the likeness, and the proof's repairs;
# then the second opinion of `simulate --fine` (at the proof's torque) on the travel and
# the heading.
#
#   [BUILD_ARGS="--timing wait"] scripts/walk-table.sh [MODEL...]   (default: ERS-7 ERS-210; needs ../shared)
default_models=(ERS-7 ERS-210)
source "$(dirname "$0")/table-setup.sh"
python3 - "$out" "${models[@]}" <<'PY'
import glob, json, os, sys

sys.path.insert(0, "scripts")
from tables import EXTRA_BUILD_ARGS as extra, SERVO_TORQUE_NM, run

out, models = sys.argv[1], sys.argv[2:]
torque80 = 0.8 * SERVO_TORQUE_NM

takes = sorted(glob.glob("../shared/mocap-samples/bvh/*.bvh")) + sorted(
    glob.glob("../shared/mocap-samples/asf-amc/*.amc"))
print("| take | model | walks (s, steps) | gait, steering | check / sim / sim 80% | travel: robot / performer | heading: robot / performer | ends apart | paths apart | likeness | repairs | --fine: travel, heading |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
# Issue 24's acceptance for each build: up in all three judges, 70-130% of the
# performer's scaled distance, and within 20 deg of their final heading (the turn made
# against the turn asked, whole turns counted).
within, within_fine, built = 0, 0, 0
# How low the walks went, where they crouched.
crouched = lambda walks: "".join(sorted({f" {w['crouch_mm']:.0f} mm down" for w in walks if w['crouch_mm'] > 0}))
for take in takes:
    for model in models:
        mtn = os.path.join(out, "take.mtn")
        code, text = run("build", take, "--profile", model, "-o", mtn, "--force", "--json", *extra)
        if code != 0:
            continue
        build = json.loads(text)
        stage = build.get("balance_stage") or {}
        walks = stage.get("walks", [])
        if not walks:
            continue
        static = "ok" if run("check", "--balance", mtn)[0] == 0 else "FAILS"
        up = lambda *a: "up" if json.loads(run("simulate", mtn, "--json", *a)[1])["report"]["fall"] is None else "FALLS"
        p = stage["path"]
        built += 1
        share = p["share"] or 0.0
        turned = abs(p["robot_heading_deg"] - p["performer_heading_deg"])
        judged = (static, up(), up("--torque", str(torque80)))
        if judged == ("ok", "up", "up") \
                and 0.7 <= share <= 1.3 and turned <= 20:
            within += 1
        fine = json.loads(run("simulate", mtn, "--json", "--fine", "--torque", str(torque80), "--take", take)[1])
        f = fine["performer_path"]
        fine_turned = abs(f["robot_heading_deg"] - f["performer_heading_deg"])
        if fine["report"]["fall"] is None and 0.7 <= (f["share"] or 0.0) <= 1.3 and fine_turned <= 20:
            within_fine += 1
        print(f"| {os.path.basename(take)} | {model} | {len(walks)} ({sum(w['walks_s'] for w in walks):.1f} s, "
              f"{sum(w['steps'] for w in walks)}) | {stage['gait']}{crouched(walks)}, {stage['steering']} | "
              f"{' / '.join(judged)} | "
              f"{p['robot_mm']:.0f} / {p['performer_mm']:.0f} mm ({100 * p['share']:.0f}%) | "
              f"{p['robot_heading_deg']:.0f}° / {p['performer_heading_deg']:.0f}° | {p['end_gap_mm']:.0f} mm | "
              f"{p['widest_gap_mm']:.0f} mm | "
              f"{build['likeness']['median_deg']:.1f}° | {stage['repairs']} | "
              f"{'' if fine['report']['fall'] is None else 'FALLS, '}{100 * (f['share'] or 0.0):.0f}%, "
              f"{f['robot_heading_deg']:.0f}° |")
print(f"\n{within} of {built} builds stay up in all three judges, travel 70-130% of the performer's "
      "scaled distance and end within 20° of their final heading; on `simulate --fine`, "
      f"{within_fine} stay up and end within those bounds.")
PY
