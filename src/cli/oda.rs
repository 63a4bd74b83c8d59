//! `aibo-motion oda list|extract|pack`: Sony's ODA motion archives.

use super::{json_text, print_stdout, Outcome};
use aibo_motion::binary::string_to_latin1;
use aibo_motion::fsio;
use aibo_motion::oda::{Archive, Entry};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// List, extract or pack ODA archives (how Sony's MoNet stores motions on the Memory Stick).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  aibo-motion oda list MOTION7.ODA\n  \
                        aibo-motion oda extract MOTION7.ODA -o motions/\n  \
                        aibo-motion oda pack -o MOTION7.ODA motions/*.mtn")]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

impl Args {
    /// Whether `--force` was given: it also lets the written files replace read-only ones.
    pub fn forces(&self) -> bool {
        match self.action {
            Action::Extract { force, .. } | Action::Pack { force, .. } => force,
            _ => false,
        }
    }
}

/// Entry types other than motions, which an extracted file keeps as its extension.
const OTHER_KINDS: [&str; 5] = ["OSND", "WAVE", "MIDI", "LED", "SYN"];

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// List the entries of an archive (the same as `aibo-motion info FILE.ODA`).
    #[command(after_help = "Examples:\n  aibo-motion oda list MOTION7.ODA\n  \
                            aibo-motion oda list MOTION7.ODA --json")]
    List {
        archive: PathBuf,
        /// One JSON object on stdout instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write entries out as files: motions as NAME.mtn, other kinds as NAME.<TYPE>.
    #[command(
        after_help = "Examples:\n  aibo-motion oda extract MOTION7.ODA -o motions/\n  \
                            aibo-motion oda extract MOTION7.ODA 'a_sit#sit_so0_greet'"
    )]
    Extract {
        archive: PathBuf,
        /// Entry names to extract; all when none are given.
        names: Vec<String>,
        /// Folder to write into (created if missing).
        #[arg(short, long, default_value = ".")]
        output: PathBuf,
        /// Replace files that already exist, read-only ones too.
        #[arg(long)]
        force: bool,
    },
    /// Pack files into an archive in Sony's layout (entries sorted by name).
    #[command(
        after_help = "Each file's entry name is its file name without the extension. \
                            A .mtn file becomes an OMTN entry; NAME.OSND, .WAVE, .MIDI, .LED \
                            and .SYN files keep that type.\n\nExamples:\n  \
                            aibo-motion oda pack -o MOTION7.ODA motions/*.mtn\n  \
                            aibo-motion oda pack -o ONE.ODA dance.mtn"
    )]
    Pack {
        /// Files to pack, or folders whose files to pack (hidden files and subfolders
        /// left out).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The archive to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace the archive even when it is read-only.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(args: Args) -> Result<Outcome> {
    match args.action {
        Action::List { archive, json } => {
            let data = fsio::read_input(&archive)?;
            let decoded = decode(&data, &archive)?;
            let mut warnings = decoded.warnings;
            let (summary, text) = super::info::oda_info(&archive, &decoded.archive, &mut warnings);
            super::log_warnings(&warnings);
            print_stdout(&if json { json_text(&summary) } else { text })?;
        }
        Action::Extract {
            archive,
            names,
            output,
            force,
        } => extract(&archive, &names, &output, force)?,
        Action::Pack { files, output, .. } => pack(&files, &output)?,
    }
    Ok(Outcome::Success)
}

fn decode(data: &[u8], path: &Path) -> Result<aibo_motion::oda::Decoded> {
    Archive::decode(data)
        .with_context(|| format!("{} is not a readable ODA archive", path.display()))
}

fn extract(archive: &Path, names: &[String], dir: &Path, force: bool) -> Result<()> {
    let data = fsio::read_input(archive)?;
    let decoded = decode(&data, archive)?;
    super::log_warnings(&decoded.warnings);
    let entries = &decoded.archive.entries;
    for wanted in names {
        if !entries.iter().any(|e| &e.name == wanted) {
            anyhow::bail!("{} has no entry named {wanted:?}", archive.display());
        }
    }
    let chosen: Vec<&Entry> = entries
        .iter()
        .filter(|e| names.is_empty() || names.contains(&e.name))
        .collect();
    // Decide every file name before writing any. Two entries never share a file: a
    // name met again is numbered (`name~2.mtn`).
    let mut targets: Vec<PathBuf> = Vec::with_capacity(chosen.len());
    for e in &chosen {
        let (stem, ext) = file_name_for(e);
        let mut path = dir.join(format!("{stem}.{ext}"));
        let mut k = 1;
        while targets.contains(&path) {
            k += 1;
            path = dir.join(format!("{stem}~{k}.{ext}"));
        }
        if k > 1 {
            tracing::warn!(
                "entry {:?} appears more than once: extracted as {}",
                e.name,
                path.display()
            );
        }
        if path.exists() && !force {
            anyhow::bail!(
                "{} exists; use --force to replace it (nothing was extracted)",
                path.display()
            );
        }
        targets.push(path);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (e, path) in chosen.iter().zip(&targets) {
        fsio::write_bytes(path, &[archive], &e.data)?;
        tracing::info!("wrote {} ({} bytes)", path.display(), e.data.len());
    }
    eprintln!("extracted {} entries into {}", targets.len(), dir.display());
    Ok(())
}

/// The file an entry is extracted to, as stem and extension. Names and types come from
/// the archive and may be hostile: a character that could leave the folder, hide the
/// file or reach a terminal (`/`, `\`, a leading `.`, a control character) is written
/// `%XX`; the extension keeps only letters and digits.
fn file_name_for(e: &Entry) -> (String, String) {
    let mut stem = String::new();
    for (i, c) in e.name.chars().enumerate() {
        if c == '/' || c == '\\' || c == '%' || c.is_control() || (i == 0 && c == '.') {
            stem.push_str(&format!("%{:02X}", u32::from(c)));
        } else {
            stem.push(c);
        }
    }
    if stem.is_empty() {
        stem = "unnamed".to_string();
    }
    let ext: String = if &e.kind == aibo_motion::mtn::MAGIC {
        "mtn".to_string()
    } else {
        e.kind_str()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    };
    let ext = if ext.is_empty() {
        "bin".to_string()
    } else {
        ext
    };
    (stem, ext)
}

/// The files to pack: each file named, and the files directly in each folder named
/// (sorted; hidden files and subfolders left out).
fn files_to_pack(named: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in named {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("cannot read the folder {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .filter(|p| {
                !p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        inside.sort();
        if inside.is_empty() {
            anyhow::bail!("{} holds no files to pack", path.display());
        }
        out.extend(inside);
    }
    Ok(out)
}

fn pack(named: &[PathBuf], output: &Path) -> Result<()> {
    let mut archive = Archive::default();
    let files = files_to_pack(named)?;
    for path in &files {
        let data = fsio::read_input(path)?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (stem, ext) = file_name.rsplit_once('.').unwrap_or((&file_name, ""));
        let kind: [u8; 4] = if ext.eq_ignore_ascii_case("mtn") {
            if let Err(e) = aibo_motion::mtn::decode(&data) {
                anyhow::bail!("{} is not a readable MTN file: {e}", path.display());
            }
            *aibo_motion::mtn::MAGIC
        } else if let Some(k) = OTHER_KINDS.iter().find(|k| k.eq_ignore_ascii_case(ext)) {
            let mut kind = [0u8; 4];
            let bytes = string_to_latin1(k).unwrap_or_default();
            kind[..bytes.len()].copy_from_slice(&bytes);
            kind
        } else {
            anyhow::bail!(
                "{}: cannot tell the entry type; name motions *.mtn, other kinds *.OSND, *.WAVE, \
                 *.MIDI, *.LED or *.SYN",
                path.display()
            );
        };
        archive.entries.push(Entry {
            kind,
            name: stem.to_string(),
            data,
        });
    }
    let bytes = archive.encode()?;
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    fsio::write_bytes(output, &inputs, &bytes)?;
    eprintln!(
        "packed {} entries into {} ({} bytes)",
        archive.entries.len(),
        output.display(),
        bytes.len()
    );
    Ok(())
}
