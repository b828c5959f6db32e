//! A future that suspends exactly once, then completes.
//!
//! Used where a step must give other roles in the same round a turn, as a
//! network call would (tests' own scripted steps; the scripted model's
//! stream does the same inside its `poll_next`). It needs no runtime and no
//! clock, so it works the same natively and in the tab.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Suspend once: the first poll wakes itself and returns `Pending`.
pub fn yield_now() -> YieldNow {
    YieldNow { yielded: false }
}

#[derive(Debug)]
pub struct YieldNow {
    yielded: bool,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            Poll::Ready(())
        } else {
            self.yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}
