//! Sorting for short lists in one small routine.
//!
//! std's sort is instantiated per element type and comparator, each copy 2-4 KB of wasm
//! (quicksort, heapsort, small-sort networks); the page's 300 KB budget cannot afford seven of
//! them for lists of a few dozen entries. Insertion sort is stable, allocation-free and a few
//! hundred bytes; it is O(n^2), so it is only for lists known to stay short (picker stops, a
//! step's cost terms, a link's fields).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`. Meant for lists of at most a few hundred entries.
pub fn sort_short_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && cmp(&v[j - 1], &v[j]) == Ordering::Greater {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// Sorts `v` ascending in O(n log n) (heapsort): for long lists of integers, in a few hundred
/// bytes of code where std's pattern-defeating quicksort is ~4 KB.
pub fn sort_u64(v: &mut [u64]) {
    fn sift_down(v: &mut [u64], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    let n = v.len();
    for start in (0..n / 2).rev() {
        sift_down(v, start, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// The distinct values of `v`, ascending. Linear in `v` times the log of the distinct count
/// (plus the square of that count), so `v` may be long as long as its values repeat.
pub fn sorted_distinct<T: Ord>(v: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in v {
        if let Err(at) = out.binary_search(&x) {
            out.insert(at, x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn agrees_with_std_sort(v in proptest::collection::vec((0u8..8, 0u16..1000), 0..200)) {
            let mut ours = v.clone();
            sort_short_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std_sorted = v.clone();
            std_sorted.sort_by(|a, b| a.0.cmp(&b.0)); // stable, like ours
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn heapsort_agrees_with_std_sort(v in proptest::collection::vec(0u64..5000, 0..600)) {
            let mut ours = v.clone();
            sort_u64(&mut ours);
            let mut std_sorted = v;
            std_sorted.sort_unstable();
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn distinct_is_sorted_and_unique(v in proptest::collection::vec(0u32..50, 0..100)) {
            let d = sorted_distinct(v.clone());
            prop_assert!(d.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(v.iter().all(|x| d.contains(x)));
        }
    }
}
