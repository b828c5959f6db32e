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
//!
//! A future that suspends only to let the others run (it wakes itself
//! before returning `Pending`, as the scripted model and `yield_now` do) is
//! polled again by the join itself, in its next pass over the futures,
//! instead of going back to the executor first: in the tab every such trip
//! is a microtask and two crossings between wasm and JavaScript. The
//! passes are the same as before, in the same order; only who starts the
//! next one changes. A wake from outside a poll (a network answer) reaches
//! the executor as before, and after [`PASSES`] passes in one poll the join
//! hands back to the executor anyway.
//! Kept for the widget's 250,000 B budget and the Chromium floor (S5 >= 30x,
//! issue #24): with `join_all` the widget package measured 255,098 B gzip
//! against 253,243, and S5 in Chromium 4.65 us a step over the first 100
//! (34x) and 29.2 us over all 1,000 (31.5x); README gives 1.75 us with this.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures::task::AtomicWaker;

/// Passes over the futures in one poll of the join, at most, before it
/// lets the executor schedule it again.
const PASSES: usize = 256;

/// Poll every future until all are done; their outputs in input order.
pub fn join_every<F: Future>(futures: impl IntoIterator<Item = F>) -> JoinEvery<F> {
    let running: Box<[Option<F>]> = futures.into_iter().map(Some).collect();
    let outputs = running.iter().map(|_| None).collect();
    JoinEvery { running, outputs, relay: None }
}

pub struct JoinEvery<F: Future> {
    /// `None` once finished (the future is dropped where it stood).
    running: Box<[Option<F>]>,
    /// Boxed too, so `JoinEvery` is `Unpin` whatever the outputs are.
    outputs: Box<[Option<F::Output>]>,
    /// The waker the futures get, made when one first suspends.
    relay: Option<(Arc<Relay>, Waker)>,
}

/// The futures' waker: a wake during the join's own poll only marks that
/// another pass is due; any other wake goes to the executor's waker.
#[derive(Default)]
struct Relay {
    polling: AtomicBool,
    woken: AtomicBool,
    outer: AtomicWaker,
}

impl Wake for Relay {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref()
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.polling.load(Relaxed) {
            self.woken.store(true, Relaxed);
        } else {
            self.outer.wake();
        }
    }
}

/// Ends the relay's polling even if a future panics.
struct Polling<'a>(&'a Relay);

impl Drop for Polling<'_> {
    fn drop(&mut self) {
        self.0.polling.store(false, Relaxed);
    }
}

impl<F: Future> JoinEvery<F> {
    /// Poll each unfinished future once; true if any is still pending.
    fn pass(&mut self, cx: &mut Context<'_>) -> bool {
        let mut pending = false;
        for (slot, output) in self.running.iter_mut().zip(self.outputs.iter_mut()) {
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
        pending
    }

    /// Every output, once all are in (collected in place: no new list).
    fn outputs(&mut self) -> Vec<F::Output> {
        Vec::from(std::mem::take(&mut self.outputs)).into_iter().map(|o| o.expect("every future has finished")).collect()
    }
}

impl<F: Future> Future for JoinEvery<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `JoinEvery` is `Unpin`: the futures live in the boxed slice, which
        // moving it does not move.
        let this = self.get_mut();
        let (relay, waker) = match this.relay.take() {
            Some(relay) => relay,
            None => {
                // The first pass runs on the executor's own waker: a round
                // whose futures all finish at once needs no relay.
                if !this.pass(cx) {
                    return Poll::Ready(this.outputs());
                }
                // A future that woke itself is polled again below, on the
                // relay; one waiting for something else will be woken
                // through the executor's waker it already holds.
                let relay = Arc::new(Relay::default());
                let waker = Waker::from(relay.clone());
                (relay, waker)
            }
        };
        relay.outer.register(cx.waker());
        let mut done = false;
        {
            relay.polling.store(true, Relaxed);
            let _polling = Polling(&relay);
            let mut inner = Context::from_waker(&waker);
            for _ in 0..PASSES {
                relay.woken.store(false, Relaxed);
                if !this.pass(&mut inner) {
                    done = true;
                    break;
                }
                if !relay.woken.load(Relaxed) {
                    break;
                }
            }
        }
        if done {
            return Poll::Ready(this.outputs());
        }
        if relay.woken.load(Relaxed) {
            // Passes used up with a future still busy (or woken just as
            // the polling ended): the executor polls the join again once
            // it has run whatever else is waiting.
            cx.waker().wake_by_ref();
        }
        this.relay = Some((relay, waker));
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::executor::block_on;

