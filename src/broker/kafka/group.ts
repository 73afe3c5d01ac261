// Group membership through Kafka's group coordinator (the classic protocol: JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup), with any protocol type — kafkajs' consumer only speaks "consumer".
// Each membership has its own connections: a JoinGroup waits at the broker until the group is formed,
// and a broker answers one request at a time per connection.
import { KafkaJSError } from "kafkajs";
import { BrokerError, GroupError, type Bytes, type GroupMembership, type GroupOptions, type JoinResult } from "../broker.ts";

/** The coordinator calls of kafkajs' internal Broker object. */
interface CoordinatorBroker {
  joinGroup(args: {
    groupId: string;
    sessionTimeout: number;
    rebalanceTimeout: number;
    memberId: string;
    protocolType: string;
    groupProtocols: { name: string; metadata: Buffer }[];
  }): Promise<{ generationId: number; groupProtocol: string; leaderId: string; memberId: string; members: { memberId: string; memberMetadata: Buffer }[] }>;
  syncGroup(args: { groupId: string; generationId: number; memberId: string; groupAssignment: { memberId: string; memberAssignment: Buffer }[] }): Promise<{ memberAssignment: Buffer }>;
  heartbeat(args: { groupId: string; groupGenerationId: number; memberId: string }): Promise<unknown>;
  leaveGroup(args: { groupId: string; memberId: string }): Promise<unknown>;
}

export interface GroupCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(args: { groupId: string }): Promise<CoordinatorBroker>;
}

const REJOIN = new Set(["REBALANCE_IN_PROGRESS"]);
const RESET = new Set(["UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "FENCED_INSTANCE_ID"]);
const buffer = (bytes: Bytes) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

export class KafkaGroupMembership implements GroupMembership {
  memberId = "";
  private connected?: Promise<void>;

  constructor(
    private readonly cluster: GroupCluster,
    private readonly options: GroupOptions,
  ) {}

  async join(protocols: { name: string; metadata: Bytes }[]): Promise<JoinResult> {
    const response = await this.call("join group", (c) =>
      c.joinGroup({
        groupId: this.options.groupId,
        sessionTimeout: this.options.sessionTimeoutMs,
        rebalanceTimeout: this.options.rebalanceTimeoutMs,
        memberId: this.memberId,
        protocolType: this.options.protocolType,
        groupProtocols: protocols.map((p) => ({ name: p.name, metadata: buffer(p.metadata) })),
      }),
    );
    this.memberId = response.memberId;
    return {
      generation: response.generationId,
      memberId: response.memberId,
      leaderId: response.leaderId,
      protocol: response.groupProtocol,
      members: response.members.map((m) => ({ memberId: m.memberId, metadata: new Uint8Array(m.memberMetadata) })),
    };
  }

  async sync(generation: number, assignments: Map<string, Bytes>): Promise<Bytes> {
    const response = await this.call("sync group", (c) =>
      c.syncGroup({
        groupId: this.options.groupId,
        generationId: generation,
        memberId: this.memberId,
        groupAssignment: [...assignments].map(([memberId, bytes]) => ({ memberId, memberAssignment: buffer(bytes) })),
      }),
    );
    return new Uint8Array(response.memberAssignment);
  }

  async heartbeat(generation: number): Promise<void> {
    await this.call("heartbeat", (c) => c.heartbeat({ groupId: this.options.groupId, groupGenerationId: generation, memberId: this.memberId }));
  }

  async leave(): Promise<void> {
    try {
      if (this.memberId) await this.call("leave group", (c) => c.leaveGroup({ groupId: this.options.groupId, memberId: this.memberId }));
    } finally {
      this.memberId = "";
      await this.cluster.disconnect().catch(() => undefined);
      this.connected = undefined;
    }
  }

  private async call<T>(what: string, action: (coordinator: CoordinatorBroker) => Promise<T>): Promise<T> {
    try {
      this.connected ??= this.cluster.connect();
      await this.connected;
      return await action(await this.cluster.findGroupCoordinator({ groupId: this.options.groupId }));
    } catch (err) {
      const type = (err as { type?: string }).type ?? "";
      if (REJOIN.has(type)) throw new GroupError(`${what}: ${type}`, "rejoin");
      if (RESET.has(type)) {
        this.memberId = "";
        throw new GroupError(`${what}: ${type}`, "reset");
      }
      if (!(err instanceof KafkaJSError) || err.name === "KafkaJSConnectionError") this.connected = undefined;
      const retriable = err instanceof KafkaJSError ? err.retriable || err.name === "KafkaJSNumberOfRetriesExceeded" || err.name === "KafkaJSConnectionError" : true;
      throw new BrokerError(`could not ${what} ${this.options.groupId}: ${err instanceof Error ? err.message : String(err)}`, retriable, err);
    }
  }
}
