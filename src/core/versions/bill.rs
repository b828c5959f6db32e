//! The bill of each version, per role (issue #33): tokens in, cached, out
//! and dollars, read from the cost ledger's entries, so a person sees what
//! each change cost and who spent it (a fix's version shows its fix).
//!
//! The rule: a version's calls are the ledger's entries from its
//! `Spend::from_call` on, as many as its `Spend::calls`; each is counted
//! under the role that made it. A version saved before `from_call` was kept
//! starts where the versions before it end (right unless a request was left
//! open and dropped by a restore). Both are saved with the session, so a
//! reopened session has the same bill.
//!
//! Site only (the widget shows no bill). It saves nothing of its own and
//! prices nothing again: the dollars are the ledger's, as billed.

use serde::Serialize;

use crate::core::cost::{CostEntry, Tally};

use super::{ProjectLog, RequestKind};

/// What one version cost, per role (in the order they first spent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionBill {
    pub version: u32,
    pub kind: RequestKind,
    pub request: String,
    pub roles: Vec<RoleBill>,
    pub total: Tally,
}

/// What one role spent on a version.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoleBill {
    pub role: String,
    #[serde(flatten)]
    pub tally: Tally,
}

/// Every version's bill, oldest first, from the ledger's `entries`.
pub fn bills(log: &ProjectLog, entries: &[CostEntry]) -> Vec<VersionBill> {
    let mut next = 0u64;
    log.versions
        .iter()
        .map(|v| {
            let from = v.spent.from_call.unwrap_or(next);
            next = from + v.spent.calls;
            let start = usize::try_from(from).unwrap_or(usize::MAX).min(entries.len());
            let end = usize::try_from(next).unwrap_or(usize::MAX).min(entries.len());
            let mut bill = VersionBill { version: v.number, kind: v.kind, request: v.request.clone(), roles: Vec::new(), total: Tally::default() };
            for entry in &entries[start..end] {
                bill.total.add(entry);
                match bill.roles.iter_mut().find(|r| r.role == *entry.role) {
                    Some(r) => r.tally.add(entry),
                    None => {
                        let mut tally = Tally::default();
                        tally.add(entry);
                        bill.roles.push(RoleBill { role: entry.role.to_string(), tally });
                    }
                }
            }
            bill
        })
        .collect()
}

impl VersionBill {
    /// One line for a role: "Alex: 3 calls · 4,200 in (3,000 cached) · 310 out · $0.0123".
    pub fn line(role: &str, t: &Tally) -> String {
        let calls = if t.calls == 1 { "1 call".to_string() } else { format!("{} calls", t.calls) };
        let cached = if t.cached_tokens > 0 { format!(" ({} cached)", grouped(t.cached_tokens)) } else { String::new() };
        format!("{role}: {calls} · {} in{cached} · {} out · ${:.4}", grouped(t.prompt_tokens), grouped(t.completion_tokens), t.cost)
    }
}

