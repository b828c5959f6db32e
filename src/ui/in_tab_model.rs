//! Settings for the "In this tab" provider, shown in place of the model
//! and key fields when it is chosen: which model (one of a short list, a
//! URL, or a `.gguf` file from this computer), its download (progress,
//! Cancel; once, then kept in this browser), whether it is ready offline,
//! how many threads it runs on, and the longest answer.
//!
//! It edits `Settings` (the model is its URL or the kept file's key) and
//! calls `web::in_tab` for the download; it decides nothing about a run.

use leptos::prelude::*;

use crate::core::llm::in_tab::{self, size_text, MODELS};
use crate::core::settings::IN_TAB_WINDOW as WINDOW;
use crate::core::window::ModelWindow;
use crate::web::in_tab as runtime;

use super::Shared;

/// Where the model comes from, as the first field says.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Listed,
    Url,
    File,
}

fn source_of(model: &str) -> Source {
    if model.is_empty() || in_tab::listed(model).is_some() {
        Source::Listed
    } else if model.starts_with(&format!("{}/file/", in_tab::BASE_URL.trim_end_matches("/v1"))) {
        Source::File
    } else {
        Source::Url
    }
}

#[component]
pub fn InTabModel() -> impl IntoView {
    let shared = expect_context::<Shared>();
    let settings = shared.settings;
    let model = Memo::new(move |_| settings.with(|s| s.model.trim().to_string()));
    let source = RwSignal::new(source_of(&model.get_untracked()));
    // Whether the chosen model is in this browser: None while asking.
    let kept = RwSignal::new(None::<bool>);
    let progress = RwSignal::new(None::<(f64, f64)>);
    let failure = RwSignal::new(None::<String>);
    let download = StoredValue::new_local(None::<runtime::Download>);
    // The cache is the outside world: ask it whenever the model changes.
    Effect::new(move |_| {
        let m = model.get();
        kept.set(None);
        failure.set(None);
        if m.is_empty() {
            return;
        }
        wasm_bindgen_futures::spawn_local(async move {
            let here = runtime::is_kept(&m).await;
            if model.get_untracked() == m {
                kept.set(Some(here));
            }
        });
    });
    let set_model = move |m: String| settings.update(|s| s.model = m);
    let start = move |_| {
        let url = model.get_untracked();
        failure.set(None);
        progress.set(Some((0.0, 0.0)));
        let handle = runtime::download(
            &url,
            move |got, total| progress.set(Some((got, total))),
            move |result| {
                progress.set(None);
                download.set_value(None);
                match result {
                    Ok(_) => kept.set(Some(true)),
                    Err(None) => failure.set(Some("Download cancelled: nothing of it was kept. Press Download to start again.".into())),
                    Err(Some(why)) => failure.set(Some(format!(
                        "The download failed ({why}). Check the connection and the model's URL, then press Download again."
                    ))),
                }
            },
        );
        if handle.is_none() {
            progress.set(None);
            failure.set(Some("This browser cannot download the model here. Choose a file from this computer instead.".into()));
        }
        download.set_value(handle);
    };
    let cancel = move |_| download.with_value(|d| if let Some(d) = d { d.cancel() });
    let pick_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        failure.set(None);
        kept.set(None);
        wasm_bindgen_futures::spawn_local(async move {
            match runtime::keep_file(&file).await {
                Ok(key) => set_model(key),
                Err(why) => failure.set(Some(format!("The file could not be kept in this browser ({why}). Free some disk space, or choose another file."))),
            }
        });
    };
    let listed = move || in_tab::listed(&model.get()).copied();
    let status = move || {
        if model.get().is_empty() {
            return "Choose a model.".to_string();
        }
        if let Some((got, total)) = progress.get() {
            let of = if total > 0.0 { format!(" of {}", size_text(total as u64)) } else { String::new() };
            return format!("Downloading: {}{of}…", size_text(got as u64));
        }
        match kept.get() {
            None => "Looking for it in this browser…".into(),
            Some(true) => format!("{} is in this browser: it runs with no network.", in_tab::model_name(&model.get())),
            Some(false) => match listed() {
                Some(m) => format!("Not downloaded yet ({}, once).", size_text(m.bytes)),
                None => "Not downloaded yet: press Download (once).".into(),
            },
        }
    };
    let threads = move || {
        if runtime::isolated() {
            "It runs on several threads (this page is cross-origin isolated).".to_string()
        } else {
            "It runs on one thread: this page is not cross-origin isolated, which several threads need.".to_string()
        }
    };
    let output = move || settings.with(|s| s.windows().window(s.model.trim()).output);
    let set_output = move |text: String| {
        let value = text.trim().parse::<u64>().ok().filter(|v| *v >= 16);
        settings.update(|s| s.custom_window = value.map(|v| ModelWindow::new(WINDOW.context, v.min(WINDOW.context / 2))));
    };
    view! {
        <div class="in-tab wide" data-testid="intab">
            <label>"Model"
                <select data-testid="intab-model"
                    prop:value=move || match source.get() {
                        Source::Listed => model.get(),
                        Source::Url => "url".to_string(),
                        Source::File => "file".to_string(),
                    }
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        match v.as_str() {
                            "url" => { source.set(Source::Url); set_model(String::new()); }
                            "file" => { source.set(Source::File); set_model(String::new()); }
                            _ => { source.set(Source::Listed); set_model(v); }
                        }
                    }>
                    <option value="">"Choose a model…"</option>
                    {MODELS.iter().map(|m| view! {
                        <option value=m.url>{format!("{} · {} · {}", m.label, size_text(m.bytes), m.licence)}</option>
                    }).collect_view()}
                    <option value="url">"Another model: the URL of a .gguf file"</option>
                    <option value="file">"A .gguf file from this computer"</option>
                </select>
            </label>
            <Show when=move || source.get() == Source::Url>
                <label>"Model URL"
                    <input type="url" data-testid="intab-url" placeholder="https://huggingface.co/…/resolve/main/….gguf"
                        prop:value=move || model.get()
                        on:change=move |ev| set_model(event_target_value(&ev).trim().to_string()) />
                </label>
            </Show>
            <Show when=move || source.get() == Source::File>
                <label>"Model file"
                    <input type="file" accept=".gguf" data-testid="intab-file" on:change=pick_file />
                </label>
            </Show>
            <p class="note" data-testid="intab-status" aria-live="polite">{status}</p>
            <Show when=move || progress.get().is_some()>
                <progress data-testid="intab-progress" aria-label="Model download"
                    max=move || progress.get().map(|(_, t)| t.max(1.0)).unwrap_or(1.0)
                    value=move || progress.get().map(|(g, _)| g).unwrap_or(0.0)></progress>
                <button class="ghost" data-testid="intab-cancel" on:click=cancel>"Cancel"</button>
            </Show>
            <Show when=move || kept.get() == Some(false) && progress.get().is_none() && source.get() != Source::File>
                <button class="primary" data-testid="intab-download" on:click=start>"Download"</button>
            </Show>
            {move || failure.get().map(|f| view! { <p class="note error" role="alert" data-testid="intab-error">{f}</p> })}
            <p class="note" data-testid="intab-threads">{threads}</p>
            <label>"Longest answer, tokens"
                <input type="number" min="16" step="16" data-testid="intab-output"
                    prop:value=move || output().to_string()
                    on:change=move |ev| set_output(event_target_value(&ev)) />
                <span class="note">"Each token is written by this computer: shorter answers come sooner."</span>
            </label>
        </div>
    }
}
