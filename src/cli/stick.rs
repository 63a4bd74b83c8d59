//! `aibo-motion stick`: the user actions on an R-CODE memory stick.

use super::{json_text, print_stdout, shown, Outcome};
use aibo_motion::fsio;
use aibo_motion::oda::Entry;
use aibo_motion::stick::add::{Media, NewAction};
use aibo_motion::stick::files;
use aibo_motion::stick::tree::{Severity, Stick};
use anyhow::{Context as _, Result};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Add, remove, list and check the user actions on a Memory Stick running Sony's R-CODE
/// (its mounted root, or a folder holding an owner's R-CODE tree); choose what it plays
/// at boot, and set up its Wi-Fi. Only the plain user files are read and written: the
/// model's MWC catalogue, ACTION.CFG, the MOTION, AUDIO and LED archives, R-CODE.R and
/// the wireless set-up; Sony's encrypted files are never touched. `stick bridge` puts
/// the aibo-motion bridge on a stick with the OPEN-R SDK's Wi-Fi base system instead.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    aibo-motion stick list /media/MEMSTICK\n  \
    aibo-motion stick check /media/MEMSTICK --json")]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Add a user action: the motion into MOTION.ODA, a sound into AUDIO.ODA, lights
    /// into LED.ODA, a block into the model's MWC catalogue and a line into ACTION.CFG,
    /// as Sony's own treats were built. Each file replaced is first copied under
    /// STICK/aibo-motion-backup/<time>/, and each is written to a temporary name beside
    /// it and renamed into place: a stick pulled mid-way holds each file whole, old or
    /// new, and archives are written before the catalogue that names their entries.
    #[command(after_help = "Examples:\n  \
        aibo-motion stick add /media/MEMSTICK dance.mtn --name dance\n  \
        aibo-motion stick add /media/MEMSTICK dance.mtn --name dance --sound dance.wav --led dance.mid\n  \
        aibo-motion stick add /media/MEMSTICK --name bark --sound bark.wav")]
    Add {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// The motion (an MTN for the stick's model, named <kind>_<start>#<end>_…).
        motion: Option<PathBuf>,
        /// The action's name: lower-case letters, digits and _, at most 31.
        #[arg(long)]
        name: String,
        /// A sound to play with it: .wav (ERS-210/220: 8 kHz, 8-bit, mono PCM; ERS-7 also
        /// 16 kHz 16-bit) or .mid.
        #[arg(long, value_name = "FILE")]
        sound: Option<PathBuf>,
        /// Convert a WAV sound R-CODE cannot play to one it can (mono, resampled to
        /// 8 kHz 8-bit, or 16 kHz 16-bit on the ERS-7); the file itself is left alone.
        #[arg(long, requires = "sound")]
        convert_sound: bool,
        /// Lights to play with it: a .mid file (note = LED, velocity = brightness).
        #[arg(long, value_name = "FILE")]
        led: Option<PathBuf>,
        /// Add a motion that goes past the model's limits or speeds (`check` lists them),
        /// or that tips for longer than 100 ms (or in its last pose) or falls in the
        /// simulation (`check --balance`), and replace user files that are read-only.
        #[arg(long)]
        force: bool,
    },
    /// Remove a user action: its ACTION.CFG line, its catalogue block, and the archive
    /// entries no other action plays (backed up and written as `add` does).
    #[command(after_help = "Examples:\n  aibo-motion stick remove /media/MEMSTICK dance")]
    Remove {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// The action's name.
        name: String,
        /// Replace user files that are read-only.
        #[arg(long)]
        force: bool,
    },
    /// Write an R-CODE.R that plays the named actions, in turn, when the robot starts
    /// (the one it replaces is backed up).
    #[command(
        after_help = "Examples:\n  aibo-motion stick autoplay /media/MEMSTICK dance\n  \
        aibo-motion stick autoplay /media/MEMSTICK dance bow"
    )]
    Autoplay {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// Actions to play, in order: the stick's own or Sony's.
        #[arg(required = true)]
        names: Vec<String>,
        /// Replace an R-CODE.R that is read-only.
        #[arg(long)]
        force: bool,
    },
    /// Set up the robot's wireless network (OPEN-R/SYSTEM/CONF/WLANCONF.TXT), so that
    /// R-CODE's console on TCP 21002 can be reached, and turn that console on (`W 1` in
    /// OPEN-R/APP/PC/AMS/SYSTEM.CFG, where the stick has one; the rest of Sony's file is
    /// kept). The AIBO speaks 802.11b: an open network or WEP, no WPA. Untested on a robot.
    #[command(after_help = "Examples:\n  \
        aibo-motion stick wifi /media/MEMSTICK --essid homenet --dhcp\n  \
        aibo-motion stick wifi /media/MEMSTICK --essid homenet --wep AIBO2 --ip 192.168.1.50 \
        --netmask 255.255.255.0 --gateway 192.168.1.1")]
    Wifi {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// The network's name.
        #[arg(long)]
        essid: String,
        /// The WEP key: 5 or 13 characters (WEP-40, WEP-104 as text), or 10 or 26 hex digits
        /// as a router shows them, with or without 0x (none: an open network).
        #[arg(long, value_name = "KEY")]
        wep: Option<String>,
        /// Take an address from the network's DHCP server (the default).
        #[arg(long, conflicts_with = "ip")]
        dhcp: bool,
        /// A fixed address (with --netmask; --gateway defaults to it, as Sony's guide says).
        #[arg(long, value_name = "IPV4", requires = "netmask")]
        ip: Option<std::net::Ipv4Addr>,
        #[arg(long, value_name = "IPV4")]
        netmask: Option<std::net::Ipv4Addr>,
        #[arg(long, value_name = "IPV4", requires = "ip")]
        gateway: Option<std::net::Ipv4Addr>,
        /// The robot's host name.
        #[arg(long, default_value = "AIBO")]
        hostname: String,
        /// The 802.11b channel (1–14).
        #[arg(long, default_value_t = 3)]
        channel: u8,
        /// ERS-7: let the console be used without the owner's log-in (NOAUTH.CFG);
        /// anyone on the network can then drive the robot.
        #[arg(long)]
        no_auth: bool,
        /// Replace files that are read-only.
        #[arg(long)]
        force: bool,
    },
    /// Put the aibo-motion bridge (the OPEN-R object `make -C firmware-bridge/openr` builds,
    /// BRIDGE.BIN) on a stick that holds the owner's OPEN-R SDK Wi-Fi base system, so that
    /// `play --tcp ROBOT:7000` streams to the robot: the object into OPEN-R/MW/OBJS, its line
    /// into OPEN-R/MW/CONF/OBJECT.CFG and CONNECT.CFG (once; backed up and written as `add`
    /// does). `stick wifi` then sets up the network. Untested on a robot.
    #[command(after_help = "Examples:\n  \
        aibo-motion stick bridge /media/MEMSTICK firmware-bridge/openr/BRIDGE.BIN\n  \
        aibo-motion stick wifi /media/MEMSTICK --essid homenet --wep 0123456789")]
    Bridge {
        /// The stick's root (the folder holding OPEN-R), with the SDK's base system.
        stick: PathBuf,
        /// The built object.
        object: PathBuf,
        /// Replace files that are read-only.
        #[arg(long)]
        force: bool,
    },
    /// Each user action: its MWCID, motion (keyframes, duration, postures), sound and LED.
    #[command(after_help = "Examples:\n  aibo-motion stick list /media/MEMSTICK\n  \
        aibo-motion stick list /media/MEMSTICK --json")]
    List {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Check the whole stick: every name an action plays is in its archive, the
    /// catalogue's counts are right, ACTION.CFG reads and clashes with none of Sony's
    /// actions, R-CODE.R's lines fit 127 bytes. Exit status 1 when anything is wrong.
    #[command(
        after_help = "Examples:\n  aibo-motion stick check /media/MEMSTICK\n  \
        aibo-motion stick check /media/MEMSTICK --json"
    )]
    Check {
        /// The stick's root (the folder holding OPEN-R).
        stick: PathBuf,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

impl Args {
    /// Whether `--force` was given to `add`: it also lets it replace read-only files.
    pub fn forces(&self) -> bool {
        matches!(
            self.action,
            Action::Add { force: true, .. }
                | Action::Remove { force: true, .. }
                | Action::Autoplay { force: true, .. }
                | Action::Wifi { force: true, .. }
                | Action::Bridge { force: true, .. }
        )
    }
}

pub fn run(args: Args) -> Result<Outcome> {
    match args.action {
        Action::Add {
            stick,
            motion,
            name,
            sound,
            convert_sound,
            led,
            force,
        } => add(
            &stick,
            motion.as_deref(),
            &name,
            sound.as_deref(),
            convert_sound,
            led.as_deref(),
            force,
        ),
        Action::Remove { stick, name, force } => {
            let (_lock, open) = Stick::open_to_change(&stick)?;
            let changes = open.remove(&name)?;
            let backup = write_changes(&open.root, &changes.files, force)?;
            eprintln!(
                "removed {name} (action {}) from the {} stick at {}{}",
                changes.mwcid,
                open.model,
                open.root.display(),
                kept_in(&backup)
            );
            Ok(Outcome::Success)
        }
        Action::Autoplay {
            stick,
            names,
            force,
        } => autoplay(&stick, &names, force),
        Action::Wifi {
            stick,
            essid,
            wep,
            dhcp: _,
            ip,
            netmask,
            gateway,
            hostname,
            channel,
            no_auth,
            force,
        } => {
            use aibo_motion::stick::wifi::{self, Address, Wifi};
            let address = match (ip, netmask) {
                (Some(ip), Some(netmask)) => Address::Fixed {
                    ip,
                    netmask,
                    gateway: gateway.unwrap_or(ip),
                },
                _ => Address::Dhcp,
            };
            let set_up = Wifi {
                hostname,
                essid,
                wep: wep.as_deref().map(wifi::wep_key),
                channel,
                address,
            };
            set_up.validate()?;
            let root = aibo_motion::stick::tree::tree_root(&stick)?;
            if aibo_motion::stick::bridge::base(&root)? == aibo_motion::stick::bridge::Base::Sdk {
                // The SDK's base system: the set-up file alone (no R-CODE console to open).
                if no_auth {
                    anyhow::bail!("--no-auth is R-CODE's; this is an OPEN-R SDK stick");
                }
                let _lock = files::lock(&root)?;
                let backup = write_changes(
                    &root,
                    &[(wifi::PATH.to_string(), set_up.encode().into_bytes())],
                    force,
                )?;
                eprintln!(
                    "the stick at {} {}{}",
                    root.display(),
                    set_up.joins(),
                    kept_in(&backup)
                );
                return Ok(Outcome::Success);
            }
            let (_lock, open) = Stick::open_to_change(&stick)?;
            let mut files = vec![(wifi::PATH.to_string(), set_up.encode().into_bytes())];
            if no_auth {
                if open.model != "ERS-7" {
                    anyhow::bail!(
                        "--no-auth is for the ERS-7 (this is an {} stick)",
                        open.model
                    );
                }
                let owner = open.root.join("OPEN-R/APP/DATA/P/OWNER.TXT");
                if owner.exists() {
                    anyhow::bail!(
                        "{} exists: R-CODE asks for the owner's log-in while it does (the tool \
                         never deletes an owner's file; move it away yourself to go without)",
                        owner.display()
                    );
                }
                files.push(("OPEN-R/APP/PC/AMS/NOAUTH.CFG".to_string(), Vec::new()));
                tracing::warn!(
                    "console access without log-in: anyone on the wireless network can command the robot"
                );
            }
            use aibo_motion::stick::settings::{self, ConsoleSwitch};
            let settings_path = open.root.join(settings::PATH);
            let console = match files::read(&open.root, settings::PATH, files::MAX_TEXT_BYTES)? {
                Some(bytes) => match settings::console_on(&bytes)
                    .with_context(|| settings_path.display().to_string())?
                {
                    ConsoleSwitch::AlreadyOn => "R-CODE's console was on already (`W 1`)",
                    ConsoleSwitch::Edited(bytes) => {
                        files.push((settings::PATH.to_string(), bytes));
                        "R-CODE's console is turned on (`W 1` in SYSTEM.CFG)"
                    }
                },
                None => {
                    tracing::warn!(
                        "{} is absent (a folder of user files only?): the console opens only \
                         once the stick's R-CODE set-up has `W 1` in it",
                        settings_path.display()
                    );
                    "R-CODE's console needs `W 1` in the stick's SYSTEM.CFG"
                }
            };
            let backup = write_changes(&open.root, &files, force)?;
            eprintln!(
                "the stick at {} {}; {console}, on TCP 21002{}",
                open.root.display(),
                set_up.joins(),
                kept_in(&backup)
            );
            Ok(Outcome::Success)
        }
        Action::Bridge {
            stick,
            object,
            force,
        } => bridge(&stick, &object, force),
        Action::List { stick, json } => list(&stick, json),
        Action::Check { stick, json } => check(&stick, json),
    }
}

/// `stick bridge`: the object and its configuration lines onto an SDK stick.
fn bridge(path: &Path, object: &Path, force: bool) -> Result<Outcome> {
    use aibo_motion::stick::bridge::{self, Base};
    let root = aibo_motion::stick::tree::tree_root(path)?;
    match bridge::base(&root)? {
        Base::Sdk => {}
        Base::Rcode => anyhow::bail!(
            "{} is an R-CODE stick: R-CODE starts its own objects; the bridge goes on a stick \
             with the OPEN-R SDK's Wi-Fi base system (a pink Programmable Memory Stick)",
            root.display()
        ),
        Base::Other => anyhow::bail!(
            "{}: no OPEN-R SDK base system here ({} and {} are missing); copy the SDK's Wi-Fi \
             base image (MS_ERS7/WLAN or MS_ERS200/WLAN) onto the stick first",
            root.display(),
            bridge::OBJECT_CFG,
            bridge::CONNECT_CFG
        ),
    }
    // A regular file of a sane size, read whole (a device or FIFO would never end).
    let meta = std::fs::metadata(object).with_context(|| object.display().to_string())?;
    if !meta.is_file() || meta.len() > bridge::MAX_BIN_BYTES {
        anyhow::bail!(
            "{}: not a built object (a regular file of at most {} MiB)",
            object.display(),
            bridge::MAX_BIN_BYTES >> 20
        );
    }
    let bytes = fsio::read_input(object)?;
    if !bridge::is_object(&bytes) {
        anyhow::bail!(
            "{}: not an OPEN-R object (neither gzip nor ELF); build it with `make -C \
             firmware-bridge/openr`",
            object.display()
        );
    }
    let _lock = files::lock(&root)?;
    let changes = bridge::install(&root, &bytes)?;
    let backup = write_changes(&root, &changes, force)?;
    eprintln!(
        "put the bridge on the OPEN-R SDK stick at {} ({}, {} bytes; {} file{} written){}; \
         with the network set up (`stick wifi`), `play --tcp ROBOT:7000` streams to it",
        root.display(),
        bridge::BIN_PATH,
        bytes.len(),
        changes.len(),
        if changes.len() == 1 { "" } else { "s" },
        kept_in(&backup)
    );
    Ok(Outcome::Success)
}

fn list(path: &std::path::Path, as_json: bool) -> Result<Outcome> {
    let stick = Stick::open(path)?;
    if as_json {
        let actions: Vec<_> = stick.list().collect();
        print_stdout(&json_text(&json!({
            "stick": path.display().to_string(),
            "model": stick.model,
            "actions": actions,
        })))?;
        return Ok(Outcome::Success);
    }
    let count = stick.actions.as_ref().map_or(0, |l| l.actions().count());
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: an {} stick, {count} user action{}",
        path.display(),
        stick.model,
        if count == 1 { "" } else { "s" }
    );
    // Printed a thousand lines at a time, so that a huge list is never held whole.
    for (i, a) in stick.list().enumerate() {
        let motion = a.motion.as_ref().map_or("no motion".to_string(), |m| {
            let postures = match (&m.start, &m.end) {
                (Some(s), Some(e)) => format!(", {} → {}", shown(s), shown(e)),
                _ => String::new(),
            };
            format!(
                "motion {} ({} keyframes, {:.2} s{postures})",
                shown(&m.entry),
                m.keyframes,
                m.duration_s
            )
        });
        let _ = write!(t, "  {:<16} {:>6}  {motion}", shown(&a.name), a.mwcid);
        if let Some(s) = &a.sound {
            let _ = write!(t, ", sound {}", shown(s));
        }
        if let Some(l) = &a.led {
            let _ = write!(t, ", lights {}", shown(l));
        }
        t.push('\n');
        if i % 1000 == 999 {
            print_stdout(&t)?;
            t.clear();
        }
    }
    print_stdout(&t)?;
    Ok(Outcome::Success)
}

