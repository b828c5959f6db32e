//! One stable sort for the crate's cold paths (loading, saving, listing).
//! `slice::sort_by` and `collect()` into a `BTreeMap`/`BTreeSet` (which
//! sorts its input) compile the whole driftsort anew for every element type
//! and comparator: ~3.5 KB of wasm each, thirteen copies in the site. Here
//! only indices are sorted, through one comparator type, and the items are
//! then put in that order. Not for hot paths: it allocates two index lists.

use std::cmp::Ordering;

/// Sorts `items` stably by `cmp` (as `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = order(items.len(), &|a, b| cmp(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` stably by `key` (as `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The indices `0..len` in the order `cmp` sorts them, stably. The one
/// instance of the standard library's stable sort this module compiles.
#[inline(never)]
fn order(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Puts `items[order[i]]` at `i` for every `i`, in place, with swaps.
fn permute<T>(items: &mut [T], order: Vec<usize>) {
    // `at[k]`: where the item that started at `k` is now; `from[p]`: which
    // starting index the item now at `p` has.
    let mut at: Vec<usize> = (0..items.len()).collect();
    let mut from = at.clone();
    for (i, &wanted) in order.iter().enumerate() {
        let j = at[wanted];
        if j != i {
            items.swap(i, j);
            let displaced = from[i];
            at[displaced] = j;
            from[j] = displaced;
            at[wanted] = i;
            from[i] = wanted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_sorts_as_the_standard_stable_sort_does() {
        // A small linear congruential generator: many lengths, many ties.
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for len in 0..200 {
            let items: Vec<(u32, usize)> = (0..len).map(|i| (next() % 7, i)).collect();
            let mut ours = items.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std = items.clone();
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "length {len}");
        }
    }

    #[test]
    fn it_sorts_by_a_comparator_and_owned_items() {
        let mut words: Vec<String> = ["pear", "fig", "apple", "kiwi", "fig"].map(String::from).to_vec();
        sort_by(&mut words, |a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        assert_eq!(words, ["apple", "kiwi", "pear", "fig", "fig"]);
    }
}
