// MirrorMaker 2's heartbeats (Kafka's MirrorHeartbeatConnector, KIP-382): one task writes a record to the
// target's `heartbeats` topic every emit.heartbeats.interval.seconds, so that the topic, replicated on
// further, shows which clusters reach which (Kafka's MirrorClient reads them to list upstream clusters).
// The record is Kafka's Heartbeat byte for byte: the key the source and target aliases, the value a
// version (0) then the timestamp, in Kafka's protocol Struct layout (protocol-struct.ts).
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
