//! Adding a user action to a stick, as Sony's treats were built: the motion into
//! `MOTION.ODA` under its internal name, the sound into `AUDIO.ODA` and the lights into
//! `LED.ODA` under their file names, one MWC block with the next MWCID from 24001 (a
//! motion chunk, a sound chunk, and the lights under each of the three LED types), and
//! an `ACTION.CFG` line `name mwcid 0 name`. Entries keep the order they were added in.
//!
//! This computes the new files; writing them safely is the caller's job. Written in the
//! order [`Changes::files`] gives (archives, then the catalogue, then the action list),
//! a stick pulled between two files still holds a consistent set: entries nobody plays
//! yet are harmless.

use super::actions::{self, Action};
use super::mwc::{self, kind, Block, Chunk};
use super::tree::{paths, Stick};
use crate::mtn;
use crate::oda::{Archive, Entry, Order};

/// A sound or a lighting pattern to add: its entry name and type, and its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Media<'a> {
    pub name: &'a str,
    pub kind: [u8; 4],
    pub data: &'a [u8],
}

impl<'a> From<&'a Entry> for Media<'a> {
    /// An archive entry as it would be added again (another stick's, or a file read as one).
    fn from(e: &'a Entry) -> Media<'a> {
        Media {
            name: &e.name,
            kind: e.kind,
            data: &e.data,
        }
    }
}

/// A user action to add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewAction<'a> {
    pub name: &'a str,
    /// An MTN file's bytes; stored under the motion's internal name.
    pub motion: Option<&'a [u8]>,
    pub sound: Option<Media<'a>>,
    pub led: Option<Media<'a>>,
}

/// Why an action cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddError {
    #[error("{0:?} cannot name an action: lower-case letters, digits and _, at most 31")]
    BadName(String),
    #[error("the stick already has an action named {0:?}")]
    NameTaken(String),
    #[error("{name:?} is Sony's own action (in {file}); choose another name")]
    Reserved { name: String, file: String },
    #[error("an action plays a motion, a sound or lights: give at least one")]
    Empty,
    #[error("the motion is not a readable MTN file: {0}")]
    Motion(String),
    #[error(
        "the motion is for {label} and this is an {model} stick: convert it with \
         `aibo-motion convert FILE --to {model}`"
    )]
    OtherModel { label: String, model: String },
    #[error(
        "the motion's name {0:?} does not say its postures (`<kind>_<start>#<end>_…`, such \
         as a_stand#stand_dance): R-CODE walks the robot to the start posture first"
    )]
    NoPostures(String),
    #[error("{file} already holds another {what} named {name:?}; rename the file")]
    EntryClash {
        file: &'static str,
        what: &'static str,
        name: String,
    },
    #[error("{0}")]
    Write(String),
}

/// The files an addition changes, as paths below the stick's root and their new bytes,
/// in the order to write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changes {
    pub mwcid: i32,
    pub files: Vec<(String, Vec<u8>)>,
}

/// The `ACTION.CFG` header line of each model's list (`[ERS-210(E)]`).
fn header(model: &str) -> String {
    format!("[{model}(E)]")
}

