// history.wgsl: the one search of a sorted contact list (twin: broad_phase::history::find_sorted
// in src/broad_phase/history.rs). Lists of every kind are sorted by partner index (NONE = u32 max
// pads fixed widths at the end and sorts last), so one binary search finds a partner's entry in
// the previous list (the friction-history remap) or in a neighbour's list (mirror entries).
// The importing module provides `sorted_key(i) -> u32`: the partner index of entry i of the list
// it searches (WGSL passes no storage pointers to functions; df32 asks `opaque_zero()` the same way).

#import common

// Index of `key` among the sorted keys sorted_key(lo..hi), or NONE.
fn find_sorted(lo_in: u32, hi_in: u32, key: u32) -> u32 {
    var lo = lo_in;
    var hi = hi_in;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        let v = sorted_key(mid);
        if (v == key) {
            return mid;
        }
        if (v < key) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return NONE;
}
