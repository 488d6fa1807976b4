//! Basic blocks for `block:start` / `block:end` rules, as Wizard's monitor
//! matcher defines them (docs/monitor-abi.md#events).
//!
//! The function entry (the site at pc 0, before the first instruction) is an
//! instruction of its own and starts the first block. A block starts at every
//! `loop`, after every `if`, `else`, `br_if`, `br_on_*`, (legacy) `catch` and
//! `catch_all`, and at an `end` whose label a branch, an `else` or a
//! `try_table` handler refers to. A block ends at those same branching
//! instructions, at `br`, `br_table`, `return`, `return_call`,
//! `return_call_indirect`, `unreachable`, `throw`, `rethrow`, `throw_ref`, before
//! an instruction that starts one (a `loop`, a referenced `end`) and at the
//! last instruction. Like Wizard, whether the next `end` is referenced is
//! decided with the labels as they are before the current instruction, a
//! `loop` and a referenced `end` start a block without ending the one before,
//! and an instruction right after one that ends a block without starting one
//! (`br`, ...) belongs to no block.
//!
//! "The next instruction" is what Wizard's look-ahead finds, which is not
//! always the next one (see [`Builder::lookahead`]): its cursor is left where
//! its last look ended, and the instructions that end or start a block by
//! themselves (`if`, `br`, `loop`, ...) do not look ahead, so the first look
//! after them reads the instruction after the last one looked at, an earlier
//! one. A block then ends wherever the instruction looked at is a `loop` or
//! an `end` whose label (the current one) is referenced, also when that is
//! not the next instruction; it does not end before a `loop` or such an `end`
//! the look misses; and the function's last instruction ends a block only if
//! the look from there reaches past the end. Checked against Wizard on the
//! PolyBench programs (`scripts/wizard-sites.sh`).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use wasmparser::Operator;

/// The key of the function entry in [`Blocks`] (instructions are 0..n).
pub(super) const ENTRY: u32 = u32::MAX;

/// Basic-block boundaries of one function, by instruction index ([`ENTRY`]
/// for the entry site).
#[derive(Default, Debug)]
pub(super) struct Blocks {
    pub starts: HashSet<u32>,
    /// Instruction index of a block's end -> instructions in the block.
    pub ends: HashMap<u32, u32>,
}

/// A label on the control stack: loops never count as referenced.
struct Label {
    is_loop: bool,
    referenced: bool,
}

struct Builder {
    blocks: Blocks,
    labels: Vec<Label>,
    starting: bool,
    count: u32,
    /// Where the look-ahead's cursor stands: the index of the instruction
    /// it reads next (the number of instructions: past the end).
    cursor: usize,
}

impl Builder {
    fn start(&mut self, i: u32) {
        self.blocks.starts.insert(i);
        self.starting = false;
        self.count = 0;
    }

    fn end(&mut self, i: u32) {
        self.count += 1;
        self.blocks.ends.insert(i, self.count);
    }

    fn top_referenced(&self) -> bool {
        self.labels
            .last()
            .is_some_and(|l| !l.is_loop && l.referenced)
    }

    fn refer(&mut self, depth: u32) {
        let n = self.labels.len();
        if let Some(l) = (depth as usize)
            .checked_add(1)
            .and_then(|k| n.checked_sub(k))
            .and_then(|k| self.labels.get_mut(k))
        {
            l.referenced = true;
        }
    }

    /// The instruction Wizard's look-ahead takes for the one after `i` (None:
    /// the entry), as an index into the body's `n` instructions (`n`: past
    /// the end). Its cursor stays where the previous look left it: when that
    /// is `i` itself, it steps over `i` and reads the instruction after it;
    /// otherwise it reads the instruction at the cursor, which is behind `i`
    /// when instructions that do not look ahead came in between. The cursor
    /// then stands after what was read.
    fn lookahead(&mut self, i: Option<u32>, n: usize) -> usize {
        let target = match i {
            None => 0,
            Some(i) if self.cursor == i as usize => i as usize + 1,
            Some(_) => self.cursor,
        };
        self.cursor = (target + 1).min(n);
        target
    }

    /// Whether `next` (None: past the end) starts a block, judged now.
    fn next_starts(&self, next: Option<&Operator<'_>>) -> bool {
        match next {
            None | Some(Operator::Loop { .. }) => true,
            Some(Operator::End) => self.top_referenced(),
            Some(_) => false,
        }
    }

