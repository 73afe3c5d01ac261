// Group coordination for the embedded broker: the members of a group all live in this process, so
// the coordinator is a small state machine — a join round waits for every known member (or drops those
// that do not rejoin within the rebalance timeout), the first member leads, the leader's sync hands
// out the assignments. Members that stop heartbeating leave after their session timeout.
import { GroupError, type Bytes, type GroupMembership, type GroupOptions, type JoinResult } from "../broker.ts";

interface Member {
  id: string;
  protocols: { name: string; metadata: Bytes }[];
  lastSeen: number;
  sessionTimeoutMs: number;
  joined?: (result: JoinResult) => void;
  synced?: (assignment: Bytes) => void;
}

class Group {
  generation = 0;
  leaderId = "";
  protocol = "";
  readonly members = new Map<string, Member>();
  private rebalancing = false;
  private roundTimer: ReturnType<typeof setTimeout> | undefined;
  private assignments = new Map<string, Bytes>();
  private synced = false;
  private rebalanceTimeoutMs = 60000;

  join(member: Member, rebalanceTimeoutMs: number): Promise<JoinResult> {
    this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.expire();
    this.members.set(member.id, member);
    member.lastSeen = Date.now();
    const result = new Promise<JoinResult>((resolve) => (member.joined = resolve));
    if (!this.rebalancing) this.beginRound();
    this.completeRound(false);
    return result;
  }

  /** A new round: everyone must rejoin; those that do not within the rebalance timeout are dropped. */
  private beginRound(): void {
    this.rebalancing = true;
    this.synced = false;
    clearTimeout(this.roundTimer);
    this.roundTimer = setTimeout(() => this.completeRound(true), this.rebalanceTimeoutMs);
  }

  /** Ends the join round once every member rejoined, or at the timeout without the missing ones. */
  private completeRound(timedOut: boolean): void {
    const waiting = [...this.members.values()].filter((m) => !m.joined);
    if (waiting.length > 0 && !timedOut) return;
    for (const m of waiting) this.members.delete(m.id);
    clearTimeout(this.roundTimer);
    this.rebalancing = false;
    this.generation++;
    const members = [...this.members.values()];
    this.leaderId = members[0]?.id ?? "";
    this.protocol = members[0]?.protocols[0]?.name ?? "";
    this.assignments = new Map();
    for (const m of members) {
      const resolve = m.joined!;
      m.joined = undefined;
      resolve({
        generation: this.generation,
        memberId: m.id,
        leaderId: this.leaderId,
        protocol: this.protocol,
        members:
          m.id === this.leaderId
            ? members.map((x) => ({
                memberId: x.id,
                metadata: x.protocols.find((p) => p.name === this.protocol)?.metadata ?? new Uint8Array(),
              }))
            : [],
      });
    }
  }

  sync(memberId: string, generation: number, assignments: Map<string, Bytes>): Promise<Bytes> {
    const member = this.check(memberId, generation);
    if (memberId === this.leaderId) {
      this.assignments = assignments;
      this.synced = true;
      for (const m of this.members.values()) {
        const resolve = m.synced;
        m.synced = undefined;
        resolve?.(this.assignments.get(m.id) ?? new Uint8Array());
      }
    }
    if (this.synced) return Promise.resolve(this.assignments.get(memberId) ?? new Uint8Array());
    return new Promise((resolve) => (member.synced = resolve));
  }

  heartbeat(memberId: string, generation: number): void {
    this.check(memberId, generation).lastSeen = Date.now();
  }

  leave(memberId: string): void {
    if (!this.members.delete(memberId)) return;
    if (this.rebalancing) this.completeRound(false);
    else if (this.members.size > 0) this.beginRound();
  }

  private check(memberId: string, generation: number): Member {
    this.expire();
    const member = this.members.get(memberId);
    if (!member) throw new GroupError("UNKNOWN_MEMBER_ID", "reset");
    if (this.rebalancing) throw new GroupError("REBALANCE_IN_PROGRESS", "rejoin");
    if (generation !== this.generation) throw new GroupError("ILLEGAL_GENERATION", "reset");
    return member;
  }

  private expire(): void {
    const now = Date.now();
    for (const m of this.members.values()) {
      if (!m.joined && now - m.lastSeen > m.sessionTimeoutMs) this.leave(m.id);
    }
  }
}

export class EmbeddedGroupCoordinator {
  private readonly groups = new Map<string, Group>();
  private nextId = 0;

  membership(options: GroupOptions): GroupMembership {
    const group = this.groups.get(options.groupId) ?? new Group();
    this.groups.set(options.groupId, group);
    const coordinator = this;
    return {
      memberId: "",
      async join(protocols) {
        this.memberId ||= `${options.protocolType}-${++coordinator.nextId}`;
        const member: Member = {
          id: this.memberId,
          protocols,
          lastSeen: Date.now(),
          sessionTimeoutMs: options.sessionTimeoutMs,
        };
        return group.join(member, options.rebalanceTimeoutMs);
      },
      async sync(generation, assignments) {
        return group.sync(this.memberId, generation, assignments);
      },
      async heartbeat(generation) {
        group.heartbeat(this.memberId, generation);
      },
      async leave() {
        group.leave(this.memberId);
        this.memberId = "";
      },
    };
  }
}
