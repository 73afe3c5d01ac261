// Shared plumbing of the interop tests: a registry on the shared Kafka, Sluice's serde producing to
// and consuming from real topics.
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { SchemaRegistryClient } from "#src/serde/index.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { registryPlace, startTestRegistry, type TestRegistry } from "../fixtures/registry.ts";
import { waitFor } from "../fixtures/wait.ts";

export interface InteropWorld {
  bootstrap: string;
  sr: TestRegistry;
  broker: KafkaBroker;
  client: () => SchemaRegistryClient;
  stop(): Promise<void>;
}

export async function interopWorld(): Promise<InteropWorld> {
  const bootstrap = (await sharedKafka()).bootstrap;
  const sr = await startTestRegistry(await registryPlace("kafka"));
  const broker = new KafkaBroker({ bootstrapServers: [bootstrap] });
  await broker.connect();
  return {
    bootstrap,
    sr,
    broker,
    // A fresh client each time: nothing cached from an earlier step.
    client: () => new SchemaRegistryClient({ "schema.registry.url": sr.url }),
    async stop() {
      await broker.close();
      await sr.stop();
    },
  };
}

export async function produce(world: InteropWorld, topic: string, values: Uint8Array[]): Promise<void> {
  await world.broker.createTopic({ name: topic, partitions: 1, replicationFactor: 1 });
  await world.broker.produce(
    topic,
    values.map((value) => ({ key: null, value, partition: 0 })),
  );
}

export async function consumeAll(world: InteropWorld, topic: string, count: number): Promise<Uint8Array[]> {
  return waitFor(`${count} records in ${topic}`, async () => {
    const records = await world.broker.fetch(topic, 0, 0, { maxWaitMs: 500 });
    return records.length >= count ? records.map((r) => r.value!) : undefined;
  });
}

export function schemaId(bytes: Uint8Array): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getInt32(1, false);
}
