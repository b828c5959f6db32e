//! The core's maps and sets are sorted vectors: `litemap::LiteMap` and
//! [`SortedSet`] here. For the handful of entries they hold they are as
//! fast as a B-tree and much smaller in the wasm (a B-tree's code comes
//! once per key and value type: ~14 KB gzip of the widget, whose budget is
//! issue #37's). What `LiteMap` lacks is here too: iterating from a key on.
//! Both keep the order, equality and JSON form of `BTreeMap`/`BTreeSet`,
//! so what was saved with those reads back the same.

use std::borrow::Borrow;
use std::fmt;

use litemap::LiteMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A `LiteMap` field's JSON form, the same as a `BTreeMap`'s: an object,
/// `{}` when empty. For `#[serde(with = "crate::core::sorted_map::map")]`
/// on the core's map fields. litemap's own serde writes an empty map as
/// `[]`, and reads by sorting, which brings a stable sort's code into the
/// wasm for every key and value type; reading entry by entry gives the
/// same map without it.
pub mod map {
    use std::fmt;
    use std::marker::PhantomData;

    use litemap::LiteMap;
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, K: Serialize, V: Serialize>(map: &LiteMap<K, V>, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (key, value) in map.iter() {
            out.serialize_entry(key, value)?;
        }
        out.end()
    }

    pub fn deserialize<'de, D, K, V>(deserializer: D) -> Result<LiteMap<K, V>, D::Error>
    where
        D: Deserializer<'de>,
        K: Ord + Deserialize<'de>,
        V: Deserialize<'de>,
    {
        struct Entries<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Entries<K, V> {
            type Value = LiteMap<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
                let mut map = LiteMap::new();
                while let Some((key, value)) = entries.next_entry()? {
                    map.insert(key, value);
                }
                Ok(map)
            }
        }
        deserializer.deserialize_map(Entries(PhantomData))
    }
}

/// The entries whose key is `from` or after it, in order (`BTreeMap::range(from..)`).
pub fn entries_from<'a, K: Ord, V>(map: &'a LiteMap<K, V>, from: &K) -> impl Iterator<Item = (&'a K, &'a V)> {
    let start = map.find_index(from).unwrap_or_else(|at| at);
    map.as_slice()[start..].iter().map(|(k, v)| (k, v))
}

/// A set kept as a sorted vector without duplicates (`BTreeSet`'s order,
/// equality and JSON list).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortedSet<T>(Vec<T>);

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T: Ord> SortedSet<T> {
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    fn find<Q: Ord + ?Sized>(&self, value: &Q) -> Result<usize, usize>
    where
        T: Borrow<Q>,
    {
        self.0.binary_search_by(|item| item.borrow().cmp(value))
    }

    /// Adds `value`; false when it was there already.
    pub fn insert(&mut self, value: T) -> bool {
        match self.find(&value) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, value);
                true
            }
        }
    }

    /// Takes `value` out; false when it was not there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        match self.find(value) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    pub fn contains<Q: Ord + ?Sized>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.find(value).is_ok()
    }

    /// The smallest value, taken out.
    pub fn pop_first(&mut self) -> Option<T> {
        (!self.0.is_empty()).then(|| self.0.remove(0))
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T> SortedSet<T> {
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut set = Self::new();
        set.extend(iter);
        set
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for value in iter {
            self.insert(value);
        }
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for SortedSet<T> {
    fn from(values: [T; N]) -> Self {
        values.into_iter().collect()
    }
}

impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.iter()).finish()
    }
}

impl<T: Serialize> Serialize for SortedSet<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read from any JSON list: sorted and without duplicates afterwards.
impl<'de, T: Ord + Deserialize<'de>> Deserialize<'de> for SortedSet<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(|values| values.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sorted_set_is_sorted_without_duplicates_and_reads_back_from_any_list() {
        let mut set: SortedSet<String> = ["b", "a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), ["a", "b"]);
        assert!(set.insert("c".into()) && !set.insert("a".into()));
        assert!(set.contains("c") && set.remove("a") && !set.remove("a"));
        assert_eq!(serde_json::to_string(&set).unwrap(), r#"["b","c"]"#);
        let back: SortedSet<String> = serde_json::from_str(r#"["c","b","c"]"#).unwrap();
        assert_eq!(back, set);
        assert_eq!(set.clone().pop_first().as_deref(), Some("b"));
    }

    #[test]
    fn a_map_reads_back_sorted_from_an_object_in_any_order() {
        #[derive(Serialize, Deserialize)]
        struct Holder {
            #[serde(with = "map")]
            map: LiteMap<String, u32>,
        }
        let held: Holder = serde_json::from_str(r#"{"map":{"b":2,"a":1,"c":3,"a":4}}"#).unwrap();
        assert_eq!(held.map.iter().map(|(k, v)| (k.as_str(), *v)).collect::<Vec<_>>(), [("a", 4), ("b", 2), ("c", 3)]);
        assert!(serde_json::from_str::<Holder>(r#"{"map":[1]}"#).is_err());
        // Written as a BTreeMap was, `{}` when empty.
        let mut out = serde_json::Serializer::new(Vec::new());
        map::serialize(&held.map, &mut out).unwrap();
        assert_eq!(String::from_utf8(out.into_inner()).unwrap(), r#"{"a":4,"b":2,"c":3}"#);
        let mut out = serde_json::Serializer::new(Vec::new());
        map::serialize(&LiteMap::<String, u32>::new(), &mut out).unwrap();
        assert_eq!(String::from_utf8(out.into_inner()).unwrap(), "{}");
    }

    #[test]
    fn entries_from_starts_at_the_key_or_the_next_one() {
        let map: LiteMap<u32, &str> = [(1, "a"), (3, "c"), (5, "e")].into_iter().collect();
        assert_eq!(entries_from(&map, &3).map(|(k, _)| *k).collect::<Vec<_>>(), [3, 5]);
        assert_eq!(entries_from(&map, &2).map(|(k, _)| *k).collect::<Vec<_>>(), [3, 5]);
        assert_eq!(entries_from(&map, &6).count(), 0);
    }
}
