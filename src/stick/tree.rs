//! A stick's user files, read together: the model's MWC catalogue, the action lists, the
//! ODA archives and the boot script; what each user action plays, and what is wrong.
//!
//! A stick is a folder holding `OPEN-R/` (a mounted Memory Stick's root, or an owner's
//! copy of the R-CODE tree). Only plain user files are read; Sony's encrypted runtime
//! files are only looked for.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::actions::{self, Actions};
use super::files::{self, MAX_FILE_BYTES, MAX_TEXT_BYTES};
use super::mwc::{self, kind, Block, Decoded as Mwc};
use crate::mtn;
use crate::oda::{Archive, Entry};

/// The catalogue file of each model, in `OPEN-R/MW/CONF`.
pub const CATALOGUES: [(&str, &str); 3] = [
    ("ERS-210.MWC", "ERS-210"),
    ("ERS-220.MWC", "ERS-220"),
    ("ERS-7.MWC", "ERS-7"),
];

/// The longest line R-CODE reads from `R-CODE.R`, in bytes.
pub const MAX_SCRIPT_LINE: usize = 127;

/// Where the user files lie, below the stick's root.
pub mod paths {
    pub const CONF: &str = "OPEN-R/MW/CONF";
    pub const DATA: &str = "OPEN-R/MW/DATA/P";
    pub const AMS: &str = "OPEN-R/APP/PC/AMS";
    /// Sony's encrypted programs: looked for, never read.
    pub const RUNTIME: [&str; 2] = ["OPEN-R/MW/OBJS", "OPEN-R/APP/OBJS"];
}

/// Why a stick could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum StickError {
    #[error(
        "{0}: no OPEN-R folder here; name a Memory Stick's root or a folder holding an R-CODE tree"
    )]
    NoTree(String),
    #[error(
        "{0}: no model catalogue (ERS-210.MWC, ERS-220.MWC or ERS-7.MWC); is R-CODE on this stick?"
    )]
    NoCatalogue(String),
    #[error("{path}: {why}")]
    File { path: String, why: String },
}

/// The user files of a stick.
#[derive(Debug)]
pub struct Stick {
    pub root: PathBuf,
    /// `ERS-210`, `ERS-220` or `ERS-7`: the catalogue the stick holds.
    pub model: String,
    pub catalogue: Mwc,
    /// `ACTION.CFG`, where there is one (Sony's ERS-7 tree has none).
    pub actions: Option<Actions>,
    /// Sony's `ACTION.AMS` and `ACTION.EXT`: names a user action must not take.
    pub reserved: Vec<(String, Actions)>,
    pub motions: Option<Archive>,
    pub sounds: Option<Archive>,
    pub leds: Option<Archive>,
    /// `R-CODE.R`, the boot script, as bytes.
    pub script: Option<Vec<u8>>,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// R-CODE would fail on it.
    Error,
    /// Odd, or not checkable here.
    Warning,
}

/// One thing `check` found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub message: String,
}

/// What a user action plays.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ActionSummary {
    pub name: String,
    pub mwcid: i32,
    pub motion: Option<MotionSummary>,
    pub sound: Option<String>,
    pub led: Option<String>,
}

/// A motion of a user action, as its MTN says.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MotionSummary {
    /// The entry in `MOTION.ODA`.
    pub entry: String,
    pub keyframes: usize,
    pub duration_s: f64,
    /// The postures its name starts and ends in (`a_stand#sit_x`), if it names them.
    pub start: Option<String>,
    pub end: Option<String>,
}

impl Stick {
    /// Reads the user files of the stick at `root` (or of the tree `root/OPEN-R` is).
    pub fn open(root: &Path) -> Result<Stick, StickError> {
        Stick::read(tree_root(root)?)
    }

    /// The stick at `root`, read under its lock ([`files::lock`]): a second command that
    /// would change it waits, then refuses, so that two changes never lose one another.
    pub fn open_to_change(root: &Path) -> Result<(files::Lock, Stick), StickError> {
        let root = tree_root(root)?;
        let lock = files::lock(&root)?;
        Ok((lock, Stick::read(root)?))
    }

