//! Removing a user action: its `ACTION.CFG` line, its MWC block (an owner's block that no
//! other name plays; never one of Sony's), and the archive entries it played that no
//! other action plays. Written in the order [`Changes::files`] gives
//! (the action list, then the catalogue, then the archives: the reverse of adding), a
//! stick pulled between two files still holds a consistent set.

use super::actions::{Actions, Line};
use super::add::Changes;
use super::mwc::{self, kind};
use super::tree::{paths, Stick, CATALOGUES};
use crate::oda::Order;

/// Why an action cannot be removed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoveError {
    #[error("the stick has no action named {name:?}; it has {}", if held.is_empty() { "none".to_string() } else { held.join(", ") })]
    NoSuchAction { name: String, held: Vec<String> },
    #[error("{0}")]
    Write(String),
}

impl Stick {
    /// What removing the action `name` changes; the stick's files are not touched.
    pub fn remove(&self, name: &str) -> Result<Changes, RemoveError> {
        let empty = Actions::default();
        let list = self.actions.as_ref().unwrap_or(&empty);
        let Some(action) = list.find(name) else {
            return Err(RemoveError::NoSuchAction {
                name: name.to_string(),
                held: list.actions().map(|a| a.name().to_string()).collect(),
            });
        };
        let removed_line = |l: &Line| matches!(l, Line::Action(a) if a.name() == name);
        let mut files = Vec::new();
        files.push((
            format!("{}/ACTION.CFG", paths::AMS),
            list.encode_where(|l| !removed_line(l)),
        ));

        // Only an owner's block goes, and only when no other name plays it: a name for
        // one of Sony's actions (`mysit 270 0 mysit`) leaves Sony's block alone.
        let mut catalogue = self.catalogue.catalogue.clone();
        let shared = list
            .actions()
            .any(|a| a.name() != name && a.mwcid == action.mwcid);
        let removed = (action.mwcid >= mwc::FIRST_USER_MWCID && !shared)
            .then(|| catalogue.blocks.iter().position(|b| b.id == action.mwcid))
            .flatten()
            .map(|i| catalogue.blocks.remove(i));
        let mwc = mwc::encode(&catalogue, &self.catalogue.packing)
            .map_err(|e| RemoveError::Write(e.to_string()))?;
        let file = CATALOGUES
            .iter()
            .find(|(_, m)| *m == self.model)
            .map_or("ERS-210.MWC", |(f, _)| *f);
        files.push((format!("{}/{file}", paths::CONF), mwc));

        // Entries the removed block played that no remaining block plays.
        let still_played = |oda: &str, entry: &str| {
            catalogue
                .blocks
                .iter()
                .flat_map(|b| &b.chunks)
                .any(|c| kind::archive(c.kind) == Some(oda) && c.name == entry)
        };
        for (archive, oda) in [
            (&self.motions, "MOTION.ODA"),
            (&self.sounds, "AUDIO.ODA"),
            (&self.leds, "LED.ODA"),
        ] {
            let (Some(archive), Some(block)) = (archive, &removed) else {
                continue;
            };
            let unplayed: Vec<&str> = block
                .chunks
                .iter()
                .filter(|c| kind::archive(c.kind) == Some(oda) && !still_played(oda, &c.name))
                .map(|c| c.name.as_str())
                .collect();
            if unplayed.is_empty() {
                continue;
            }
            let mut kept = archive.clone();
            kept.entries
                .retain(|e| !unplayed.contains(&e.name.as_str()));
            let bytes = kept
                .encode_in(Order::AsGiven)
                .map_err(|e| RemoveError::Write(e.to_string()))?;
            files.push((format!("{}/{oda}", paths::DATA), bytes));
        }
        Ok(Changes {
            mwcid: action.mwcid,
            files,
        })
    }
}
