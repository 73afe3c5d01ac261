// Kafka's unsecured OAUTHBEARER login (no sasl.login.callback.handler.class: unsigned JWTs with the
// claims of the JAAS options), against a broker that takes them (Kafka's default unsecured validator),
// as development setups use it; SASL extensions (extension options) go along.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { clientSecurity } from "#src/broker/client-security.ts";
import { KafkaBroker } from "#src/broker/kafka/index.ts";
import { startKafka, type KafkaCluster } from "../../fixtures/kafka.ts";

let kafka: KafkaCluster;

beforeAll(async () => {
  kafka = await startKafka({ oauth: {} });
  if (!kafka.owned) throw new Error("this test needs the fixture's own OAuth broker, not KAFKA_BOOTSTRAP_SERVERS");
}, 120_000);
afterAll(() => kafka?.stop(), 60_000);

test("a client with unsigned tokens writes and reads", async () => {
  const security = clientSecurity({
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanism": "OAUTHBEARER",
    "sasl.jaas.config":
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="alice" unsecuredLoginListClaim_scope=" kafka" unsecuredLoginExtension_traceId="t1";',
  });
  const broker = new KafkaBroker({ bootstrapServers: [kafka.bootstrap], security });
  await broker.connect();
  try {
    await broker.createTopic({ name: "unsecured", partitions: 1, replicationFactor: 1 });
    await broker.produce("unsecured", [{ key: null, value: new TextEncoder().encode("hello") }]);
    const [record] = await broker.fetch("unsecured", 0, 0);
    expect(new TextDecoder().decode(record!.value!)).toBe("hello");
  } finally {
    await broker.close();
  }
}, 60_000);
