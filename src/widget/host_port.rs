//! The page's side of host tools: `HostPort` over one JS function the
//! widget's script hands in, `host(kind, callJson)`, which shows the
//! approval ("approve", resolves to true or false) or runs the page's own
//! function with its time limit ("run", resolves to `{"value": ...}`,
//! `{"error": "..."}` or `{"timeoutMs": n}` as JSON text). That script also
//! fires the `tool-call` and `tool-result` events.
//!
//! Nothing here evaluates anything: the function that runs is the one the
//! page registered under the tool's name; the model only picks the name
//! (checked against the registry) and the arguments (validated data).

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::core::commands::host::{HostCall, HostOutcome, HostPort, HostTool};

pub struct PagePort {
    pub host: js_sys::Function,
}

impl PagePort {
    /// Calls `host(kind, call)`; the Promise it returns (an error if it
    /// threw or returned something else).
    fn ask(&self, kind: &str, call: &HostCall) -> Result<js_sys::Promise, JsValue> {
        let detail = json!({ "id": call.id, "name": call.tool, "args": call.args, "confirm": call.confirm });
        self.host.call2(&JsValue::NULL, &JsValue::from_str(kind), &JsValue::from_str(&detail.to_string()))?.dyn_into()
    }
}

impl HostPort for PagePort {
    fn approve(&self, call: &HostCall) -> LocalBoxFuture<'static, bool> {
        let promise = self.ask("approve", call);
        Box::pin(async move {
            match promise {
                Ok(promise) => JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()).unwrap_or(false),
                Err(_) => false,
            }
        })
    }

    fn run(&self, call: &HostCall) -> LocalBoxFuture<'static, HostOutcome> {
        let promise = self.ask("run", call);
        Box::pin(async move {
            let answer = match promise {
                Ok(promise) => JsFuture::from(promise).await,
                Err(error) => Err(error),
            };
            let text = match answer {
                Ok(text) => text.as_string().unwrap_or_default(),
                Err(error) => return HostOutcome::Threw(error.as_string().unwrap_or_else(|| "the widget could not call the page".into())),
            };
            let outcome: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            if let Some(ms) = outcome.get("timeoutMs").and_then(Value::as_u64) {
                HostOutcome::TimedOut { after_ms: ms }
            } else if let Some(error) = outcome.get("error").and_then(Value::as_str) {
                HostOutcome::Threw(error.to_owned())
            } else {
                HostOutcome::Returned(outcome.get("value").cloned().unwrap_or(Value::Null))
            }
        })
    }
}

/// The page's tools from `setTools`' JSON: a list of `{name, description,
/// parameters, confirm}`; an error says which tool is wrong and how.
pub fn parse_tools(json: &str) -> Result<Vec<HostTool>, String> {
    let list: Vec<Value> = serde_json::from_str(json).map_err(|e| format!("tabteam tools: {e}"))?;
    let mut tools: Vec<HostTool> = Vec::with_capacity(list.len());
    for tool in &list {
        let text = |field: &str| tool.get(field).and_then(Value::as_str).unwrap_or_default();
        let confirm = tool.get("confirm").and_then(Value::as_bool).unwrap_or(false);
        let made = HostTool::from_schema(text("name"), text("description"), tool.get("parameters").unwrap_or(&Value::Null), confirm)
            .map_err(|e| format!("tabteam {e}"))?;
        if tools.iter().any(|t| t.spec.name == made.spec.name) {
            return Err(format!("tabteam tools: two tools are named {}", text("name")));
        }
        tools.push(made);
    }
    Ok(tools)
}
