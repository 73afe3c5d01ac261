#!/usr/bin/env bun
// sluice: one binary, several services. Settings come from .properties files, then environment
// variables (Confluent image style), then command-line flags — later ones win.
import "./platform/heap-sizing.ts"; // first: a service restarts itself there before anything else is evaluated
import { readFileSync } from "node:fs";
import { clientSecurity } from "./broker/client-security.ts";
import { repairPartitionLog } from "./broker/embedded/index.ts";
import { createBroker } from "./broker/index.ts";
import { applyLogSettings, logProcessWarnings, logger, setLogLevel } from "./platform/log.ts";
import { parseProperties, propertiesFromEnv } from "./platform/properties.ts";
import { resolve } from "node:path";
import {
  ConfigError,
  noEffectWarning,
  settingsReference,
  unknownSettingWarning,
  UnsupportedSettingsError,
  type ParsedSettings,
  type SettingsDefinition,
} from "./platform/settings.ts";
import { catalog } from "./catalog.ts";
import { unsupportedSettingsDoc } from "./unsupported-settings-doc.ts";

// Beside this file, in the source tree and in the binary (build.ts bundles it as an entry of its own).
const TASK_THREAD = new URL("./task-thread.ts", import.meta.url).href;
import { DEV_CONNECT_DEFAULTS, DEV_REGISTRY_DEFAULTS, startConnectDev } from "./connect/runtime/dev.ts";
import { startConnectDistributed, startConnectStandalone, type RunningConnect } from "./connect/runtime/server.ts";
import { workerSettings } from "./connect/runtime/worker/worker-config.ts";
import { BUILTIN_CONVERTERS } from "./connect/converters/index.ts";
import { registrySettingsDefinition } from "./registry/settings.ts";
import { builtInExtensionsNamed, DEK_REGISTRY_EXTENSION } from "./registry/unsupported-settings.ts";
import { startRegistry, type RunningRegistry } from "./registry/server.ts";
import { nearest } from "./platform/edit-distance.ts";
import { isLoopback } from "./platform/listeners.ts";
import { announce, announced, type Service } from "./announced-services.ts";
import { hashPassword } from "./hash-password.ts";
import { COMMANDS, commandHelp, HELP, UsageError, usageLine } from "./usage.ts";
import { COMMIT, VERSION } from "./platform/version.ts";

interface Args {
  positional: string[];
  flags: Record<string, string>;
}

export function parseArgs(args: string[]): Args {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new ConfigError(name, "", "a value is required");
    flags[name] = value;
  }
  return { positional, flags };
}

/** Flags by their short names → the settings they stand for, for one service. */
function settingsFlags(
  flags: Record<string, string>,
  aliases: Record<string, string>,
  ignore: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(flags)) {
    if (ignore.includes(name)) continue;
    out[aliases[name] ?? name] = value;
  }
  return out;
}

interface Loaded {
  definition: SettingsDefinition;
  values: ParsedSettings;
  raw: Record<string, string>;
  unknown: string[];
}

/** Settings from, later ones winning: the command's defaults, files, the environment, flags. */
function load(
  definition: SettingsDefinition,
  files: string[],
  envPrefix: string,
  flags: Record<string, string>,
  defaults: Record<string, string> = {},
): Loaded {
  const raw: Record<string, string> = Object.assign(
    { ...defaults },
    ...files.map((f) => parseProperties(readFileSync(f, "utf8"))),
    propertiesFromEnv(envPrefix, process.env),
    flags,
  );
  return { definition, raw, ...definition.parse(raw) };
}

/**
 * Refuses to start with a setting of the original (Kafka's, Confluent's) that Sluice does not
 * implement and that would change security or delivery, naming each; warns once about each one that
 * has no effect in Sluice, and about each setting that none of the services a command runs takes (dev
 * hands every flag to both), naming the known setting it most likely misspells.
 */
function checkSettings(...services: Loaded[]): void {
  const uses = services.flatMap((s) => [
    s.definition.unsupportedIn(s.raw),
    ...(s.definition === workerSettings ? workerConverterUses(s) : []),
  ]);
  const refused = uses.flatMap((u) => u.refused);
  if (refused.length > 0) throw new UnsupportedSettingsError(refused);
  for (const use of uses.flatMap((u) => u.ignored)) logger("config").warn(noEffectWarning(use));
  const extensions = services.flatMap((s) =>
    s.definition === registrySettingsDefinition ? builtInExtensionsNamed(s.raw) : [],
  );
  for (const extension of new Set(extensions))
    logger("config").info(
      `Resource extension ${extension}: the ${extension === DEK_REGISTRY_EXTENSION ? "DEK registry is" : "schema exporters are"} built into Sluice and always on`,
    );
  const unknown = new Set(
    services.flatMap((s) => s.unknown).filter((name) => !services.some((s) => s.definition.accepts(name))),
  );
  const known = services.flatMap((s) => s.definition.names());
  for (const name of unknown) logger("config").warn(unknownSettingWarning(name, known));
}

