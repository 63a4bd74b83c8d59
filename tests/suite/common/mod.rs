//! Helpers shared by the integration tests.
#![allow(dead_code)]

use aibo_motion::mtn::{Keyframe, Layout, Motion};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder of `../shared` beside the repository. Tests that read one are ignored
/// where it is absent (`build.rs` sets a `shared_…` cfg for each folder present), so
/// this is only called where it exists.
pub fn shared(what: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(what);
    assert!(
        dir.is_dir(),
        "../shared/{what} is missing, but this build saw it: run `cargo clean -p aibo-motion`"
    );
    dir
}

/// Each AMC take in `../shared/mocap-samples/asf-amc` with the ASF skeleton it needs.
pub const AMC_TAKES: [(&str, &str); 6] = [
    ("charleston1.amc", "charleston.asf"),
    ("charleston2.amc", "charleston.asf"),
    ("cmu_01_01.amc", "cmu_01.asf"),
    ("cmu_11_01.amc", "cmu_11.asf"),
    ("lambada.amc", "lambada.asf"),
    ("zombie.amc", "zombie.asf"),
];

/// The AMC takes of `asf_amc` (a folder), each with its ASF.
pub fn amc_takes(asf_amc: &Path) -> Vec<(PathBuf, Option<PathBuf>)> {
    AMC_TAKES
        .iter()
        .map(|(amc, asf)| (asf_amc.join(amc), Some(asf_amc.join(asf))))
        .collect()
}

/// Every `.mtn` file below `dir`, sorted.
pub fn mtn_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("mtn"))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs the `aibo-motion` binary.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aibo-motion"))
        .args(args)
        .output()
        .expect("the binary runs")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small hand-made motion: `k` keyframes of `j` joints with simple, distinct values.
pub fn synthetic_motion(j: usize, interps: &[u32]) -> Motion {
    let keyframes = std::iter::once(0)
        .chain(interps.iter().copied())
        .enumerate()
        .map(|(k, n)| Keyframe {
            frames_before: n,
            roll: 0,
            pitch: 1000 * k as i32,
            yaw: -7 * k as i32,
            joints: (0..j)
                .map(|c| (c as i32 - 3) * 100_003 * (k as i32 % 3 + 1))
                .collect(),
        })
        .collect();
    Motion {
        name: "a_stand#stand_test".into(),
        creator: "aibo-motion tests".into(),
        design_label: "DRX-1000".into(),
        frame_ms: 16,
        locators: (0..j).map(|c| format!("PRM:/r9/c{c}-Joint2:{c}")).collect(),
        keyframes,
        layout: Layout::default(),
    }
}

/// A synthetic performer (Y up, facing +z, its left on +x, arms hanging): joints in
/// channel order; each has Zrotation Xrotation Yrotation, the root also a
/// position first.
pub const PERFORMER_JOINTS: [&str; 16] = [
    "Hips",
    "Spine",
    "Neck",
    "Head",
    "LeftArm",
    "LeftForeArm",
    "LeftHand",
    "RightArm",
    "RightForeArm",
    "RightHand",
    "LeftUpLeg",
    "LeftLeg",
    "LeftFoot",
    "RightUpLeg",
    "RightLeg",
    "RightFoot",
];

