#!/usr/bin/env bash
# The balance table, as Markdown: for every full-body take in ../shared/mocap-samples
# (BVH and ASF/AMC) and each model, built with `--balance off` (before) and with the
# defaults (after): `check --balance`'s verdict (TIPS where the static test finds a tip
# over 100 ms, FALLS where only its simulation falls), the simulation's (`simulate`, at
# the default torque and, after, at 80% of it), `check`'s limit and speed findings,
# the overall likeness median (with how long the limbs were compared, where the robot
# walks), the likeness of examples/likeness_floor's yardstick (the least change of the
# support legs that stands each frame on the stage's planned paws, paws free to slide,
# at the stage's own margin and, in brackets, at the judges' 10 mm; default builds
# only), the paws the balance stage raised or held down, and the proof's repairs. Then
# Sony's own motions through the same judges.
#
#   [BUILD_ARGS="--timing wait"] scripts/balance-table.sh [MODEL...]   (default: ERS-7 ERS-210 ERS-220; needs ../shared)
default_models=(ERS-7 ERS-210 ERS-220)
source "$(dirname "$0")/table-setup.sh"
cargo build -q --release --example likeness_floor
shared=../shared

python3 - "$shared" "$out" "${models[@]}" <<'PY'
import glob, json, os, re, subprocess, sys

sys.path.insert(0, "scripts")
from tables import EXTRA_BUILD_ARGS as extra, SERVO_TORQUE_NM as torque, full_body_takes, run

shared, out, models = sys.argv[1], sys.argv[2], sys.argv[3:]

def judged(mtn):
    """check --balance, simulate at the default torque, simulate at 80%, check's findings."""
    # check's exit status counts limit findings too: the balance is read from its JSON.
    _, text = run("check", "--balance", "--json", mtn)
    if not text:
        return "error", "error", "error", "error"
    report = json.loads(text)
    faults = [s for s in report["balance"]["spans"] if s["fault"]]
    falls = report["balance"]["simulation"]["fall"] is not None
    static = "TIPS" if faults else "FALLS" if falls else "ok"
    sim = lambda t: {0: "up", 1: "FALLS"}.get(run("simulate", mtn, "--torque", str(t))[0], "error")
    return static, sim(torque), sim(0.8 * torque), len(report["violations"])

def yardstick(source, model, margin=None):
    """examples/likeness_floor's overall likeness median for the default build, at the
    stage's margin or `margin` mm, or None (the build has other options, or the example
    says nothing)."""
    if extra:
        return None
    at = ["--margin", str(margin)] if margin else []
    p = subprocess.run(["target/release/examples/likeness_floor", source[0], model, *source[1:], *at],
                       capture_output=True, text=True)
    found = re.search(r"yardstick ([\d.]+)°", p.stdout)
    return float(found.group(1)) if found else None

takes = full_body_takes(shared)

# Whether `check --balance` and `simulate` agree on each motion: both pass or both fail.
agree, motions = 0, 0
def agreeing(check, sim):
    global agree, motions
    motions += 1
    agree += (check == "ok") == (sim == "up")

# Each default build's likeness without the stage, with it, and at the yardstick (at the
# stage's margin, at 10 mm), for the counts under the table.
likenesses = []

print("| take | model | before: check / sim | after: check / sim / sim 80% | limits after | likeness before → after | yardstick (at 10 mm) | paws raised (s) | held down (s) | repairs |")
print("|---|---|---|---|---|---|---|---|---|---|")
for model in models:
    for name, source in takes:
        off, on = f"{out}/off.mtn", f"{out}/on.mtn"
        run("-q", "build", *source, "--profile", model, "--balance", "off", "-o", off)
        code, text = run("-q", "build", *source, "--profile", model, "-o", on, "--json", *extra)
        if code not in (0, 1) or not text:
            print(f"| {name} | {model} | build failed | | | | | | | |")
            continue
        built = json.loads(text)  # one input: the summary itself
        stage = built.get("balance_stage") or {}
        before = judged(off)
        after = judged(on)
        agreeing(before[0], before[1])
        agreeing(after[0], after[1])
        like_on = built["likeness"]["median_deg"]
        like_off = (stage.get("likeness_without") or {}).get("median_deg", float("nan"))
        # Over the walks the limbs are not compared: say over how long they were.
        walked, limbs = built["likeness"].get("walking_s", 0), built["likeness"].get("limbs_s", 0)
        compared = ""
        if walked > 0:
            compared = f" (limbs over {limbs:.1f} s)" if limbs > 0 else " (head only: it walks throughout)"
        paws = stage.get("paws", [])
        raised = ", ".join(f"{p['paw']} {p['raised_s']:.1f}" for p in paws if p["raised_s"] > 0) or "-"
        held = ", ".join(f"{p['paw']} {p['held_down_s']:.1f}" for p in paws if p["held_down_s"] > 0) or "-"
        floor, judges = yardstick(source, model), yardstick(source, model, 10)
        if floor is not None and judges is not None:
            likenesses.append((like_off, like_on, floor, judges))
        floor = "-" if floor is None or judges is None else f"{floor:.1f}° ({judges:.1f}°)"
        print(f"| {name} | {model} | {before[0]} / {before[1]} | {after[0]} / {after[1]} / {after[2]} "
              f"| {after[3]} | {like_off:.1f}° → {like_on:.1f}°{compared} | {floor} | {raised} | {held} | {stage.get('repairs', '-')} |")
        sys.stdout.flush()

if likenesses:
    over = lambda i: sum(row[i] > 20 for row in likenesses)
    rise = lambda i: sum(row[i] - row[0] > 3 for row in likenesses)
    near = sum(row[1] - row[2] <= 3 for row in likenesses)
    print(f"\nOf {len(likenesses)} default builds, {over(1)} are above 20° (the yardstick: {over(2)} at "
          f"the stage's margin, {over(3)} at 10 mm) and {rise(1)} rise more than 3° with the stage "
          f"(the yardstick: {rise(2)} and {rise(3)}); {near} are within 3° of the yardstick at the stage's margin.")

print()
print("| Sony's motion | check / sim / sim 80% | limit findings |")
print("|---|---|---|")
for f in sorted(glob.glob(f"{shared}/mtn-samples/*/*.mtn")):
    v = judged(f)
    if v[0] != "error":
        agreeing(v[0], v[1])
    print(f"| {os.path.basename(os.path.dirname(f))}/{os.path.basename(f)} | {v[0]} / {v[1]} / {v[2]} | {v[3]} |")
print(f"\n`check --balance` and `simulate` agree on {agree} of {motions} motions.")
PY