/** The worker's converters' settings (`value.converter.*`) that the built-in converter declares and Sluice does not implement, by their full names. */
function workerConverterUses(worker: Loaded): ReturnType<SettingsDefinition["unsupportedIn"]>[] {
  return (["key.converter", "value.converter", "header.converter"] as const).map((key) => {
    const definition = BUILTIN_CONVERTERS[worker.values.string(key).trim()]?.().config?.();
    const prefix = `${key}.`;
    const own = Object.fromEntries(
      Object.entries(worker.raw).flatMap(([k, v]) => (k.startsWith(prefix) ? [[k.slice(prefix.length), v]] : [])),
    );
    const found = definition?.unsupportedIn(own) ?? { refused: [], ignored: [] };
    const full = (list: typeof found.refused) => list.map((use) => ({ ...use, name: `${prefix}${use.name}` }));
    return { refused: full(found.refused), ignored: full(found.ignored) };
  });
}

/** Outside dev, running on the embedded broker is said plainly: it is for trying Sluice, not for production. */
function warnEmbeddedBroker(settings: ParsedSettings, bootstrapSetting: string): void {
  if (settings.list(bootstrapSetting).length > 0) return;
  logger("config").warn(
    `No ${bootstrapSetting}: running on the embedded broker in ${resolve(settings.string("data.dir"))}, a single-machine store for development; set ${bootstrapSetting} to use Kafka`,
  );
}

/** The Kafka client security settings (security.protocol, sasl.*, and ssl.* under a client prefix) given under `prefixes`. */
function kafkaSecuritySettings(loaded: Loaded, prefixes: string[]): string[] {
  return Object.keys(loaded.raw)
    .filter((name) =>
      prefixes.some((prefix) => {
        if (!name.startsWith(prefix)) return false;
        const setting = name.slice(prefix.length);
        // A worker's top-level ssl.* are its REST listeners'.
        return (
          setting === "security.protocol" ||
          setting.startsWith("sasl.") ||
          (prefix !== "" && setting.startsWith("ssl."))
        );
      }),
    )
    .sort();
}

/** Said once, so nobody believes a Kafka connection is authenticated or encrypted when none is made with them. */
function warnUnusedKafkaSecurity(names: string[], why: string): void {
  if (names.length > 0)
    logger("config").warn(`${names.join(", ")} ${names.length === 1 ? "has" : "have"} no effect: ${why}`);
}

const onEmbedded = (bootstrapSetting: string) =>
  `on the embedded broker there is no Kafka connection to secure (set ${bootstrapSetting} to use Kafka)`;
const WORKER_CLIENTS = ["", "producer.", "consumer.", "admin."];

const log = logger("sluice");