    fn read(root: PathBuf) -> Result<Stick, StickError> {
        let conf = root.join(paths::CONF);
        let (file, model) = CATALOGUES
            .iter()
            .find(|(file, _)| std::fs::symlink_metadata(conf.join(file)).is_ok())
            .ok_or_else(|| StickError::NoCatalogue(root.display().to_string()))?;
        let relative = format!("{}/{file}", paths::CONF);
        let bytes = files::read(&root, &relative, MAX_FILE_BYTES)?.unwrap_or_default();
        let catalogue = mwc::decode(&bytes).map_err(|e| StickError::File {
            path: root.join(&relative).display().to_string(),
            why: e.to_string(),
        })?;
        let list = |name: &str| -> Result<Option<Actions>, StickError> {
            let relative = format!("{}/{name}", paths::AMS);
            match files::read(&root, &relative, MAX_TEXT_BYTES)? {
                None => Ok(None),
                Some(bytes) => actions::decode(&bytes)
                    .map(Some)
                    .map_err(|e| StickError::File {
                        path: root.join(&relative).display().to_string(),
                        why: e.to_string(),
                    }),
            }
        };
        let archive = |name: &str| -> Result<Option<Archive>, StickError> {
            let relative = format!("{}/{name}", paths::DATA);
            match files::read(&root, &relative, MAX_FILE_BYTES)? {
                None => Ok(None),
                Some(bytes) => Archive::decode(&bytes)
                    .map(|d| Some(d.archive))
                    .map_err(|e| StickError::File {
                        path: root.join(&relative).display().to_string(),
                        why: e.to_string(),
                    }),
            }
        };
        let mut reserved = Vec::new();
        for name in ["ACTION.AMS", "ACTION.EXT"] {
            if let Some(l) = list(name)? {
                reserved.push((name.to_string(), l));
            }
        }
        Ok(Stick {
            model: model.to_string(),
            catalogue,
            actions: list("ACTION.CFG")?,
            reserved,
            motions: archive("MOTION.ODA")?,
            sounds: archive("AUDIO.ODA")?,
            leds: archive("LED.ODA")?,
            script: files::read(&root, &format!("{}/R-CODE.R", paths::AMS), MAX_TEXT_BYTES)?,
            root,
        })
    }

    /// The archive a chunk of `kind` plays from, and its file's name.
    fn archive_for(&self, chunk_kind: i32) -> Option<(&Option<Archive>, &'static str)> {
        let file = kind::archive(chunk_kind)?;
        let archive = match file {
            "MOTION.ODA" => &self.motions,
            "AUDIO.ODA" => &self.sounds,
            _ => &self.leds,
        };
        Some((archive, file))
    }

