//! `Task`, one step of a plan, and the catalogue of task types shown to the
//! model.
//!
//! A task is plain data: it knows nothing of the other tasks, so it cannot
//! check its dependencies or its place in the order; `Plan` does that. The
//! task type stays a free string: the catalogue is guidance for the model,
//! not a closed enum the parser would have to police.

use serde::{Deserialize, Serialize};

/// One step towards the plan's goal.
///
/// Serialized with MetaGPT's field names (`task_id`, not `id`), which is also
/// what a planning model writes, so its JSON list deserializes directly;
/// `id` is accepted as an alias. Missing fields take their defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Task {
    #[serde(rename = "task_id", alias = "id")]
    pub id: String,
    /// Ids of the tasks that must be finished before this one.
    pub dependent_task_ids: Vec<String>,
    pub instruction: String,
    /// A name from `TASK_TYPES`, or anything else the model chose.
    pub task_type: String,
    /// The name of the role this task is for.
    pub assignee: String,
    pub code: String,
    pub result: String,
    pub is_success: bool,
    pub is_finished: bool,
}

impl Task {
    /// A fresh, unfinished task.
    pub fn new(
        id: impl Into<String>,
        dependent_task_ids: Vec<String>,
        instruction: impl Into<String>,
        assignee: impl Into<String>,
        task_type: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            dependent_task_ids,
            instruction: instruction.into(),
            task_type: task_type.into(),
            assignee: assignee.into(),
            ..Self::default()
        }
    }

    /// Forget the outcome so the task is done again; what it asks stays.
    pub(crate) fn clear_outcome(&mut self) {
        self.code.clear();
        self.result.clear();
        self.is_success = false;
        self.is_finished = false;
    }
}

/// Task types the model may pick from: (name, one-line description). These
/// are MetaGPT's types; the descriptions are ours.
pub const TASK_TYPES: &[(&str, &str)] = &[
    (
        "eda",
        "Explore a data set: its shape, columns, distributions and missing values.",
    ),
    (
        "data preprocessing",
        "Clean and reshape data: fill gaps, fix types, encode categories, scale.",
    ),
    (
        "feature engineering",
        "Derive new columns from existing ones to help a model learn.",
    ),
    (
        "model train",
        "Choose a model and fit it on the prepared training data.",
    ),
    (
        "model evaluate",
        "Measure a trained model on held-out data with the right metrics.",
    ),
    (
        "image2webpage",
        "Turn a picture of a page into HTML, CSS and JavaScript that reproduce it.",
    ),
    ("other", "Anything that fits none of the other types."),
    (
        "web scraping",
        "Fetch web pages and pull structured data out of them.",
    ),
    (
        "email login",
        "Sign in to an email account to read or send mail.",
    ),
];
