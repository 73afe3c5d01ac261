// MirrorHeartbeatTask's records, as Kafka's task writes them: partition 0 of `heartbeats` (or the
// policy's name), the aliases as the source partition, offset 0, the record's key and value as bytes.
import { describe, expect, test } from "bun:test";
import { Schema } from "#src/connect/api/data/index.ts";
import { decodeHeartbeat, MirrorHeartbeatConnector, MirrorHeartbeatTask } from "#src/connectors/mirror/heartbeat.ts";

const props = {
  "source.cluster.alias": "east",
  "target.cluster.alias": "west",
  "emit.heartbeats.interval.seconds": "0",
};

describe("MirrorHeartbeatTask", () => {
  test("writes Kafka's heartbeat record, one per interval", async () => {
    const task = new MirrorHeartbeatTask();
    task.start(props);
    const before = Date.now();
    const [record, ...more] = (await task.poll()) ?? [];
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      topic: "heartbeats",
      kafkaPartition: 0,
      sourcePartition: { sourceClusterAlias: "east", targetClusterAlias: "west" },
      sourceOffset: { offset: 0 },
      keySchema: Schema.BYTES_SCHEMA,
      valueSchema: Schema.BYTES_SCHEMA,
    });
    const heartbeat = decodeHeartbeat(record!.key as Uint8Array, record!.value as Uint8Array);
    expect(heartbeat).toMatchObject({ sourceClusterAlias: "east", targetClusterAlias: "west" });
    expect(heartbeat.timestamp).toBeGreaterThanOrEqual(before);
    expect(record!.timestamp).toBe(heartbeat.timestamp);
    task.stop();
    expect(await task.poll()).toBeNull();
  });

  test("a heartbeat is not due before its interval", async () => {
    const task = new MirrorHeartbeatTask();
    task.start({ ...props, "emit.heartbeats.interval.seconds": "60" });
    expect(await task.poll()).toBeNull();
    task.stop();
  });

  test("the connector checks offsets set for it as Kafka's does", () => {
    const connector = new MirrorHeartbeatConnector();
    const ok = new Map([[{ sourceClusterAlias: "east", targetClusterAlias: "west" }, { offset: 0 }]]);
    expect(connector.alterOffsets({}, ok)).toBe(true);
    const missing = new Map([[{ sourceClusterAlias: "east" }, { offset: 0 }]]);
    expect(() => connector.alterOffsets({}, missing)).toThrow("missing the 'targetClusterAlias' key");
    const tombstone = new Map([[{}, null]]);
    expect(connector.alterOffsets({}, tombstone)).toBe(true);
  });
});