pub const PERFORMER: &str = "HIERARCHY
ROOT Hips
{
 OFFSET 0 90 0
 CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
 JOINT Spine { OFFSET 0 10 0 CHANNELS 3 Zrotation Xrotation Yrotation
  JOINT Neck { OFFSET 0 30 0 CHANNELS 3 Zrotation Xrotation Yrotation
   JOINT Head { OFFSET 0 8 0 CHANNELS 3 Zrotation Xrotation Yrotation End Site { OFFSET 0 10 0 } }
  }
  JOINT LeftArm { OFFSET 18 25 0 CHANNELS 3 Zrotation Xrotation Yrotation
   JOINT LeftForeArm { OFFSET 0 -28 0 CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT LeftHand { OFFSET 0 -25 0 CHANNELS 3 Zrotation Xrotation Yrotation End Site { OFFSET 0 -8 0 } }
   }
  }
  JOINT RightArm { OFFSET -18 25 0 CHANNELS 3 Zrotation Xrotation Yrotation
   JOINT RightForeArm { OFFSET 0 -28 0 CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT RightHand { OFFSET 0 -25 0 CHANNELS 3 Zrotation Xrotation Yrotation End Site { OFFSET 0 -8 0 } }
   }
  }
 }
 JOINT LeftUpLeg { OFFSET 9 0 0 CHANNELS 3 Zrotation Xrotation Yrotation
  JOINT LeftLeg { OFFSET 0 -42 0 CHANNELS 3 Zrotation Xrotation Yrotation
   JOINT LeftFoot { OFFSET 0 -40 0 CHANNELS 3 Zrotation Xrotation Yrotation End Site { OFFSET 0 -5 12 } }
  }
 }
 JOINT RightUpLeg { OFFSET -9 0 0 CHANNELS 3 Zrotation Xrotation Yrotation
  JOINT RightLeg { OFFSET 0 -42 0 CHANNELS 3 Zrotation Xrotation Yrotation
   JOINT RightFoot { OFFSET 0 -40 0 CHANNELS 3 Zrotation Xrotation Yrotation End Site { OFFSET 0 -5 12 } }
  }
 }
}
";

/// A BVH of the performer: one frame per entry, each a list of (joint, axis, degrees)
/// turns from the rest pose (axes `x`, `y`, `z`; channels Zrotation Xrotation Yrotation).
pub fn performer_bvh(frames: &[Vec<(&str, char, f64)>], frame_time: f64) -> String {
    performer_bvh_lowered(frames, &[], frame_time)
}

/// [`performer_bvh`] with the hips `lowered[f]` lower on frame `f` (none past its end).
pub fn performer_bvh_lowered(
    frames: &[Vec<(&str, char, f64)>],
    lowered: &[f64],
    frame_time: f64,
) -> String {
    let mut text = format!(
        "{PERFORMER}MOTION\nFrames: {}\nFrame Time: {frame_time}\n",
        frames.len()
    );
    for (f, moves) in frames.iter().enumerate() {
        let mut values = vec![0.0, -lowered.get(f).copied().unwrap_or(0.0), 0.0];
        for joint in PERFORMER_JOINTS {
            let mut zxy = [0.0; 3];
            for &(j, axis, deg) in moves {
                if j == joint {
                    zxy[match axis {
                        'z' => 0,
                        'x' => 1,
                        _ => 2,
                    }] += deg;
                }
            }
            values.extend(zxy);
        }
        let line: Vec<String> = values.iter().map(f64::to_string).collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text
}
/// The repository's example motion capture, `examples/nod-and-wave.bvh`.
pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/nod-and-wave.bvh")
}

/// `build`s the repository's example for `model` into `out`.
pub fn build_example(model: &str, out: &Path) {
    build_file(&example(), model, &[], out);
}

/// `build -q INPUT --profile MODEL -o OUT`, with `extra` arguments; it must succeed.
/// What it printed (with `--json`, the summary).
pub fn build_file(input: &Path, model: &str, extra: &[&str], out: &Path) -> Output {
    let mut args = vec![
        "-q",
        "build",
        input.to_str().unwrap(),
        "--profile",
        model,
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let run = run(&args);
    assert!(run.status.success(), "{}", stderr(&run));
    run
}

/// What `build --json` of a shared take printed, and the motion it wrote.
pub struct SharedBuild {
    pub json: serde_json::Value,
    pub bytes: Vec<u8>,
}

/// `build TAKE --profile MODEL --json` with `extra` arguments, for a take in `../shared`,
/// run once per test run by whichever test asks first (the others wait for it). Several
/// tests check different things of the same builds of the shared takes, each of which
/// costs seconds; the build is deterministic, so one run serves them all.
pub fn shared_build(take: &Path, model: &str, extra: &[&str]) -> std::sync::Arc<SharedBuild> {
    use std::collections::HashMap;
    use std::sync::{Arc, LazyLock, Mutex, OnceLock};
    type Cell = Arc<OnceLock<Arc<SharedBuild>>>;
    static BUILDS: LazyLock<Mutex<HashMap<Vec<String>, Cell>>> = LazyLock::new(Default::default);
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    assert!(take.starts_with(&shared), "{take:?} is not a shared take");
    let mut key = vec![take.to_str().unwrap().to_string(), model.to_string()];
    key.extend(extra.iter().map(|a| a.to_string()));
    let cell = {
        let mut builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
        builds.entry(key).or_default().clone()
    };
    cell.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("take.mtn");
        let args: Vec<&str> = ["--json"].iter().chain(extra).copied().collect();
        let run = build_file(take, model, &args, &out);
        Arc::new(SharedBuild {
            json: serde_json::from_str(&stdout(&run)).unwrap(),
            bytes: std::fs::read(&out).unwrap(),
        })
    })
    .clone()
}

