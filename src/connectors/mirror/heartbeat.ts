// MirrorMaker 2's heartbeats (Kafka's MirrorHeartbeatConnector, KIP-382): one task writes a record to the
// target's `heartbeats` topic every emit.heartbeats.interval.seconds, so that the topic, replicated on
// further, shows which clusters reach which (Kafka's MirrorClient reads them to list upstream clusters).
// The record is Kafka's Heartbeat byte for byte: the key the source and target aliases, the value a
// version (0) then the timestamp, in Kafka's protocol Struct layout (protocol-struct.ts).
import type { Broker } from "../../broker/broker.ts";
import { SourceConnector, SourceTask } from "../../connect/api/connector.ts";
import { Schema } from "../../connect/api/data/index.ts";
import { sourceRecord, type SourceRecord } from "../../connect/api/records.ts";
import { logger } from "../../platform/log.ts";
import type { SettingsDefinition } from "../../platform/settings.ts";
import { VERSION } from "../../platform/version.ts";
import { createSinglePartitionCompactedTopic, waitUnlessStopped } from "./internal-topics.ts";
import { MirrorConfig, missingClusterAddresses, mirrorSettingsDefinition } from "./mirror-config.ts";
import { validateSourcePartitionString, validateZeroOffset } from "./offset-validation.ts";
import { StructReader, writeStruct } from "./protocol-struct.ts";

export interface Heartbeat {
  sourceClusterAlias: string;
  targetClusterAlias: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** The only version Kafka 4.1 writes. */
export const HEARTBEAT_VERSION = 0;

export function encodeHeartbeat(heartbeat: Heartbeat): { key: Uint8Array; value: Uint8Array } {
  return {
    key: writeStruct([
      ["string", heartbeat.sourceClusterAlias],
      ["string", heartbeat.targetClusterAlias],
    ]),
    value: writeStruct([
      ["int16", HEARTBEAT_VERSION],
      ["int64", heartbeat.timestamp],
    ]),
  };
}

/**
 * A record of a heartbeats topic; throws StructFormatError on bytes Kafka's reader refuses. The version
 * is read past, not checked: Kafka's reader only asserts it (off in production) and reads version 0.
 */
export function decodeHeartbeat(key: Uint8Array | null, value: Uint8Array | null): Heartbeat {
  const v = new StructReader(value ?? new Uint8Array(0), "heartbeat value");
  v.int16("version");
  const timestamp = v.int64("timestamp");
  const k = new StructReader(key ?? new Uint8Array(0), "heartbeat key");
  const sourceClusterAlias = k.string("sourceClusterAlias");
  const targetClusterAlias = k.string("targetClusterAlias");
  return { sourceClusterAlias, targetClusterAlias, timestamp };
}

const log = logger("mirror-heartbeat");

export const heartbeatSettings = mirrorSettingsDefinition([
  {
    name: "emit.heartbeats.enabled",
    type: "boolean",
    default: true,
    importance: "low",
    doc: "Whether to emit heartbeats to target cluster.",
  },
  {
    name: "emit.heartbeats.interval.seconds",
    type: "long",
    default: 1,
    importance: "low",
    doc: "Frequency of heartbeats.",
  },
  {
    name: "heartbeats.topic.replication.factor",
    type: "int",
    default: 3,
    min: -1,
    max: 32767,
    importance: "low",
    doc: "Replication factor for heartbeats topic.",
  },
]);

/** Kafka's emit interval: negative when emission is off. */
function heartbeatIntervalMs(config: MirrorConfig): number {
  return config.values.boolean("emit.heartbeats.enabled")
    ? config.values.int("emit.heartbeats.interval.seconds") * 1000
    : -1;
}

/**
 * org.apache.kafka.connect.mirror.MirrorHeartbeatConnector: creates the target's heartbeats topic, and
 * runs one task (none when emit.heartbeats.enabled is false). Its records go to the worker's cluster,
 * which must be the target, as with Kafka's.
 */
export class MirrorHeartbeatConnector extends SourceConnector {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector";
  private settings?: MirrorConfig;

