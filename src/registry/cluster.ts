// Several registry instances on one schemas topic: they elect one leader, the only writer, through
// Kafka's group coordinator with Confluent Schema Registry's protocol (type "sr", sub-protocol "v0",
// JSON identities), so Sluice and Confluent instances could even share a group. The eligible member
// with the smallest URL leads; the others forward writes to it. Sluice's assignment also lists every
// member (`sluice_instances`, which Confluent's instances ignore) so that any instance can show the
// cluster (GET /v1/sluice/cluster).
import type { Broker, GroupMemberMetadata } from "../broker/broker.ts";
import { GroupMember } from "../broker/group-member.ts";
import { logger } from "../platform/log.ts";
import { errors, ForwardToLeader } from "./errors.ts";

const log = logger("registry-cluster");
const PROTOCOL_TYPE = "sr";
const PROTOCOL = "v0";
const NO_ERROR = 0;
const DUPLICATE_URLS = 1;

/** SchemaRegistryIdentity, as Confluent writes it. */
export interface Identity {
  version: number;
  host: string;
  port: number;
  master_eligibility: boolean;
  scheme: string;
}

interface Assignment {
  version: number;
  error: number;
  master: string | null;
  master_identity: Identity | null;
  /** Every member, by URL; absent when a Confluent instance made the assignment. */
  sluice_instances?: Identity[];
}

/** The cluster as GET /v1/sluice/cluster shows it. */
export interface ClusterView {
  leader: string | null;
  instances: { url: string; leader: boolean; eligible: boolean }[];
}

const identityUrl = (i: Identity) => `${i.scheme}://${i.host}:${i.port}`;

/**
 * The leader's choice: the eligible member with the smallest URL; none when no member is eligible
 * or two members advertise the same URL (they could not tell each other apart). Pure: tested directly.
 */
export function electLeader(members: { memberId: string; identity: Identity }[]): Assignment {
  const urls = members.map((m) => identityUrl(m.identity));
  if (new Set(urls).size < urls.length)
    return { version: 1, error: DUPLICATE_URLS, master: null, master_identity: null };
  const eligible = members
    .filter((m) => m.identity.master_eligibility)
    .sort((a, b) => (identityUrl(a.identity) < identityUrl(b.identity) ? -1 : 1));
  const leader = eligible[0];
  return { version: 1, error: NO_ERROR, master: leader?.memberId ?? null, master_identity: leader?.identity ?? null };
}

export interface ClusterOptions {
  groupId: string;
  identity: Identity;
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  rebalanceTimeoutMs: number;
  /** Called when this instance becomes the leader, before it writes: read the topic to its end. */
  onLeadership(leader: boolean): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class RegistryCluster {
  private readonly member: GroupMember;
  private leader: Identity | null = null;
  private self = false;
  /** The members of the last assignment that listed them. */
  private members: Identity[] = [];
  private elected?: () => void;
  readonly firstElection: Promise<void>;

  constructor(
    broker: Broker,
    private readonly options: ClusterOptions,
  ) {
    this.firstElection = new Promise((resolve) => (this.elected = resolve));
    this.member = GroupMember.of(
      broker,
      {
        groupId: options.groupId,
        protocolType: PROTOCOL_TYPE,
        sessionTimeoutMs: options.sessionTimeoutMs,
        rebalanceTimeoutMs: options.rebalanceTimeoutMs,
        heartbeatIntervalMs: options.heartbeatIntervalMs,
        log,
      },
      {
        protocols: () => [{ name: PROTOCOL, metadata: encoder.encode(JSON.stringify(options.identity)) }],
        assign: async (members) => this.assign(members),
        assigned: async (bytes, join) => this.assigned(JSON.parse(decoder.decode(bytes)) as Assignment, join.memberId),
        rebalancing: () => undefined,
        lost: async () => {
          this.members = [];
          await this.setLeader(null, false);
        },
      },
    );
  }

  start(): void {
    this.member.start();
  }

  async stop(): Promise<void> {
    await this.member.stop();
  }

  get isLeader(): boolean {
    return this.self;
  }

  get leaderUrl(): string | undefined {
    return this.leader ? identityUrl(this.leader) : undefined;
  }

  /**
   * The instances of the last election, this one always among them (alone while it is out of the
   * group); a Confluent leader's assignment names only the leader.
   */
  view(): ClusterView {
    const byUrl = new Map<string, Identity>();
    for (const i of [...this.members, ...(this.leader ? [this.leader] : []), this.options.identity])
      byUrl.set(identityUrl(i), i);
    const leader = this.leaderUrl ?? null;
    const instances = [...byUrl.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([url, i]) => ({ url, leader: url === leader, eligible: i.master_eligibility }));
    return { leader, instances };
  }

  /** Before a write: go ahead as the leader, or be sent to it (50004 while none is known). */
  checkWriter(): void {
    if (this.self) return;
    if (!this.leader) throw errors.leaderNotKnown();
    throw new ForwardToLeader(identityUrl(this.leader));
  }

  private async assign(members: GroupMemberMetadata[]): Promise<Map<string, Uint8Array>> {
    const identities = members.map((m) => ({
      memberId: m.memberId,
      identity: JSON.parse(decoder.decode(m.metadata)) as Identity,
    }));
    const assignment = electLeader(identities);
    if (assignment.error === DUPLICATE_URLS) {
      log.error(
        { urls: identities.map((m) => identityUrl(m.identity)) },
        "instances advertise the same URL: set host.name to a name the others can reach, different on each",
      );
    } else if (!assignment.master) {
      log.warn("no instance is eligible to lead (leader.eligibility=false everywhere): writes are refused");
    }
    const bytes = encoder.encode(
      JSON.stringify({ ...assignment, sluice_instances: identities.map((m) => m.identity) }),
    );
    return new Map(members.map((m) => [m.memberId, bytes]));
  }

  private async assigned(assignment: Assignment, memberId: string): Promise<void> {
    this.members = assignment.sluice_instances ?? [];
    await this.setLeader(assignment.master_identity, assignment.master === memberId);
    this.elected?.();
  }

  private async setLeader(leader: Identity | null, self: boolean): Promise<void> {
    const changed = self !== this.self || this.leaderUrl !== (leader ? identityUrl(leader) : undefined);
    // A new leader reads everything its predecessor wrote before it writes itself.
    if (self && !this.self) await this.options.onLeadership(true);
    if (!self && this.self) await this.options.onLeadership(false);
    this.leader = leader;
    this.self = self;
    if (changed)
      log.info({ leader: this.leaderUrl ?? null, self }, self ? "this instance is the leader" : "leader elected");
  }
}
