// Child process for the embedded broker's crash test: produces forever (several produce calls in flight,
// so fsyncs are shared) and prints one line per acknowledged record, `ack <partition> <offset> <seq>`,
// until the parent kills it with SIGKILL. Values are derived from seq so the parent can check them.
import { EmbeddedBroker } from "#src/broker/embedded/index.ts";

export function crashValue(seq: number): Uint8Array {
  // 40..~4000 bytes, so kill -9 lands in the middle of multi-frame writes as often as not.
  return new TextEncoder().encode(`value-${seq}-`.repeat(1 + (seq % 300)));
}

export function crashKey(seq: number): Uint8Array {
  return new TextEncoder().encode(`key-${seq % 17}`);
}

export const CRASH_TOPIC = "crash";

if (import.meta.main) {
  const dataDir = process.argv[2];
  const broker = new EmbeddedBroker({ dataDir });
  await broker.connect();
  await broker.createTopic({ name: CRASH_TOPIC, partitions: 2, replicationFactor: 1 });
  process.stdout.write("ready\n");
  let seq = 0;
  const producer = async (): Promise<never> => {
    for (;;) {
      const batch = Array.from({ length: 1 + (seq % 3) }, () => seq++);
      const positions = await broker.produce(
        CRASH_TOPIC,
        batch.map((s) => ({
          key: crashKey(s),
          value: crashValue(s),
          headers: [{ key: "seq", value: new TextEncoder().encode(String(s)) }],
        })),
      );
      process.stdout.write(positions.map((p, i) => `ack ${p.partition} ${p.offset} ${batch[i]}\n`).join(""));
    }
  };
  await Promise.all(Array.from({ length: 8 }, producer));
}