  version(): string {
    return VERSION;
  }

  async start(props: Record<string, string>): Promise<void> {
    const config = new MirrorConfig(heartbeatSettings, props);
    this.settings = config;
    // As Kafka's connector: a topic that cannot be created is logged, not a failure (it may exist already).
    let target: Broker | undefined;
    try {
      target = await config.connectClient("target", ["admin"], "heartbeats-target-admin");
      await createSinglePartitionCompactedTopic(
        target,
        config.policy.heartbeatsTopic(),
        config.values.int("heartbeats.topic.replication.factor"),
      );
    } catch (err) {
      log.error({ err: (err as Error).message }, "could not create the heartbeats topic on the target cluster");
    } finally {
      await target?.close().catch(() => undefined);
    }
  }

  taskClass() {
    return MirrorHeartbeatTask;
  }

  taskConfigs(): Record<string, string>[] {
    const config = this.settings;
    if (!config || heartbeatIntervalMs(config) < 0) return [];
    return [{ ...config.props }];
  }

  stop(): void {}

  config(): SettingsDefinition {
    return heartbeatSettings;
  }

  /** Heartbeats go to the target cluster only: its address is what the connector needs. */
  override async validate(props: Record<string, string>): Promise<Map<string, string[]>> {
    return new Map(missingClusterAddresses(props, ["target"]).map(([name, message]) => [name, [message]]));
  }

  /** Offsets are checked as Kafka's connector checks them (null resets anything). */
  override alterOffsets(
    _config: Record<string, string>,
    offsets: Map<Record<string, unknown>, Record<string, unknown> | null>,
  ): boolean {
    for (const [partition, offset] of offsets) {
      if (offset === null || offset === undefined) continue;
      validateSourcePartitionString(partition, "sourceClusterAlias");
      validateSourcePartitionString(partition, "targetClusterAlias");
      validateZeroOffset(partition, offset);
    }
    return true;
  }
}

/** org.apache.kafka.connect.mirror.MirrorHeartbeatTask: one heartbeat per interval, to partition 0. */
export class MirrorHeartbeatTask extends SourceTask {
  static readonly className = "org.apache.kafka.connect.mirror.MirrorHeartbeatTask";
  private sourceClusterAlias = "";
  private targetClusterAlias = "";
  private topic = "";
  private intervalMs = 1000;
  private next = 0;
  private stopped = false;

  version(): string {
    return VERSION;
  }

  start(props: Record<string, string>): void {
    const config = new MirrorConfig(heartbeatSettings, props);
    this.sourceClusterAlias = config.sourceClusterAlias;
    this.targetClusterAlias = config.targetClusterAlias;
    this.topic = config.policy.heartbeatsTopic();
    this.intervalMs = Math.max(0, heartbeatIntervalMs(config));
    this.next = Date.now() + this.intervalMs; // Kafka's task waits one interval before the first
  }

  async poll(): Promise<SourceRecord[] | null> {
    await waitUnlessStopped(Math.min(this.next - Date.now(), 250), () => this.stopped);
    if (this.stopped || Date.now() < this.next) return null;
    this.next = Date.now() + this.intervalMs;
    const timestamp = Date.now();
    const heartbeat = {
      sourceClusterAlias: this.sourceClusterAlias,
      targetClusterAlias: this.targetClusterAlias,
      timestamp,
    };
    const { key, value } = encodeHeartbeat(heartbeat);
    return [
      sourceRecord({
        sourcePartition: {
          sourceClusterAlias: this.sourceClusterAlias,
          targetClusterAlias: this.targetClusterAlias,
        },
        sourceOffset: { offset: 0 },
        topic: this.topic,
        kafkaPartition: 0,
        keySchema: Schema.BYTES_SCHEMA,
        key,
        valueSchema: Schema.BYTES_SCHEMA,
        value,
        timestamp,
      }),
    ];
  }

  stop(): void {
    this.stopped = true;
  }
}
