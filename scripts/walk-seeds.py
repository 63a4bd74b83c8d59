#!/usr/bin/env python3
"""Writes synthetic walking takes (BVH, under 50 kB each) into a folder, as fuzz seeds
for `build_from_bvh`: without them its corpus shrinks to inputs that never walk, and the
gait, the felt floor and the choice between crawl and trot go unfuzzed. The performer
is the tests' (`tests/suite/common/mod.rs`, read from there): a straight walk at 2.5 leg
lengths a second with the head turning and the legs and arms swinging, a 1 m circle,
a run at 3 leg lengths a second, and a squat held for three seconds (the robot rests:
`stability::resting`).

    scripts/walk-seeds.py FOLDER
"""
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
source = open(os.path.join(here, "..", "tests", "suite", "common", "mod.rs")).read()
hierarchy = source.split('pub const PERFORMER: &str = "')[1].split('";')[0]
joints = source.split("pub const PERFORMER_JOINTS: [&str; 16] = [")[1].split("];")[0]
joints = [j.strip().strip('"') for j in joints.split(",") if j.strip()]
LEG = 82.0  # hip to ankle, the performer's units
FRAME_S = 1 / 30


def take(frames, place, turns):
    """A BVH of `frames` frames: the hips at place(t) (x, y, z), the joints turned as
    turns(t) says ((joint, axis, degrees), ...)."""
    out = [hierarchy, "MOTION\nFrames: %d\nFrame Time: %g\n" % (frames, FRAME_S)]
    for f in range(frames):
        t = f * FRAME_S
        x, y, z = place(t)
        values = [x, 90 + y, z]
        moves = turns(t)
        for joint in joints:
            zxy = [0.0, 0.0, 0.0]
            for j, axis, degrees in moves:
                if j == joint:
                    zxy["zxy".index(axis)] += degrees
            values += zxy
        out.append(" ".join("%.2f" % v for v in values) + "\n")
    return "".join(out)


def gestures(t):
    swing = 20 * math.sin(2 * math.pi * t) if 0.7 < t < 3.2 else 0.0
    return [
        ("Head", "y", 25 * math.sin(math.pi * t)),
        ("LeftUpLeg", "x", swing),
        ("RightUpLeg", "x", -swing),
        ("LeftArm", "z", -swing),
        ("RightArm", "z", 60 * max(0.0, math.sin(math.pi * t / 2))),
    ]


def straight(t):
    s = min(max(t - 0.7, 0.0), 2.5)
    return (0.0, 2 * math.sin(12 * t), 2.5 * LEG * s)


RADIUS = 2.0 * LEG


def circle(t):
    a = min(t / 3.5, 1.0) * 2 * math.pi
    return (RADIUS * math.cos(a) - RADIUS, 0.0, RADIUS * math.sin(a))


def circle_turns(t):
    return [("Hips", "y", -min(t / 3.5, 1.0) * 360)] + gestures(t)[:1]


def run(t):
    return (0.0, 0.0, 3.0 * LEG * max(0.0, t - 0.5))


def squat_depth(t):
    """The hips this far lower: into a squat (thighs level, shins upright) from 1 s to
    1.5 s, and up again from 4.5 s to 5 s, as `a_performer_who_squats_…` has it."""
    return 42.0 * min(max((t - 1.0) / 0.5, 0.0), 1.0) * min(max((5.0 - t) / 0.5, 0.0), 1.0)


def squat(t):
    return (0.0, -squat_depth(t), 0.0)


def squat_turns(t):
    bend = 90.0 * squat_depth(t) / 42.0
    return [
        ("LeftUpLeg", "x", -bend),
        ("LeftLeg", "x", bend),
        ("RightUpLeg", "x", -bend),
        ("RightLeg", "x", bend),
    ]


folder = sys.argv[1] if len(sys.argv) > 1 else sys.exit(__doc__)
os.makedirs(folder, exist_ok=True)
for name, text in [
    ("walk-straight.bvh", take(110, straight, gestures)),
    ("walk-circle.bvh", take(110, circle, circle_turns)),
    ("run.bvh", take(100, run, gestures)),
    ("squat.bvh", take(180, squat, squat_turns)),
]:
    with open(os.path.join(folder, "synthetic-" + name), "w") as f:
        f.write(text)