fn check(path: &std::path::Path, as_json: bool) -> Result<Outcome> {
    use aibo_motion::stick::bridge::{self, Base};
    let root = aibo_motion::stick::tree::tree_root(path)?;
    if bridge::base(&root)? == Base::Sdk {
        return check_sdk(path, &root, as_json);
    }
    let stick = Stick::open(path)?;
    let findings = stick.check();
    if as_json {
        print_stdout(&json_text(&json!({
            "stick": path.display().to_string(),
            "model": stick.model,
            "user_actions": stick.user_blocks().count(),
            "findings": findings,
        })))?;
    } else {
        let heading = format!(
            "{}: an {} stick, {} user action{} in the catalogue\n",
            path.display(),
            stick.model,
            stick.user_blocks().count(),
            if stick.user_blocks().count() == 1 {
                ""
            } else {
                "s"
            }
        );
        print_stdout(&with_findings(heading, &findings))?;
    }
    Ok(check_outcome(&findings))
}

/// A check's report: its heading, each finding on a line, and the count of errors.
fn with_findings(mut t: String, findings: &[aibo_motion::stick::tree::Finding]) -> String {
    for f in findings {
        let kind = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(t, "  {kind}: {}", shown(&f.message));
    }
    let _ = match findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count()
    {
        0 => writeln!(t, "no errors"),
        n => writeln!(t, "{n} error{}", if n == 1 { "" } else { "s" }),
    };
    t
}

