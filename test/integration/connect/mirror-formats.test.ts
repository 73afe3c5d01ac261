// MM2's heartbeat and checkpoint records and its offset translation, compared with Kafka 4.1.1's own
// classes (test/fixtures/java/MirrorFormatsProbe.java): random records must give the same bytes and be
// read back by Kafka's readers; random offset-sync sequences must translate as Kafka's OffsetSyncStore does.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodeCheckpoint, encodeCheckpoint, type Checkpoint } from "#src/connectors/mirror/checkpoint.ts";
import { encodeHeartbeat } from "#src/connectors/mirror/heartbeat.ts";
import { OffsetSyncStore } from "#src/connectors/mirror/offset-sync-store.ts";
import { runMirrorFormatsProbe } from "../../fixtures/mirror-formats-probe.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
// Names without the probe's separators (tab, newline); any other UTF-16, astral characters included.
const name = fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => s.replace(/[\t\n\r]/g, "_"));
const offset = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });

describe("MM2 records, as Kafka's Heartbeat and Checkpoint write and read them", () => {
  test("random heartbeats and checkpoints: the same bytes, read back by Kafka's readers", () => {
    const heartbeats = fc.sample(fc.record({ sourceClusterAlias: name, targetClusterAlias: name, timestamp: offset }), {
      numRuns: 200,
      seed: 26,
    });
    const checkpoints: Checkpoint[] = fc.sample(
      fc.record({
        group: name,
        topic: name,
        partition: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        upstreamOffset: offset,
        downstreamOffset: offset,
        metadata: name,
      }),
      { numRuns: 200, seed: 27 },
    );
    const commands = [
      ...heartbeats.map((h) => ["heartbeat", h.sourceClusterAlias, h.targetClusterAlias, String(h.timestamp)]),
      ...checkpoints.map((c) => [
        "checkpoint",
        c.group,
        c.topic,
        String(c.partition),
        String(c.upstreamOffset),
        String(c.downstreamOffset),
        c.metadata,
      ]),
      ...heartbeats.map((h) => {
        const { key, value } = encodeHeartbeat(h);
        return ["read-heartbeat", hex(key), hex(value)];
      }),
      ...checkpoints.map((c) => {
        const { key, value } = encodeCheckpoint(c);
        return ["read-checkpoint", hex(key), hex(value)];
      }),
    ];
    const answers = runMirrorFormatsProbe(commands);
    const ours = [
      ...heartbeats.map((h) => Object.values(encodeHeartbeat(h)).map(hex).join("\t")),
      ...checkpoints.map((c) => Object.values(encodeCheckpoint(c)).map(hex).join("\t")),
      ...heartbeats.map((h) => [h.sourceClusterAlias, h.targetClusterAlias, h.timestamp].join("\t")),
      ...checkpoints.map((c) =>
        [c.group, c.topic, c.partition, c.upstreamOffset, c.downstreamOffset, c.metadata].join("\t"),
      ),
    ];
    expect(answers).toEqual(ours);
    // And Kafka's bytes read back by ours.
    for (const [i, c] of checkpoints.entries()) {
      const [key, value] = answers[heartbeats.length + i]!.split("\t");
      expect(decodeCheckpoint(Buffer.from(key!, "hex"), Buffer.from(value!, "hex"))).toEqual(c);
    }
  });
});

describe("offset translation, as Kafka's OffsetSyncStore translates", () => {
  test("random sync sequences (steady, jumpy, with rewinds; initial reads keeping all or only the newest)", () => {
    const scenario = fc.record({
      mustReadToEnd: fc.boolean(),
      initial: fc.integer({ min: 0, max: 40 }),
      steps: fc.array(
        fc.record({
          gap: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 5000 })),
          rewind: fc.boolean(),
        }),
        { minLength: 1, maxLength: 400 },
      ),
      partition: fc.integer({ min: 0, max: 1 }),
    });
    const scenarios = fc.sample(scenario, { numRuns: 60, seed: 618 });
    const commands: string[][] = [];
    const ours: string[] = [];
    for (const s of scenarios) {
      const store = new OffsetSyncStore();
      store.starting(s.mustReadToEnd);
      commands.push(["store", String(s.mustReadToEnd)]);
      let up = 0;
      let down = 1000;
      const seen: number[] = [];
      for (const [i, step] of s.steps.entries()) {
        if (i === s.initial) {
          store.markReadToEnd();
          commands.push(["start"]);
        }
        // A rewind now and then (1 in 20 steps): a recreated or truncated topic upstream.
        up = step.rewind && i % 20 === 19 ? Math.floor(up / 3) : up + step.gap;
        down += step.gap;
        seen.push(up);
        store.add("t", s.partition, { upstreamOffset: up, downstreamOffset: down });
        commands.push(["sync", "t", String(s.partition), String(up), String(down)]);
        if (i % 7 === 0 || i === s.steps.length - 1) {
          for (const q of [up, up + 1, up - 1, ...seen.slice(-50).filter((_, k) => k % 9 === 0), 0]) {
            if (q < 0) continue;
            commands.push(["translate", "t", String(s.partition), String(q)]);
            ours.push(String(store.translateDownstream("t", s.partition, q) ?? "none"));
          }
          commands.push(["translate", "t", String(1 - s.partition), String(up)]);
          ours.push(String(store.translateDownstream("t", 1 - s.partition, up) ?? "none"));
        }
      }
    }
    expect(runMirrorFormatsProbe(commands)).toEqual(ours);
  });
});
