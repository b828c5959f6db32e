//! `Registry`: the commands a role offers, in prompt order, each with the
//! handler that runs it; and `run_commands`, which runs a model's list.
//!
//! A command is added by registering its spec and a handler; nothing here
//! names a particular command. Handlers are async (asking the human is),
//! get the caller's context `&mut C` and validated `Args`, and answer with
//! text for the model: `Ok` is the result, `Err` the reason it failed.
//! The registry does no parsing of model output and keeps no state between
//! runs.

use std::collections::HashMap;

use futures::future::LocalBoxFuture;

use super::args::validate;
use super::{closest, Args, Command, CommandError, CommandSpec};

/// Runs one command against the caller's context.
///
/// For closures, use `Registry::register_fn` (synchronous) or
/// `Registry::register_async`; implement this trait for handlers with
/// state of their own.
pub trait CommandHandler<C> {
    fn call<'a>(&'a self, cx: &'a mut C, args: Args) -> LocalBoxFuture<'a, Result<String, String>>;
}

/// The commands a role may use, in the order the prompt lists them.
pub struct Registry<C> {
    entries: Vec<Entry<C>>,
    /// Command name -> position in `entries`.
    index: HashMap<String, usize>,
}

/// What running a model's command list did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunReport {
    /// One line per command attempted: "Command X executed: result" or
    /// "Command X failed: reason", then a line naming the skipped ones.
    pub outputs: Vec<String>,
    /// A command was unknown, invalid or failed, so the list stopped there.
    pub stopped_early: bool,
    /// The commands that executed successfully, in order.
    pub ran: Vec<String>,
    /// The command that stopped the list.
    pub failed: Option<String>,
    /// The commands after it, which were not run.
    pub skipped: Vec<String>,
}

impl RunReport {
    /// The outputs as one text for the model (MetaGPT joins with a blank
    /// line).
    pub fn text(&self) -> String {
        self.outputs.join("\n\n")
    }
}

struct Entry<C> {
    spec: CommandSpec,
    handler: Box<dyn CommandHandler<C>>,
}

impl<C> Default for Registry<C> {
    fn default() -> Self {
        Self { entries: Vec::new(), index: HashMap::new() }
    }
}