/// Exit 1 when a check found an error.
fn check_outcome(findings: &[aibo_motion::stick::tree::Finding]) -> Outcome {
    if findings.iter().any(|f| f.severity == Severity::Error) {
        Outcome::Finding
    } else {
        Outcome::Success
    }
}

/// `stick check` of an OPEN-R SDK stick: the bridge and the network set-up.
fn check_sdk(path: &Path, root: &Path, as_json: bool) -> Result<Outcome> {
    let findings = aibo_motion::stick::bridge::check(root)?;
    if as_json {
        print_stdout(&json_text(&json!({
            "stick": path.display().to_string(),
            "base": "openr-sdk",
            "findings": findings,
        })))?;
    } else {
        let heading = format!(
            "{}: an OPEN-R SDK stick (its own objects, no R-CODE)\n",
            path.display()
        );
        print_stdout(&with_findings(heading, &findings))?;
    }
    Ok(check_outcome(&findings))
}

/// A sound or lights file as an archive entry: its name (the file's stem, which must be
/// a name R-CODE takes) and its type by extension.
fn media_file(path: &Path, what: &str, kinds: &[(&str, [u8; 4])], largest: u64) -> Result<Entry> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let Some((_, kind)) = kinds.iter().find(|(e, _)| *e == ext) else {
        let known: Vec<String> = kinds.iter().map(|(e, _)| format!(".{e}")).collect();
        anyhow::bail!(
            "{}: a {what} is a {} file",
            path.display(),
            known.join(" or ")
        );
    };
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !aibo_motion::stick::actions::valid_name(&name) {
        anyhow::bail!(
            "{}: the {what} is stored under its file name, and {name:?} is not one R-CODE takes \
             (lower-case letters, digits and _, at most 31): rename the file",
            path.display()
        );
    }
    // One that could never fit a stick's file is refused before it is read.
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.is_file() && meta.len() > largest {
            anyhow::bail!(
                "{}: {} bytes, more than the {largest} a {what} on a stick may take",
                path.display(),
                meta.len()
            );
        }
    }
    Ok(Entry {
        kind: *kind,
        name,
        data: fsio::read_input(path)?,
    })
}

