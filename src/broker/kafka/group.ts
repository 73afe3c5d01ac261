// Group membership through Kafka's group coordinator (the classic protocol: JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup) with any protocol type — the library's Consumer only speaks "consumer", so the
// requests go through its public protocol API functions. Each membership has its own connection: a
// JoinGroup waits at the broker until the group is formed, and a broker answers one request at a time
// per connection.
import {
  ConnectionPool,
  findErrorBy,
  heartbeatV4,
  joinGroupV9,
  leaveGroupV5,
  syncGroupV5,
  type Connection,
  type ConnectionOptions,
} from "@platformatic/kafka";
import {
  BrokerError,
  GroupError,
  type Bytes,
  type GroupMembership,
  type GroupOptions,
  type JoinResult,
} from "../broker.ts";
import { asBuffer } from "../../platform/buffers.ts";
import { isRetriable, kafkaErrorOf, reasonOf } from "./errors.ts";

/** Where the group's coordinator is (the admin client's FindCoordinator). */
export type CoordinatorLookup = (groupId: string) => Promise<{ host: string; port: number }>;

const REJOIN = ["REBALANCE_IN_PROGRESS"];
const RESET = ["UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "FENCED_INSTANCE_ID"];
/** The coordinator moved or is not ready: ask where it is again. */
const MOVED = ["NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "COORDINATOR_LOAD_IN_PROGRESS"];

export class PlatformaticGroupMembership implements GroupMembership {
  memberId = "";
  /** The protocol the coordinator chose at the last join: SyncGroup repeats it. */
  private protocol: string | null = null;
  private pool?: ConnectionPool;
  private coordinator?: Promise<{ host: string; port: number }>;

  constructor(
    private readonly clientId: string,
    private readonly connection: ConnectionOptions,
    private readonly findCoordinator: CoordinatorLookup,
    private readonly options: GroupOptions,
  ) {}

  async join(protocols: { name: string; metadata: Bytes }[]): Promise<JoinResult> {
    const { groupId, sessionTimeoutMs, rebalanceTimeoutMs, protocolType } = this.options;
    const request = (memberId: string) => (c: Connection) =>
      joinGroupV9.api.async(
        c,
        groupId,
        sessionTimeoutMs,
        rebalanceTimeoutMs,
        memberId,
        null,
        protocolType,
        protocols.map((p) => ({ name: p.name, metadata: asBuffer(p.metadata) })),
        null,
      );
    let response;
    try {
      response = await this.call("join group", request(this.memberId));
    } catch (err) {
      // A new member is first given its id (KIP-394) and joins again with it.
      const required =
        err instanceof BrokerError && err.cause instanceof Error
          ? findErrorBy(err.cause, "apiId", "MEMBER_ID_REQUIRED")
          : null;
      if (!required) throw err;
      this.memberId = String(required.memberId ?? "");
      response = await this.call("join group", request(this.memberId));
    }
    this.memberId = response.memberId;
    this.protocol = response.protocolName ?? null;
    return {
      generation: response.generationId,
      memberId: response.memberId,
      leaderId: response.leader,
      protocol: response.protocolName ?? "",
      members: response.members.map((m) => ({ memberId: m.memberId, metadata: new Uint8Array(m.metadata) })),
    };
  }

  async sync(generation: number, assignments: Map<string, Bytes>): Promise<Bytes> {
    const { groupId, protocolType } = this.options;
    const response = await this.call("sync group", (c) =>
      syncGroupV5.api.async(
        c,
        groupId,
        generation,
        this.memberId,
        null,
        protocolType,
        this.protocol,
        [...assignments].map(([memberId, bytes]) => ({ memberId, assignment: asBuffer(bytes) })),
      ),
    );
    return new Uint8Array(response.assignment);
  }

  async heartbeat(generation: number): Promise<void> {
    await this.call("heartbeat", (c) =>
      heartbeatV4.api.async(c, this.options.groupId, generation, this.memberId, null),
    );
  }

  async leave(): Promise<void> {
    try {
      if (this.memberId)
        await this.call("leave group", (c) =>
          leaveGroupV5.api.async(c, this.options.groupId, [
            { memberId: this.memberId, groupInstanceId: null, reason: null },
          ]),
        );
    } finally {
      this.memberId = "";
      await this.pool?.close().catch(() => undefined);
      this.pool = undefined;
      this.coordinator = undefined;
    }
  }

  private async call<T>(what: string, action: (connection: Connection) => Promise<T>): Promise<T> {
    try {
      this.coordinator ??= this.findCoordinator(this.options.groupId);
      const coordinator = await this.coordinator;
      // A JoinGroup is answered only once the group formed, up to the rebalance timeout.
      this.pool ??= new ConnectionPool(this.clientId, {
        ...this.connection,
        requestTimeout: Math.max(this.connection.requestTimeout ?? 30000, this.options.rebalanceTimeoutMs + 5000),
      });
      return await action(await this.pool.get(coordinator));
    } catch (err) {
      const rejoin = kafkaErrorOf(err, REJOIN);
      if (rejoin) throw new GroupError(`${what}: ${rejoin}`, "rejoin");
      const reset = kafkaErrorOf(err, RESET);
      if (reset) {
        this.memberId = "";
        throw new GroupError(`${what}: ${reset}`, "reset");
      }
      const moved = kafkaErrorOf(err, MOVED);
      if (!kafkaErrorOf(err, ["MEMBER_ID_REQUIRED"])) this.coordinator = undefined;
      throw new BrokerError(
        `could not ${what} ${this.options.groupId}: ${reasonOf(err)}`,
        moved !== undefined || isRetriable(err),
        err,
      );
    }
  }
}
