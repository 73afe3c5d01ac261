// Producing and consuming Avro through @platformatic/kafka with Sluice's Confluent-compatible serde.
// Run: KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092 SCHEMA_REGISTRY_URL=http://127.0.0.1:8081 bun examples/serde-with-platformatic-kafka.ts
// (in your own app: import from "sluice/serde").
import { Consumer, MessagesStreamModes, Producer } from "@platformatic/kafka";
import { Deserializer, SchemaRegistryClient, Serializer } from "../src/serde/index.ts";

const bootstrapBrokers = (process.env.KAFKA_BOOTSTRAP_SERVERS ?? "127.0.0.1:9092").split(",");
const registry = new SchemaRegistryClient({
  "schema.registry.url": process.env.SCHEMA_REGISTRY_URL ?? "http://127.0.0.1:8081",
});
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

const producer = new Producer({ clientId: "example", bootstrapBrokers, autocreateTopics: true });
await producer.send({
  messages: [{ topic, value: Buffer.from(await serializer.serialize(topic, { id: "p-1", amount: 12.5 })) }],
});
await producer.close();

const consumer = new Consumer({ clientId: "example", groupId: `example-${Date.now()}`, bootstrapBrokers });
const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST });
for await (const message of stream) {
  const payment = await deserializer.deserialize(topic, message.value);
  console.log(JSON.stringify(payment));
  break;
}
await stream.close();
await consumer.close();
