import { afterEach, describe, expect, test } from "bun:test";
import type { GroupMemberMetadata, JoinResult } from "#src/broker/broker.ts";
import { EmbeddedGroupCoordinator } from "#src/broker/embedded/group-coordinator.ts";
import { GroupMember } from "#src/broker/group-member.ts";
import { logger } from "#src/platform/log.ts";
import { waitFor } from "../../fixtures/wait.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const wait = { timeoutMs: 5000, intervalMs: 5 };

/** One GroupMember with everything its callbacks saw. */
interface Probe {
  name: string;
  member: GroupMember;
  rebalancing: number;
  lost: number;
  /** Every `assign` call (leader only): the metadata it was given, as text. */
  assigns: { generation: number; members: string[] }[];
  /** The latest `assigned` call. */
  last?: { join: JoinResult; text: string };
}

const started: Probe[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.member.stop()));
});

function start(coordinator: EmbeddedGroupCoordinator, name: string): Probe {
  const membership = coordinator.membership({
    groupId: "g",
    protocolType: "test",
    sessionTimeoutMs: 5000,
    rebalanceTimeoutMs: 5000,
  });
  const probe: Probe = { name, member: undefined!, rebalancing: 0, lost: 0, assigns: [] };
  probe.member = new GroupMember(
    membership,
    {
      protocols: () => [{ name: "p1", metadata: enc(name) }],
      async assign(members: GroupMemberMetadata[], join: JoinResult) {
        probe.assigns.push({ generation: join.generation, members: members.map((m) => dec(m.metadata)) });
        // Each member's share names it and the generation: a member can tell it got its own bytes.
        return new Map(members.map((m) => [m.memberId, enc(`${dec(m.metadata)}@${join.generation}`)]));
      },
      async assigned(assignment, join) {
        probe.last = { join, text: dec(assignment) };
      },
      rebalancing() {
        probe.rebalancing++;
      },
      async lost() {
        probe.lost++;
      },
    },
    { heartbeatIntervalMs: 20, sessionTimeoutMs: 5000, log: logger("test") },
  );
  probe.member.start();
  started.push(probe);
  return probe;
}

/** Waits until all `probes` were assigned in one generation newer than `after`; returns it. */
function generationOf(probes: Probe[], after: number): Promise<number> {
  return waitFor(
    `${probes.map((p) => p.name).join(",")} in one generation after ${after}`,
    () => {
      const gens = new Set(probes.map((p) => p.last?.join.generation ?? 0));
      const [gen] = gens;
      return gens.size === 1 && gen! > after ? gen : undefined;
    },
    wait,
  );
}

const leaderOf = (probes: Probe[]) => probes.filter((p) => p.last!.join.leaderId === p.last!.join.memberId);

describe("GroupMember on the embedded coordinator", () => {
  test("the first member leads, sees every member's metadata, and each member gets its own bytes", async () => {
    const co = new EmbeddedGroupCoordinator();
    const a = start(co, "a");
    const g1 = await generationOf([a], 0);
    // Alone, a leads a group of one.
    expect(a.assigns.at(-1)).toEqual({ generation: g1, members: ["a"] });
    expect(a.last!.text).toBe(`a@${g1}`);

    const b = start(co, "b");
    const g2 = await generationOf([a, b], g1);
    expect(leaderOf([a, b])).toEqual([a]);
    expect(b.assigns).toEqual([]); // followers never assign
    expect(a.assigns.at(-1)!.generation).toBe(g2);
    expect(a.assigns.at(-1)!.members.sort()).toEqual(["a", "b"]);
    expect(a.last!.text).toBe(`a@${g2}`);
    expect(b.last!.text).toBe(`b@${g2}`);
    // Both were told the same leader and distinct member ids; only the leader got the member list.
    expect(b.last!.join.leaderId).toBe(a.last!.join.memberId);
    expect(a.last!.join.memberId).not.toBe(b.last!.join.memberId);
    expect(b.last!.join.members).toEqual([]);
    expect(a.last!.join.protocol).toBe("p1");
  });

  test("a third member joining makes the others rejoin into a new generation", async () => {
    const co = new EmbeddedGroupCoordinator();
    const a = start(co, "a");
    await generationOf([a], 0);
    const b = start(co, "b");
    const g2 = await generationOf([a, b], 0);
    const before = { a: a.rebalancing, b: b.rebalancing };

    const c = start(co, "c");
    const g3 = await generationOf([a, b, c], g2);
    // The old members noticed the rebalance (their heartbeat was refused) and rejoined.
    expect(a.rebalancing).toBeGreaterThan(before.a);
    expect(b.rebalancing).toBeGreaterThan(before.b);
    expect(leaderOf([a, b, c])).toEqual([a]);
    expect(a.assigns.at(-1)!.members.sort()).toEqual(["a", "b", "c"]);
    for (const p of [a, b, c]) expect(p.last!.text).toBe(`${p.name}@${g3}`);
    for (const p of [a, b, c]) expect(p.lost).toBe(0);
  });

  test("rejoin() starts a new round for the whole group", async () => {
    const co = new EmbeddedGroupCoordinator();
    const a = start(co, "a");
    await generationOf([a], 0);
    const b = start(co, "b");
    const g2 = await generationOf([a, b], 0);
    const leaderRebalancing = a.rebalancing;

    // A follower asks: the leader learns of it through its heartbeat and assigns again.
    b.member.rejoin();
    const g3 = await generationOf([a, b], g2);
    expect(a.rebalancing).toBeGreaterThan(leaderRebalancing);
    expect(a.assigns.at(-1)).toMatchObject({ generation: g3 });
    expect(a.assigns.at(-1)!.members.sort()).toEqual(["a", "b"]);
    expect(a.last!.text).toBe(`a@${g3}`);
    expect(b.last!.text).toBe(`b@${g3}`);
  });

  test("stop() of a member leaves the group: the rest form a new generation without it", async () => {
    const co = new EmbeddedGroupCoordinator();
    const a = start(co, "a");
    await generationOf([a], 0);
    const b = start(co, "b");
    await generationOf([a, b], 0);
    const c = start(co, "c");
    const g3 = await generationOf([a, b, c], 0);

    await c.member.stop();
    const g4 = await generationOf([a, b], g3);
    expect(a.assigns.at(-1)!.generation).toBe(g4);
    expect(a.assigns.at(-1)!.members.sort()).toEqual(["a", "b"]);
    expect(a.last!.text).toBe(`a@${g4}`);
    expect(b.last!.join.leaderId).toBe(a.last!.join.memberId);
    // The stopped member is gone for good: no later round for it.
    expect(c.last!.join.generation).toBe(g3);
    // A follower syncing before the leader waits for the leader's assignments of this generation.
    expect(b.last!.text).toBe(`b@${g4}`);
  });

  test("when the leader stops, the next member leads the new generation", async () => {
    const co = new EmbeddedGroupCoordinator();
    const a = start(co, "a");
    await generationOf([a], 0);
    const b = start(co, "b");
    const g2 = await generationOf([a, b], 0);

    await a.member.stop();
    const g3 = await generationOf([b], g2);
    expect(leaderOf([b])).toEqual([b]);
    expect(b.assigns.at(-1)).toEqual({ generation: g3, members: ["b"] });
    expect(b.last!.text).toBe(`b@${g3}`);
  });
});
