//! The object stores: their names, keys and rows (`since`: the schema
//! versions a store exists in), and the keys of the settings store. The
//! steps from one version to the next are in `migrations.rs`; how a row
//! is made and read is in `rows.rs`.
//!
//! | store         | key path            | row                          | since |
//! |---------------|---------------------|------------------------------|-------|
//! | `sessions`    | `id`                | `{id, w, json: SessionRecord}` (`w`: write stamp, v4; the claim count, v5) | v1 |
//! | `claims`      | `[s, n]`, out of line | `true`: write `n` of the session was made | v5 |
//! | `tails`       | `s`                 | `{s, json: TailRecord}` (`tail.rs`) | v4 |
//! | `meta`        | `s`                 | `{s, json: MetaHead}` (v1–v2: `MetaRecord`, history inside) | v1–v3 |
//! | `history`     | `[s, c]`            | chunk of message ids         | v3    |
//! | `ledger`      | `s`                 | `{s, json: LedgerRecord}`    | v1–v3 |
//! | `messages`    | `[s, id]`           | `{s, id, json: Message}`     | v1–v2 |
//! | `message_chunks` | `[s, c]`         | chunk of `Message`s          | v3    |
//! | `roles`       | `[s, name]`         | `{s, name, json: RoleRecord}`| v1–v3 |
//! | `role_lists`  | `[s, r, l, c]`      | chunk of a role's list of ids | v4   |
//! | `project`     | `s`                 | `{s, json: ProjectFiles}`    | v1 only |
//! | `files`       | `[s, p, v]`         | `{s, p, v, json: FileVersion}` | v2  |
//! | `costs`       | `[s, seq]`          | `{s, seq, json: CostEntry}`  | v1–v2 |
//! | `cost_chunks` | `[s, c]`            | chunk of `CostEntry`s        | v3    |
//! | `locks`       | `s`                 | `{s, json: LockRecord}`      | v1    |
//! | `experiences` | `id`, index `role`  | `{id, role, json: ExperienceRecord}` (nothing read it) | v1–v5 |
//! | `settings`    | out of line: `session_counter` (v1–v5 also `app`, `api_key`, `experience_counter`) | a JSON string | v1 |
//!
//! A chunk is `{s, c, end, json}`: a JSON array of entries in the order
//! they were appended (`chunks.rs`), so a restore reads a few hundred
//! rows, not one per message and cost entry. The last, open chunk of
//! every log is in the session's tail row with the meta head, the ledger
//! head and the roles' records without their lists; only a full chunk
//! goes to its log's store (`tail.rs`).

pub(super) const SESSIONS: &str = "sessions";
pub(super) const META: &str = "meta";
pub(super) const LEDGER: &str = "ledger";
pub(super) const MESSAGES_V2: &str = "messages";
pub(super) const MESSAGE_CHUNKS: &str = "message_chunks";
pub(super) const HISTORY: &str = "history";
pub(super) const ROLES: &str = "roles";
pub(super) const ROLE_LISTS: &str = "role_lists";
pub(super) const TAILS: &str = "tails";
pub(super) const FILES: &str = "files";
pub(super) const PROJECT_V1: &str = "project";
pub(super) const COSTS_V2: &str = "costs";
pub(super) const COST_CHUNKS: &str = "cost_chunks";
pub(super) const LOCKS: &str = "locks";
pub(super) const EXPERIENCES: &str = "experiences";
pub(super) const SETTINGS: &str = "settings";
pub(super) const CLAIMS: &str = "claims";

/// The stores holding a session's rows.
pub(super) const SESSION_STORES: [&str; 9] = [SESSIONS, TAILS, MESSAGE_CHUNKS, HISTORY, ROLE_LISTS, FILES, COST_CHUNKS, LOCKS, CLAIMS];

pub(super) const SESSION_COUNTER: &str = "session_counter";
/// The settings rows v1–v5 had for what nothing read: the app's settings,
/// a remembered API key, the experiences' counter. v6 deletes them (the
/// page keeps its settings and a remembered key in `localStorage`).
pub(super) const DROPPED_SETTINGS_V6: [&str; 3] = ["app", "api_key", "experience_counter"];
