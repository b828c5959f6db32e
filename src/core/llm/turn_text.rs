//! [`TurnText`]: the text of one chat turn, owned or shared.
//!
//! A role sends its prefix as the system turn of every call; sharing it
//! (an `Rc<str>` the role already keeps) saves a copy per call. Prompts
//! written for one call stay owned `String`s. Either way it reads like a
//! `&str` and is saved as a plain JSON string.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone)]
pub enum TurnText {
    Owned(String),
    Shared(Rc<str>),
}

impl TurnText {
    pub fn as_str(&self) -> &str {
        match self {
            TurnText::Owned(s) => s,
            TurnText::Shared(s) => s,
        }
    }
}

impl Default for TurnText {
    fn default() -> Self {
        TurnText::Owned(String::new())
    }
}

impl Deref for TurnText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for TurnText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for TurnText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for TurnText {}

impl PartialEq<str> for TurnText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TurnText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for TurnText {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<TurnText> for String {
    fn eq(&self, other: &TurnText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<TurnText> for &str {
    fn eq(&self, other: &TurnText) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Debug for TurnText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for TurnText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<String> for TurnText {
    fn from(s: String) -> Self {
        TurnText::Owned(s)
    }
}

impl From<&str> for TurnText {
    fn from(s: &str) -> Self {
        TurnText::Owned(s.to_string())
    }
}

impl From<&String> for TurnText {
    fn from(s: &String) -> Self {
        TurnText::Owned(s.clone())
    }
}

impl From<Rc<str>> for TurnText {
    fn from(s: Rc<str>) -> Self {
        TurnText::Shared(s)
    }
}

impl From<TurnText> for String {
    fn from(t: TurnText) -> Self {
        match t {
            TurnText::Owned(s) => s,
            TurnText::Shared(s) => s.to_string(),
        }
    }
}

impl Serialize for TurnText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TurnText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(TurnText::Owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_and_shared_read_compare_and_save_alike() {
        let shared = TurnText::from(Rc::<str>::from("You are"));
        let owned = TurnText::from("You are");
        assert_eq!(shared, owned);
        assert!(shared == "You are" && "You are" == shared && shared == "You are".to_string());
        assert_eq!(serde_json::to_string(&shared).unwrap(), serde_json::to_string(&owned).unwrap());
        let back: TurnText = serde_json::from_str("\"You are\"").unwrap();
        assert_eq!((back.len(), format!("{back} {back:?}")), (7, "You are \"You are\"".to_string()));
    }
}
