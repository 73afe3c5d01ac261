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
  return { connectors: sorted.filter(isConnector).map((k) => workOf(k).connector), tasks: sorted.filter((k) => !isConnector(k)).map(workOf) };
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
      if (claimed.has(key)) out.add(key); // running twice: the first member keeps it
      else {
        mine.add(key);
        claimed.add(key);
      }
    }
    kept.set(m.memberId, mine);
    revoked.set(m.memberId, out);
  }

  // Work of members that left is held for a while, unless someone new arrived to take it.
  const present = new Set(members.map((m) => m.memberId));
  const lost = new Set<string>();
  for (const [memberId, items] of input.memory.previous) {
    if (present.has(memberId)) continue;
    for (const key of items) if (configured.has(key) && !claimed.has(key)) lost.add(key);
  }
  const newcomers = members.filter((m) => !input.memory.previous.has(m.memberId) && keys(m.owned).length === 0);
  let lostUntil = input.memory.lostUntil;
  let held = new Set<string>();
  if (lost.size > 0 && input.maxDelayMs > 0 && (input.memory.previous.size > 0)) {
    lostUntil ??= input.now + input.maxDelayMs;
    if (input.now < lostUntil && newcomers.length === 0) held = lost;
  }
  if (held.size === 0) lostUntil = undefined;

  const unowned = [...configured].filter((k) => !claimed.has(k) && !held.has(k)).sort(compareKeys);
  const assigned = new Map([...kept].map(([id, items]) => [id, new Set(items)]));
  if (members.length > 0) {
    for (const connectors of [true, false]) {
      const count = (id: string) => [...assigned.get(id)!].filter((k) => isConnector(k) === connectors).length;
      // Returning workers take the held-back work of the departed first.
      for (const key of unowned.filter((k) => isConnector(k) === connectors)) {
        const candidates = lost.has(key) && newcomers.length > 0 ? newcomers : members;
        const target = candidates.reduce((best, m) => (count(m.memberId) < count(best.memberId) ? m : best), candidates[0]!);
        assigned.get(target.memberId)!.add(key);
      }
      // Balance: take from members above the ceiling while some member is below the floor.
      const total = members.reduce((n, m) => n + count(m.memberId), 0);
      const floor = Math.floor(total / members.length);
      const ceiling = Math.ceil(total / members.length);
      if (members.some((m) => count(m.memberId) < floor)) {
        for (const m of members) {
          const mine = [...assigned.get(m.memberId)!].filter((k) => isConnector(k) === connectors).sort(compareKeys);
          for (const key of mine.slice(ceiling)) {
            assigned.get(m.memberId)!.delete(key);
            revoked.get(m.memberId)!.add(key);
          }
        }
      }
    }
  }

  const assignments = new Map<string, MemberAssignment>();
  for (const m of members) assignments.set(m.memberId, { assigned: allocation(assigned.get(m.memberId)!), revoked: allocation(revoked.get(m.memberId)!) });
  return {
    assignments,
    delayMs: lostUntil === undefined ? 0 : Math.max(1, lostUntil - input.now),
    memory: { previous: assigned, lostUntil },
  };
}
