#!/usr/bin/env bash
# The three judges side by side, as Markdown: for every full-body take in
# ../shared/mocap-samples (BVH and ASF/AMC) and each model, built with `--balance off`
# and with the defaults, and for Sony's own motions: `check --balance` (the static test
# and its simulation), `simulate`, and `aibo-joint-server --physics` with the motion
# streamed to it by `play` (as a robot would get it, on the server's own 8 ms clock, with
# the file's body attitude; the robot standing in the posture the motion starts from).
# Each says whether the robot stays up; the last line counts the motions on which all
# three agree. The streams play in real time, several at once (JOBS, default 12): about
# six minutes on two cores.
#
#   [JOBS=12] scripts/judges-table.sh [MODEL...]   (default: ERS-7 ERS-210 ERS-220; needs ../shared)
default_models=(ERS-7 ERS-210 ERS-220)
source "$(dirname "$0")/table-setup.sh"
shared=../shared

python3 - "$shared" "$out" "${models[@]}" <<'PY'
import concurrent.futures, glob, json, os, subprocess, sys, time

sys.path.insert(0, "scripts")
from tables import full_body_takes, run

shared, out, models = sys.argv[1], sys.argv[2], sys.argv[3:]
server_bin = "target/release/aibo-joint-server"
jobs = int(os.environ.get("JOBS", "12"))

def streamed(mtn, model, posture):
    """The joint server's verdict on `mtn` streamed to it, the robot standing in `posture`
    before it: up, or FALLS."""
    server = subprocess.Popen([server_bin, "--tcp", "127.0.0.1:0", "--profile", model, "--physics",
                               "--start-posture", posture],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    address = server.stdout.readline().strip()
    code, _ = run("play", mtn, "--tcp", address, "--force")
    time.sleep(0.3)  # the physics catches up with the last frames
    server.kill()
    _, log = server.communicate()
    if code != 0:
        return "error"
    return "FALLS" if "physics: the robot fell at" in log else "up"

def start_posture(mtn):
    """Where the robot stands before `mtn`: Sony's names say it (`a_sit#…`: the sit);
    else, as our builds start, the stand."""
    name = os.path.basename(mtn)
    return next((p for p in ("sit", "sleep") if name.startswith(f"a_{p}#")), "stand")

def judged(mtn, model):
    """check --balance, simulate and the joint server on one motion."""
    _, text = run("check", "--balance", "--json", mtn)
    if not text:
        return None
    balance = json.loads(text)["balance"]
    tips = any(s["fault"] for s in balance["spans"])
    check = "TIPS" if tips else "FALLS" if balance["simulation"]["fall"] else "ok"
    sim = {0: "up", 1: "FALLS"}.get(run("simulate", mtn)[0], "error")
    return check, sim, streamed(mtn, model, start_posture(mtn))

built = []  # (label, model, file)
for model in models:
    for name, source in full_body_takes(shared):
        for balance in ["off", "on"]:
            mtn = f"{out}/{len(built)}.mtn"
            code, _ = run("-q", "build", *source, "--profile", model, "--balance", balance, "-o", mtn)
            if code in (0, 1) and os.path.exists(mtn):
                built.append((f"{name} ({'--balance off' if balance == 'off' else 'default'})", model, mtn))
for f in sorted(glob.glob(f"{shared}/mtn-samples/*/*.mtn")):
    code, text = run("info", "--json", f)
    if code != 0:
        continue
    model = json.loads(text).get("model")
    if model:
        built.append((f"{os.path.basename(os.path.dirname(f))}/{os.path.basename(f)}", model, f))

with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    verdicts = list(pool.map(lambda m: judged(m[2], m[1]), built))

print("| motion | model | check --balance | simulate | joint server |")
print("|---|---|---|---|---|")
agree = 0
for (label, model, _), v in zip(built, verdicts):
    if v is None:
        print(f"| {label} | {model} | error | | |")
        continue
    up = [v[0] == "ok", v[1] == "up", v[2] == "up"]
    agree += all(up) or not any(up)
    print(f"| {label} | {model} | {v[0]} | {v[1]} | {v[2]} |")
print(f"\nThe three judges agree on {agree} of {len(built)} motions.")
PY
