// Producing and consuming Avro through kafkajs with Sluice's Confluent-compatible serde.
// Run: KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092 SCHEMA_REGISTRY_URL=http://127.0.0.1:8081 bun examples/serde-with-kafkajs.ts
// (in your own app: import from "sluice/serde").
import { Kafka, logLevel } from "kafkajs";
import { Deserializer, SchemaRegistryClient, Serializer } from "../src/serde/index.ts";

const brokers = (process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:9092").split(",");
const registry = new SchemaRegistryClient({ "schema.registry.url": process.env.SCHEMA_REGISTRY_URL ?? "http://127.0.0.1:8081" });
const topic = process.env.TOPIC ?? "payments";

const schema = {
  type: "record",
  name: "Payment",
  namespace: "example",
  fields: [
    { name: "id", type: "string" },
    { name: "amount", type: "double" },
  ],
};
// Registers the schema under "payments-value" on first use; the id is cached, never hard-coded.
const serializer = new Serializer(registry, { schema });
const deserializer = new Deserializer(registry);

const kafka = new Kafka({ brokers, logLevel: logLevel.ERROR });
const producer = kafka.producer();
await producer.connect();
await producer.send({
  topic,
  messages: [{ value: Buffer.from(await serializer.serialize(topic, { id: "p-1", amount: 12.5 })) }],
});
await producer.disconnect();

const consumer = kafka.consumer({ groupId: `example-${Date.now()}` });
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await new Promise<void>((done) => {
  void consumer.run({
    eachMessage: async ({ message }) => {
      const payment = await deserializer.deserialize(topic, message.value);
      console.log(JSON.stringify(payment));
      done();
    },
  });
});
await consumer.disconnect();
