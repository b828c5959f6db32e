//! A counting global allocator: how many heap bytes are live, the peak,
//! and how many allocations (reallocations included) since a watch started. Natively it wraps the system allocator, in wasm
//! the Rust one (dlmalloc), so both runners report the same kind of figure.
//!
//! Counting is off unless a [`HeapWatch`] is running, so timed passes pay
//! one relaxed load per allocation and nothing more; memory is measured in
//! passes of their own. A block allocated before a watch and freed during
//! it makes the figures slightly low, never high.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering::Relaxed};

static ON: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

pub struct Counting;

#[global_allocator]
static GLOBAL: Counting = Counting;

fn grew(bytes: usize) {
    CALLS.fetch_add(1, Relaxed);
    let live = LIVE.fetch_add(bytes as isize, Relaxed) + bytes as isize;
    PEAK.fetch_max(live, Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes as isize, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; the counters are
// bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && ON.load(Relaxed) {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && ON.load(Relaxed) {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if ON.load(Relaxed) {
            shrank(layout.size());
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && ON.load(Relaxed) {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                CALLS.fetch_add(1, Relaxed);
                shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// Counts heap bytes from its start until it is dropped.
pub struct HeapWatch {
    base: isize,
    calls: usize,
}

impl HeapWatch {
    pub fn start() -> Self {
        let base = LIVE.load(Relaxed);
        PEAK.store(base, Relaxed);
        ON.store(true, Relaxed);
        Self { base, calls: CALLS.load(Relaxed) }
    }

    /// Bytes allocated since the start and still live.
    pub fn live(&self) -> f64 {
        (LIVE.load(Relaxed) - self.base) as f64
    }

    /// Allocations and reallocations since the start.
    pub fn allocations(&self) -> f64 {
        (CALLS.load(Relaxed) - self.calls) as f64
    }

    /// The most bytes live at once since the start, above the start.
    pub fn peak(&self) -> f64 {
        (PEAK.load(Relaxed) - self.base) as f64
    }
}

impl Drop for HeapWatch {
    fn drop(&mut self) {
        ON.store(false, Relaxed);
    }
}
