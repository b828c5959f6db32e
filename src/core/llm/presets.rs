//! The providers a user can pick from in Settings: where each one lives,
//! which protocol it speaks, a model to start with, whether it needs a key,
//! and what to do when the browser blocks the call.
//!
//! Presets are plain data. They deliberately hold no keys, no prices (the
//! cost ledger owns those) and no per-provider code: every preset is served
//! by one of the codecs (`codec::Codec`), named in its row.

use super::anthropic::Anthropic;
use super::codec::Codec;
use super::gemini::Gemini;
use super::openai::OpenAi;

/// A preset's wire protocol, as plain data. Its codec is reached only
/// through [`Protocol::codec`], which the client's configuration calls (the
/// run module): a table of `&dyn Codec` would be read by the start-up
/// module (Settings lists the presets) and carry every codec's request
/// writing and stream decoding there through their vtables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Protocol {
    /// The codec that speaks this protocol.
    pub fn codec(self) -> &'static dyn Codec {
        match self {
            Protocol::OpenAi => &OpenAi,
            Protocol::Anthropic => &Anthropic,
            Protocol::Gemini => &Gemini,
        }
    }
}

/// One provider choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Stable id, stored in settings.
    pub id: &'static str,
    /// What the user sees.
    pub label: &'static str,
    /// The codec of its wire protocol.
    pub protocol: Protocol,
    /// The base URL the codec appends its path to; empty for "custom".
    pub base_url: &'static str,
    /// A model to start with; empty when only the user can know it.
    pub default_model: &'static str,
    /// False when the key field may be left empty (local servers, proxies).
    pub needs_key: bool,
    /// What usually makes the browser block this provider, and the fix.
    pub cors_hint: &'static str,
    /// It constrains answers to a JSON schema sent as `response_format`
    /// (`json_schema`). Off when unknown: such answers take the repair path.
    pub structured_output: bool,
}