impl<C> Registry<C> {
    /// Adds a command. Registering a name again replaces the earlier
    /// command in place (same position in the prompt), so a role can
    /// override a shared command such as `end`.
    pub fn register(&mut self, spec: CommandSpec, handler: impl CommandHandler<C> + 'static) -> &mut Self {
        let entry = Entry { spec, handler: Box::new(handler) };
        match self.index.get(&entry.spec.name) {
            Some(&at) => self.entries[at] = entry,
            None => {
                self.index.insert(entry.spec.name.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
        self
    }

    /// Adds a command whose handler is a synchronous closure.
    pub fn register_fn<F>(&mut self, spec: CommandSpec, handler: F) -> &mut Self
    where
        F: Fn(&mut C, Args) -> Result<String, String> + 'static,
        C: 'static,
    {
        self.register(spec, SyncFn(handler))
    }

    /// Adds a command whose handler is an async closure:
    /// `|cx, args| Box::pin(async move { ... })`.
    pub fn register_async<F>(&mut self, spec: CommandSpec, handler: F) -> &mut Self
    where
        F: for<'a> Fn(&'a mut C, Args) -> LocalBoxFuture<'a, Result<String, String>> + 'static,
        C: 'static,
    {
        self.register(spec, AsyncFn(handler))
    }

    /// Removes a command; whether it was there.
    pub fn unregister(&mut self, name: &str) -> bool {
        let Some(at) = self.index.remove(name) else {
            return false;
        };
        self.entries.remove(at);
        for position in self.index.values_mut() {
            if *position > at {
                *position -= 1;
            }
        }
        true
    }

    pub fn spec(&self, name: &str) -> Option<&CommandSpec> {
        self.index.get(name).map(|&at| &self.entries[at].spec)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Whether `name` is a registered exclusive command.
    pub fn is_exclusive(&self, name: &str) -> bool {
        self.spec(name).is_some_and(|s| s.exclusive)
    }

    /// The specs in prompt order.
    pub fn specs(&self) -> impl Iterator<Item = &CommandSpec> {
        self.entries.iter().map(|e| &e.spec)
    }

    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.spec.name.as_str()).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The numbered command list for the prompt, MetaGPT's format:
    /// "1. Plan.append_task(task_id: str, ...):\ndescription", one blank
    /// line between commands.
    pub fn prepare_command_prompt(&self) -> String {
        self.prepare_command_prompt_from(1)
    }

    /// The same list numbered from `first` (commands listed after
    /// another registry's, such as the host page's tools).
    pub fn prepare_command_prompt_from(&self, first: usize) -> String {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{}. {}:\n{}\n", i + first, e.spec.call_signature(), e.spec.description))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The command's validated arguments, or why it cannot run.
    pub fn validate(&self, command: &Command) -> Result<Args, CommandError> {
        let entry = self.entry(&command.name)?;
        validate(&entry.spec, &command.args)
    }

    /// Validates and runs one command; its result text or why it did not
    /// run.
    pub async fn run_command(&self, cx: &mut C, command: &Command) -> Result<String, CommandError> {
        let entry = self.entry(&command.name)?;
        let args = validate(&entry.spec, &command.args)?;
        entry.handler.call(cx, args).await.map_err(CommandError::Failed)
    }

    /// Runs the commands in order. The first one that is unknown, has
    /// invalid arguments or fails stops the list: the rest are not run,
    /// and the report names them, so the model knows what still needs
    /// doing.
    pub async fn run_commands(&self, cx: &mut C, commands: Vec<Command>) -> RunReport {
        let mut report = RunReport::default();
        let mut rest = commands.into_iter();
        for command in rest.by_ref() {
            match self.run_command(cx, &command).await {
                Ok(result) if result.is_empty() => {
                    report.outputs.push(format!("Command {} executed", command.name));
                    report.ran.push(command.name);
                }
                Ok(result) => {
                    report.outputs.push(format!("Command {} executed: {result}", command.name));
                    report.ran.push(command.name);
                }
                Err(error) => {
                    report.outputs.push(format!("Command {} failed: {error}", command.name));
                    report.stopped_early = true;
                    report.failed = Some(command.name);
                    break;
                }
            }
        }
        report.skipped = rest.map(|c| c.name).collect();
        if let (Some(failed), false) = (&report.failed, report.skipped.is_empty()) {
            report.outputs.push(format!(
                "Not run because {failed} failed: {}. Fix the failure, then send them again if they are still needed.",
                report.skipped.join(", ")
            ));
        }
        report
    }

    fn entry(&self, name: &str) -> Result<&Entry<C>, CommandError> {
        match self.index.get(name) {
            Some(&at) => Ok(&self.entries[at]),
            None => {
                let available = self.names();
                Err(CommandError::Unknown {
                    name: name.to_owned(),
                    suggestion: closest(name, available.iter().copied(), '.').map(str::to_owned),
                    available: available.into_iter().map(str::to_owned).collect(),
                })
            }
        }
    }
}

/// A synchronous closure as a handler.
struct SyncFn<F>(F);

impl<C, F> CommandHandler<C> for SyncFn<F>
where
    F: Fn(&mut C, Args) -> Result<String, String>,
{
    fn call<'a>(&'a self, cx: &'a mut C, args: Args) -> LocalBoxFuture<'a, Result<String, String>> {
        let result = (self.0)(cx, args);
        Box::pin(std::future::ready(result))
    }
}

/// An async closure as a handler.
struct AsyncFn<F>(F);

impl<C, F> CommandHandler<C> for AsyncFn<F>
where
    F: for<'a> Fn(&'a mut C, Args) -> LocalBoxFuture<'a, Result<String, String>>,
{
    fn call<'a>(&'a self, cx: &'a mut C, args: Args) -> LocalBoxFuture<'a, Result<String, String>> {
        (self.0)(cx, args)
    }
}