    /// The owner's actions, in `ACTION.CFG` order, with what each plays.
    /// (One at a time: a list of 100 000 actions is printed as it goes, never held.)
    pub fn list(&self) -> impl Iterator<Item = ActionSummary> + '_ {
        let blocks = self.blocks_by_id();
        let motions = entries_by_name(&self.motions);
        self.actions
            .iter()
            .flat_map(Actions::actions)
            .map(move |a| {
                let block = blocks.get(&a.mwcid).copied();
                let named = |k: &dyn Fn(i32) -> bool| {
                    block
                        .and_then(|b| b.chunks.iter().find(|c| k(c.kind)))
                        .map(|c| c.name.clone())
                };
                let motion = named(&|k| k == kind::MOTION)
                    .map(|entry| motion_summary(&entry, motions.get(entry.as_str()).copied()));
                ActionSummary {
                    name: a.name().to_string(),
                    mwcid: a.mwcid,
                    motion,
                    sound: named(&|k| k == kind::SOUND),
                    led: named(&|k| kind::LEDS.contains(&k)),
                }
            })
    }

    /// The catalogue's blocks by MWCID (the first, where one is given twice, as
    /// [`mwc::Catalogue::block`] finds it): a hostile catalogue holds many thousands.
    fn blocks_by_id(&self) -> HashMap<i32, &Block> {
        let mut by_id = HashMap::new();
        for b in &self.catalogue.catalogue.blocks {
            by_id.entry(b.id).or_insert(b);
        }
        by_id
    }

    /// Everything wrong with the stick, worst first.
    pub fn check(&self) -> Vec<Finding> {
        let mut found = Findings::default();
        let mut error = |message: String| found.add(Severity::Error, message);
        let blocks = self.blocks_by_id();
        let entries = [
            ("MOTION.ODA", entries_by_name(&self.motions)),
            ("AUDIO.ODA", entries_by_name(&self.sounds)),
            ("LED.ODA", entries_by_name(&self.leds)),
        ];
        // Every entry a user block names is in its archive.
        for block in self.user_blocks() {
            for chunk in &block.chunks {
                let Some((archive, file)) = self.archive_for(chunk.kind) else {
                    continue;
                };
                let present = entries
                    .iter()
                    .any(|(f, names)| *f == file && names.contains_key(chunk.name.as_str()));
                if !present {
                    error(format!(
                        "action {}: {:?} is not an entry of {file}{}",
                        block.id,
                        chunk.name,
                        if archive.is_none() {
                            " (there is no such file)"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
        // Each named action has a block, a name R-CODE takes, and no clash.
        let mut named: HashSet<i32> = HashSet::new();
        if let Some(list) = &self.actions {
            let reserved: Vec<(&str, HashMap<&str, u32>)> = self
                .reserved
                .iter()
                .map(|(file, l)| {
                    let mut lines = HashMap::new();
                    for r in l.actions() {
                        lines.entry(r.name()).or_insert(r.line);
                    }
                    (file.as_str(), lines)
                })
                .collect();
            let mut seen: HashMap<&str, i32> = HashMap::new();
            for a in list.actions() {
                named.insert(a.mwcid);
                if !blocks.contains_key(&a.mwcid) {
                    error(format!(
                        "ACTION.CFG line {}: {} plays MWCID {}, which the catalogue does not hold",
                        a.line,
                        a.name(),
                        a.mwcid
                    ));
                }
                if !actions::valid_name(a.name()) {
                    error(format!(
                        "ACTION.CFG line {}: {:?} is not a user action's name (lower-case letters, digits and _, at most 31)",
                        a.line, a.name()
                    ));
                }
                for (file, lines) in &reserved {
                    if let Some(line) = lines.get(a.name()) {
                        error(format!(
                            "ACTION.CFG line {}: {} is already Sony's action in {file} (line {line})",
                            a.line, a.name()
                        ));
                    }
                }
                if let Some(id) = seen.get(a.name()) {
                    error(format!(
                        "ACTION.CFG line {}: {} is named twice (also MWCID {id})",
                        a.line,
                        a.name()
                    ));
                }
                seen.entry(a.name()).or_insert(a.mwcid);
            }
        }
        // Sony's own actions still have their blocks (a tool that removed one broke them).
        // Negative numbers are R-CODE's built-in commands, not blocks.
        for (file, list) in &self.reserved {
            for a in list.actions().filter(|a| a.mwcid > 0) {
                if !blocks.contains_key(&a.mwcid) {
                    error(format!(
                        "{file} line {}: Sony's action {} plays MWCID {}, which the catalogue \
                         no longer holds",
                        a.line,
                        a.name(),
                        a.mwcid
                    ));
                }
            }
        }
        // The boot script's lines fit R-CODE's buffer.
        if let Some(script) = &self.script {
            for (i, line) in script.split(|&b| b == b'\n').enumerate() {
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.len() > MAX_SCRIPT_LINE {
                    error(format!(
                        "R-CODE.R line {}: {} bytes; R-CODE reads at most {MAX_SCRIPT_LINE}",
                        i + 1,
                        line.len()
                    ));
                }
            }
        }
        // The wireless set-up, where there is one.
        match files::read(&self.root, super::wifi::PATH, MAX_TEXT_BYTES) {
            Ok(Some(bytes)) => {
                if let Err(e) = super::wifi::decode(&bytes) {
                    error(format!("WLANCONF.TXT: {e}"));
                }
            }
            Ok(None) => {}
            Err(e) => error(e.to_string()),
        }
        let mut warning = |message: String| found.add(Severity::Warning, message);
        // A user block no name plays: left by a change that did not finish, or by hand.
        let orphans: Vec<i32> = self
            .user_blocks()
            .map(|b| b.id)
            .filter(|id| !named.contains(id))
            .collect();
        if !orphans.is_empty() {
            warning(format!(
                "the catalogue holds {} user action{} that ACTION.CFG names nowhere ({}): \
                 left by a change that did not finish? R-CODE plays them only by number \
                 (PLAY:MWCID)",
                orphans.len(),
                if orphans.len() == 1 { "" } else { "s" },
                abridged_ids(&orphans)
            ));
        }
        if self.actions.as_ref().is_some_and(|l| l.bare_cr) {
            warning(
                "ACTION.CFG ends lines with a CR alone (a classic Mac file); R-CODE's own end \
                 with CRLF, and whether R-CODE reads a CR alone is unknown. `stick add` and \
                 `stick remove` write it back with CRLF"
                    .into(),
            );
        }
        let leftovers = files::leftover_temporaries(&self.root, &WRITTEN_FOLDERS);
        for leftover in leftovers.iter().take(10) {
            warning(format!(
                "{leftover}: a temporary file a write that was killed left behind (nothing \
                 reads it; delete it)"
            ));
        }
        if leftovers.len() > 10 {
            warning(format!(
                "and {} more such temporary files",
                leftovers.len() - 10
            ));
        }
        if !paths::RUNTIME.iter().all(|p| self.root.join(p).is_dir()) {
            warning(
                "Sony's R-CODE runtime (OPEN-R/MW/OBJS, OPEN-R/APP/OBJS) is not here: a folder \
                 of user files only, or not an R-CODE stick"
                    .into(),
            );
        }
        if self.model == "ERS-7" {
            warning(
                "ERS-7 sticks follow Sony's ERS-7 catalogue but are untested on a robot".into(),
            );
        }
        found.worst_first()
    }

    /// The blocks of the owner's actions (MWCID 24001 and up).
    pub fn user_blocks(&self) -> impl Iterator<Item = &Block> {
        self.catalogue
            .catalogue
            .blocks
            .iter()
            .filter(|b| b.id >= mwc::FIRST_USER_MWCID)
    }
}

/// Most findings `check` keeps: a hostile stick can give one per line of a 1 MiB list.
const MAX_FINDINGS: usize = 1000;

/// A check's findings as they come, the first [`MAX_FINDINGS`] kept and the rest counted.
#[derive(Default)]
struct Findings {
    kept: Vec<Finding>,
    more: [usize; 2],
}

impl Findings {
    fn add(&mut self, severity: Severity, message: String) {
        if self.kept.len() < MAX_FINDINGS {
            self.kept.push(Finding { severity, message });
        } else {
            self.more[usize::from(severity == Severity::Warning)] += 1;
        }
    }

    /// Errors first, then warnings, each with how many more there were.
    fn worst_first(mut self) -> Vec<Finding> {
        for (severity, more, what) in [
            (Severity::Error, self.more[0], "errors"),
            (Severity::Warning, self.more[1], "warnings"),
        ] {
            if more > 0 {
                self.kept.push(Finding {
                    severity,
                    message: format!("and {more} more {what} like those above"),
                });
            }
        }
        self.kept.sort_by_key(|f| f.severity != Severity::Error);
        self.kept
    }
}

/// The folders stick commands write in (and so where a killed one can leave a temporary).
const WRITTEN_FOLDERS: [&str; 4] = [paths::CONF, paths::DATA, paths::AMS, "OPEN-R/SYSTEM/CONF"];

/// An archive's entries by name (the first, where a name is given twice).
fn entries_by_name(archive: &Option<Archive>) -> HashMap<&str, &Entry> {
    let mut by_name = HashMap::new();
    for e in archive.iter().flat_map(|a| &a.entries) {
        by_name.entry(e.name.as_str()).or_insert(e);
    }
    by_name
}

/// A motion entry as its MTN says (`None`: no such entry).
fn motion_summary(entry: &str, found: Option<&Entry>) -> MotionSummary {
    let decoded = found.and_then(|e| mtn::decode(&e.data).ok());
    let (keyframes, duration_s, postures) = match &decoded {
        Some(d) => (
            d.motion.keyframes.len(),
            d.motion.duration_ms() as f64 / 1000.0,
            postures(&d.motion.name),
        ),
        None => (0, 0.0, None),
    };
    MotionSummary {
        entry: entry.to_string(),
        keyframes,
        duration_s,
        start: postures.as_ref().map(|p| p.0.clone()),
        end: postures.map(|p| p.1),
    }
}

/// Up to ten MWCIDs, and how many more.
fn abridged_ids(ids: &[i32]) -> String {
    let shown: Vec<String> = ids.iter().take(10).map(i32::to_string).collect();
    match ids.len().saturating_sub(10) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The stick's root for a path naming it (the folder itself, or the one holding `OPEN-R`
/// where the path names that), which must hold an `OPEN-R` folder.
/// The stick's root for a path naming it or its `OPEN-R` folder.
pub fn tree_root(path: &Path) -> Result<PathBuf, StickError> {
    let root = if path.ends_with("OPEN-R") {
        path.parent().unwrap_or(path)
    } else {
        path
    };
    if !root.join("OPEN-R").is_dir() {
        return Err(StickError::NoTree(root.display().to_string()));
    }
    Ok(root.to_path_buf())
}

/// The start and end postures a motion's name carries (`a_stand#sit_bow` → stand, sit).
pub fn postures(name: &str) -> Option<(String, String)> {
    let (_, rest) = name.split_once('_')?;
    let (start, after) = rest.split_once('#')?;
    let end = after.split('_').next().unwrap_or(after);
    (!start.is_empty() && !end.is_empty()).then(|| (start.to_string(), end.to_string()))
}

#[cfg(test)]
mod tests {
    use super::postures;

    #[test]
    fn postures_come_from_sonys_naming() {
        assert_eq!(
            postures("a_stand#sit_so0_greet"),
            Some(("stand".into(), "sit".into()))
        );
        assert_eq!(
            postures("a_sleep#stand"),
            Some(("sleep".into(), "stand".into()))
        );
        assert_eq!(postures("amsmtn0"), None);
        assert_eq!(postures("a_#sit_x"), None);
    }
}