fn add(
    root: &Path,
    motion: Option<&Path>,
    name: &str,
    sound: Option<&Path>,
    convert_sound: bool,
    led: Option<&Path>,
    force: bool,
) -> Result<Outcome> {
    let (_lock, stick) = Stick::open_to_change(root)?;
    let motion_bytes = motion.map(fsio::read_input).transpose()?;
    if let (Some(path), Some(bytes)) = (motion, &motion_bytes) {
        let m = aibo_motion::mtn::decode(bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
            .motion;
        if let Some(profile) = aibo_motion::robot::profile::Profile::builtin(&stick.model) {
            let found = aibo_motion::check::check(&m, &profile).violations.len();
            if found > 0 && !force {
                anyhow::bail!(
                    "{}: {found} places past the {}'s limits or speeds (`aibo-motion check {}` \
                     lists them); fix them, or add it anyway with --force",
                    path.display(),
                    stick.model,
                    path.display()
                );
            }
            super::gate::refuse_if_it_tips(&m, &profile, path, force, "added to the stick")?;
        }
    }
    let sound_file = sound;
    let mut sound = sound_file
        .map(|p| {
            // A sound to be converted may start larger: it shrinks to 8 kHz, 8-bit, mono.
            let largest = if convert_sound {
                fsio::MAX_INPUT_BYTES
            } else {
                files::MAX_FILE_BYTES
            };
            media_file(
                p,
                "sound",
                &[("wav", *b"WAVE"), ("mid", *b"MIDI"), ("midi", *b"MIDI")],
                largest,
            )
        })
        .transpose()?;
    if let (Some(path), Some(entry)) = (sound_file, &mut sound) {
        if &entry.kind == b"WAVE" {
            let why = aibo_motion::stick::sound::unplayable(&entry.data, &stick.model)
                .with_context(|| path.display().to_string())?;
            match why {
                None => {}
                Some(_) if convert_sound => {
                    entry.data =
                        aibo_motion::stick::sound::convert(path, &entry.data, &stick.model)?;
                }
                Some(why) => anyhow::bail!(
                    "{}: {why}; add it with --convert-sound to convert it",
                    path.display()
                ),
            }
        }
    }
    let led = led
        .map(|p| {
            media_file(
                p,
                "lighting pattern",
                &[("mid", *b"LED\0"), ("midi", *b"LED\0")],
                files::MAX_FILE_BYTES,
            )
        })
        .transpose()?;
    let changes = stick.add(&NewAction {
        name,
        motion: motion_bytes.as_deref(),
        sound: sound.as_ref().map(Media::from),
        led: led.as_ref().map(Media::from),
    })?;
    let backup = write_changes(&stick.root, &changes.files, force)?;
    eprintln!(
        "added {name} as action {} to the {} stick at {} ({} files written{})",
        changes.mwcid,
        stick.model,
        stick.root.display(),
        changes.files.len(),
        kept_in(&backup)
    );
    Ok(Outcome::Success)
}

/// `; the files replaced are kept in …`, where any were.
fn kept_in(backup: &Path) -> String {
    if backup.is_dir() {
        format!("; the files replaced are kept in {}", backup.display())
    } else {
        String::new()
    }
}

/// Writes `files` (paths below the stick's root) in their order: nothing unless every
/// one can be written, each file it replaces first copied under
/// `aibo-motion-backup/<time>/`, each written whole and renamed into place. Returns the
/// backup folder.
fn write_changes(root: &Path, changed: &[(String, Vec<u8>)], force: bool) -> Result<PathBuf> {
    // Files on a mounted stick, never a raw device (however the path reaches it).
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if root.starts_with("/dev") || real.starts_with("/dev") {
        anyhow::bail!(
            "{}: a device; name the folder the stick is mounted on (its files are written, \
             never the raw device)",
            root.display()
        );
    }
    // A file the readers would refuse would lock the owner out of the stick.
    if let Some((relative, bytes)) = changed
        .iter()
        .find(|(_, bytes)| bytes.len() as u64 > files::MAX_FILE_BYTES)
    {
        anyhow::bail!(
            "{relative} would be {} bytes, more than the {} a stick file may hold: nothing was \
             written (is the sound that large?)",
            bytes.len(),
            files::MAX_FILE_BYTES
        );
    }
    // Every path is checked (no link, no special file) before anything is written.
    for (relative, _) in changed {
        files::check(root, relative)?;
    }
    // A read-only file found half-way would leave the stick with some files new.
    let read_only: Vec<String> = changed
        .iter()
        .map(|(relative, _)| root.join(relative))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.permissions().readonly()))
        .map(|p| p.display().to_string())
        .collect();
    if !read_only.is_empty() && !force {
        anyhow::bail!(
            "{} read-only (copied from a CD?): nothing was written; make them writable \
             (chmod u+w), or pass --force to replace them",
            read_only.join(", ") + if read_only.len() == 1 { " is" } else { " are" }
        );
    }
    // Room for every new file beside the old one (written whole, then renamed) and for a
    // backup of each file replaced.
    let needed: u64 = changed
        .iter()
        .map(|(relative, bytes)| {
            let old = std::fs::metadata(root.join(relative)).map_or(0, |m| m.len());
            bytes.len() as u64 + old
        })
        .sum();
    let free = free_space(root)?;
    if needed > free {
        anyhow::bail!(
            "the stick at {} has {} kB free and this change needs {} kB (the new files, and a \
             backup of each file replaced): nothing was written; make room (an older \
             aibo-motion-backup folder can go)",
            root.display(),
            free / 1024,
            needed.div_ceil(1024)
        );
    }
    // A folder of its own for this change, even for two changes within one second.
    let time = aibo_motion::stick::files::utc_stamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    let backups = "aibo-motion-backup";
    let backup = (1..)
        .map(|k| match k {
            1 => format!("{backups}/{time}"),
            k => format!("{backups}/{time}-{k}"),
        })
        .find(|p| std::fs::symlink_metadata(root.join(p)).is_err())
        .unwrap_or_else(|| format!("{backups}/{time}"));
    let mut written: Vec<(&str, bool)> = Vec::new();
    for (relative, bytes) in changed {
        let step = || -> Result<bool> {
            let target = files::writable(root, relative)?;
            let saved = format!("{backup}/{relative}");
            let kept =
                target.is_file() && files::copy(root, relative, &files::writable(root, &saved)?)?;
            write_stick_file(&target, bytes)?;
            Ok(kept)
        };
        match step() {
            Ok(kept) => written.push((relative, kept)),
            Err(e) => {
                let undone = undo(root, &backup, &written);
                anyhow::bail!("{e:#}; {undone}");
            }
        }
    }
    Ok(root.join(backup))
}

