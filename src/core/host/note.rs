//! What the host tells the page, typed: why an action may not go
//! (`Refusal`) and what the page shows about storage, opening and
//! requests (`Note`). The words are the `Display` of each, the same on
//! the site and in the widget; `core::error_texts` lists them all.
//!
//! Not here: deciding (that is `Host`), or the run's own stop texts
//! (`view::status`).

use crate::core::session::SessionError;
use crate::core::store::StoreError;

/// Why an action may not go now.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("Start or open a session first.")]
    NoSession,
    #[error("{}", SessionError::Busy)]
    Busy,
    /// The key is missing: the preset needs one, or the person gave one
    /// for this session that this tab no longer has (it was not
    /// remembered over the reload).
    #[error("Enter your API key to carry on: nothing is sent without it.")]
    NeedsKey,
    /// The settings have problems (each in words, from `Settings::problems`).
    #[error("To carry on: {}", .0.join(" "))]
    Settings(Vec<String>),
    #[error("A replay cannot take new requests; start the team with your own key to ask for changes.")]
    Replay,
    #[error("That question is no longer waiting for an answer.")]
    NoQuestion,
    /// The images cannot go with the request (too many, unreadable, or a
    /// model not known to take them): said before any call, never a 400.
    #[cfg(feature = "images")]
    #[error("{0}")]
    Images(#[from] crate::core::image::ImageProblem),
    /// The controller refused the request itself (empty, too many fixes).
    #[error("{0}")]
    Session(#[from] SessionError),
}

/// What the page shows about storage, opening a session and requests.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Note {
    #[error("{0}")]
    Refused(#[from] Refusal),
    /// A new session could not be saved: nothing is lost yet, and the run
    /// did not start.
    #[error("The run was not started. {0}")]
    NotStarted(StoreError),
    /// Saving failed (opening, a save after a change or at a run's end).
    #[error("{0}")]
    Storage(#[from] StoreError),
    #[error("{0}")]
    CannotOpen(SessionError),
    #[error("This session has nothing saved yet.")]
    NothingSaved,
}

impl From<SessionError> for Note {
    fn from(e: SessionError) -> Self {
        Note::Refused(Refusal::Session(e))
    }
}
