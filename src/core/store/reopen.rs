//! Which saved session the site opens when the page loads (site only: the
//! widget keeps one session per `storageKey` and resumes it itself).
//!
//! The rule: a share link (`#p=…`) or an explicit `#new` opens none; else
//! the session this tab last had open (finished or not: a reload never
//! hides finished work behind an empty first card); else one a closed tab
//! cut off while it ran, so it continues. "New session" closes the open
//! one, so a reload after it shows the first card.
//!
//! Not here: where "last open" is remembered (the tab's `sessionStorage`,
//! `web::settings_store`: per tab, so two tabs do not reopen the same
//! session and fight over its lease), nor the opening itself (the host's).

use super::{SessionRecord, SessionStatus};

/// How the page was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival<'a> {
    /// A plain load or reload; `last_open` is the session this tab had
    /// open when it went away, if any.
    Plain { last_open: Option<&'a str> },
    /// The address asked for a new session (`#new`).
    NewSession,
    /// A share link: its own page stands in place of the app.
    SharedLink,
}

impl<'a> Arrival<'a> {
    /// The arrival an address's fragment (`location.hash`) says;
    /// `share_link`: it is a share link (`core::share::is_share`, asked by
    /// the caller: `share` imports the store, so the store does not import it).
    pub fn of(hash: &str, share_link: bool, last_open: Option<&'a str>) -> Arrival<'a> {
        if hash == "#new" {
            Arrival::NewSession
        } else if share_link {
            Arrival::SharedLink
        } else {
            Arrival::Plain { last_open }
        }
    }
}

/// The session to open on load, from the sessions list.
pub fn session_to_reopen<'s>(sessions: &'s [SessionRecord], arrival: Arrival<'_>) -> Option<&'s str> {
    let Arrival::Plain { last_open } = arrival else { return None };
    let last = last_open.and_then(|id| sessions.iter().find(|s| s.id == id));
    let cut_off = || sessions.iter().find(|s| matches!(s.status, SessionStatus::Running | SessionStatus::Interrupted));
    last.or_else(cut_off).map(|s| s.id.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::store::SessionSettings;

    fn session(id: &str, status: SessionStatus) -> SessionRecord {
        SessionRecord {
            id: id.into(),
            title: id.into(),
            idea: String::new(),
            team_kind: "mgx".into(),
            settings: SessionSettings::default(),
            status,
            created_ms: 0,
            updated_ms: 0,
        }
    }

    #[test]
    fn the_session_to_reopen() {
        use SessionStatus::*;
        let list = [session("s3", Finished), session("s2", Interrupted), session("s1", Stopped)];
        let check = |hash: &str, last: Option<&str>, expect: Option<&str>| {
            let arrival = Arrival::of(hash, crate::core::share::is_share(hash), last);
            assert_eq!(session_to_reopen(&list, arrival), expect, "{hash:?} with last open {last:?}");
        };
        // The tab's last session, finished or not, before one cut off elsewhere.
        check("", Some("s3"), Some("s3"));
        check("", Some("s1"), Some("s1"));
        // None remembered (a new tab, or "New session" was the last act): the cut-off run continues.
        check("", None, Some("s2"));
        // A remembered session that was deleted since: as if none.
        check("", Some("s9"), Some("s2"));
        // An explicit new session, or a share link: nothing opens.
        check("#new", Some("s3"), None);
        check("#p=1.abc", Some("s3"), None);
        // Another fragment is a plain load.
        check("#top", Some("s1"), Some("s1"));
        // Nothing cut off and nothing remembered: the first card.
        assert_eq!(session_to_reopen(&[session("s1", Finished)], Arrival::of("", false, None)), None);
    }
}