/// Writes one of a change's files (tests fail one here, debug builds only).
fn write_stick_file(target: &Path, bytes: &[u8]) -> Result<()> {
    #[cfg(debug_assertions)]
    if let Some(name) = std::env::var_os("AIBO_MOTION_TEST_FAIL_WRITE_OF") {
        if target.file_name() == Some(name.as_os_str()) {
            anyhow::bail!(
                "cannot write {}: a failure the test asked for",
                target.display()
            );
        }
    }
    fsio::write_bytes(target, &[], bytes)?;
    Ok(())
}

/// Puts back the files a failed change wrote (from the backup it took; a new file is
/// removed), and says what it did.
fn undo(root: &Path, backup: &str, written: &[(&str, bool)]) -> String {
    if written.is_empty() {
        return "nothing was written".into();
    }
    let mut lost = Vec::new();
    for (relative, kept) in written.iter().rev() {
        let target = root.join(relative);
        let restored = if *kept {
            files::read(root, &format!("{backup}/{relative}"), files::MAX_FILE_BYTES)
                .ok()
                .flatten()
                .is_some_and(|bytes| fsio::write_bytes(&target, &[], &bytes).is_ok())
        } else {
            std::fs::remove_file(&target).is_ok()
        };
        if !restored {
            lost.push(relative.to_string());
        }
    }
    if lost.is_empty() {
        format!(
            "the {} files already written were put back as they were",
            written.len()
        )
    } else {
        format!(
            "the files already written were put back, except {} (its old content is in {})",
            lost.join(", "),
            root.join(backup).display()
        )
    }
}

