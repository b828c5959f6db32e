//! Row groups of a long list (issue #21): rows are grouped by index,
//! `GROUP` a group, so the page can skip laying out a whole group out of
//! view, and a list that opens with many rows renders its last ones first
//! (`ui::progressive`). Pure index arithmetic: no rendering, no timing.

use std::ops::Range;

/// Rows per group: what one group costs to lay out when it scrolls into
/// view stays a few milliseconds.
pub const GROUP: usize = 25;
/// Rows rendered at once when a list opens: more than a screen's worth.
const FIRST: usize = 50;

/// The first row of a list of `total` rows to render when it opens: the
/// start of the group that holds the FIRST-th row from the end.
pub fn opening_from(total: usize) -> usize {
    total.saturating_sub(FIRST) / GROUP * GROUP
}

/// Whether a list that had `seen` rows and now has `total` was replaced or
/// filled in one go (a session opened) rather than grown at its end a few
/// rows at a time (a running team): it then opens again at its end.
pub fn arrived_in_bulk(seen: usize, total: usize) -> bool {
    total < seen || total - seen > FIRST
}

/// The groups that hold rows `from..total` (row `i` is in group `i / GROUP`).
pub fn groups(from: usize, total: usize) -> Range<usize> {
    from / GROUP..total.div_ceil(GROUP)
}

/// The rows of group `group` in a list of `total` rows.
pub fn rows_of(group: usize, total: usize) -> Range<usize> {
    (group * GROUP).min(total)..((group + 1) * GROUP).min(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_opens_at_the_group_that_holds_its_last_rows() {
        assert_eq!(opening_from(0), 0);
        assert_eq!(opening_from(FIRST), 0);
        assert_eq!(opening_from(FIRST + GROUP - 1), 0);
        assert_eq!(opening_from(2000), 1950);
        // Row 2001 - 50 = 1951 is in the group that starts at 1950.
        assert_eq!(opening_from(2001), 1950);
        assert_eq!(opening_from(1999), 1925);
    }

    #[test]
    fn a_list_filled_or_replaced_in_one_go_arrives_in_bulk() {
        assert!(!arrived_in_bulk(0, 1));
        assert!(!arrived_in_bulk(2000, 2003));
        assert!(!arrived_in_bulk(0, FIRST));
        assert!(arrived_in_bulk(0, FIRST + 1));
        assert!(arrived_in_bulk(0, 2000));
        assert!(arrived_in_bulk(2000, 12));
    }

    #[test]
    fn groups_hold_every_row_from_the_first_shown_to_the_end_once() {
        assert_eq!(groups(0, 0), 0..0);
        assert_eq!(groups(0, 1), 0..1);
        assert_eq!(groups(1950, 2001), 78..81);
        assert_eq!(rows_of(80, 2001), 2000..2001);
        assert_eq!(rows_of(79, 2001), 1975..2000);
        for total in [0, 1, 24, 25, 26, 2001] {
            let rows: Vec<usize> = groups(0, total).flat_map(|g| rows_of(g, total)).collect();
            assert_eq!(rows, (0..total).collect::<Vec<_>>());
        }
    }
}
