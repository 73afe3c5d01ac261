import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  assign,
  type Allocation,
  type AssignOutput,
  type AssignorMemory,
  type MemberState,
  type Work,
} from "#src/connect/runtime/herder/assignor.ts";

const none: Allocation = { connectors: [], tasks: [] };
const fresh = (): AssignorMemory => ({ previous: new Map() });

/** `n` connectors c0..c(n-1), each with `tasks` tasks. */
function configured(n: number, tasks: number): Allocation {
  const connectors = Array.from({ length: n }, (_, i) => `c${i}`);
  return {
    connectors,
    tasks: connectors.flatMap((connector) => Array.from({ length: tasks }, (_, task) => ({ connector, task }))),
  };
}

const member = (memberId: string, owned: Allocation = none): MemberState => ({ memberId, owned });
const assigned = (out: AssignOutput, id: string) => out.assignments.get(id)!.assigned;
const revoked = (out: AssignOutput, id: string) => out.assignments.get(id)!.revoked;
const counts = (out: AssignOutput, kind: "connectors" | "tasks") =>
  [...out.assignments.values()].map((a) => a.assigned[kind].length);
const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
const taskIds = (ws: Work[]) => ws.map((w) => `${w.connector}/${w.task}`);

/** The next round as workers play it: each reports what it was assigned (revoked work already stopped). */
function nextRound(
  prev: AssignOutput,
  ids: string[],
  cfg: Allocation,
  extra: Partial<{ now: number; maxDelayMs: number }> = {},
): AssignOutput {
  return assign({
    members: ids.map((id) => member(id, prev.assignments.get(id)?.assigned ?? none)),
    configured: cfg,
    memory: prev.memory,
    now: extra.now ?? 0,
    maxDelayMs: extra.maxDelayMs ?? 0,
  });
}

