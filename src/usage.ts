// What `sluice --help` and `sluice <command> --help` print, and the error for a command missing what
// it needs: one table of the commands, so the overview and each command's usage never disagree.
import { VERSION } from "./platform/version.ts";

interface Command {
  /** What follows `sluice <command>`. */
  args: string;
  /** What it does, one line per entry. */
  about: string[];
  /** The FLAGS it takes. */
  flags: (keyof typeof FLAGS)[];
  /** Its own examples in its --help: a listener and a setting of its service. */
  examples?: { listeners?: string; setting: string };
}

const FLAGS = {
  "bootstrap-servers":
    "--bootstrap-servers <hosts>   Kafka bootstrap servers; without them the embedded broker is used",
  "data-dir": "--data-dir <dir>              directory of the embedded broker (default ./data)",
  listeners: "--listeners <urls>            registry: e.g. http://0.0.0.0:8081; connect: http://0.0.0.0:8083",
  "registry-listeners": "--registry-listeners <urls>   dev: the registry's listeners (default http://127.0.0.1:8081)",
  "connect-listeners":
    "--connect-listeners <urls>    dev: the connect worker's listeners (default http://127.0.0.1:8083)",
  setting: "--<setting>=<value>           any setting by name, e.g. --kafkastore.topic=_schemas",
};

const SERVICE_FLAGS: Command["flags"] = ["bootstrap-servers", "data-dir", "listeners", "setting"];

export const COMMANDS: Record<string, Command> = {
  dev: {
    args: "[flags] [connector files…]",
    about: [
      "registry (8081) + connect worker (8083) in one",
      "process, on the embedded broker in ./data;",
      "keeps connectors, offsets and schemas across restarts",
      "(internal topics, in ./data or on Kafka)",
    ],
    flags: ["bootstrap-servers", "data-dir", "registry-listeners", "connect-listeners", "setting"],
    examples: { setting: "--kafkastore.topic=_schemas (the registry's) or --offset.flush.interval.ms=10000" },
  },
  registry: {
    args: "[schema-registry.properties] [flags]",
    about: ["the schema registry"],
    flags: SERVICE_FLAGS,
    examples: { listeners: "http://0.0.0.0:8081", setting: "--kafkastore.topic=_schemas" },
  },
  "connect-standalone": {
    args: "worker.properties [connector files…]",
    about: ["a standalone connect worker (Kafka Connect's files)"],
    flags: SERVICE_FLAGS,
    examples: { listeners: "http://0.0.0.0:8083", setting: "--offset.flush.interval.ms=10000" },
  },
  "connect-distributed": {
    args: "worker.properties",
    about: ["a worker of a distributed connect cluster", "(group.id and the storage topics, on Kafka)"],
    flags: ["bootstrap-servers", "listeners", "setting"],
    examples: { listeners: "http://0.0.0.0:8083", setting: "--group.id=connect-cluster" },
  },
  healthcheck: {
    args: "[registry|connect]",
    about: [
      "exit 0 when the local services answer (for container",
      "health checks; listeners from the same settings/env)",
    ],
    flags: [],
  },
  "repair-log": {
    args: "<data.dir>/topics/<topic>/<partition>.log…",
    about: ["with Sluice stopped: keep a damaged embedded log beside", "it and rewrite it with every intact record"],
    flags: [],
  },
  "hash-password": {
    args: "",
    about: [
      "a hashed password for the REST users files (typed",
      "at a prompt that does not echo it, or read from stdin)",
    ],
    flags: [],
  },
};

const ABOUT_COLUMN = 59;

const ENVIRONMENT = `Environment: SCHEMA_REGISTRY_<SETTING> and CONNECT_<SETTING> (e.g. CONNECT_BOOTSTRAP_SERVERS) set
<setting> (lower-cased, ___ → -, __ → _, other _ → .), as the Confluent images do.
Connector files: .properties, or JSON (a config map, or {"name","config","initial_state"}).`;

function overviewLines(name: string, { args, about }: Command): string[] {
  const usage = `  sluice ${name} ${args}`;
  const indent = " ".repeat(ABOUT_COLUMN);
  if (usage.length >= ABOUT_COLUMN) return [usage, ...about.map((line) => indent + line)];
  return [usage.padEnd(ABOUT_COLUMN) + about[0], ...about.slice(1).map((line) => indent + line)];
}

export const HELP = `sluice ${VERSION} — Confluent-compatible schema registry and Kafka Connect-compatible runtime

Usage:
${Object.entries(COMMANDS)
  .flatMap(([name, command]) => overviewLines(name, command))
  .join("\n")}
  sluice --help | --version
  sluice <command> --help

Flags:
${Object.values(FLAGS)
  .map((flag) => `  ${flag}`)
  .join("\n")}

${ENVIRONMENT}
`;

/** The line that says how to call a command. */
export const usageLine = (name: string) => `Usage: sluice ${name} ${COMMANDS[name]!.args}`;

/** `sluice <command> --help`: its flags with its own examples, and where its settings and console are. */
export function commandHelp(name: string): string {
  const { about, flags, examples } = COMMANDS[name]!;
  const flagText = (f: keyof typeof FLAGS) => {
    if (f === "listeners" && examples?.listeners) return `--listeners <urls>            e.g. ${examples.listeners}`;
    if (f === "setting" && examples)
      return `--<setting>=<value>           any setting by name, e.g. ${examples.setting}`;
    return FLAGS[f];
  };
  const flagLines = flags.length > 0 ? `\n\nFlags:\n${flags.map((f) => `  ${flagText(f)}`).join("\n")}` : "";
  const more = examples
    ? "\n\nEvery setting, with its default: `sluice config-docs` (docs/configuration.md in the source). The web console: /ui/ on each listener."
    : "";
  return `${usageLine(name)}\n\n${about.join(" ")}${flagLines}${more}\n`;
}

/** A command called without something it needs; reported with the command's usage line. */
export class UsageError extends Error {
  constructor(
    readonly command: string,
    needs: string,
  ) {
    super(`sluice ${command} needs ${needs}`);
    this.name = "UsageError";
  }
}