/// Every preset, in the order Settings lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "openai",
        label: "OpenAI",
        protocol: Protocol::OpenAi,
        base_url: "https://api.openai.com/v1",
        default_model: "gpt-4o-mini",
        needs_key: true,
        cors_hint: "OpenAI accepts calls from web pages; a block usually means an ad blocker, a browser extension or a company proxy.",
        structured_output: true,
    },
    Preset {
        id: "anthropic",
        label: "Anthropic",
        protocol: Protocol::Anthropic,
        base_url: "https://api.anthropic.com",
        default_model: "claude-3-5-haiku-20241022",
        needs_key: true,
        cors_hint: "Anthropic allows calls from web pages that opt in, which tabteam does; a block usually means an ad blocker, an extension or a company proxy.",
        structured_output: false,
    },
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        protocol: Protocol::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        default_model: "openai/gpt-4o-mini",
        needs_key: true,
        cors_hint: "OpenRouter accepts calls from web pages; a block usually means an ad blocker, an extension or a company proxy.",
        structured_output: true,
    },
    Preset {
        id: "groq",
        label: "Groq",
        protocol: Protocol::OpenAi,
        base_url: "https://api.groq.com/openai/v1",
        default_model: "llama-3.3-70b-versatile",
        needs_key: true,
        cors_hint: "Groq accepts calls from web pages; a block usually means an ad blocker, an extension or a company proxy.",
        structured_output: false,
    },
    Preset {
        id: "deepseek",
        label: "DeepSeek",
        protocol: Protocol::OpenAi,
        base_url: "https://api.deepseek.com",
        default_model: "deepseek-chat",
        needs_key: true,
        cors_hint: "DeepSeek should accept calls from web pages; if it does not, use it through OpenRouter or a LiteLLM proxy.",
        structured_output: false,
    },
    Preset {
        id: "google",
        label: "Google Gemini",
        protocol: Protocol::Gemini,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        default_model: "gemini-2.5-flash",
        needs_key: true,
        cors_hint: "Google's Gemini API accepts calls from web pages with a key from Google AI Studio; a block usually means an ad blocker, an extension or a company proxy.",
        // Gemini's own `responseSchema` takes an OpenAPI subset, not JSON
        // Schema; not wired yet, so its answers take the repair path.
        structured_output: false,
    },
    Preset {
        id: "gemini",
        label: "Google Gemini (OpenAI-compatible)",
        protocol: Protocol::OpenAi,
        base_url: "https://generativelanguage.googleapis.com/v1beta/openai",
        default_model: "gemini-2.0-flash",
        needs_key: true,
        cors_hint: "Gemini's compatibility endpoint has refused some web pages; if it is blocked, use Gemini through OpenRouter or a LiteLLM proxy.",
        structured_output: false,
    },
    Preset {
        id: "ollama",
        label: "Ollama (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:11434/v1",
        default_model: "llama3.2",
        needs_key: false,
        cors_hint: "Ollama only answers web pages it knows: start it with OLLAMA_ORIGINS set to this site's origin, and check that it is running.",
        structured_output: true,
    },
    Preset {
        id: "lmstudio",
        label: "LM Studio (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:1234/v1",
        default_model: "",
        needs_key: false,
        cors_hint: "LM Studio's server has CORS off by default: start it with `lms server start --cors`, or turn on \"Enable CORS\" in its server settings.",
        structured_output: true,
    },
    Preset {
        id: "llamacpp",
        label: "llama.cpp server (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:8080/v1",
        default_model: "",
        needs_key: false,
        cors_hint: "llama-server answers web pages by default; check that it is running and listening on this address.",
        structured_output: true,
    },
    Preset {
        id: "vllm",
        label: "vLLM (local)",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:8000/v1",
        default_model: "",
        needs_key: false,
        cors_hint: "vLLM's server must allow this site's origin: start it with --allowed-origins set to it, and check that it is running.",
        structured_output: true,
    },
    Preset {
        id: "litellm",
        label: "LiteLLM proxy",
        protocol: Protocol::OpenAi,
        base_url: "http://localhost:4000",
        default_model: "",
        needs_key: false,
        cors_hint: "The proxy must allow this site's origin in its CORS settings; check that it is running.",
        structured_output: false,
    },
    // The model runs in the page itself (site only: the widget has no
    // model runtime). Its runtime answers the OpenAI protocol and
    // constrains answers to the schema; no key, no price.
    #[cfg(feature = "site")]
    Preset {
        id: "intab",
        label: "In this tab (no key, no account)",
        protocol: Protocol::OpenAi,
        base_url: super::in_tab::BASE_URL,
        default_model: "",
        needs_key: false,
        cors_hint: "The model file's server must allow this site to download it (Hugging Face does); once downloaded, the model needs no network.",
        structured_output: true,
    },
    Preset {
        id: "custom",
        label: "Custom OpenAI-compatible URL",
        protocol: Protocol::OpenAi,
        base_url: "",
        default_model: "",
        needs_key: false,
        cors_hint: "The server must send CORS headers that allow this site's origin and the Authorization and Content-Type request headers.",
        structured_output: false,
    },
];

