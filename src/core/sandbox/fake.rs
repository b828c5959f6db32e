//! `FakeSandbox`: a sandbox for native tests. Each `run_tests` takes the
//! next scripted report (running out is an error, never a silent repeat)
//! and records the files and path it was given.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use super::bundle::{preview_document, test_files};
use super::{ConsoleLine, FileMap, PreviewInfo, Sandbox, SandboxError, TestReport};

#[derive(Clone, Default)]
pub struct FakeSandbox {
    pub reports: Rc<RefCell<VecDeque<TestReport>>>,
    /// (files, path) of every `run_tests`.
    pub runs: Rc<RefCell<Vec<(FileMap, Option<String>)>>>,
    pub console: Rc<RefCell<Vec<ConsoleLine>>>,
}

impl FakeSandbox {
    pub fn with_reports(reports: impl IntoIterator<Item = TestReport>) -> Self {
        let fake = Self::default();
        fake.reports.borrow_mut().extend(reports);
        fake
    }
}

impl Sandbox for FakeSandbox {
    fn run_tests(&self, files: FileMap, path: Option<String>) -> LocalBoxFuture<'_, Result<TestReport, SandboxError>> {
        let result = test_files(&files, path.as_deref()).and_then(|_| {
            self.runs.borrow_mut().push((files, path));
            self.reports.borrow_mut().pop_front().ok_or_else(|| SandboxError::Failed("the fake sandbox has no scripted report left".into()))
        });
        Box::pin(std::future::ready(result))
    }

    fn preview(&self, files: FileMap) -> LocalBoxFuture<'_, Result<PreviewInfo, SandboxError>> {
        let result = preview_document(&files, "").map(|doc| PreviewInfo { entry: doc.entry, included: doc.included, missing: doc.missing, problems: Vec::new() });
        Box::pin(std::future::ready(result))
    }

    fn console(&self) -> Vec<ConsoleLine> {
        self.console.borrow().clone()
    }
}
