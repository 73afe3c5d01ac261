// The leader's assignment of connectors and tasks to workers, after Kafka Connect's incremental
// cooperative assignor (KIP-415): workers keep what they run; new work goes to the least loaded;
// work is moved only by first revoking it (the owner stops it and rejoins, and the next round gives it
// out), so that nothing ever runs on two workers; work of a departed worker waits up to
// scheduled.rebalance.max.delay.ms for that worker to come back. Pure: tested directly.

/** A connector (`task` -1) or one of its tasks. */
export interface Work {
  connector: string;
  task: number;
}

export interface Allocation {
  connectors: string[];
  tasks: Work[];
}

export interface MemberState {
  memberId: string;
  /** What the member runs now (from its join metadata). */
  owned: Allocation;
}

export interface MemberAssignment {
  /** Everything the member should run from now on. */
  assigned: Allocation;
  /** What it must stop before the next round (moved elsewhere); it rejoins once stopped. */
  revoked: Allocation;
}

/** What the leader remembers between rounds. */
export interface AssignorMemory {
  /** The last assignment, per member. */
  previous: Map<string, Set<string>>;
  /** Work of departed members, held for their return until this time. */
  lostUntil?: number;
  held?: string[];
}

export interface AssignInput {
  members: MemberState[];
  /** All connectors, and the committed tasks of each. */
  configured: Allocation;
  memory: AssignorMemory;
  now: number;
  maxDelayMs: number;
}

export interface AssignOutput {
  assignments: Map<string, MemberAssignment>;
  /** When members should rejoin so that held work is given out (0: no rejoin needed). */
  delayMs: number;
  memory: AssignorMemory;
}

const keyOf = (w: Work) => JSON.stringify([w.connector, w.task]);
const workOf = (key: string): Work => {
  const [connector, task] = JSON.parse(key) as [string, number];
  return { connector, task };
};
const isConnector = (key: string) => key.endsWith(",-1]");
const compareKeys = (a: string, b: string) => {
  const x = workOf(a);
  const y = workOf(b);
  return x.connector < y.connector ? -1 : x.connector > y.connector ? 1 : x.task - y.task;
};

function keys(allocation: Allocation): string[] {
  return [...allocation.connectors.map((c) => keyOf({ connector: c, task: -1 })), ...allocation.tasks.map(keyOf)];
}

function allocation(items: Iterable<string>): Allocation {
  const sorted = [...items].sort(compareKeys);
  return {
    connectors: sorted.filter(isConnector).map((k) => workOf(k).connector),
    tasks: sorted.filter((k) => !isConnector(k)).map(workOf),
  };
}

export function assign(input: AssignInput): AssignOutput {
  const members = [...input.members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const configured = new Set(keys(input.configured));
  const kept = new Map<string, Set<string>>();
  const revoked = new Map<string, Set<string>>();
  const claimed = new Set<string>();
  for (const m of members) {
    const mine = new Set<string>();
    const out = new Set<string>();
    for (const key of keys(m.owned)) {
      if (!configured.has(key)) continue; // deleted: the member stops it as it is no longer assigned
      if (claimed.has(key))
        out.add(key); // running twice: the first member keeps it
      else {
        mine.add(key);
        claimed.add(key);
      }
    }
    kept.set(m.memberId, mine);
    revoked.set(m.memberId, out);
  }

  // Work of members that left is held for a while (remembered across rounds until the deadline),
  // unless someone new arrived to take it.
  const present = new Set(members.map((m) => m.memberId));
  const lost = new Set<string>();
  for (const [memberId, items] of input.memory.previous) {
    if (present.has(memberId)) continue;
    for (const key of items) lost.add(key);
  }
  for (const key of input.memory.held ?? []) lost.add(key);
  for (const key of lost) if (!configured.has(key) || claimed.has(key)) lost.delete(key);
  const newcomers = members.filter((m) => !input.memory.previous.has(m.memberId) && keys(m.owned).length === 0);
  let lostUntil = input.memory.lostUntil;
  let held = new Set<string>();
  if (lost.size > 0 && input.maxDelayMs > 0) {
    lostUntil ??= input.now + input.maxDelayMs;
    if (input.now < lostUntil && newcomers.length === 0) held = lost;
  }
  if (held.size === 0) lostUntil = undefined;

  const unowned = [...configured].filter((k) => !claimed.has(k) && !held.has(k)).sort(compareKeys);
  const assigned = new Map([...kept].map(([id, items]) => [id, new Set(items)]));
  if (members.length > 0) {
    for (const connectors of [true, false]) {
      const ofKind = (items: Iterable<string>) => [...items].filter((k) => isConnector(k) === connectors);
      const count = (id: string) => ofKind(assigned.get(id)!).length;
      const fresh = ofKind(unowned);
      // Targets: an even share each; the members already running most keep the remainder's extra one.
      const total = members.reduce((n, m) => n + count(m.memberId), 0) + fresh.length;
      const floor = Math.floor(total / members.length);
      const byLoad = [...members].sort((a, b) => count(b.memberId) - count(a.memberId));
      const target = new Map(byLoad.map((m, i) => [m.memberId, floor + (i < total % members.length ? 1 : 0)]));
      // Above target: revoke; the work moves in the next round, once its owner has stopped it.
      for (const m of members) {
        const mine = ofKind(assigned.get(m.memberId)!).sort(compareKeys);
        for (const key of mine.slice(target.get(m.memberId)!)) {
          assigned.get(m.memberId)!.delete(key);
          revoked.get(m.memberId)!.add(key);
        }
      }
      // New work goes where the share is furthest from its target; a departed member's work to newcomers first.
      for (const key of fresh) {
        const candidates = lost.has(key) && newcomers.length > 0 ? newcomers : members;
        const deficit = (m: MemberState) => target.get(m.memberId)! - count(m.memberId);
        const best = candidates.reduce(
          (a, b) =>
            deficit(b) > deficit(a) || (deficit(b) === deficit(a) && count(b.memberId) < count(a.memberId)) ? b : a,
          candidates[0]!,
        );
        assigned.get(best.memberId)!.add(key);
      }
    }
  }

  const assignments = new Map<string, MemberAssignment>();
  for (const m of members)
    assignments.set(m.memberId, {
      assigned: allocation(assigned.get(m.memberId)!),
      revoked: allocation(revoked.get(m.memberId)!),
    });
  return {
    assignments,
    delayMs: lostUntil === undefined ? 0 : Math.max(1, lostUntil - input.now),
    memory: { previous: assigned, lostUntil, held: [...held] },
  };
}
