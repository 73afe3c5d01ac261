#!/usr/bin/env bun
// sluice: one binary, several services. Settings come from a .properties file, then environment
// variables (Confluent image style), then command-line flags — later ones win.
import { readFileSync } from "node:fs";
import pkg from "../package.json" with { type: "json" };
import { setLogLevel, logger, type LogLevel } from "./common/log.ts";
import { parseProperties, propertiesFromEnv } from "./common/properties.ts";
import { ConfigError, settingsReference, type SettingsDefinition } from "./common/settings.ts";
import { registrySettingsDefinition } from "./registry/settings.ts";
import { startRegistry } from "./registry/server.ts";

const HELP = `sluice ${pkg.version} — Confluent-compatible schema registry and Kafka Connect-compatible runtime

Usage:
  sluice registry [schema-registry.properties] [flags]   run the schema registry (default port 8081)
  sluice dev [flags]                                     everything on the embedded broker in ./data
  sluice --help | --version

Flags:
  --listeners <urls>            e.g. http://0.0.0.0:8081
  --bootstrap-servers <hosts>   Kafka bootstrap servers; without them the embedded broker is used
  --data-dir <dir>              directory of the embedded broker (default ./data)
  --<setting>=<value>           any setting by name, e.g. --kafkastore.topic=_schemas

Environment: SCHEMA_REGISTRY_<SETTING> (e.g. SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS) sets
<setting> (lower-cased, _ → .), as the Confluent image does.
`;

const FLAG_ALIASES: Record<string, string> = {
  listeners: "listeners",
  "bootstrap-servers": "kafkastore.bootstrap.servers",
  "data-dir": "data.dir",
};

export function parseArgs(args: string[]): { files: string[]; flags: Record<string, string> } {
  const files: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      files.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new ConfigError(name, "", "a value is required");
    flags[FLAG_ALIASES[name] ?? name] = value;
  }
  return { files, flags };
}

function loadSettings(definition: SettingsDefinition, files: string[], envPrefix: string, flags: Record<string, string>) {
  const fromFiles = files.map((f) => parseProperties(readFileSync(f, "utf8")));
  const { values, warnings } = definition.parse(...fromFiles, propertiesFromEnv(envPrefix, process.env), flags);
  for (const w of warnings) logger("config").warn(w);
  return values;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return command ? 0 : 1;
  }
  if (command === "--version" || command === "-v") {
    console.log(pkg.version);
    return 0;
  }
  if (command === "config-docs") {
    // Generates the README's configuration reference from the setting declarations.
    console.log(settingsReference(registrySettingsDefinition));
    return 0;
  }
  if (command !== "registry" && command !== "dev") {
    console.error(`Unknown command ${command}\n\n${HELP}`);
    return 2;
  }
  const { files, flags } = parseArgs(rest);
  if (command === "dev") delete flags["kafkastore.bootstrap.servers"];
  const settings = loadSettings(registrySettingsDefinition, files, "SCHEMA_REGISTRY_", flags);
  setLogLevel((settings.boolean("debug") ? "debug" : settings.string("log.level")) as LogLevel);
  const registry = await startRegistry(settings);
  console.log(`Schema registry listening on ${registry.urls.join(", ")} (${registry.broker.kind} broker)`);
  const shutdown = async () => {
    await registry.stop();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  return -1; // keep running
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err: unknown) => {
      if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}`);
      else console.error(`sluice failed to start: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