/// An R-CODE.R that plays `names` in turn at boot.
fn autoplay(root: &Path, names: &[String], force: bool) -> Result<Outcome> {
    let (_lock, stick) = Stick::open_to_change(root)?;
    for name in names {
        let known = stick
            .actions
            .as_ref()
            .is_some_and(|a| a.find(name).is_some())
            || stick.reserved.iter().any(|(_, l)| l.find(name).is_some());
        if !known {
            let held: Vec<String> = stick
                .actions
                .iter()
                .flat_map(|a| a.actions().map(|x| x.name().to_string()))
                .collect();
            anyhow::bail!(
                "the stick has no action named {name:?}; its own are {}",
                if held.is_empty() {
                    "none yet".to_string()
                } else {
                    held.join(", ")
                }
            );
        }
    }
    let mut script =
        String::from("// Written by aibo-motion stick autoplay: plays these actions at boot.\r\n");
    for name in names {
        script.push_str(&format!("PLAY:ACTION:{name}\r\nWAIT\r\n"));
    }
    if let Some(line) = script
        .split("\r\n")
        .find(|l| l.len() > aibo_motion::stick::tree::MAX_SCRIPT_LINE)
    {
        anyhow::bail!("{line:?} is longer than the 127 bytes R-CODE reads");
    }
    let relative = format!("{}/R-CODE.R", aibo_motion::stick::tree::paths::AMS);
    let backup = write_changes(&stick.root, &[(relative, script.into_bytes())], force)?;
    eprintln!(
        "the stick at {} now plays {} at boot{}",
        stick.root.display(),
        names.join(", then "),
        kept_in(&backup)
    );
    Ok(Outcome::Success)
}

/// The bytes free on the file system holding `root`.
fn free_space(root: &Path) -> Result<u64> {
    // Tests pretend a full stick through this (debug builds only).
    #[cfg(debug_assertions)]
    if let Some(bytes) = std::env::var_os("AIBO_MOTION_TEST_FREE_BYTES") {
        return Ok(bytes.to_string_lossy().parse().unwrap_or(0));
    }
    fs4::available_space(root)
        .map_err(|e| anyhow::anyhow!("{}: cannot tell its free space: {e}", root.display()))
}
