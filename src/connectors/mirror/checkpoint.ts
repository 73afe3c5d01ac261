// MirrorMaker 2's checkpoints (Kafka's Checkpoint, in `<source alias>.checkpoints.internal` on the
// target): a consumer group's committed offset on the source, and where the same position is on the
// target, so consumers can fail over (Kafka's RemoteClusterUtils.translateOffsets reads these records).
// Byte for byte as Kafka writes them, in its protocol Struct layout (protocol-struct.ts): the key the
// group, the target's topic and the partition; the value a version (0), the upstream offset, the
// downstream offset and the commit's metadata.
import { StructReader, writeStruct } from "./protocol-struct.ts";

export interface Checkpoint {
  group: string;
  /** The topic as named on the target (renamed by the replication policy). */
  topic: string;
  partition: number;
  /** The group's committed offset on the source. */
  upstreamOffset: number;
  /** The same position on the target. */
  downstreamOffset: number;
  /** The source commit's metadata ("" when it had none, as Kafka's OffsetAndMetadata). */
  metadata: string;
}

/** The only version Kafka 4.1 writes. */
export const CHECKPOINT_VERSION = 0;

export function encodeCheckpoint(checkpoint: Checkpoint): { key: Uint8Array; value: Uint8Array } {
  return {
    key: writeStruct([
      ["string", checkpoint.group],
      ["string", checkpoint.topic],
      ["int32", checkpoint.partition],
    ]),
    value: writeStruct([
      ["int16", CHECKPOINT_VERSION],
      ["int64", checkpoint.upstreamOffset],
      ["int64", checkpoint.downstreamOffset],
      ["string", checkpoint.metadata],
    ]),
  };
}

/**
 * A record of a checkpoints topic; throws StructFormatError on bytes Kafka's reader refuses. The version
 * is read past, as Kafka's reader does (it only asserts it).
 */
export function decodeCheckpoint(key: Uint8Array | null, value: Uint8Array | null): Checkpoint {
  const v = new StructReader(value ?? new Uint8Array(0), "checkpoint value");
  v.int16("version");
  const upstreamOffset = v.int64("upstreamOffset");
  const downstreamOffset = v.int64("offset");
  const metadata = v.string("metadata");
  const k = new StructReader(key ?? new Uint8Array(0), "checkpoint key");
  const group = k.string("group");
  const topic = k.string("topic");
  const partition = k.int32("partition");
  return { group, topic, partition, upstreamOffset, downstreamOffset, metadata };
}
