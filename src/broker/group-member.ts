// The life of one group member: join, let the leader assign, sync, then heartbeat until the group
// rebalances — and again. Shared by Connect workers and registry instances; what they put in the
// metadata and how the leader assigns is theirs.
import type { Logger } from "../platform/log.ts";
import { RetryLog } from "../platform/retry-log.ts";
import {
  BrokerError,
  GroupError,
  type Broker,
  type Bytes,
  type GroupMemberMetadata,
  type GroupMembership,
  type GroupOptions,
  type JoinResult,
} from "./broker.ts";

export interface GroupCallbacks {
  /** The protocols this member offers, preferred first, with its metadata for each. */
  protocols(): { name: string; metadata: Bytes }[];
  /** Leader only: an assignment per member. */
  assign(members: GroupMemberMetadata[], join: JoinResult): Promise<Map<string, Bytes>>;
  /** This member's assignment for the generation just formed. */
  assigned(assignment: Bytes, join: JoinResult): Promise<void>;
  /** A rebalance began: what this member runs stays, but it must not act as one of the old generation. */
  rebalancing(): void;
  /** This member was dropped from the group (session expired): it should stop everything it runs. */
  lost(): Promise<void>;
}

export interface GroupMemberOptions {
  heartbeatIntervalMs: number;
  sessionTimeoutMs: number;
  log: Logger;
}

export class GroupMember {
  private stopped = false;
  private rejoinRequested = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  private generation = -1;

  /** A member of `group` on the broker's coordinator. */
  static of(
    broker: Broker,
    group: GroupOptions & Omit<GroupMemberOptions, "sessionTimeoutMs">,
    callbacks: GroupCallbacks,
  ): GroupMember {
    const { heartbeatIntervalMs, log, ...options } = group;
    return new GroupMember(broker.groupMembership(options), callbacks, {
      heartbeatIntervalMs,
      sessionTimeoutMs: options.sessionTimeoutMs,
      log,
    });
  }

  constructor(
    private readonly membership: GroupMembership,
    private readonly callbacks: GroupCallbacks,
    private readonly options: GroupMemberOptions,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Asks for a new rebalance (new work to assign, or revoked work now released). */
  rejoin(): void {
    this.rejoinRequested = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.membership
      .leave()
      .catch((err) => this.options.log.warn({ err: String(err) }, "could not leave the group"));
  }

  private async run(): Promise<void> {
    const { log } = this.options;
    let backoff = 100;
    let failingSince = 0;
    const unreachable = new RetryLog(log);
    while (!this.stopped) {
      try {
        this.rejoinRequested = false;
        this.callbacks.rebalancing();
        log.debug("joining the group");
        const join = await this.membership.join(this.callbacks.protocols());
        log.debug({ generation: join.generation }, "join answered; syncing");
        if (this.stopped) return;
        const assignments =
          join.leaderId === join.memberId ? await this.callbacks.assign(join.members, join) : new Map<string, Bytes>();
        const assignment = await this.membership.sync(join.generation, assignments);
        this.generation = join.generation;
        log.info(
          { generation: join.generation, memberId: join.memberId, leader: join.leaderId === join.memberId },
          "joined group",
        );
        unreachable.succeeded("group coordinator reachable again");
        await this.callbacks.assigned(assignment, join);
        backoff = 100;
        failingSince = 0;
        await this.heartbeatUntilRebalance();
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof GroupError) {
          log.info({ reason: err.message }, "rejoining the group");
          if (err.kind === "reset") await this.callbacks.lost();
          continue;
        }
        failingSince ||= Date.now();
        unreachable.failed(
          { err: err instanceof Error ? err.message : String(err), retryInMs: backoff },
          "group coordinator unreachable",
        );
        // Past the session timeout the coordinator has given our work to others.
        if (Date.now() - failingSince > this.options.sessionTimeoutMs) await this.callbacks.lost();
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 2000);
      }
    }
  }

  private async heartbeatUntilRebalance(): Promise<void> {
    let failingSince = 0;
    while (!this.stopped && !this.rejoinRequested) {
      await this.sleep(this.options.heartbeatIntervalMs);
      if (this.stopped || this.rejoinRequested) return;
      try {
        this.options.log.trace({ generation: this.generation }, "heartbeat");
        await this.membership.heartbeat(this.generation);
        failingSince = 0;
      } catch (err) {
        if (!(err instanceof BrokerError)) throw err;
        failingSince ||= Date.now();
        if (Date.now() - failingSince > this.options.sessionTimeoutMs) throw err;
        this.options.log.warn({ err: err.message }, "heartbeat failed");
      }
    }
  }

  /** Waits, or less when woken by rejoin() or stop(). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