    use super::*;
    use crate::core::yield_now::yield_now;

    /// A future that logs "{name}{i}" and yields, `yields` times, then
    /// returns its name.
    async fn logged_step(log: &RefCell<Vec<String>>, name: &'static str, yields: usize) -> &'static str {
        for i in 0..yields {
            log.borrow_mut().push(format!("{name}{i}"));
            yield_now().await;
        }
        name
    }

    /// The executor's side: a waker counting its wakes.
    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn counting_waker() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn outputs_come_in_input_order_and_work_interleaves() {
        let log = RefCell::new(Vec::new());
        let step = |name, yields| logged_step(&log, name, yields);
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

    /// A future that suspends only to let the others run is polled again
    /// by the join: the executor polls the join once, not once per
    /// suspension (each is a microtask in the tab).
    #[test]
    fn self_woken_futures_are_polled_again_without_the_executor() {
        let (count, waker) = counting_waker();
        let log = RefCell::new(Vec::new());
        let step = |name, yields| logged_step(&log, name, yields);
        let mut join = join_every([step("a", 3), step("b", 1)]);
        let mut cx = Context::from_waker(&waker);
        let out = match Pin::new(&mut join).poll(&mut cx) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("every suspension was a self-wake: one poll finishes the join"),
        };
        assert_eq!(out, ["a", "b"]);
        // The same interleaving as passes driven by the executor.
        assert_eq!(*log.borrow(), ["a0", "b0", "a1", "a2"]);
        // Only the first pass ran on the executor's waker.
        assert!(count.0.load(Ordering::Relaxed) <= 2);
    }

    /// A future woken from outside (a network answer) still wakes the
    /// executor, and a join that never stops waking itself hands back to
    /// the executor after `PASSES` passes.
    #[test]
    fn outside_wakes_reach_the_executor_and_busy_joins_hand_back() {
        let (count, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);

        let slot: std::rc::Rc<RefCell<Option<Waker>>> = Default::default();
        let ready = std::rc::Rc::new(std::cell::Cell::new(false));
        let outside = {
            let (slot, ready) = (slot.clone(), ready.clone());
            std::future::poll_fn(move |cx| {
                if ready.get() {
                    return Poll::Ready(1);
                }
                *slot.borrow_mut() = Some(cx.waker().clone());
                Poll::Pending
            })
        };
        let mut join = join_every([outside]);
        assert!(Pin::new(&mut join).poll(&mut cx).is_pending());
        let before = count.0.load(Ordering::Relaxed);
        ready.set(true);
        slot.borrow_mut().take().expect("the future kept a waker").wake();
        assert_eq!(count.0.load(Ordering::Relaxed), before + 1, "an outside wake reaches the executor");
        assert_eq!(Pin::new(&mut join).poll(&mut cx), Poll::Ready(vec![1]));

        let busy = std::future::poll_fn(|cx: &mut Context<'_>| -> Poll<()> {
            cx.waker().wake_by_ref();
            Poll::Pending
        });
        let mut join = join_every([busy]);
        let before = count.0.load(Ordering::Relaxed);
        assert!(Pin::new(&mut join).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut join).poll(&mut cx).is_pending());
        assert!(count.0.load(Ordering::Relaxed) > before, "a busy join asks to be polled again");
    }
}