const REGISTRY_FLAGS = {
  "bootstrap-servers": "kafkastore.bootstrap.servers",
  "data-dir": "data.dir",
  "registry-listeners": "listeners",
};
const CONNECT_FLAGS = {
  "bootstrap-servers": "bootstrap.servers",
  "data-dir": "data.dir",
  "connect-listeners": "listeners",
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    console.log(HELP);
    return command ? 0 : 1;
  }
  if (command in COMMANDS && (rest.includes("--help") || rest.includes("-h"))) {
    console.log(commandHelp(command));
    return 0;
  }
  if (command === "--version" || command === "-v") {
    console.log(`${VERSION} (commit ${COMMIT})`);
    return 0;
  }
  if (command === "hash-password") return await hashPassword(rest);
  if (command === "config-docs") {
    // Generates the settings tables of docs/configuration.md from the setting declarations.
    console.log(settingsReference(registrySettingsDefinition));
    console.log(`\n## Connect worker settings\n\n${settingsReference(workerSettings)}`);
    return 0;
  }
  if (command === "unsupported-settings-docs") {
    // Generates docs/unsupported-settings.md from the declarations.
    console.log(unsupportedSettingsDoc());
    return 0;
  }
  const { positional, flags } = parseArgs(rest);
  if (command === "healthcheck") return healthcheck(positional);
  if (command === "repair-log") return repairLogs(positional);
  const running: { stop(): Promise<void> }[] = [];

  if (command === "registry") {
    const registry = load(
      registrySettingsDefinition,
      positional,
      "SCHEMA_REGISTRY_",
      settingsFlags(flags, REGISTRY_FLAGS, []),
    );
    const { values } = registry;
    applyLogSettings(values);
    if (values.boolean("debug")) setLogLevel("debug");
    checkSettings(registry);
    warnEmbeddedBroker(values, "kafkastore.bootstrap.servers");
    if (values.list("kafkastore.bootstrap.servers").length === 0) {
      warnUnusedKafkaSecurity(
        kafkaSecuritySettings(registry, ["kafkastore."]),
        onEmbedded("kafkastore.bootstrap.servers"),
      );
    }
    const sr = await startRegistry(values);
    running.push(sr, announce("registry", registryProbe(sr.urls[0]!)));
    log.info(
      { urls: sr.urls, broker: sr.broker.kind },
      `Schema registry listening on ${sr.urls.join(", ")} (${sr.broker.kind} broker)`,
    );
  } else if (command === "connect-standalone") {
    const [workerFile, ...connectorFiles] = positional;
    if (!workerFile) throw new UsageError(command, "a worker properties file");
    const worker = load(
      workerSettings,
      [workerFile],
      "CONNECT_",
      settingsFlags(flags, { ...CONNECT_FLAGS, listeners: "listeners" }, []),
    );
    const { values, raw } = worker;
    applyLogSettings(values);
    checkSettings(worker);
    warnEmbeddedBroker(values, "bootstrap.servers");
    if (values.list("bootstrap.servers").length === 0) {
      warnUnusedKafkaSecurity(kafkaSecuritySettings(worker, WORKER_CLIENTS), onEmbedded("bootstrap.servers"));
    }
    const connect = await startConnectStandalone({
      settings: values,
      workerConfig: raw,
      connectorFiles,
      catalog,
      taskThreadEntry: TASK_THREAD,
    });
    running.push(connect, announce("connect", connectProbe(connect.urls[0]!)));
    log.info(
      { urls: connect.urls, broker: connect.broker.kind },
      `Connect worker listening on ${connect.urls.join(", ")} (${connect.broker.kind} broker)`,
    );
  } else if (command === "dev") {
    // dev runs two services, each with its own listeners: one --listeners cannot say which.
    if ("listeners" in flags) {
      console.error(
        `sluice dev runs two services: give --registry-listeners and --connect-listeners instead of --listeners\n${usageLine(command)}`,
      );
      return 2;
    }
    // One process, one broker (embedded unless --bootstrap-servers), both services.
    const registry = load(
      registrySettingsDefinition,
      [],
      "SCHEMA_REGISTRY_",
      settingsFlags(flags, REGISTRY_FLAGS, ["connect-listeners"]),
      DEV_REGISTRY_DEFAULTS,
    );
    const connectSettings = load(
      workerSettings,
      [],
      "CONNECT_",
      settingsFlags(flags, CONNECT_FLAGS, ["registry-listeners"]),
      DEV_CONNECT_DEFAULTS,
    );
    applyLogSettings(registry.values);
    applyLogSettings(connectSettings.values);
    checkSettings(registry, connectSettings);
    // dev's one Kafka client serves both services, secured by the worker's top-level settings.
    if (connectSettings.values.list("bootstrap.servers").length === 0) {
      warnUnusedKafkaSecurity(
        [
          ...kafkaSecuritySettings(registry, ["kafkastore."]),
          ...kafkaSecuritySettings(connectSettings, WORKER_CLIENTS),
        ],
        onEmbedded("bootstrap.servers"),
      );
    } else {
      warnUnusedKafkaSecurity(
        [
          ...kafkaSecuritySettings(registry, ["kafkastore."]),
          ...kafkaSecuritySettings(connectSettings, WORKER_CLIENTS.slice(1)),
        ],
        "sluice dev connects both services through one Kafka client, secured by the top-level security.protocol, sasl.* and ssl.* settings",
      );
    }
    const broker = createBroker({
      bootstrapServers: connectSettings.values.list("bootstrap.servers"),
      dataDir: connectSettings.values.string("data.dir"),
      clientId: "sluice-dev",
      security: clientSecurity(connectSettings.raw),
    });
    await broker.connect();
    // Each service's console shows the other: both are this process's.
    let connectUrl: string | undefined;
    const sr: RunningRegistry = await startRegistry(registry.values, broker, () => connectUrl);
    running.push(sr, announce("registry", registryProbe(sr.urls[0]!)));
    const connect: RunningConnect = await startConnectDev({
      registryUrl: () => sr.urls[0],
      settings: connectSettings.values,
      workerConfig: connectSettings.raw,
      connectorFiles: positional,
      broker,
      catalog,
      taskThreadEntry: TASK_THREAD,
    });
    connectUrl = connect.urls[0];
    running.push(connect, { stop: () => broker.close() }, announce("connect", connectProbe(connect.urls[0]!)));
    const consoleAt = registry.values.boolean("console.enabled") ? `; the console at ${sr.urls[0]}/ui/` : "";
    const reach = [...sr.urls, ...connect.urls].every(isLoopback)
      ? " (this machine only: --registry-listeners and --connect-listeners http://0.0.0.0:… open them to the network)"
      : "";
    log.info(
      { registry: sr.urls, connect: connect.urls, broker: broker.kind },
      `Schema registry listening on ${sr.urls.join(", ")}; connect worker on ${connect.urls.join(", ")} (${broker.kind} broker)${consoleAt}${reach}`,
    );
  } else if (command === "connect-distributed") {
    const [workerFile] = positional;
    if (!workerFile) throw new UsageError(command, "a worker properties file");
    const worker = load(
      workerSettings,
      [workerFile],
      "CONNECT_",
      settingsFlags(flags, { ...CONNECT_FLAGS, listeners: "listeners" }, []),
    );
    const { values, raw } = worker;
    applyLogSettings(values);
    checkSettings(worker);
    const connect = await startConnectDistributed({
      settings: values,
      workerConfig: raw,
      catalog,
      taskThreadEntry: TASK_THREAD,
    });
    running.push(connect, announce("connect", connectProbe(connect.urls[0]!)));
    log.info(
      { urls: connect.urls, group: values.string("group.id"), broker: connect.broker.kind },
      `Connect worker listening on ${connect.urls.join(", ")}, joining group ${values.string("group.id")} (${connect.broker.kind} broker)`,
    );
  } else {
    const suggestion = nearest(command, Object.keys(COMMANDS));
    console.error(`Unknown command ${command}${suggestion ? `; did you mean ${suggestion}?` : ""}\n\n${HELP}`);
    return 2;
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutdown begun");
    for (const service of running) await service.stop();
    log.info("shutdown done");
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  return -1; // keep running
}

