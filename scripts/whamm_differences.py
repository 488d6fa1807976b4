"""The known, documented ways our report of a whamm script differs from
upstream whamm's bytecode-rewriting output (docs/probe-language.md,
"Differences from whamm"), told apart from real differences.

Used by bench_whamm_paper.py. Rows are the tuples of whamm_suite.split_output
(every column but `id`): id_type, name, whamm_type, wasm_type, script_id,
fname, fid, pc, probe_id, value.
"""
from whamm_suite import split_output

FID, PC, PROBE, VALUE = 6, 7, 8, 9


def _leb(b, i):
    """(unsigned LEB128 value, next index)."""
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def _name(b, i):
    n, i = _leb(b, i)
    return b[i:i + n].decode("utf-8", "replace"), i + n


def _limits(b, i):
    flags = b[i]
    _, i = _leb(b, i + 1)
    if flags & 1:
        _, i = _leb(b, i)
    return i


def exit_calls(path):
    """The (fid, pc) of every `call` to WASI's `proc_exit` that a report row
    can name: the function index (imports first) and the byte offset of the
    `call` in the function's body. Only the sites rows name are decoded, so
    this returns a predicate `is_exit_call(fid, pc)`; None if the module
    cannot be read."""
    try:
        b = open(path, "rb").read()
    except OSError:
        return None
    if b[:4] != b"\0asm":
        return None
    i, n_funcs, exit_idx, bodies = 8, 0, None, []
    try:
        while i < len(b):
            sid = b[i]
            size, i = _leb(b, i + 1)
            end = i + size
            if sid == 2:  # imports
                count, j = _leb(b, i)
                for _ in range(count):
                    module, j = _name(b, j)
                    field, j = _name(b, j)
                    kind = b[j]
                    j += 1
                    if kind == 0:  # function
                        _, j = _leb(b, j)
                        if module.startswith("wasi") and field == "proc_exit":
                            exit_idx = n_funcs
                        n_funcs += 1
                    elif kind == 1:  # table: reftype, limits
                        j = _limits(b, j + 1)
                    elif kind == 2:  # memory
                        j = _limits(b, j)
                    elif kind == 3:  # global: valtype, mutability
                        j += 2
                    elif kind == 4:  # tag: attribute, type
                        _, j = _leb(b, j + 1)
                    else:
                        return None
            elif sid == 10:  # code
                count, j = _leb(b, i)
                for _ in range(count):
                    sz, j = _leb(b, j)
                    bodies.append(j)
                    j += sz
            i = end
    except IndexError:
        return None

    def is_exit_call(fid, pc):
        k = fid - n_funcs
        if exit_idx is None or not 0 <= k < len(bodies):
            return False
        at = bodies[k] + pc
        try:
            return b[at] == 0x10 and _leb(b, at + 1)[0] == exit_idx
        except IndexError:
            return False

    return is_exit_call


def _rule(row):
    """`wasm:opcode:loop:before` of a row's `14_wasm:opcode:loop:before`."""
    return row[PROBE].partition("_")[2]


def _int(v):
    try:
        return int(v)
    except ValueError:
        return {"true": 1, "false": 0}.get(v)


# Where a branch lands here (and in Wizard), not in the rewritten code.
BRANCH_TARGETS = ("wasm:opcode:loop:before", "wasm:opcode:end:before")


def classify(ours, theirs, app):
    """None if the reports are equal or differ in a way not explained below,
    else the explanation:
    * "equal but at the exiting call": only rows at a `call` to `proc_exit`
      differ (whamm's rewriting flushes its report just before that call,
      ahead of the call's own probes);
    * "equal but at branch targets": besides those, only the counts of
      `loop:before` and `end:before` probes differ, each higher here (an
      engine fires `loop:before` at every iteration and `end:before` when a
      branch lands on the `end`, as Wizard does; the rewritten code runs the
      inserted probe only when control falls into the instruction)."""
    o_other, o_rows = split_output(ours)
    t_other, t_rows = split_output(theirs)
    if o_other != t_other or len(o_rows) != len(t_rows):
        return None
    o_set, t_set = set(o_rows), set(t_rows)
    is_exit_call = exit_calls(app)

    def known(r):
        return bool(is_exit_call and r[FID].isdigit() and r[PC].isdigit()
                    and is_exit_call(int(r[FID]), int(r[PC])))

    o_diff = [r for r in o_rows if r not in t_set and not known(r)]
    t_diff = [r for r in t_rows if r not in o_set and not known(r)]
    if o_set == t_set:
        return None
    if not o_diff and not t_diff:
        return "equal but at the exiting call"
    # the same sites and probes, each count here at least the rewritten one
    theirs_at = {r[:VALUE]: r[VALUE] for r in t_diff}
    if len(theirs_at) != len(o_diff) or len(t_diff) != len(o_diff):
        return None
    for r in o_diff:
        t = theirs_at.pop(r[:VALUE], None)
        a, b = _int(r[VALUE]), _int(t) if t is not None else None
        if _rule(r) not in BRANCH_TARGETS or a is None or b is None or a < b:
            return None
    return "equal but at branch targets"
