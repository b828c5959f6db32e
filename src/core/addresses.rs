//! [`Addresses`]: where a message is sent (its `send_to`), a set of
//! addresses.
//!
//! Nearly every message is sent to all, so that set is held without a
//! single allocation (a `SortedSet` of one `String` makes two for every
//! message). Otherwise it is a `SortedSet<String>`, iterates in the same
//! order, compares the same and is saved as the same JSON list, so stored
//! messages read back unchanged.

use crate::core::sorted_map::SortedSet;
use std::fmt;
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The address every role has.
pub const ALL: &str = "<all>";
/// The address no role has: a message sent here reaches nobody.
pub const NONE: &str = "<none>";
/// Stands for the sending role; replaced by its name on publish.
pub const SELF: &str = "<self>";

/// A set of addresses, sorted.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Addresses(Repr);

/// Invariant: a `Set` is never exactly `{ALL}` (that is `All`), so the
/// derived equality is set equality.
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    /// Exactly `{ALL}`.
    All,
    Set(SortedSet<String>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Set(SortedSet::new())
    }
}

/// `ALL` as a `String`, for iterating `Repr::All` like a set of strings.
static ALL_STRING: LazyLock<String> = LazyLock::new(|| ALL.to_string());

impl Addresses {
    /// `{ALL}`: to everyone.
    pub fn all() -> Self {
        Addresses(Repr::All)
    }

    fn from_set(set: SortedSet<String>) -> Self {
        if set.len() == 1 && set.contains(ALL) {
            Self::all()
        } else {
            Addresses(Repr::Set(set))
        }
    }

    /// The set as a `SortedSet`, to change it.
    fn set_mut(&mut self) -> &mut SortedSet<String> {
        if self.0 == Repr::All {
            self.0 = Repr::Set(SortedSet::from([ALL.to_string()]));
        }
        match &mut self.0 {
            Repr::Set(set) => set,
            Repr::All => unreachable!(),
        }
    }

    /// Back to `All` if the set is now exactly `{ALL}`.
    fn normalize(&mut self) {
        if let Repr::Set(set) = &self.0 {
            if set.len() == 1 && set.contains(ALL) {
                self.0 = Repr::All;
            }
        }
    }

    pub fn contains(&self, address: &str) -> bool {
        match &self.0 {
            Repr::All => address == ALL,
            Repr::Set(set) => set.contains(address),
        }
    }

    /// Add `address`; false if it was there already.
    pub fn insert(&mut self, address: impl Into<String>) -> bool {
        let added = self.set_mut().insert(address.into());
        self.normalize();
        added
    }

    /// Remove `address`; false if it was not there.
    pub fn remove(&mut self, address: &str) -> bool {
        if !self.contains(address) {
            return false;
        }
        let removed = self.set_mut().remove(address);
        self.normalize();
        removed
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::All => 1,
            Repr::Set(set) => set.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The addresses in order.
    pub fn iter(&self) -> Iter<'_> {
        match &self.0 {
            Repr::All => Iter::One(Some(&ALL_STRING)),
            Repr::Set(set) => Iter::Set(set.iter()),
        }
    }
}

/// The addresses of an [`Addresses`], in order.
pub enum Iter<'a> {
    One(Option<&'a String>),
    Set(std::slice::Iter<'a, String>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a String;

    fn next(&mut self) -> Option<&'a String> {
        match self {
            Iter::One(one) => one.take(),
            Iter::Set(iter) => iter.next(),
        }
    }
}

impl<'a> IntoIterator for &'a Addresses {
    type Item = &'a String;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<S: Into<String>> FromIterator<S> for Addresses {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        // Inserted one by one: collecting sorts a Vec first (a slice sort
        // of its own in the wasm).
        let mut set = SortedSet::new();
        for address in iter {
            set.insert(address.into());
        }
        Self::from_set(set)
    }
}

impl From<SortedSet<String>> for Addresses {
    fn from(set: SortedSet<String>) -> Self {
        Self::from_set(set)
    }
}

impl PartialEq<SortedSet<String>> for Addresses {
    fn eq(&self, other: &SortedSet<String>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Addresses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for Addresses {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Addresses {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        SortedSet::<String>::deserialize(deserializer).map(Self::from_set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(list: &[&str]) -> SortedSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn behaves_like_a_set_of_strings() {
        let cases: &[&[&str]] = &[&[], &[ALL], &["Bob"], &[ALL, "Bob"], &["Bob", "Alice", "<self>"]];
        for list in cases {
            let want = set(list);
            let got: Addresses = list.iter().copied().collect();
            assert_eq!(got, want, "{list:?}");
            assert_eq!(got.len(), want.len());
            assert_eq!(format!("{got:?}"), format!("{want:?}"));
            assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap());
            let back: Addresses = serde_json::from_str(&serde_json::to_string(&want).unwrap()).unwrap();
            assert_eq!(back, got);
            for probe in [ALL, "Bob", "Alice", "Eve"] {
                assert_eq!(got.contains(probe), want.contains(probe), "{list:?} {probe}");
            }
        }
    }

    #[test]
    fn editing_keeps_all_and_the_set_equal() {
        let mut a = Addresses::all();
        assert!(a.insert("Bob") && !a.insert("Bob"));
        assert_eq!(a, set(&[ALL, "Bob"]));
        assert!(a.remove("Bob") && !a.remove("Bob"));
        assert_eq!(a, Addresses::all());
        assert!(a.remove(ALL) && a.is_empty());
        assert!(a.insert(ALL));
        assert_eq!(a, Addresses::all());
        assert_ne!(Addresses::default(), Addresses::all());
    }
}
