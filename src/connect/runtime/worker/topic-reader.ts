// A task's own Kafka client for one topic partition (SourceTaskContext.openTopicReader): Debezium's
// signal topic, read from signal.kafka.bootstrap.servers with the signal consumer's security settings.
// It never joins the group: offsets are read and committed as a Java consumer with assign() does.
import type { TopicReader, TopicReaderOptions } from "../../api/connector.ts";
import { clientSecurity, connectorLoginRefusal } from "../../../broker/client-security.ts";
import { KafkaBroker } from "../../../broker/kafka/index.ts";
import { ConfigError } from "../../../platform/settings.ts";

export function openTopicReader(options: TopicReaderOptions): TopicReader {
  const { topic, partition, groupId } = options;
  for (const [name, value] of Object.entries(options.security)) {
    const refused = connectorLoginRefusal(name, value);
    if (refused) throw new ConfigError(name, value, refused);
  }
  const servers = options.bootstrapServers.map((s) => s.replace(/^[A-Z_]+:\/\//i, "")).filter(Boolean);
  if (servers.length === 0) throw new ConfigError("bootstrap.servers", "", "the Kafka cluster's host:port list");
  const broker = new KafkaBroker({
    bootstrapServers: servers,
    clientId: options.clientId,
    security: clientSecurity({ ...options.security }),
  });
  let connected: Promise<void> | null = null;
  const ready = () => {
    connected ??= broker.connect().catch((err: unknown) => {
      connected = null; // tried again at the next call
      throw err;
    });
    return connected;
  };
  return {
    async fetch(offset, maxWaitMs) {
      await ready();
      return broker.fetch(topic, partition, offset, { maxWaitMs });
    },
    async committedOffset() {
      await ready();
      return (await broker.committedOffsets(groupId, topic)).get(partition);
    },
    async earliestOffset() {
      await ready();
      return (await broker.startOffsets(topic))[partition] ?? 0;
    },
    async commit(offset) {
      await ready();
      await broker.commitOffsets(groupId, topic, [{ partition, offset }]);
    },
    close: () => broker.close(),
  };
}