/// A copy of the shared R-CODE sample tree `name` at `root`, made writable as an owner's
/// stick is (the samples are read-only).
pub fn writable_stick(name: &str, root: &Path) {
    copy_tree(&shared("rcode-samples").join(name), root);
    let chmod = Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(root)
        .status()
        .unwrap();
    assert!(chmod.success());
}

/// The spans `check --balance --json` (its parsed output `checked`) counts as faults.
pub fn fault_spans(checked: &serde_json::Value) -> Vec<&serde_json::Value> {
    checked["balance"]["spans"]
        .as_array()
        .map_or(Vec::new(), |spans| {
            spans.iter().filter(|s| s["fault"] == true).collect()
        })
}

/// `aibo-joint-server --tcp … --profile MODEL --physics`, `file` streamed to it with
/// `play --force` (the gate would refuse a motion that tips before the robot showed it),
/// and what the server logged.
pub fn played_on_the_physics_server(file: &Path, model: &str) -> String {
    played_on_the_physics_server_from(file, model, "stand", "stream")
}

/// As [`played_on_the_physics_server`], the robot standing in `posture` before it, the
/// motion played in `mode` (`stream` or `upload`).
pub fn played_on_the_physics_server_from(
    file: &Path,
    model: &str,
    posture: &str,
    mode: &str,
) -> String {
    use std::io::{BufRead, BufReader};
    let mut server = Command::new(env!("CARGO_BIN_EXE_aibo-joint-server"))
        .args(["--tcp", "127.0.0.1:0", "--profile", model, "--physics"])
        .args(["--start-posture", posture])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut address = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut address)
        .unwrap();
    let out = run(&[
        "play",
        file.to_str().unwrap(),
        "--tcp",
        address.trim(),
        "--force",
        "--mode",
        mode,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Let the physics catch up with the last frames and hold the last pose as long as
    // `simulate` watches it, then stop the server.
    std::thread::sleep(std::time::Duration::from_millis(
        aibo_motion::stability::physics::HOLD_AFTER_MS + 300,
    ));
    server.kill().unwrap();
    let out = server.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every entry below `dir` by its path below `dir`: a file's bytes, a link's target,
/// `(special)` for a FIFO, device or socket.
pub fn tree_bytes(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let key = path.strip_prefix(dir).unwrap().to_path_buf();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(key, target.into_os_string().into_encoded_bytes());
            } else if meta.is_dir() {
                stack.push(path);
            } else if meta.is_file() {
                out.insert(key, std::fs::read(&path).unwrap());
            } else {
                out.insert(key, b"(special)".to_vec());
            }
        }
    }
    out
}

/// A stick's entries as [`tree_bytes`] gives them, the tool's backups left out.
pub fn stick_files(root: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = tree_bytes(root);
    files.retain(|path, _| !path.starts_with("aibo-motion-backup"));
    files
}

/// Copies the folder `from` (files and folders) to `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The peak resident memory of a running process so far, kB (Linux).
pub fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

pub mod link;

/// A repeatable generator (xorshift), so that a failure can be had again.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A whole number from `lo` to `hi`, both included.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}
