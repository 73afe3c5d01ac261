// Kafka broker: the Broker on a real Kafka cluster. This folder is the only importer of the Kafka client.
export { KafkaBroker, type KafkaBrokerOptions } from "./kafka-broker.ts";