describe("assign: balance and stickiness", () => {
  test("balancing converges to an even share: a member may keep one extra only within the remainder", () => {
    const rounds = (cfg: Allocation, first: string[], then: string[]) => {
      let out = assign({
        members: first.map((id) => member(id)),
        configured: cfg,
        memory: fresh(),
        now: 0,
        maxDelayMs: 0,
      });
      for (let i = 0; i < 4; i++) out = nextRound(out, then, cfg);
      return counts(out, "connectors").sort();
    };
    // 2/2/2 and a fourth member: it gets work (Kafka's assignor revokes down to the floor).
    expect(rounds(configured(6, 0), ["a", "b", "c"], ["a", "b", "c", "d"])).toEqual([1, 1, 2, 2]);
    // 4/3 and a third member: 3/2/2, not 3/3/1.
    expect(rounds(configured(7, 0), ["a", "b"], ["a", "b", "c"])).toEqual([2, 2, 3]);
  });

  test("new work goes to the members furthest below their share, and is never listed as revoked", () => {
    const out = assign({
      members: [member("x", configured(4, 0)), member("y"), member("n")],
      configured: configured(6, 0),
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    // x keeps 2 of its 4 and revokes 2; the 2 new connectors go to y and n.
    expect(revoked(out, "x").connectors.length).toBe(2);
    expect(assigned(out, "y").connectors.length + assigned(out, "n").connectors.length).toBe(2);
    for (const id of ["y", "n"]) expect(revoked(out, id)).toEqual(none);
  });

  test("first assignment over 3 members balances connectors and tasks separately", () => {
    const cfg = configured(4, 3); // 4 connectors (uneven over 3), 12 tasks (even)
    const out = assign({
      members: ["m1", "m2", "m3"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    expect(counts(out, "connectors").sort()).toEqual([1, 1, 2]);
    expect(counts(out, "tasks")).toEqual([4, 4, 4]);
    // Everything is given out, nothing is revoked on a first round.
    expect(counts(out, "connectors").reduce((a, b) => a + b)).toBe(4);
    for (const a of out.assignments.values()) expect(a.revoked).toEqual(none);
    expect(out.delayMs).toBe(0);
  });

  test("5 tasks over 3 members: per-kind counts differ by at most one", () => {
    const cfg: Allocation = {
      connectors: ["a", "b"],
      tasks: [0, 1, 2, 3, 4].map((task) => ({ connector: "a", task })),
    };
    const out = assign({
      members: ["x", "y", "z"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    expect(spread(counts(out, "connectors"))).toBeLessThanOrEqual(1);
    expect(counts(out, "tasks").sort()).toEqual([1, 2, 2]);
  });

  test("a joining member: owners keep their work, over-loaded ones revoke, the next round gives it to the newcomer", () => {
    const cfg = configured(4, 2); // 4 connectors, 8 tasks
    const first = assign({
      members: ["m1", "m2", "m3"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });

    const join = nextRound(first, ["m1", "m2", "m3", "m4"], cfg);
    // Sticky: what each old member still has is a subset of what it ran; nothing of theirs moved directly.
    for (const id of ["m1", "m2", "m3"]) {
      const before = assigned(first, id);
      const now = assigned(join, id);
      expect(before.connectors).toEqual(expect.arrayContaining(now.connectors));
      expect(taskIds(before.tasks)).toEqual(expect.arrayContaining(taskIds(now.tasks)));
      // Kept + revoked is exactly what the member ran.
      expect([...now.connectors, ...revoked(join, id).connectors].sort()).toEqual([...before.connectors].sort());
      expect([...taskIds(now.tasks), ...taskIds(revoked(join, id).tasks)].sort()).toEqual(taskIds(before.tasks).sort());
    }
    const revokedConnectors = ["m1", "m2", "m3"].flatMap((id) => revoked(join, id).connectors);
    const revokedTasks = ["m1", "m2", "m3"].flatMap((id) => taskIds(revoked(join, id).tasks));
    expect(revokedConnectors).toHaveLength(1); // 2,1,1 -> 1,1,1 (+1 for m4)
    expect(revokedTasks).toHaveLength(2); // 3,3,2 -> 2,2,2 (+2 for m4)
    // Revoked work is given to nobody in the same round: nothing may run on two workers.
    expect(assigned(join, "m4")).toEqual(none);
    const everyone = [...join.assignments.values()];
    for (const c of revokedConnectors) expect(everyone.flatMap((a) => a.assigned.connectors)).not.toContain(c);
    for (const t of revokedTasks) expect(everyone.flatMap((a) => taskIds(a.assigned.tasks))).not.toContain(t);

    const settle = nextRound(join, ["m1", "m2", "m3", "m4"], cfg);
    expect(assigned(settle, "m4").connectors).toEqual(revokedConnectors);
    expect(taskIds(assigned(settle, "m4").tasks).sort()).toEqual(revokedTasks.sort());
    expect(counts(settle, "connectors")).toEqual([1, 1, 1, 1]);
    expect(counts(settle, "tasks")).toEqual([2, 2, 2, 2]);
    for (const a of settle.assignments.values()) expect(a.revoked).toEqual(none);
  });

  test("a stable group gets the same assignment again, with nothing revoked", () => {
    const cfg = configured(3, 2);
    const first = assign({
      members: ["a", "b"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    const again = nextRound(first, ["a", "b"], cfg);
    for (const id of ["a", "b"]) {
      expect(assigned(again, id)).toEqual(assigned(first, id));
      expect(revoked(again, id)).toEqual(none);
    }
  });

  test("new work goes to the least loaded member", () => {
    const cfg = { connectors: ["a", "b", "c"], tasks: [] };
    const out = assign({
      members: [
        member("m1", { connectors: ["a"], tasks: [] }),
        member("m2", { connectors: ["b"], tasks: [] }),
        member("m3"),
      ],
      configured: cfg,
      memory: {
        previous: new Map([
          ["m1", new Set()],
          ["m2", new Set()],
          ["m3", new Set()],
        ]),
      },
      now: 0,
      maxDelayMs: 0,
    });
    expect(assigned(out, "m3").connectors).toEqual(["c"]);
    expect(assigned(out, "m1").connectors).toEqual(["a"]);
    expect(assigned(out, "m2").connectors).toEqual(["b"]);
  });
});

describe("assign: duplicates and deletions", () => {
  test("work owned by two members stays with the first by memberId and is revoked from the other", () => {
    const both: Allocation = { connectors: ["a"], tasks: [{ connector: "a", task: 0 }] };
    const out = assign({
      // Given in reverse order: the tie is broken by memberId, not by input order.
      members: [member("w2", both), member("w1", both)],
      configured: both,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    expect(assigned(out, "w1")).toEqual(both);
    expect(revoked(out, "w1")).toEqual(none);
    expect(assigned(out, "w2")).toEqual(none);
    expect(revoked(out, "w2")).toEqual(both);
  });

  test("deleted work (owned but no longer configured) is neither assigned nor revoked", () => {
    const owned: Allocation = {
      connectors: ["gone", "kept"],
      tasks: [
        { connector: "gone", task: 0 },
        { connector: "kept", task: 0 },
      ],
    };
    const cfg: Allocation = { connectors: ["kept"], tasks: [{ connector: "kept", task: 0 }] };
    const out = assign({ members: [member("w1", owned)], configured: cfg, memory: fresh(), now: 0, maxDelayMs: 0 });
    // The member stops "gone" because it is no longer in its assignment; no revocation round needed.
    expect(assigned(out, "w1")).toEqual(cfg);
    expect(revoked(out, "w1")).toEqual(none);
  });
});

describe("assign: scheduled rebalance delay for departed members", () => {
  test("held work stays held through other rounds until the deadline", () => {
    const cfg = configured(3, 0);
    const first = assign({
      members: ["a", "b", "c"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 1000,
    });
    const gone = nextRound(first, ["a", "b"], cfg, { now: 10, maxDelayMs: 1000 });
    expect(gone.delayMs).toBe(1000);
    const again = nextRound(gone, ["a", "b"], cfg, { now: 20, maxDelayMs: 1000 });
    expect(again.delayMs).toBe(990);
    expect([...again.assignments.values()].flatMap((a) => a.assigned.connectors).length).toBe(2);
    const late = nextRound(again, ["a", "b"], cfg, { now: 1010, maxDelayMs: 1000 });
    expect(late.delayMs).toBe(0);
    expect([...late.assignments.values()].flatMap((a) => a.assigned.connectors).length).toBe(3);
  });

  const cfg = configured(3, 1);
  const start = () =>
    assign({
      members: ["a", "b", "c"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 1000,
    });

  test("a departed member's work is held back while the delay runs", () => {
    const first = start();
    const gone = assigned(first, "c");
    expect(gone.connectors.length + gone.tasks.length).toBeGreaterThan(0);

    const held = nextRound(first, ["a", "b"], cfg, { now: 100, maxDelayMs: 1000 });
    // Members are told to rejoin when the delay ends.
    expect(held.delayMs).toBe(1000);
    expect(held.memory.lostUntil).toBe(1100);
    const given = [...held.assignments.values()];
    for (const c of gone.connectors) expect(given.flatMap((a) => a.assigned.connectors)).not.toContain(c);
    for (const t of taskIds(gone.tasks)) expect(given.flatMap((a) => taskIds(a.assigned.tasks))).not.toContain(t);
    // The survivors keep exactly what they had.
    expect(assigned(held, "a")).toEqual(assigned(first, "a"));
    expect(assigned(held, "b")).toEqual(assigned(first, "b"));
  });

  test("the held work is given out once now passes the deadline", () => {
    const first = start();
    const gone = assigned(first, "c");
    const held = nextRound(first, ["a", "b"], cfg, { now: 100, maxDelayMs: 1000 });
    const later = nextRound(held, ["a", "b"], cfg, { now: 1100, maxDelayMs: 1000 });
    expect(later.delayMs).toBe(0);
    expect(later.memory.lostUntil).toBeUndefined();
    const given = [...later.assignments.values()];
    expect(given.flatMap((a) => a.assigned.connectors).sort()).toEqual(cfg.connectors);
    expect(given.flatMap((a) => taskIds(a.assigned.tasks)).sort()).toEqual(taskIds(cfg.tasks));
    expect(given.flatMap((a) => a.assigned.connectors)).toEqual(expect.arrayContaining(gone.connectors));
  });

  test("a newcomer joining during the delay gets the held work at once", () => {
    const first = start();
    const gone = assigned(first, "c");
    const held = nextRound(first, ["a", "b"], cfg, { now: 100, maxDelayMs: 1000 });
    // "c2" is new (not in memory, owns nothing): likely the departed worker back under a new id.
    const back = nextRound(held, ["a", "b", "c2"], cfg, { now: 200, maxDelayMs: 1000 });
    expect(back.delayMs).toBe(0);
    expect(assigned(back, "c2")).toEqual(gone);
    expect(assigned(back, "a")).toEqual(assigned(first, "a"));
  });

  test("a newcomer in the round that notices the departure gets the departed work, even over an equally idle member", () => {
    // b ran nothing last round but is not new; the newcomer n is preferred for a's lost connector.
    const out = assign({
      members: [member("b"), member("n")],
      configured: { connectors: ["x"], tasks: [] },
      memory: {
        previous: new Map([
          ["a", new Set([JSON.stringify(["x", -1])])],
          ["b", new Set<string>()],
        ]),
      },
      now: 0,
      maxDelayMs: 1000,
    });
    expect(out.delayMs).toBe(0);
    expect(assigned(out, "n").connectors).toEqual(["x"]);
    expect(assigned(out, "b")).toEqual(none);
  });

  test("maxDelayMs 0 gives the departed member's work out immediately", () => {
    const first = assign({
      members: ["a", "b", "c"].map((id) => member(id)),
      configured: cfg,
      memory: fresh(),
      now: 0,
      maxDelayMs: 0,
    });
    const out = nextRound(first, ["a", "b"], cfg, { now: 100, maxDelayMs: 0 });
    expect(out.delayMs).toBe(0);
    expect(out.memory.lostUntil).toBeUndefined();
    const given = [...out.assignments.values()];
    expect(given.flatMap((a) => a.assigned.connectors).sort()).toEqual(cfg.connectors);
    expect(given.flatMap((a) => taskIds(a.assigned.tasks)).sort()).toEqual(taskIds(cfg.tasks));
  });
});

describe("assign: safety property", () => {
  const connectorNames = ["a", "b", "c-d", "e"];
  const allWork: Work[] = connectorNames.flatMap((connector) => [-1, 0, 1, 2].map((task) => ({ connector, task })));
  const key = (w: Work) => JSON.stringify([w.connector, w.task]);
  const toAllocation = (ws: Work[]): Allocation => ({
    connectors: ws.filter((w) => w.task === -1).map((w) => w.connector),
    tasks: ws.filter((w) => w.task >= 0),
  });
  const keysOf = (a: Allocation) => [...a.connectors.map((c) => key({ connector: c, task: -1 })), ...a.tasks.map(key)];
  const workSet = fc.subarray(allWork);
  const ids = ["m0", "m1", "m2", "m3", "m4", "m5"];

  test("no item is ever assigned to two members, or taken from a member that still owns it", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1, maxLength: 5 }).chain((present) =>
          fc.record({
            members: fc.tuple(...present.map((id) => workSet.map((owned) => member(id, toAllocation(owned))))),
            configured: workSet,
            previous: fc.array(fc.tuple(fc.constantFrom(...ids), workSet), { maxLength: 6 }),
            lostUntil: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
            now: fc.integer({ min: 0, max: 2000 }),
            maxDelayMs: fc.constantFrom(0, 500, 5000),
          }),
        ),
        ({ members, configured: cfg, previous, lostUntil, now, maxDelayMs }) => {
          const memory: AssignorMemory = {
            previous: new Map(previous.map(([id, ws]) => [id, new Set(ws.map(key))])),
            lostUntil,
          };
          const out = assign({ members, configured: toAllocation(cfg), memory, now, maxDelayMs });
          const configuredKeys = new Set(cfg.map(key));
          const seen = new Set<string>();
          for (const m of members) {
            for (const k of keysOf(out.assignments.get(m.memberId)!.assigned)) {
              expect(configuredKeys.has(k)).toBe(true); // only configured work
              expect(seen.has(k)).toBe(false); // disjoint
              seen.add(k);
              // Newly assigned work must not still run on another member this round.
              if (!keysOf(m.owned).includes(k)) {
                for (const other of members) if (other !== m) expect(keysOf(other.owned)).not.toContain(k);
              }
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