/// `1234567` as "1,234,567".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cost::{CostLedger, Price, PriceTable};
    use crate::core::files::ProjectFiles;
    use crate::core::llm::Usage;
    use crate::core::versions::Spend;

    fn ledger() -> CostLedger {
        let mut prices = PriceTable::empty();
        prices.set("m", Price::new(1.0, 2.0).with_cache(Some(0.5), None));
        CostLedger::new(100.0, prices)
    }

    fn call(l: &mut CostLedger, role: &str, prompt: u64, cached: u64, out: u64) {
        l.record(role, "m", Usage { cached_tokens: cached, ..Usage::new(prompt, out) });
    }

    /// (role, calls, in, cached, out) per version, from the bills.
    fn table(bills: &[VersionBill]) -> Vec<(u32, Vec<(String, u64, u64, u64, u64)>)> {
        bills
            .iter()
            .map(|b| (b.version, b.roles.iter().map(|r| (r.role.clone(), r.tally.calls, r.tally.prompt_tokens, r.tally.cached_tokens, r.tally.completion_tokens)).collect()))
            .collect()
    }

    fn row(role: &str, calls: u64, prompt: u64, cached: u64, out: u64) -> (String, u64, u64, u64, u64) {
        (role.to_string(), calls, prompt, cached, out)
    }

    /// An idea, a follow-up, a fix, a restore, and a request stopped and
    /// then dropped by a restore: each version bills its own calls to the
    /// roles that made them; the dropped request's calls go to none.
    #[test]
    fn each_version_bills_its_own_calls_per_role() {
        let mut l = ledger();
        let mut log = ProjectLog::default();
        let mut files = ProjectFiles::default();
        let spent = |l: &CostLedger| Spend::of(&l.total());
        log.open(RequestKind::Idea, "a game", spent(&l));
        call(&mut l, "Mike", 1000, 0, 100);
        call(&mut l, "Alex", 2000, 500, 300);
        call(&mut l, "Mike", 1500, 1000, 50);
        files.write("index.html", "<h1>game</h1>").unwrap();
        log.close(&files, spent(&l), None);
        log.open(RequestKind::FollowUp, "red title", spent(&l));
        call(&mut l, "Alex", 3000, 2000, 40);
        log.close(&files, spent(&l), None);
        log.open(RequestKind::Fix, "an error", spent(&l));
        call(&mut l, "Alex", 100, 0, 10);
        log.close(&files, spent(&l), None);
        // Stopped mid-request, then a restore drops it: its call is nobody's version.
        log.open(RequestKind::FollowUp, "stopped", spent(&l));
        call(&mut l, "Mike", 7, 0, 7);
        log.restore(&mut files, 1).unwrap();
        log.open(RequestKind::FollowUp, "blue title", spent(&l));
        call(&mut l, "Eve", 10, 0, 1);
        log.close(&files, spent(&l), None);

        let bills = bills(&log, l.entries());
        assert_eq!(
            table(&bills),
            [
                (1, vec![row("Mike", 2, 2500, 1000, 150), row("Alex", 1, 2000, 500, 300)]),
                (2, vec![row("Alex", 1, 3000, 2000, 40)]),
                (3, vec![row("Alex", 1, 100, 0, 10)]),
                (4, vec![]),
                (5, vec![row("Eve", 1, 10, 0, 1)]),
            ]
        );
        // Dollars are the ledger's, and each version's total is its spend.
        for (bill, version) in bills.iter().zip(&log.versions) {
            assert!((bill.total.cost - version.spent.cost).abs() < 1e-12, "version {}", bill.version);
            assert_eq!(bill.total.calls, version.spent.calls);
            let roles: f64 = bill.roles.iter().map(|r| r.tally.cost).sum();
            assert!((roles - bill.total.cost).abs() < 1e-12);
        }
        assert_eq!(bills[2].kind, RequestKind::Fix);
        // Mike's first call: 1000 in at $1, 100 out at $2 per million.
        assert!((bills[0].roles[0].tally.cost - (1000.0 + 200.0 + 500.0 + 1000.0 * 0.5 + 100.0) / 1e6).abs() < 1e-12);
    }

    /// Versions saved before `from_call` was kept: each starts where the
    /// ones before end.
    #[test]
    fn older_versions_follow_one_another() {
        let mut l = ledger();
        for role in ["Mike", "Alex", "Alex"] {
            call(&mut l, role, 10, 0, 1);
        }
        let mut log = ProjectLog::default();
        let files = ProjectFiles::default();
        log.open(RequestKind::Idea, "a", Spend::default());
        log.close(&files, Spend { calls: 1, ..Spend::default() }, None);
        log.open(RequestKind::FollowUp, "b", Spend { calls: 1, ..Spend::default() });
        log.close(&files, Spend { calls: 3, ..Spend::default() }, None);
        for v in &mut log.versions {
            v.spent.from_call = None;
        }
        assert_eq!(table(&bills(&log, l.entries())), [(1, vec![row("Mike", 1, 10, 0, 1)]), (2, vec![row("Alex", 2, 20, 0, 2)])]);
        // A log that names more calls than the ledger has bills what there is.
        log.versions[1].spent.calls = 9;
        assert_eq!(bills(&log, l.entries())[1].total.calls, 2);
    }

    #[test]
    fn lines_read_as_words() {
        let t = Tally { calls: 3, prompt_tokens: 1_234_567, cached_tokens: 1000, completion_tokens: 42, cost: 0.01234, ..Tally::default() };
        assert_eq!(VersionBill::line("Alex", &t), "Alex: 3 calls · 1,234,567 in (1,000 cached) · 42 out · $0.0123");
        let one = Tally { calls: 1, ..Tally::default() };
        assert_eq!(VersionBill::line("Mike", &one), "Mike: 1 call · 0 in · 0 out · $0.0000");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }
}
