//! S3: memory scaling at N = 1,000, 10,000 and 100,000 messages.
//!
//! Message i: content "message i " + 100 × "x", role user, cause_by
//! Action(i mod 10), a unique id, sent to all. The fill goes through the
//! real add path (duplicate check included); every other operation is
//! timed per call on the filled memory. The memory figure is the heap that
//! the messages and the memory hold after filling, counted in a pass of
//! its own.

use std::hint::black_box;
use std::rc::Rc;

use tabteam::core::memory::Memory;
use tabteam::core::message::{ActionKind, Message, MessageId, MessageRef};

use super::heap::HeapWatch;
use super::measure::{median, per_call, Now};
use super::table::thousands;
use super::Figure;

/// (N, fill runs, MetaGPT's add at N).
const SIZES: [(usize, usize, &str, f64); 3] =
    [(1_000, 9, "1.4 ms", 1.4), (10_000, 7, "13 ms", 13.0), (100_000, 5, "136 ms", 136.0)];

/// The ten action kinds, shared as a role's actions share theirs.
fn kinds() -> Vec<ActionKind> {
    (0..10).map(|k| ActionKind::new(&format!("Action{k}"))).collect()
}

/// Messages `from..to` as SCENARIOS.md describes them (ids from 1).
fn messages(kinds: &[ActionKind], from: usize, to: usize) -> Vec<MessageRef> {
    let padding = "x".repeat(100);
    (from..to)
        .map(|i| {
            let content = format!("message {i} {padding}");
            Rc::new(Message::new(MessageId(i as u64 + 1), content).caused_by(kinds[i % 10].clone()))
        })
        .collect()
}

pub fn run(now: Now) -> Vec<Figure> {
    let kinds = kinds();
    let mut figures = Vec::new();
    for (n, runs, metagpt_text, metagpt_add) in SIZES {
        let label = |what: &str| format!("N={}: {what}", thousands(&n.to_string()));
        let all = messages(&kinds, 0, n);

        let fills: Vec<f64> = (0..runs)
            .map(|_| {
                let mut memory = Memory::default();
                let t0 = now();
                for m in &all {
                    memory.add(m.clone());
                }
                let per_add = (now() - t0) / n as f64;
                assert_eq!(memory.len(), n);
                per_add
            })
            .collect();
        figures
            .push(Figure::ms("S3", label("add, per call (fill)"), median(&fills)).vs(metagpt_text, Some(metagpt_add)));

        let mut memory = Memory::default();
        memory.add_batch(all.iter().cloned());
        // Adding a message that is already there: the duplicate check alone.
        let known = all[n / 2].clone();
        figures.push(Figure::ms(
            "S3",
            label("add of a duplicate"),
            per_call(now, || {
                assert!(!memory.add(black_box(known.clone())));
            }),
        ));

        let (a0, a1) = (&kinds[0], &kinds[1]);
        assert_eq!(memory.get_by_action(a0).len(), n / 10);
        assert_eq!(memory.get_by_actions([a0, a1]).len(), n / 5);
        figures.push(Figure::ms(
            "S3",
            label("get by one action (N/10)"),
            per_call(now, || drop(black_box(memory.get_by_action(black_box(a0))))),
        ));
        figures.push(Figure::ms(
            "S3",
            label("get by two actions (N/5)"),
            per_call(now, || drop(black_box(memory.get_by_actions(black_box([a0, a1]))))),
        ));
        assert_eq!(memory.get(10).len(), 10);
        figures.push(Figure::ms(
            "S3",
            label("get last 10"),
            per_call(now, || {
                black_box(memory.get(black_box(10)));
            }),
        ));
        assert_eq!(memory.get(0).len(), n);
        figures.push(Figure::ms(
            "S3",
            label("get all (k=0, a slice)"),
            per_call(now, || {
                black_box(memory.get(black_box(0)));
            }),
        ));

        let unseen = messages(&kinds, n, n + 10);
        assert_eq!(memory.find_news(&unseen, 0).len(), 10);
        assert_eq!(memory.find_news(&unseen, 10).len(), 10);
        let mut news_whole = Figure::ms(
            "S3",
            label("find news, 10 unseen, whole memory"),
            per_call(now, || drop(black_box(memory.find_news(black_box(&unseen), 0)))),
        );
        if n == 100_000 {
            news_whole = news_whole.vs("1.2 s", Some(1200.0));
        }
        figures.push(news_whole);
        figures.push(Figure::ms(
            "S3",
            label("find news, 10 unseen, last 10"),
            per_call(now, || drop(black_box(memory.find_news(black_box(&unseen), 10)))),
        ));
        let last: Vec<MessageRef> = memory.get(10).to_vec();
        assert!(memory.find_news(&last, 0).is_empty());
        figures.push(Figure::ms(
            "S3",
            label("find news, the last 10 stored"),
            per_call(now, || drop(black_box(memory.find_news(black_box(&last), 0)))),
        ));
        drop((memory, all, unseen, last));

        // Memory: build and fill in a pass of its own; the messages are
        // then held by the memory alone.
        let watch = HeapWatch::start();
        let mut memory = Memory::default();
        memory.add_batch(messages(&kinds, 0, n));
        let live = watch.live();
        let peak = watch.peak();
        drop(watch);
        assert_eq!(memory.len(), n);
        figures.push(Figure::bytes("S3", label("heap after filling"), live));
        figures.push(Figure::bytes("S3", label("  per message"), live / n as f64).vs("~1.1 KB", Some(1100.0)));
        if n == 100_000 {
            figures.push(Figure::bytes("S3", label("peak heap while filling"), peak));
        }
    }
    figures
}
