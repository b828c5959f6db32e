//! [`SharedStr`]: a name or label that is copied often and never changed
//! (a role's name in every event and cost entry, a model's name, what a
//! role is busy with). Cloning it bumps a count instead of copying bytes.
//!
//! It reads like a `&str` (deref, comparisons with `str`, `&str` and
//! `String`, `Display`) and is saved exactly as a JSON string, so types that
//! switch a `String` field to it keep their stored shape.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SharedStr(Rc<str>);

/// By the text, as `str` orders; the very same shared text is equal
/// without reading it (a map keyed by names is asked with the name it
/// holds: the cost ledger's totals, on every call).
impl Ord for SharedStr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.is_same(other) {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for SharedStr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Default for SharedStr {
    /// The empty string, shared (a message has no sender until signed).
    fn default() -> Self {
        thread_local! {
            static EMPTY: SharedStr = SharedStr(Rc::from(""));
        }
        EMPTY.with(Clone::clone)
    }
}

impl SharedStr {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The same text, shared.
    pub fn rc(&self) -> Rc<str> {
        self.0.clone()
    }

    /// The very same shared text (a pointer comparison): a quick yes
    /// before comparing the bytes.
    pub fn is_same(&self, other: &SharedStr) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(Rc::from(s))
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr(Rc::from(s.as_str()))
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(Rc::from(s))
    }
}

impl From<Rc<str>> for SharedStr {
    fn from(s: Rc<str>) -> Self {
        SharedStr(s)
    }
}

impl From<&Rc<str>> for SharedStr {
    fn from(s: &Rc<str>) -> Self {
        SharedStr(s.clone())
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        String::from(&*s.0)
    }
}

impl From<&SharedStr> for String {
    fn from(s: &SharedStr) -> Self {
        String::from(&*s.0)
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == *other.0
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        **self == *other.0
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        **self == *other.0
    }
}

impl Serialize for SharedStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for SharedStr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Rc::<str>::deserialize(deserializer).map(SharedStr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_saves_like_a_string() {
        let s = SharedStr::from("Alice");
        assert!(s == "Alice" && "Alice" == s && s == "Alice".to_string() && s.len() == 5);
        assert_eq!(format!("{s} {s:?}"), "Alice \"Alice\"");
        assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string("Alice").unwrap());
        let back: SharedStr = serde_json::from_str("\"Bob\"").unwrap();
        assert_eq!(back, "Bob");
        assert!(Rc::ptr_eq(&s.rc(), &s.clone().rc()));
        assert!(s.is_same(&s.clone()) && !s.is_same(&SharedStr::from("Alice")));
    }
}