impl Stick {
    /// What adding `action` changes; the stick's files are not touched.
    pub fn add(&self, action: &NewAction<'_>) -> Result<Changes, AddError> {
        let name = action.name;
        if !actions::valid_name(name) {
            return Err(AddError::BadName(name.to_string()));
        }
        if self.actions.as_ref().and_then(|a| a.find(name)).is_some() {
            return Err(AddError::NameTaken(name.to_string()));
        }
        if let Some((file, _)) = self
            .reserved
            .iter()
            .find(|(_, list)| list.actions().any(|a| a.name().eq_ignore_ascii_case(name)))
        {
            return Err(AddError::Reserved {
                name: name.to_string(),
                file: file.clone(),
            });
        }
        if action.motion.is_none() && action.sound.is_none() && action.led.is_none() {
            return Err(AddError::Empty);
        }
        let mut files = Vec::new();
        let mut chunks = Vec::new();
        let chunk = Chunk::user;
        if let Some(bytes) = action.motion {
            let motion = mtn::decode(bytes)
                .map_err(|e| AddError::Motion(e.to_string()))?
                .motion;
            let profile = crate::robot::profile::Profile::builtin(&self.model);
            if let Some(p) =
                profile.filter(|p| !p.design_label.eq_ignore_ascii_case(&motion.design_label))
            {
                return Err(AddError::OtherModel {
                    label: motion.design_label.clone(),
                    model: p.model.clone(),
                });
            }
            if super::tree::postures(&motion.name).is_none() {
                return Err(AddError::NoPostures(motion.name.clone()));
            }
            let media = Media {
                name: &motion.name,
                kind: *b"OMTN",
                data: bytes,
            };
            if let Some(oda) = with_entry(&self.motions, &media, "MOTION.ODA", "motion")? {
                files.push((format!("{}/MOTION.ODA", paths::DATA), oda));
            }
            chunks.push(chunk(kind::MOTION, &motion.name));
        }
        if let Some(sound) = action.sound {
            if let Some(oda) = with_entry(&self.sounds, &sound, "AUDIO.ODA", "sound")? {
                files.push((format!("{}/AUDIO.ODA", paths::DATA), oda));
            }
            chunks.push(chunk(kind::SOUND, sound.name));
        }
        if let Some(led) = action.led {
            if let Some(oda) = with_entry(&self.leds, &led, "LED.ODA", "lighting pattern")? {
                files.push((format!("{}/LED.ODA", paths::DATA), oda));
            }
            chunks.extend(kind::LEDS.map(|k| chunk(k, led.name)));
        }
        let mut catalogue = self.catalogue.catalogue.clone();
        let mwcid = catalogue.next_user_id();
        catalogue.blocks.push(Block { id: mwcid, chunks });
        let mwc = mwc::encode(&catalogue, &self.catalogue.packing)
            .map_err(|e| AddError::Write(e.to_string()))?;
        let file = super::tree::CATALOGUES
            .iter()
            .find(|(_, m)| *m == self.model)
            .map_or("ERS-210.MWC", |(f, _)| *f);
        files.push((format!("{}/{file}", paths::CONF), mwc));
        // The list as it was (or Sony's header, for a new one), then the new line: written
        // from the list read, never a copy of it.
        let mut list = match &self.actions {
            Some(read) if !read.lines.is_empty() => {
                let mut bytes = read.encode();
                if !read.final_newline {
                    bytes.extend_from_slice(b"\r\n");
                }
                bytes
            }
            _ => format!("{}\r\n", header(&self.model)).into_bytes(),
        };
        // A valid name is ASCII, so the line's text is its bytes.
        list.extend_from_slice(Action::new(name, mwcid, 0, name).text().as_bytes());
        list.extend_from_slice(b"\r\n");
        files.push((format!("{}/ACTION.CFG", paths::AMS), list));
        Ok(Changes { mwcid, files })
    }
}

/// The archive with `media` appended, or `None` when it already holds those very bytes
/// under that name (shared, not stored twice); a different entry of the name is refused.
fn with_entry(
    archive: &Option<Archive>,
    media: &Media<'_>,
    file: &'static str,
    what: &'static str,
) -> Result<Option<Vec<u8>>, AddError> {
    let mut archive = archive.clone().unwrap_or_default();
    if let Some(existing) = archive.entries.iter().find(|e| e.name == media.name) {
        if existing.data == media.data {
            return Ok(None);
        }
        return Err(AddError::EntryClash {
            file,
            what,
            name: media.name.to_string(),
        });
    }
    archive.entries.push(Entry {
        kind: media.kind,
        name: media.name.to_string(),
        data: media.data.to_vec(),
    });
    archive
        .encode_in(Order::AsGiven)
        .map(Some)
        .map_err(|e| AddError::Write(e.to_string()))
}
