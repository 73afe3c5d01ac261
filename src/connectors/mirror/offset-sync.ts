// The records of MM2's offset-syncs topic (`mm2-offset-syncs.<alias>.internal`), byte for byte as Kafka's
// OffsetSync writes them with its protocol schemas (no version prefix): the key is the upstream topic
// (int16 length + UTF-8) and partition (int32), the value the upstream and downstream offsets (int64
// each), all big-endian. MirrorCheckpointConnector reads them to translate consumer offsets.

export interface OffsetSync {
  topic: string;
  partition: number;
  /** The offset of a record on the source cluster… */
  upstreamOffset: number;
  /** …and the offset of its copy on the target (offsets are numbers, as the broker's). */
  downstreamOffset: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

export class OffsetSyncFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OffsetSyncFormatError";
  }
}

export function encodeOffsetSyncKey(topic: string, partition: number): Uint8Array {
  const name = encoder.encode(topic);
  if (name.length > 0x7fff) throw new OffsetSyncFormatError(`topic name of ${name.length} bytes is longer than 32767`);
  const out = new Uint8Array(2 + name.length + 4);
  const view = new DataView(out.buffer);
  view.setInt16(0, name.length);
  out.set(name, 2);
  view.setInt32(2 + name.length, partition);
  return out;
}

export function encodeOffsetSyncValue(upstreamOffset: number, downstreamOffset: number): Uint8Array {
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  view.setBigInt64(0, BigInt(upstreamOffset));
  view.setBigInt64(8, BigInt(downstreamOffset));
  return out;
}

export function encodeOffsetSync(sync: OffsetSync): { key: Uint8Array; value: Uint8Array } {
  return {
    key: encodeOffsetSyncKey(sync.topic, sync.partition),
    value: encodeOffsetSyncValue(sync.upstreamOffset, sync.downstreamOffset),
  };
}

/** A record of the offset-syncs topic; throws OffsetSyncFormatError on bytes Kafka's reader would refuse. */
export function decodeOffsetSync(key: Uint8Array | null, value: Uint8Array | null): OffsetSync {
  if (!key || !value) throw new OffsetSyncFormatError("an offset sync needs a key and a value");
  const keyView = new DataView(key.buffer, key.byteOffset, key.byteLength);
  if (key.length < 2) throw new OffsetSyncFormatError("key too short for the topic's length");
  const length = keyView.getInt16(0);
  if (length < 0) throw new OffsetSyncFormatError("the topic is null");
  if (key.length < 2 + length + 4) throw new OffsetSyncFormatError("key too short for its topic and partition");
  const topic = decoder.decode(key.subarray(2, 2 + length));
  const partition = keyView.getInt32(2 + length);
  if (value.length < 16) throw new OffsetSyncFormatError("value too short for two offsets");
  const valueView = new DataView(value.buffer, value.byteOffset, value.byteLength);
  return {
    topic,
    partition,
    upstreamOffset: Number(valueView.getBigInt64(0)),
    downstreamOffset: Number(valueView.getBigInt64(8)),
  };
}
