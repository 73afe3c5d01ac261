// The plugins built into the binary, registered at start under their real class names and aliases.
import { FileStreamSinkConnector } from "./connectors/file/sink.ts";
import { FileStreamSourceConnector } from "./connectors/file/source.ts";
import { JdbcSinkConnector } from "./connectors/jdbc-sink/connector.ts";
import { MirrorCheckpointConnector } from "./connectors/mirror/checkpoint-connector.ts";
import { MirrorHeartbeatConnector } from "./connectors/mirror/heartbeat.ts";
import { MirrorSourceConnector } from "./connectors/mirror/source-connector.ts";
import { PostgresConnector } from "./connectors/postgres-cdc/connector.ts";
import { ElasticsearchSinkConnector } from "./connectors/search-sink/sink.ts";
import { VERSION } from "./platform/version.ts";
import { BUILTIN_CONVERTERS } from "./connect/converters/index.ts";
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from "./connect/transforms/registry.ts";
import { PluginRegistry } from "./connect/runtime/plugins/registry.ts";
import { basename } from "node:path";
import type { ParsedSettings } from "./platform/settings.ts";

// Listed under their real classes; the spec's placeholders and short names resolve through the chain.
const LISTED = /^(org\.apache\.kafka|io\.debezium|io\.confluent)\./;

/**
 * The FileStream connectors read and write any file the worker can, for whoever may call its REST API,
 * so they are off unless asked for (KAFKA-13748 took them off Kafka's default plugin path): as in
 * Kafka's quickstart, a plugin.path entry named connect-file… (libs/connect-file-4.1.1.jar), or
 * file.connectors.enable=true (the default of `sluice dev`).
 */
export function fileConnectorsEnabled(settings: ParsedSettings): boolean {
  return (
    settings.boolean("file.connectors.enable") ||
    settings.list("plugin.path").some((entry) => basename(entry).startsWith("connect-file"))
  );
}

/** The built-ins a worker with these settings offers. */
export function catalog(settings: ParsedSettings): PluginRegistry {
  return builtinPlugins({ fileConnectors: fileConnectorsEnabled(settings) });
}

export function builtinPlugins(options: { fileConnectors: boolean }): PluginRegistry {
  const registry = new PluginRegistry();
  if (options.fileConnectors) {
    registry.add({
      className: FileStreamSourceConnector.className,
      type: "source",
      version: VERSION,
      create: () => new FileStreamSourceConnector(),
    });
    registry.add({
      className: FileStreamSinkConnector.className,
      type: "sink",
      version: VERSION,
      create: () => new FileStreamSinkConnector(),
    });
  }
  registry.add({
    className: JdbcSinkConnector.className,
    type: "sink",
    version: VERSION,
    create: () => new JdbcSinkConnector(),
  });
  registry.add({
    className: PostgresConnector.className,
    type: "source",
    version: VERSION,
    aliases: ["PostgresCdc"],
    create: () => new PostgresConnector(),
  });
  registry.add({
    className: MirrorSourceConnector.className,
    type: "source",
    version: VERSION,
    create: () => new MirrorSourceConnector(),
  });
  registry.add({
    className: ElasticsearchSinkConnector.className,
    type: "sink",
    version: VERSION,
    aliases: ElasticsearchSinkConnector.aliases,
    create: () => new ElasticsearchSinkConnector(),
  });
  registry.add({
    className: MirrorHeartbeatConnector.className,
    type: "source",
    version: VERSION,
    create: () => new MirrorHeartbeatConnector(),
  });
  registry.add({
    className: MirrorCheckpointConnector.className,
    type: "source",
    version: VERSION,
    create: () => new MirrorCheckpointConnector(),
  });
  for (const [className, create] of Object.entries(BUILTIN_CONVERTERS)) {
    registry.add({ className, type: "converter", version: VERSION, create });
  }
  for (const [className, create] of Object.entries(BUILTIN_TRANSFORMS)) {
    if (LISTED.test(className)) registry.add({ className, type: "transformation", version: VERSION, create });
  }
  for (const [className, create] of Object.entries(BUILTIN_PREDICATES)) {
    if (LISTED.test(className)) registry.add({ className, type: "predicate", version: VERSION, create });
  }
  return registry;
}
