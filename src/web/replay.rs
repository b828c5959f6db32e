//! The site's "Replay a sample run": the real team (the software company)
//! with a model that plays back `recordings/company-2048.json` on the
//! browser's timers, with the sandbox attached so the game it builds runs
//! in the preview. No key, no provider, no cost; the UI labels it.
//!
//! The pace is chosen here (the site's); the playback itself is
//! `core::llm::replay`.

use std::rc::Rc;

use crate::core::cost::Price;
use crate::core::llm::replay::{Pace, Recording, ReplayLlm, REPLAY_MODEL};
use crate::core::settings::{Settings, TeamKind};

use crate::core::events::EventSink;
use crate::core::session::{Models, Session};

use super::edge::BrowserEdge;
use super::transport::BrowserRuntime;

/// About 300 characters a second, with a short pause before each answer.
pub const SITE_PACE: Pace = Pace { first_token_ms: 350, chunk_chars: 12, chunk_ms: 40 };

/// A team that replays the sample run, equipped by `edge` (its sandbox,
/// Stop also stopping the typing); the host sends it the recorded idea
/// (`sample_idea`) and runs it.
pub fn sample_session(edge: &BrowserEdge, events: EventSink) -> Session {
    let recording = Recording::sample();
    let llm = ReplayLlm::new(&recording, Rc::new(BrowserRuntime), SITE_PACE);
    let settings = Settings {
        model: REPLAY_MODEL.into(),
        custom_price: Some(Price::new(0.0, 0.0)),
        team: TeamKind::from_id(&recording.team).unwrap_or_default(),
        rounds: 30,
        overrides: Vec::new(),
        ..Settings::default()
    };
    let stopper = llm.clone();
    // The sandbox needs no key and no network: the replay ends with the
    // game it built running in the preview, as a real run does.
    let session = Session::new(&settings, Models::Given(Rc::new(llm)), edge.follow(events));
    edge.equip(session, Some(Rc::new(move || stopper.stop())))
}

/// The sample run's idea.
pub fn sample_idea() -> String {
    Recording::sample().idea
}
