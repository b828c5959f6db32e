//! The texts a person sees when something goes wrong or cannot go, in
//! tables: each error kind of a run with the words of its bubble in the
//! conversation and of the paused run's status line, the stops, and what
//! the session host says about storage, opening and requests (`Note`,
//! `Refusal`, the same on the site and in the widget). Tests only; the
//! texts themselves live with their errors (`LlmError`, `BudgetError`,
//! `RoleError`, `NodeParseError`, `StoreError`, `SessionError`, the host's
//! `Note`) and in `view::stop_text`. Not covered here: the page's own few
//! lines (a file not read, the run's code not loaded, the widget's
//! "loading" and "open in another tab" lines), which sit with their code.
//!
//! What the model is told (the `[CONTENT]` correction, RoleZero's repair
//! notes) is deliberately not here: it stays in the prompts.

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::core::action_node::{NodeParseError, Problem};
    use crate::core::cost::BudgetError;
    use crate::core::events::StopReason;
    use crate::core::keep_error::KeepError;
    use crate::core::llm::LlmError;
    use crate::core::role_error::RoleError;
    use crate::core::store::StoreError;
    use crate::core::view::stop_text;

    /// One row: the kind, then what the conversation shows, then the status.
    fn row(kind: &str, error: RoleError) -> String {
        let bubble = error.to_string();
        let status = stop_text(&StopReason::Failed { errors: vec![("Alice".into(), bubble.clone())] });
        format!("{kind}\n  bubble: {bubble}\n  status: {status}\n")
    }

    #[test]
    fn every_error_kind_with_its_text() {
        let llm = |kind: &str, e: LlmError| row(kind, RoleError::Llm(e));
        let litellm_context = "litellm.ContextWindowExceededError: litellm.BadRequestError: This model's maximum context \
                               length is 8192 tokens. However, your messages resulted in 9000 tokens. \
                               Received Model Group=gpt-4\nAvailable Model Group Fallbacks=None \
                               (Set `context_window_fallback` in your config)";
        let fill_failure = |last_error: NodeParseError| RoleError::Action {
            action: "WritePRD".into(),
            // As `company::document::fill` words it.
            message: format!("the model gave no usable PRD in 3 attempts; the last answer was refused: {last_error}"),
        };
        let rows = [
            llm("bad key (401)", LlmError::BadKey { message: "Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys.".into() }),
            llm("forbidden (403)", LlmError::Forbidden { message: "Project does not have access to model gpt-5".into() }),
            llm("rate limited, no Retry-After, retries used up", LlmError::RateLimited { message: "Rate limit reached".into(), retry_after_ms: None }),
            llm("rate limited, with Retry-After", LlmError::RateLimited { message: "Rate limit reached".into(), retry_after_ms: Some(20_000) }),
            llm("no credit (402, quota)", LlmError::NoCredit { message: "You exceeded your current quota, please check your plan and billing details.".into() }),
            llm("model not found (404)", LlmError::ModelNotFound { message: "The model `gpt-9` does not exist or you do not have access to it.".into() }),
            llm("context window exceeded", LlmError::ContextTooLong { message: litellm_context.into() }),
            llm("bad request (400)", LlmError::BadRequest { message: "temperature: must be at most 1".into() }),
            llm("provider down (500), retries used up", LlmError::ProviderDown { status: 500, message: "Internal server error".into() }),
            llm("provider overloaded (529), retries used up", LlmError::ProviderDown { status: 529, message: "Overloaded".into() }),
            llm(
                "the same 500 twice (a fault, not a busy spell)",
                LlmError::ServerFault { status: 500, message: "An internal error has occurred.".into() },
            ),
            llm(
                "unreachable (network or CORS)",
                LlmError::Blocked {
                    hint: "Could not reach http://127.0.0.1:4000/v1 (Failed to fetch): the network may be down, the server not running, \
                           or it does not accept calls from this page. The proxy must allow this site's origin in its CORS settings; \
                           check that it is running."
                        .into(),
                },
            ),
            llm("network failed", LlmError::Network { message: "Failed to fetch".into() }),
            llm("time-out", LlmError::Timeout { after_ms: 120_000 }),
            llm("stream cut off", LlmError::Truncated { partial_text: "Hello, I am".into() }),
            llm("unreadable answer", LlmError::Protocol { message: "a chunk that is not JSON".into() }),
            row("budget used up", RoleError::Budget(BudgetError::Exhausted { spent: 3.0123, budget: 3.0 })),
            row("no price for the model", RoleError::Budget(BudgetError::UnknownPrice { model: "llama3".into() })),
            row("the call limit", RoleError::Budget(BudgetError::CallLimit { calls: 6 })),
            row("document never usable: no JSON", fill_failure(NodeParseError::NoJson)),
            row("document never usable: malformed JSON", fill_failure(NodeParseError::BadJson("expected value at line 1 column 20".into()))),
            row("document never usable: not an object", fill_failure(NodeParseError::NotObject("list".into()))),
            row(
                "document never usable: fields",
                fill_failure(NodeParseError::Invalid(vec![Problem::Missing { key: "Requirement Pool".into(), similar: None }])),
            ),
            row("no plan", RoleError::Plan("no valid plan after 3 answers; last error: task 2 depends on unknown task 9".into())),
            row("plan-and-act not in this build", RoleError::PlanAndActLeftOut),
            row("model answers outside the command format", RoleError::OffFormat { answers: 4 }),
            row(
                "the same error twice in a row",
                RoleError::SameErrorTwice { role: "Alex".into(), error: "tests: 1 passed, 1 failed".into() },
            ),
            row("storage full", RoleError::Storage(KeepError::from(StoreError::QuotaExceeded))),
            row("storage: session open elsewhere", RoleError::Storage(KeepError::from(StoreError::Locked { by: "tab 3".into() }))),
            row("storage: write failed", RoleError::Storage(KeepError::from(StoreError::Other("the transaction was aborted".into())))),
            row("storage: none in this browser", RoleError::Storage(KeepError::from(StoreError::Unavailable("IndexedDB is missing".into())))),
            row("storage: an older tabteam holds the database", RoleError::Storage(KeepError::from(StoreError::Blocked))),
            row("storage: session deleted elsewhere", RoleError::Storage(KeepError::from(StoreError::NotFound("s-17".into())))),
            row("storage: unreadable data", RoleError::Storage(KeepError::from(StoreError::Corrupt("a saved record: expected value".into())))),
            row("storage: saved by a newer tabteam", RoleError::Storage(KeepError::from(StoreError::TooNew { found: 4, supported: 3 }))),
        ];
        expect![[r#"
            bad key (401)
              bubble: The provider rejected the API key. The provider said: “Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys”. Check the key in Settings, then Resume.
              status: Paused after an error. Alice: The provider rejected the API key. The provider said: “Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys”. Check the key in Settings, then Resume. Nothing was lost.

            forbidden (403)
              bubble: The provider does not let this key use this model (or not from where you are). The provider said: “Project does not have access to model gpt-5”. Choose another model in Settings, or allow it in your account with the provider, then Resume.
              status: Paused after an error. Alice: The provider does not let this key use this model (or not from where you are). The provider said: “Project does not have access to model gpt-5”. Choose another model in Settings, or allow it in your account with the provider, then Resume. Nothing was lost.

            rate limited, no Retry-After, retries used up
              bubble: The provider is busy (too many requests); Resume when you want to try again.
              status: Paused after an error. Alice: The provider is busy (too many requests); Resume when you want to try again. Nothing was lost.

            rate limited, with Retry-After
              bubble: The provider is busy (too many requests; it asked for a pause of 20 s); Resume when you want to try again.
              status: Paused after an error. Alice: The provider is busy (too many requests; it asked for a pause of 20 s); Resume when you want to try again. Nothing was lost.

            no credit (402, quota)
              bubble: The account has no credit left or reached its quota. The provider said: “You exceeded your current quota, please check your plan and billing details”. Add credit or raise the limit with the provider, then Resume.
              status: Paused after an error. Alice: The account has no credit left or reached its quota. The provider said: “You exceeded your current quota, please check your plan and billing details”. Add credit or raise the limit with the provider, then Resume. Nothing was lost.

            model not found (404)
              bubble: The provider does not know this model. The provider said: “The model `gpt-9` does not exist or you do not have access to it”. Check the model name in Settings, then Resume.
              status: Paused after an error. Alice: The provider does not know this model. The provider said: “The model `gpt-9` does not exist or you do not have access to it”. Check the model name in Settings, then Resume. Nothing was lost.

            context window exceeded
              bubble: The conversation is too long for this model. Choose a model with a larger context window in Settings and Resume, or start a new session.
              status: Paused after an error. Alice: The conversation is too long for this model. Choose a model with a larger context window in Settings and Resume, or start a new session. Nothing was lost.

            bad request (400)
              bubble: The provider refused the request. The provider said: “temperature: must be at most 1”. Check the provider and model in Settings, then Resume.
              status: Paused after an error. Alice: The provider refused the request. The provider said: “temperature: must be at most 1”. Check the provider and model in Settings, then Resume. Nothing was lost.

            provider down (500), retries used up
              bubble: The provider is busy or down (HTTP 500); Resume when you want to try again.
              status: Paused after an error. Alice: The provider is busy or down (HTTP 500); Resume when you want to try again. Nothing was lost.

            provider overloaded (529), retries used up
              bubble: The provider is busy or down (HTTP 529); Resume when you want to try again.
              status: Paused after an error. Alice: The provider is busy or down (HTTP 529); Resume when you want to try again. Nothing was lost.

            the same 500 twice (a fault, not a busy spell)
              bubble: The provider failed twice in a row with the same error (HTTP 500). The provider said: “An internal error has occurred”. Waiting is unlikely to help: check the provider's status page, or choose another model in Settings, then Resume.
              status: Paused after an error. Alice: The provider failed twice in a row with the same error (HTTP 500). The provider said: “An internal error has occurred”. Waiting is unlikely to help: check the provider's status page, or choose another model in Settings, then Resume. Nothing was lost.

            unreachable (network or CORS)
              bubble: Could not reach http://127.0.0.1:4000/v1 (Failed to fetch): the network may be down, the server not running, or it does not accept calls from this page. The proxy must allow this site's origin in its CORS settings; check that it is running. Then Resume.
              status: Paused after an error. Alice: Could not reach http://127.0.0.1:4000/v1 (Failed to fetch): the network may be down, the server not running, or it does not accept calls from this page. The proxy must allow this site's origin in its CORS settings; check that it is running. Then Resume. Nothing was lost.

            network failed
              bubble: The network failed (Failed to fetch). Check the connection, then Resume.
              status: Paused after an error. Alice: The network failed (Failed to fetch). Check the connection, then Resume. Nothing was lost.

            time-out
              bubble: The provider sent no answer within 120 s. Resume to ask again.
              status: Paused after an error. Alice: The provider sent no answer within 120 s. Resume to ask again. Nothing was lost.

            stream cut off
              bubble: The answer broke off after 11 characters, before the provider said it was done. Resume to ask again.
              status: Paused after an error. Alice: The answer broke off after 11 characters, before the provider said it was done. Resume to ask again. Nothing was lost.

            unreadable answer
              bubble: The provider sent an answer tabteam cannot read (a chunk that is not JSON). Check the base URL and provider in Settings, then Resume.
              status: Paused after an error. Alice: The provider sent an answer tabteam cannot read (a chunk that is not JSON). Check the base URL and provider in Settings, then Resume. Nothing was lost.

            budget used up
              bubble: The budget is used up ($3.0123 spent of $3.00). Raise the budget in Settings, then Resume.
              status: Paused after an error. Alice: The budget is used up ($3.0123 spent of $3.00). Raise the budget in Settings, then Resume. Nothing was lost.

            no price for the model
              bubble: No price is known for the model "llama3". Enter its price per million tokens in Settings, then Resume.
              status: Paused after an error. Alice: No price is known for the model "llama3". Enter its price per million tokens in Settings, then Resume. Nothing was lost.

            the call limit
              bubble: The run made the 6 model calls Settings allow it. Resume to let the team go on.
              status: Paused after an error. Alice: The run made the 6 model calls Settings allow it. Resume to let the team go on. Nothing was lost.

            document never usable: no JSON
              bubble: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer had no JSON object in it. Resume to try again, or choose a stronger model in Settings first.
              status: Paused after an error. Alice: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer had no JSON object in it. Resume to try again, or choose a stronger model in Settings first. Nothing was lost.

            document never usable: malformed JSON
              bubble: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer's JSON was malformed (expected value at line 1 column 20). Resume to try again, or choose a stronger model in Settings first.
              status: Paused after an error. Alice: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer's JSON was malformed (expected value at line 1 column 20). Resume to try again, or choose a stronger model in Settings first. Nothing was lost.

            document never usable: not an object
              bubble: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer's JSON was a list, not an object with the document's fields. Resume to try again, or choose a stronger model in Settings first.
              status: Paused after an error. Alice: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer's JSON was a list, not an object with the document's fields. Resume to try again, or choose a stronger model in Settings first. Nothing was lost.

            document never usable: fields
              bubble: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer did not fill the document's fields as asked: missing key "Requirement Pool". Resume to try again, or choose a stronger model in Settings first.
              status: Paused after an error. Alice: WritePRD failed: the model gave no usable PRD in 3 attempts; the last answer was refused: the answer did not fill the document's fields as asked: missing key "Requirement Pool". Resume to try again, or choose a stronger model in Settings first. Nothing was lost.

            no plan
              bubble: The plan could not be made: no valid plan after 3 answers; last error: task 2 depends on unknown task 9. Resume to try again, or choose a stronger model in Settings first.
              status: Paused after an error. Alice: The plan could not be made: no valid plan after 3 answers; last error: task 2 depends on unknown task 9. Resume to try again, or choose a stronger model in Settings first. Nothing was lost.

            plan-and-act not in this build
              bubble: This role plans with plan-and-act, which this build of tabteam leaves out (the embeddable widget does), so it cannot work here and Resume will not change that. Run this team on the tabteam site, which includes it.
              status: Paused after an error. Alice: This role plans with plan-and-act, which this build of tabteam leaves out (the embeddable widget does), so it cannot work here and Resume will not change that. Run this team on the tabteam site, which includes it. Nothing was lost.

            model answers outside the command format
              bubble: The model's answers are not in the format the team needs: 4 answers in a row. Try a stronger model in Settings, or see its last answer; Resume asks it again.
              status: Paused after an error. Alice: The model's answers are not in the format the team needs: 4 answers in a row. Try a stronger model in Settings, or see its last answer; Resume asks it again. Nothing was lost.

            the same error twice in a row
              bubble: Alex got the same error twice in a row from the same steps, so the last fix did not change it: “tests: 1 passed, 1 failed”. Give the team more detail in a follow-up, or Resume to let it try again.
              status: Paused after an error. Alice: Alex got the same error twice in a row from the same steps, so the last fix did not change it: “tests: 1 passed, 1 failed”. Give the team more detail in a follow-up, or Resume to let it try again. Nothing was lost.

            storage full
              bubble: The browser's storage for this site is full, so the last change was not saved and the run is paused. Free some space: delete old sessions in the Sessions list (export those you want to keep first), then Resume.
              status: Paused after an error. Alice: The browser's storage for this site is full, so the last change was not saved and the run is paused. Free some space: delete old sessions in the Sessions list (export those you want to keep first), then Resume. Nothing was lost.

            storage: session open elsewhere
              bubble: This session is open in another tab (tab 3). Close it there, or wait a moment for that tab's hold on it to run out, then Resume.
              status: Paused after an error. Alice: This session is open in another tab (tab 3). Close it there, or wait a moment for that tab's hold on it to run out, then Resume. Nothing was lost.

            storage: write failed
              bubble: Saving failed (the transaction was aborted), so the last change was not saved and the run is paused. Resume to try again; if it keeps failing, export the session to keep it.
              status: Paused after an error. Alice: Saving failed (the transaction was aborted), so the last change was not saved and the run is paused. Resume to try again; if it keeps failing, export the session to keep it. Nothing was lost.

            storage: none in this browser
              bubble: Saving is not possible in this browser (IndexedDB is missing); in a private window IndexedDB may be switched off. The team can still run, but nothing will survive a reload: keep this tab open until you have what you need.
              status: Paused after an error. Alice: Saving is not possible in this browser (IndexedDB is missing); in a private window IndexedDB may be switched off. The team can still run, but nothing will survive a reload: keep this tab open until you have what you need. Nothing was lost.

            storage: an older tabteam holds the database
              bubble: Another tab with an older tabteam keeps the database open, so it cannot be upgraded. Close the other tabteam tabs, then reload this one.
              status: Paused after an error. Alice: Another tab with an older tabteam keeps the database open, so it cannot be upgraded. Close the other tabteam tabs, then reload this one. Nothing was lost.

            storage: session deleted elsewhere
              bubble: This session was deleted (in another tab, perhaps), so the run cannot be saved and is paused. Start a new session, or open another one in the Sessions list.
              status: Paused after an error. Alice: This session was deleted (in another tab, perhaps), so the run cannot be saved and is paused. Start a new session, or open another one in the Sessions list. Nothing was lost.

            storage: unreadable data
              bubble: Saved data could not be read (a saved record: expected value). Open another session or start a new one; export this one first if you want to keep what can be read.
              status: Paused after an error. Alice: Saved data could not be read (a saved record: expected value). Open another session or start a new one; export this one first if you want to keep what can be read. Nothing was lost.

            storage: saved by a newer tabteam
              bubble: This data was saved by a newer tabteam (schema 4; this one reads up to 3). Reload the page to get the newer tabteam, then open it again.
              status: Paused after an error. Alice: This data was saved by a newer tabteam (schema 4; this one reads up to 3). Reload the page to get the newer tabteam, then open it again. Nothing was lost.
        "#]].assert_eq(&rows.join("\n"));
    }

    #[test]
    fn every_stop_with_its_text() {
        let stops = [
            StopReason::Idle,
            StopReason::RoundsDone,
            StopReason::BudgetExhausted { spent: 3.0123, budget: 3.0 },
            StopReason::UnknownPrice { model: "llama3".into() },
            StopReason::CallLimit { calls: 8 },
            StopReason::CallLimit { calls: 1 },
            StopReason::Cancelled,
            StopReason::Interrupted,
        ];
        let lines: Vec<String> = stops.iter().map(stop_text).collect();
        expect![[r#"
            Done: every role is idle.
            Paused: the rounds you allowed are used up. Resume to give the team more rounds.
            Stopped: the budget is used up ($3.0123 of $3.00). Raise the budget in Settings, then Resume.
            Stopped: no price is known for "llama3". Enter its price per million tokens in Settings, then Resume.
            Paused: the team made the 8 model calls Settings allow a run. What it wrote so far is a version; Resume to let it go on.
            Paused: the team made the 1 model call Settings allow a run. What it wrote so far is a version; Resume to let it go on.
            Stopped by you. Resume to carry on where the team was.
            Interrupted: the tab closed while the team was working. Everything up to then was saved; Resume carries on where it was (an answer that was cut off is asked for again)."#]].assert_eq(&lines.join("\n"));
    }

    /// Nothing written for the model or for a server's operator reaches the
    /// person, and an error's last sentence does not run into the next.
    #[test]
    fn no_model_or_operator_words_reach_the_person() {
        let texts = [
            LlmError::ContextTooLong { message: "Set `context_window_fallback` in your config".into() }.to_string(),
            LlmError::RateLimited { message: "try again later".into(), retry_after_ms: None }.to_string(),
            LlmError::ProviderDown { status: 503, message: "try again later".into() }.to_string(),
            RoleError::Action { action: "WritePRD".into(), message: format!("refused: {}", NodeParseError::NoJson) }.to_string(),
        ];
        for text in &texts {
            let status = stop_text(&StopReason::Failed { errors: vec![("Alice".into(), text.clone())] });
            for banned in ["[CONTENT]", "context_window_fallback", "Fix it", "try again later"] {
                assert!(!status.contains(banned), "{banned:?} in {status:?}");
            }
            // Each error ends its sentence before the next begins.
            assert!(status.ends_with(". Nothing was lost."), "{status:?}");
        }
    }

    /// What the session host says, the same words on the site and in the widget.
    #[test]
    fn every_host_note_with_its_text() {
        use crate::core::host::{Note, Refusal};
        use crate::core::session::SessionError;
        let notes = [
            Note::Refused(Refusal::NoSession),
            Note::Refused(Refusal::Busy),
            Note::Refused(Refusal::NeedsKey),
            Note::Refused(Refusal::Settings(vec!["Enter a model name.".into(), "Set a budget above $0.".into()])),
            Note::Refused(Refusal::Replay),
            Note::Refused(Refusal::NoQuestion),
            Note::Refused(Refusal::Session(SessionError::Empty)),
            Note::NotStarted(StoreError::QuotaExceeded),
            Note::Storage(StoreError::Locked { by: "tab-2".into() }),
            Note::CannotOpen(SessionError::NoPlan),
            Note::NothingSaved,
        ];
        let lines: Vec<String> = notes.iter().map(ToString::to_string).collect();
        expect![[r#"
            Start or open a session first.
            The team is at work: wait for it to finish, or press Stop, then send this again.
            Enter your API key to carry on: nothing is sent without it.
            To carry on: Enter a model name. Set a budget above $0.
            A replay cannot take new requests; start the team with your own key to ask for changes.
            That question is no longer waiting for an answer.
            Type what you want the team to do first.
            The run was not started. The browser's storage for this site is full, so the last change was not saved and the run is paused. Free some space: delete old sessions in the Sessions list (export those you want to keep first), then Resume.
            This session is open in another tab (tab-2). Close it there, or wait a moment for that tab's hold on it to run out, then Resume.
            This team has no plan to edit.
            This session has nothing saved yet."#]].assert_eq(&lines.join("\n"));
    }

    /// Why images cannot go with a request (site only), as the host says it.
    #[cfg(feature = "images")]
    #[test]
    fn every_image_refusal_with_its_text() {
        use crate::core::host::Refusal;
        use crate::core::image::ImageProblem;
        let problems = [ImageProblem::TooMany(2), ImageProblem::Unreadable, ImageProblem::TooLarge, ImageProblem::ModelRefuses("deepseek-chat".into())];
        let lines: Vec<String> = problems.into_iter().map(|p| Refusal::from(p).to_string()).collect();
        expect![[r#"
            At most 4 images can go with one request: remove 2.
            One of the images could not be read: attach PNG, JPEG, WebP or GIF files.
            One of the images is too large even after resizing: attach a smaller one.
            deepseek-chat does not take images: choose a model that does in Settings (for example gpt-4o or a Claude model), or remove the images."#]].assert_eq(&lines.join("\n"));
    }
}