    /// The matcher's view of instruction `i` of `ops` (`op`: None for the entry).
    fn visit(&mut self, i: u32, op: Option<&Operator<'_>>, ops: &[Operator<'_>]) {
        use Operator as O;
        match op {
            Some(O::Loop { .. }) => {
                self.start(i);
                self.count = 1;
                return;
            }
            Some(
                O::If { .. }
                | O::Else
                | O::Catch { .. }
                | O::CatchAll
                | O::BrIf { .. }
                | O::BrOnNull { .. }
                | O::BrOnNonNull { .. }
                | O::BrOnCast { .. }
                | O::BrOnCastFail { .. },
            ) => {
                self.end(i);
                self.starting = true;
                return;
            }
            Some(
                O::Unreachable
                | O::Throw { .. }
                | O::Rethrow { .. }
                | O::ThrowRef
                | O::Return
                | O::ReturnCall { .. }
                | O::ReturnCallIndirect { .. }
                | O::Br { .. }
                | O::BrTable { .. },
            ) => {
                self.end(i);
                return;
            }
            Some(O::End) if self.top_referenced() => {
                self.start(i);
                self.count = 1;
                return;
            }
            _ => {}
        }
        if self.starting {
            self.start(i);
        }
        let next = self.lookahead(op.map(|_| i), ops.len());
        if self.next_starts(ops.get(next)) {
            self.end(i);
        } else {
            self.starting = false;
            self.count += 1;
        }
    }

    /// Apply `op` to the labels (after the matcher saw it).
    fn apply(&mut self, op: &Operator<'_>) {
        use Operator as O;
        let push = |b: &mut Builder, is_loop| {
            b.labels.push(Label {
                is_loop,
                referenced: false,
            })
        };
        match op {
            O::Block { .. } | O::If { .. } | O::Try { .. } => push(self, false),
            O::Loop { .. } => push(self, true),
            O::TryTable { try_table } => {
                for c in &try_table.catches {
                    let d = match c {
                        wasmparser::Catch::One { label, .. }
                        | wasmparser::Catch::OneRef { label, .. }
                        | wasmparser::Catch::All { label }
                        | wasmparser::Catch::AllRef { label } => *label,
                    };
                    self.refer(d);
                }
                push(self, false);
            }
            O::Else => {
                if let Some(l) = self.labels.last_mut() {
                    l.referenced = true;
                }
            }
            O::End => {
                self.labels.pop();
            }
            O::Delegate { relative_depth } => {
                self.labels.pop();
                self.refer(*relative_depth);
            }
            O::Br { relative_depth }
            | O::BrIf { relative_depth }
            | O::BrOnNull { relative_depth }
            | O::BrOnNonNull { relative_depth } => self.refer(*relative_depth),
            O::BrOnCast { relative_depth, .. } | O::BrOnCastFail { relative_depth, .. } => {
                self.refer(*relative_depth)
            }
            O::BrTable { targets } => {
                for d in targets.targets().flatten() {
                    self.refer(d);
                }
                self.refer(targets.default());
            }
            _ => {}
        }
    }
}

/// The blocks of a function body (`body` from its local declarations).
pub(super) fn compute(body: &[u8], body_offset: usize) -> Blocks {
    let reader = wasmparser::BinaryReader::new(body, body_offset);
    let fb = wasmparser::FunctionBody::new(reader);
    let mut ops: Vec<Operator<'_>> = Vec::new();
    if let Ok(mut r) = fb.get_operators_reader() {
        while !r.eof() {
            match r.read() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
    }
    let mut b = Builder {
        blocks: Blocks::default(),
        labels: vec![Label {
            is_loop: false,
            referenced: false,
        }],
        starting: true,
        count: 0,
        cursor: 0,
    };
    b.visit(ENTRY, None, &ops);
    for (i, op) in ops.iter().enumerate() {
        b.visit(i as u32, Some(op), &ops);
        b.apply(op);
    }
    b.blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks_of(wat_body: &str) -> (Vec<u32>, Vec<(u32, u32)>) {
        let wasm = wat::parse_str(format!("(module (func {wat_body}))")).unwrap();
        let mut body = None;
        for p in wasmparser::Parser::new(0).parse_all(&wasm) {
            if let Ok(wasmparser::Payload::CodeSectionEntry(b)) = p {
                body = Some(b);
            }
        }
        let b = body.unwrap();
        let r = b.range();
        let blocks = compute(&wasm[r.clone()], r.start);
        let mut starts: Vec<u32> = blocks.starts.into_iter().collect();
        starts.sort();
        let mut ends: Vec<(u32, u32)> = blocks.ends.into_iter().collect();
        ends.sort();
        (starts, ends)
    }

    #[test]
    fn entry_starts_the_first_block_and_counts_as_an_instruction() {
        // Wizard's block_tracer case: `i32.const 5; local.set 0; loop ... end; end`.
        let (starts, ends) = blocks_of(
            "(local i32) i32.const 5 local.set 0 \
             (loop local.get 0 i32.const 1 i32.sub local.set 0 local.get 0 br_if 0)",
        );
        // entry, loop (2), the two ends (9, 10: the loop's end follows br_if)
        assert_eq!(starts, [2, 9, ENTRY]);
        // entry block: entry + 2 instructions, ends at local.set (1);
        // loop block: 7 instructions to br_if (8); the last block: end, end.
        assert_eq!(ends, [(1, 3), (8, 7), (10, 2)]);
    }

    #[test]
    fn one_armed_if_end_starts_a_block_only_when_branched_to() {
        let (starts, _) = blocks_of("i32.const 1 (if (then nop)) nop");
        // if at 1: next (nop, 2) starts; the if's end (3) is not referenced.
        assert!(starts.contains(&2) && !starts.contains(&3), "{starts:?}");
        let (starts, _) = blocks_of("i32.const 1 (if (then br 0)) nop");
        assert!(starts.contains(&3), "{starts:?}");
        let (starts, _) = blocks_of("i32.const 1 (if (then nop) (else nop)) nop");
        // else references the if's label: its end (5) starts a block.
        assert!(starts.contains(&5), "{starts:?}");
    }

    #[test]
    fn the_look_ahead_lags_after_instructions_that_do_not_look() {
        // 0 i32.const, 1 if, 2 loop, 3 nop, 4 nop, 5 end, 6 end, 7 end.
        let (starts, ends) = blocks_of("i32.const 1 (if (then (loop nop nop)))");
        assert_eq!(starts, [2, ENTRY]);
        // The first nop looks at the loop (the cursor stands there since the
        // i32.const looked at the `if`): its block ends at once. Each later
        // look reads the instruction before its own, so none sees past the
        // function's end, and the last block never ends.
        assert_eq!(ends, [(1, 3), (3, 2)]);
    }

    #[test]
    fn a_loop_first_ends_the_entry_block_at_once() {
        let (starts, ends) = blocks_of("(loop nop)");
        assert_eq!(starts, [0, ENTRY]);
        // The loop block runs on to the function's end: loop, nop, end, end.
        assert_eq!(ends, [(3, 4), (ENTRY, 1)]);
    }
}