/**
 * Asks the services of this machine whether they are healthy (the registry's GET /, connect's GET
 * /health): those a running sluice recorded in SLUICE_HEALTH_DIR (the services its command runs, on
 * the listeners it was given), else both at the listeners the environment names. Named services are
 * asked in any case.
 */
async function healthcheck(which: string[]): Promise<number> {
  for (const service of which)
    if (service !== "registry" && service !== "connect")
      throw new ConfigError("healthcheck", service, "registry or connect");
  const registry = () => load(registrySettingsDefinition, [], "SCHEMA_REGISTRY_", {}).values;
  const connect = () => load(workerSettings, [], "CONNECT_", {}).values;
  const recorded = { registry: announced("registry"), connect: announced("connect") };
  const fallback = {
    registry: () => registryProbe(registry().list("listeners")[0]!),
    connect: () => connectProbe(connect().list("listeners")[0]!),
  };
  const both: Service[] = ["registry", "connect"];
  const services =
    which.length > 0 ? (which as Service[]) : both.some((s) => recorded[s]) ? both.filter((s) => recorded[s]) : both;
  let healthy = true;
  for (const service of services) {
    const url = recorded[service] ?? fallback[service]();
    const status = await fetch(url, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status,
      () => 0,
    );
    console.log(`${service} ${url}: ${status || "no answer"}`);
    healthy &&= status === 200;
  }
  return healthy ? 0 : 1;
}

const registryProbe = (listener: string) => `${local(listener)}/`;
const connectProbe = (listener: string) => `${local(listener)}/health`;

/** `sluice repair-log`: the recovery that the start-up refusal of a damaged embedded log points to. */
async function repairLogs(files: string[]): Promise<number> {
  if (files.length === 0) throw new UsageError("repair-log", "the partition log files to repair");
  for (const file of files) {
    const { records, lastOffset, skipped, keptAs } = await repairPartitionLog(file, logger("repair-log"));
    if (keptAs === undefined) {
      console.log(`${file}: no damage found (${records} records); left as it is`);
      continue;
    }
    const ranges = skipped.map(({ from, to }) => `skipped ${to - from} damaged bytes at byte ${from}`).join("; ");
    console.log(
      `${file}: ${ranges}; kept ${records} intact records (last offset ${lastOffset}); the damaged file is kept as ${keptAs}`,
    );
  }
  return 0;
}

/** A listener as a URL this machine can call (all interfaces → loopback). */
const local = (listener: string) =>
  listener.replace("://:", "://127.0.0.1:").replace("://0.0.0.0", "://127.0.0.1").replace(/\/$/, "");

if (import.meta.main) {
  logProcessWarnings();
  main(process.argv.slice(2)).then(
    (code) => {
      if (code >= 0) process.exit(code);
    },
    (err: unknown) => {
      if (err instanceof UsageError) {
        console.error(`${err.message}\n${usageLine(err.command)}`);
        process.exit(2);
      }
      if (err instanceof ConfigError) console.error(`Configuration error: ${err.message}`);
      else console.error(`sluice failed to start: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
