//! The "In this tab" provider's data: the address its requests carry (the
//! site's transport hands them to the model runtime in the page instead of
//! the network, `web::in_tab`) and the short list of models Settings
//! offers, each with its download size, licence and the GGUF file's URL on
//! Hugging Face. The provider speaks the OpenAI chat protocol (the runtime,
//! wllama, answers it as a llama.cpp server would), so it needs no codec of
//! its own: its preset row names `OpenAi`.
//!
//! Plain data, site only (the `site` feature: the widget carries none of
//! it). It deliberately runs nothing and fetches nothing.

/// The base URL of the in-tab preset. `.invalid` never resolves (RFC 2606),
/// so a request that somehow missed the site's routing fails at once
/// instead of leaving the tab.
pub const BASE_URL: &str = "https://in-this-tab.invalid/v1";

/// One model the person can pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TabModel {
    /// What the person sees.
    pub label: &'static str,
    /// The GGUF file (Hugging Face serves its files with CORS headers).
    pub url: &'static str,
    /// The file's size in bytes.
    pub bytes: u64,
    pub licence: &'static str,
}

/// The models offered, coder models first. Instruction-tuned, 1–3 B
/// parameters, Q4_K_M: what a laptop runs on its CPU. Sizes and licences
/// as the model cards and file listings state them, from memory: this
/// machine cannot reach Hugging Face, so they are unverified
/// (docs/decisions/in-tab-model.md); the download shows the real size.
pub const MODELS: &[TabModel] = &[
    TabModel {
        label: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
        url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        bytes: 1_117_320_736,
        licence: "Apache-2.0",
    },
    TabModel {
        label: "Llama 3.2 3B Instruct (Q4_K_M)",
        url: "https://huggingface.co/bartowski/Llama-3.2-3B-Instruct-GGUF/resolve/main/Llama-3.2-3B-Instruct-Q4_K_M.gguf",
        bytes: 2_019_377_696,
        licence: "Llama 3.2 Community License",
    },
    TabModel {
        label: "Llama 3.2 1B Instruct (Q4_K_M)",
        url: "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/Llama-3.2-1B-Instruct-Q4_K_M.gguf",
        bytes: 807_690_656,
        licence: "Llama 3.2 Community License",
    },
];

/// The listed model with this URL.
pub fn listed(url: &str) -> Option<&'static TabModel> {
    MODELS.iter().find(|m| m.url == url.trim())
}

/// A size for people: "1.1 GB", "94 MB".
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else {
        format!("{} MB", bytes.div_ceil(1_000_000))
    }
}

/// A model's short name for the status and Settings: the listed label, or
/// the file name of a URL or of a file picked from disk.
pub fn model_name(model: &str) -> String {
    if let Some(m) = listed(model) {
        return m.label.to_string();
    }
    let last = model.trim().trim_end_matches('/').rsplit('/').next().unwrap_or_default();
    last.split(['?', '#']).next().unwrap_or_default().replace("%20", " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_well_formed() {
        for (i, m) in MODELS.iter().enumerate() {
            assert!(m.url.starts_with("https://huggingface.co/") && m.url.ends_with(".gguf"), "{}", m.label);
            assert!(MODELS[..i].iter().all(|o| o.url != m.url), "{}", m.label);
            // wllama reads one file of at most 2 GiB (an ArrayBuffer's limit).
            assert!(m.bytes < 2 << 30 && m.bytes > 100_000_000, "{}", m.label);
            assert!(!m.licence.is_empty());
        }
        // Coder models first; the tiny test model is not offered.
        assert!(MODELS[0].label.contains("Coder"));
        assert!(MODELS.iter().all(|m| !m.url.contains("135M")));
    }

    #[test]
    fn names_and_sizes_read_well() {
        assert_eq!(size_text(1_117_320_736), "1.1 GB");
        assert_eq!(size_text(98_362_432), "99 MB");
        assert_eq!(model_name(MODELS[0].url), "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)");
        assert_eq!(model_name("http://127.0.0.1:9/m/SmolLM2-135M-Instruct.Q4_1.gguf?x=1"), "SmolLM2-135M-Instruct.Q4_1.gguf");
        assert_eq!(model_name("https://in-this-tab.invalid/file/my%20model.gguf"), "my model.gguf");
    }
}