/// The preset with this id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// The models known to take images, per preset: the prefixes of their
/// names (after any `vendor/` of a router). A preset with no row takes
/// none (DeepSeek, the model in the tab); a model that matches no prefix
/// is not sent images, so a person hears it before a call, never a 400.
/// Local servers and custom URLs are known by the model families that
/// take images there.
#[cfg(feature = "images")]
const IMAGE_MODELS: &[(&str, &[&str])] = {
    const OPENAI: &[&str] = &["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "gpt-4-turbo"];
    const CLAUDE: &[&str] = &["claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4"];
    const GEMINI: &[&str] = &["gemini-1.5", "gemini-2", "gemini-3", "gemma-3"];
    const LOCAL: &[&str] = &[
        "gpt-4o", "gpt-4.1", "gpt-5", "claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "gemini-", "llava", "bakllava",
        "llama3.2-vision", "llama-3.2-11b-vision", "llama-3.2-90b-vision", "llama-4", "llama4", "qwen2.5vl", "qwen2.5-vl", "qwen2-vl", "qwen3-vl",
        "gemma3", "gemma-3", "pixtral", "mistral-small3.1", "mistral-small-3.1", "minicpm-v", "moondream", "granite3.2-vision",
    ];
    &[
        ("openai", OPENAI),
        ("anthropic", CLAUDE),
        ("openrouter", LOCAL),
        ("groq", &["meta-llama/llama-4", "llama-4"]),
        ("google", GEMINI),
        ("gemini", GEMINI),
        ("ollama", LOCAL),
        ("lmstudio", LOCAL),
        ("llamacpp", LOCAL),
        ("vllm", LOCAL),
        ("litellm", LOCAL),
        ("custom", LOCAL),
    ]
};

/// Whether `model` through preset `preset_id` is known to take images.
#[cfg(feature = "images")]
pub fn accepts_images(preset_id: &str, model: &str) -> bool {
    let model = model.trim().to_ascii_lowercase();
    let Some((_, prefixes)) = IMAGE_MODELS.iter().find(|(id, _)| *id == preset_id) else { return false };
    let bare = model.rsplit('/').next().unwrap_or(&model);
    // `o1-mini` and `o3-mini` read text only.
    prefixes.iter().any(|p| model.starts_with(p) || bare.starts_with(p)) && !(bare.starts_with("o1-mini") || bare.starts_with("o3-mini"))
}

/// The hint for [`LlmError::Blocked`](super::LlmError::Blocked): the preset's
/// advice, with this site's origin filled in where the fix needs it.
pub fn blocked_hint(preset: &Preset, origin: Option<&str>) -> String {
    match (preset.id, origin) {
        ("ollama", Some(origin)) => format!(
            "Ollama only answers web pages it knows: start it with OLLAMA_ORIGINS={origin} (for example `OLLAMA_ORIGINS={origin} ollama serve`), and check that it is running."
        ),
        (_, Some(origin)) if !preset.needs_key => {
            format!("{} This site's origin is {origin}.", preset.cors_hint)
        }
        _ => preset.cors_hint.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_well_formed() {
        for (i, p) in PRESETS.iter().enumerate() {
            assert!(PRESETS[..i].iter().all(|q| q.id != p.id), "duplicate id {}", p.id);
            assert_eq!(p.base_url.trim_end_matches('/'), p.base_url, "{}", p.id);
            assert!(p.id == "custom" || p.base_url.starts_with("http"), "{}", p.id);
            assert!(!p.cors_hint.is_empty(), "{}", p.id);
        }
    }

    #[cfg(feature = "images")]
    #[test]
    fn which_models_take_images() {
        let cases = [
            ("openai", "gpt-4o-mini", true),
            ("openai", "gpt-4.1", true),
            ("openai", "o3-mini", false),
            ("openai", "gpt-3.5-turbo", false),
            ("anthropic", "claude-3-5-haiku-20241022", true),
            ("anthropic", "claude-sonnet-4-5", true),
            ("anthropic", "claude-2.1", false),
            ("openrouter", "openai/gpt-4o-mini", true),
            ("openrouter", "deepseek/deepseek-chat", false),
            ("groq", "llama-3.3-70b-versatile", false),
            ("groq", "meta-llama/llama-4-scout-17b-16e-instruct", true),
            ("deepseek", "deepseek-chat", false),
            ("google", "gemini-2.5-flash", true),
            ("ollama", "llava:13b", true),
            ("ollama", "llama3.2", false),
            ("custom", "GPT-4o-e2e", true),
            ("custom", "text-only", false),
            ("intab", "gpt-4o", false),
            ("nonesuch", "gpt-4o", false),
        ];
        for (preset, model, takes) in cases {
            assert_eq!(accepts_images(preset, model), takes, "{preset} {model}");
        }
        // Every row names a preset.
        for (id, _) in IMAGE_MODELS {
            assert!(preset(id).is_some(), "{id}");
        }
    }

    #[test]
    fn hints() {
        let check = |id: &str, origin: Option<&str>, want: &str| {
            let got = preset(id).map(|p| blocked_hint(p, origin)).unwrap_or_default();
            assert!(got.contains(want), "{id}: {got}");
        };
        check("ollama", Some("https://tab.team"), "OLLAMA_ORIGINS=https://tab.team ollama serve");
        check("ollama", None, "OLLAMA_ORIGINS set to this site's origin");
        check("lmstudio", Some("https://tab.team"), "lms server start --cors");
        check("lmstudio", Some("https://tab.team"), "origin is https://tab.team");
        check("openai", Some("https://tab.team"), "ad blocker");
    }
}
