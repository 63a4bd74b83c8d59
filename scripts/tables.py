"""What the table scripts (balance, judges, walk) share: the binary they run, and the
full-body takes they build."""
import glob
import os
import subprocess

# The release build that scripts/table-setup.sh made.
BIN = "target/release/aibo-motion"

# The servos' default torque, N·m (physics::SERVO_TORQUE_NM): the tables simulate at 80%
# of it too.
SERVO_TORQUE_NM = 5.4542

# More build options, from the environment (BUILD_ARGS="--timing wait").
EXTRA_BUILD_ARGS = os.environ.get("BUILD_ARGS", "").split()


def run(*args):
    """`aibo-motion ARGS`: its exit status and standard output."""
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    return p.returncode, p.stdout


def full_body_takes(shared):
    """The full-body takes in ../shared/mocap-samples that the balance and judges tables
    build: every BVH but a two-bone test and a sine on one joint, and the ASF/AMC takes
    with their skeletons. Each as (name, the build's source arguments)."""
    takes = []
    for f in sorted(glob.glob(f"{shared}/mocap-samples/bvh/*.bvh")):
        name = os.path.basename(f)
        if "test_simple" in name or "sinusoidal" in name:
            continue
        takes.append((name, [f]))
    d = f"{shared}/mocap-samples/asf-amc"
    for amc, asf in [("charleston1", "charleston"), ("charleston2", "charleston"), ("cmu_01_01", "cmu_01"),
                     ("cmu_11_01", "cmu_11"), ("lambada", "lambada"), ("zombie", "zombie")]:
        takes.append((f"{amc}.amc", [f"{d}/{amc}.amc", "--asf", f"{d}/{asf}.asf"]))
    return takes
