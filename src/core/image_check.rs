//! Whether images may go with a request under the settings: each
//! readable, at most `image::MAX_IMAGES`, and the model of every role that
//! sees them (`image::SEEN_BY`, by the team's roster) known to take images
//! (`llm::presets::accepts_images`). The one rule the first card shows and
//! the host enforces (feature `images`).
//!
//! Apart from `image` so that the codecs, which read `image`, do not
//! import the team's roster round about. It reads no pixels.

use super::image::{parse, ImageProblem, MAX_IMAGES, MAX_URL_BYTES, SEEN_BY};
use super::settings::Settings;

/// Whether `images` may go with a request under `settings`: each readable
/// and not too large, at most [`MAX_IMAGES`], and every model of a role
/// that sees them known to take images.
pub fn check(images: &[String], settings: &Settings) -> Result<(), ImageProblem> {
    if images.is_empty() {
        return Ok(());
    }
    if images.len() > MAX_IMAGES {
        return Err(ImageProblem::TooMany(images.len() - MAX_IMAGES));
    }
    if images.iter().any(|url| url.len() > MAX_URL_BYTES) {
        return Err(ImageProblem::TooLarge);
    }
    if images.iter().any(|url| parse(url).is_none()) {
        return Err(ImageProblem::Unreadable);
    }
    let preset = settings.preset.as_str();
    let roles = super::recipes::role_names(settings.team);
    let models = roles.iter().filter(|(_, profile)| SEEN_BY.contains(&profile.as_str())).map(|(name, _)| settings.model_for(name));
    for model in models {
        if !super::llm::presets::accepts_images(preset, model) {
            let name = if model.trim().is_empty() { "This model".to_owned() } else { model.to_owned() };
            return Err(ImageProblem::ModelRefuses(name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::settings::TeamKind;

    const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

    fn settings(preset: &str, model: &str, team: TeamKind) -> Settings {
        Settings { preset: preset.into(), model: model.into(), team, ..Settings::default() }
    }

    #[test]
    fn checks_count_format_and_model() {
        let ok = settings("openai", "gpt-4o-mini", TeamKind::Company);
        assert_eq!(check(&[], &settings("deepseek", "deepseek-chat", TeamKind::Company)), Ok(()));
        assert_eq!(check(&[PNG.into()], &ok), Ok(()));
        assert_eq!(check(&vec![PNG.to_string(); 6], &ok), Err(ImageProblem::TooMany(2)));
        assert_eq!(check(&["data:text/html;base64,PGI+".into()], &ok), Err(ImageProblem::Unreadable));
        assert_eq!(
            check(&[PNG.into()], &settings("deepseek", "deepseek-chat", TeamKind::Company)),
            Err(ImageProblem::ModelRefuses("deepseek-chat".into()))
        );
        assert_eq!(check(&[PNG.into()], &settings("anthropic", "claude-sonnet-4-5", TeamKind::Assistant)), Ok(()));
        // A role that sees images with a model of its own that does not.
        let mut own = ok.clone();
        own.set_override("Alex", "gpt-3.5-turbo", None);
        assert_eq!(check(&[PNG.into()], &own), Err(ImageProblem::ModelRefuses("gpt-3.5-turbo".into())));
        // A role that does not see them may have any model.
        let mut qa = ok;
        qa.set_override("Edward", "gpt-3.5-turbo", None);
        assert_eq!(check(&[PNG.into()], &qa), Ok(()));
        let text = ImageProblem::ModelRefuses("deepseek-chat".into()).to_string();
        assert!(text.contains("choose a model that does in Settings"), "{text}");
    }

    #[test]
    fn reads_a_messages_images() {
        use crate::core::message::{Message, MessageId};
        let m = Message::new(MessageId(1), "idea").with_meta(crate::core::image::IMAGES, format!("{PNG}\n{PNG}"));
        assert_eq!(m.images(), [PNG, PNG]);
        assert!(Message::new(MessageId(2), "idea").images().is_empty());
    }
}
