import { expect, test } from "bun:test";
import { flowLag, gaugeSamples, mirrorFlows } from "#src/console/mirror-flows.ts";
import { parsePrometheus } from "#src/console/prometheus.ts";

const M = "org.apache.kafka.connect.mirror.";
const mm2 = (kind: string, source: string, target: string) => ({
  "connector.class": `${M}Mirror${kind}Connector`,
  "source.cluster.alias": source,
  "target.cluster.alias": target,
});

const metrics = parsePrometheus(`
# HELP sluice_mirror_source_end_offset The source partition's end offset.
sluice_mirror_source_end_offset{source="east",target="west",source_topic="orders",topic="east.orders",partition="0"} 120
sluice_mirror_source_replicated_offset{source="east",target="west",source_topic="orders",topic="east.orders",partition="0"} 100
sluice_mirror_source_end_offset{source="east",target="west",source_topic="orders",topic="east.orders",partition="1"} 50
sluice_mirror_source_replicated_offset{source="east",target="west",source_topic="orders",topic="east.orders",partition="1"} 52
sluice_mirror_source_end_offset{source="east",target="west",source_topic="users",topic="east.users",partition="0"} NaN
sluice_mirror_source_replicated_offset{source="east",target="west",source_topic="users",topic="east.users",partition="0"} 3
sluice_mirror_source_end_offset{source="east",target="west",source_topic="users",topic="east.users",partition="1"} 9
sluice_mirror_source_replicated_offset{source="east",target="west",source_topic="users",topic="east.users",partition="1"} 4
sluice_mirror_checkpoint_last_ms{source="east",target="west",group="billing"} 1700000000000
sluice_mirror_checkpoint_last_ms{source="east",target="west",group="audit"} 1700000005000
sluice_mirror_checkpoint_last_ms{source="east",target="west",group="never"} NaN
sluice_mirror_source_end_offset{source="west",target="east",source_topic="t",topic="west.t",partition="0"} 7
sluice_connect_source_records_polled_total{connector="other",task="0"} 5
`);

test("MM2 connectors grouped by source → target with per-topic lag and the groups' last checkpoints", () => {
  const flows = mirrorFlows(
    {
      "east-source": { config: mm2("Source", "east", "west"), state: "RUNNING", tasks: ["RUNNING", "FAILED"] },
      "east-checkpoints": { config: mm2("Checkpoint", "east", "west"), state: "RUNNING", tasks: ["RUNNING"] },
      "east-heartbeats": { config: mm2("Heartbeat", "east", "west"), state: "PAUSED" },
      files: { config: { "connector.class": "FileStreamSource" }, state: "RUNNING" },
      "no-info-yet": { state: "RUNNING" },
    },
    metrics,
  );
  expect(flows.map((f) => `${f.source}->${f.target}`)).toEqual(["east->west", "west->east"]);
  const [east, west] = flows as [(typeof flows)[0], (typeof flows)[0]];
  expect(east.connectors).toEqual([
    { name: "east-checkpoints", role: "checkpoint", state: "RUNNING", tasks: ["RUNNING"] },
    { name: "east-heartbeats", role: "heartbeat", state: "PAUSED", tasks: [] },
    { name: "east-source", role: "source", state: "RUNNING", tasks: ["RUNNING", "FAILED"] },
  ]);
  // Partition 1's end was read before its last copies were acknowledged: caught up, not -2.
  expect(east.topics).toEqual([
    { topic: "east.orders", sourceTopic: "orders", partitions: 2, replicated: 152, end: 170, lag: 20, unknown: 0 },
    // Partition 0's end not read yet: left out of the lag and counted as unknown.
    { topic: "east.users", sourceTopic: "users", partitions: 2, replicated: 4, end: 9, lag: 5, unknown: 1 },
  ]);
  expect(flowLag(east)).toBe(25);
  expect(east.checkpoints).toEqual([
    { group: "audit", at: 1700000005000 },
    { group: "billing", at: 1700000000000 },
  ]);
  // A flow seen only in the metrics (its connector on another worker's list or gone): its figures, no connectors.
  expect(west.connectors).toEqual([]);
  expect(west.topics).toEqual([
    { topic: "west.t", sourceTopic: "t", partitions: 1, replicated: 0, end: 0, lag: 0, unknown: 1 },
  ]);
});

test("Kafka's default aliases when a connector names none; nothing without MM2 connectors", () => {
  const flows = mirrorFlows({ m: { config: { "connector.class": `${M}MirrorSourceConnector` } } }, []);
  expect(flows).toEqual([
    {
      source: "source",
      target: "target",
      connectors: [{ name: "m", role: "source", state: "UNKNOWN", tasks: [] }],
      topics: [],
      checkpoints: [],
    },
  ]);
  expect(mirrorFlows({ f: { config: { "connector.class": "FileStreamSource" } } }, [])).toEqual([]);
});

test("/sluice/metrics?gauges= answers read as samples, a gauge not read yet as NaN; none without gauges", () => {
  const samples = gaugeSamples({
    time: 1,
    tasks: [],
    gauges: [
      { name: "sluice_mirror_source_end_offset", labels: { source: "a", partition: "0" }, value: 12, worker: "w1" },
      { name: "sluice_mirror_source_end_offset", labels: { source: "a", partition: "1" }, value: null, worker: "w2" },
      { name: 3, labels: {}, value: 1 },
    ],
    unreachable: [],
  });
  expect(samples?.map((s) => [s.name, s.labels.partition, s.value])).toEqual([
    ["sluice_mirror_source_end_offset", "0", 12],
    ["sluice_mirror_source_end_offset", "1", Number.NaN],
  ]);
  expect(gaugeSamples({ time: 1, tasks: [], unreachable: [] })).toBeUndefined();
  expect(gaugeSamples(undefined)).toBeUndefined();
});
