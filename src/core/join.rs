//! `join_every`: run futures concurrently on the one thread and collect
//! their outputs in order (what `futures::future::join_all` does).
//!
//! `join_all` switches to a `FuturesOrdered` above thirty futures: a task
//! allocated per future, and atomics on every wake, costs made for
//! executors shared between threads. A round in the tab joins one future
//! per busy role; this join keeps them in one boxed slice and, when woken,
//! polls each unfinished one again. That is linear in the roles per wake,
//! which for the tens of roles of a team costs less than the bookkeeping it
//! replaces. It does not poll a finished future again, and never spawns.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Poll every future until all are done; their outputs in input order.
pub fn join_every<F: Future>(futures: impl IntoIterator<Item = F>) -> JoinEvery<F> {
    let running: Box<[Option<F>]> = futures.into_iter().map(Some).collect();
    let outputs = running.iter().map(|_| None).collect();
    JoinEvery { running, outputs }
}

pub struct JoinEvery<F: Future> {
    /// `None` once finished (the future is dropped where it stood).
    running: Box<[Option<F>]>,
    /// Boxed too, so `JoinEvery` is `Unpin` whatever the outputs are.
    outputs: Box<[Option<F::Output>]>,
}

impl<F: Future> Future for JoinEvery<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `JoinEvery` is `Unpin`: the futures live in the boxed slice, which
        // moving it does not move.
        let this = self.get_mut();
        let mut pending = false;
        for (slot, output) in this.running.iter_mut().zip(this.outputs.iter_mut()) {
            if let Some(future) = slot {
                // SAFETY: a future in `running` is never moved: the slice is
                // never reallocated or handed out, and a slot is only
                // overwritten (its future dropped in place) once finished.
                match unsafe { Pin::new_unchecked(future) }.poll(cx) {
                    Poll::Ready(value) => {
                        *output = Some(value);
                        *slot = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        Poll::Ready(Vec::from(std::mem::take(&mut this.outputs)).into_iter().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use futures::executor::block_on;

    use super::*;
    use crate::core::yield_now::yield_now;

    #[test]
    fn outputs_come_in_input_order_and_work_interleaves() {
        let log = RefCell::new(Vec::new());
        let step = |name: &'static str, yields: usize| {
            let log = &log;
            async move {
                for i in 0..yields {
                    log.borrow_mut().push(format!("{name}{i}"));
                    yield_now().await;
                }
                name
            }
        };
        let out = block_on(join_every([step("a", 2), step("b", 0), step("c", 1)]));
        assert_eq!(out, ["a", "b", "c"]);
        assert_eq!(*log.borrow(), ["a0", "c0", "a1"]);
        assert_eq!(block_on(join_every(Vec::<std::future::Ready<u8>>::new())), Vec::<u8>::new());
    }

    #[test]
    fn many_futures_all_finish() {
        let out = block_on(join_every((0..100).map(|i| async move {
            for _ in 0..i % 3 {
                yield_now().await;
            }
            i
        })));
        assert_eq!(out, (0..100).collect::<Vec<_>>());
    }
}
