// Connector config validation, as Kafka's AbstractHerder does it: the connector's and the framework's
// settings, transforms and predicates, converter classes, plugin versions — with Kafka's messages.
import { VERSION } from "../../../platform/version.ts";
import { hideResolved } from "../../../platform/config-providers.ts";
import { isSimpleHeaderConverter, SimpleHeaderConverter } from "../../converters/simple-header.ts";
import { ConnectRestError, connectErrors } from "../rest-errors.ts";
import type { Connector, SourceConnector } from "../../api/connector.ts";
import type { PluginDescriptor, PluginRegistry } from "../plugins/registry.ts";
import { nearest } from "../../../platform/edit-distance.ts";
import { logger } from "../../../platform/log.ts";
import {
  noEffectWarning,
  refusalReason,
  unknownSettingWarning,
  type SettingsDefinition,
} from "../../../platform/settings.ts";
import { JavaHashKeys } from "../../../jvm/hash-order.ts";
import { connectorFrameworkDefinition, sinkTopicProblems } from "../worker/connector-config.ts";
import { clientOverrideProblems, clientOverrideWarnings, overridePolicy } from "../worker/client-overrides.ts";
import type { Worker } from "../worker/worker.ts";
import { chainLookups } from "../worker/task-factory.ts";
import { validateTransforms } from "../../transforms/chain.ts";
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from "../../transforms/registry.ts";
import type { Converter } from "../../api/converter.ts";
import type { Predicate, Transformation } from "../../api/transformation.ts";
import { configInfos, invalidConfigMessage, type ConfigInfos } from "./config-infos.ts";
import { exactlyOnceCheck } from "./exactly-once-config.ts";

/** A connector class no plugin provides (Kafka's ConnectException, which validate wraps once more). */
export class UnknownConnectorClass extends ConnectRestError {
  constructor(message: string) {
    super(400, message);
  }
}

export class ConnectorValidator {
  constructor(private readonly worker: Worker) {}

  async validate(config: Record<string, string>): Promise<ConfigInfos> {
    const className = config["connector.class"];
    if (!className) throw connectErrors.badRequest(`Connector config ${javaMap(config)} contains no connector type`);
    const plugins = this.worker.options.plugins;
    const plugin = plugins.find(className, "source", "sink");
    if (!plugin) throw new UnknownConnectorClass(unknownConnectorMessage(className, plugins));
    const connector = plugin.create() as Connector;
    const type = plugin.type as "source" | "sink";
    const framework = connectorFrameworkDefinition(type, plugin.version);
    const transforms = new Map(Object.entries(validateTransforms(config, chainLookups(plugins))));
    const { problems: classes, unparsed } = this.classProblems(config, plugin);
    const own = await this.connectorProblems(connector, config);
    const refused = refusedProblems([framework, connector.config()], config);
    for (const { prefix, definition } of this.componentSettings(config)) {
      for (const [key, messages] of refusedProblems([definition], withoutPrefix(config, prefix)))
        refused.set(
          `${prefix}${key}`,
          messages.map((m) => m.replaceAll(`configuration ${key}:`, `configuration ${prefix}${key}:`)),
        );
    }
    const { settings, workerConfig } = this.worker.options;
    const overrides = clientOverrideProblems(config, overridePolicy(settings), workerConfig, type);
    const extra = [
      transforms,
      classes,
      own,
      refused,
      overrides,
      ...(type === "sink"
        ? [await sinkTopicProblems(config)]
        : [exactlyOnceCheck(connector as SourceConnector, config, this.worker.exactlyOnceEnabled).problems]),
    ];
    const infos = configInfos(className, [framework, connector.config()], config, extra, unparsed);
    this.addConverterChoices(infos, config, plugin, unparsed);
    return infos;
  }

  /**
   * What Kafka's recommenders add: the installed converters and plugin versions, and the worker's
   * converters where the connector names none.
   */
  private addConverterChoices(
    infos: ConfigInfos,
    config: Record<string, string>,
    plugin: PluginDescriptor,
    unparsed: Set<string>,
  ): void {
    const plugins = this.worker.options.plugins;
    const converters = plugins.list("converter").map((p) => p.className);
    const headerConverters = [
      ...new Set([
        ...converters,
        ...plugins.list("header_converter").map((p) => p.className),
        SimpleHeaderConverter.className,
      ]),
    ];
    const byName = new Map(infos.configs.map((c) => [c.value?.name, c]));
    const choose = (key: string, values: string[], value: string | null | undefined, defaultValue?: string) => {
      const entry = byName.get(key);
      if (!entry?.value) return;
      entry.value.recommended_values = [...values].sort();
      if (value !== undefined) entry.value.value = value;
      // The worker's settings are the defaults of a connector's converters.
      if (defaultValue !== undefined && entry.definition) entry.definition.default_value = defaultValue;
    };
    const versionOf = (className: string) =>
      isSimpleHeaderConverter(className)
        ? VERSION
        : plugins.find(className.trim(), "converter", "header_converter")?.version;
    if (plugin.version !== undefined) choose("connector.plugin.version", [plugin.version], undefined);
    for (const key of ["key.converter", "value.converter", "header.converter"] as const) {
      const workers = this.worker.options.workerConfig[key] ?? this.worker.options.settings.string(key);
      const effective = config[key] ?? workers;
      choose(
        key,
        key === "header.converter" ? headerConverters : converters,
        unparsed.has(key) ? null : effective,
        workers,
      );
      const version = unparsed.has(key) ? undefined : versionOf(effective);
      if (version !== undefined)
        choose(`${key}.plugin.version`, [version], config[`${key}.plugin.version`] ?? version, versionOf(workers));
    }
  }

  /**
   * The connector's own validate (e.g. its connection attempt), as Debezium's and Confluent's run it:
   * only once its declared settings are valid, on the config with provider references resolved, and
   * with the resolved values hidden again in what it says.
   */
  private async connectorProblems(
    connector: Connector,
    config: Record<string, string>,
  ): Promise<Map<string, string[]>> {
    if (!connector.validate || configInfos("", [connector.config()], config, []).error_count > 0) return new Map();
    const resolved = new Map<string, string>();
    try {
      const problems = await connector.validate(this.worker.resolve(config, resolved));
      return new Map([...problems].map(([key, messages]) => [key, messages.map((m) => hideResolved(m, resolved))]));
    } catch (err) {
      return new Map([
        [
          "connector.class",
          [
            hideResolved(
              `The connector's validation failed: ${err instanceof Error ? err.message : String(err)}`,
              resolved,
            ),
          ],
        ],
      ]);
    }
  }

  /** Converter classes and the plugin version must exist, as Kafka loads them while validating. */
  private classProblems(
    config: Record<string, string>,
    plugin: PluginDescriptor,
  ): { problems: Map<string, string[]>; unparsed: Set<string> } {
    const plugins = this.worker.options.plugins;
    const problems = new Map<string, string[]>();
    const unparsed = new Set<string>();
    const converters: [string, ("converter" | "header_converter")[]][] = [
      ["key.converter", ["converter"]],
      ["value.converter", ["converter"]],
      ["header.converter", ["header_converter", "converter"]],
    ];
    for (const [key, types] of converters) {
      const value = config[key];
      if (
        value == null ||
        plugins.find(value.trim(), ...types) ||
        (key === "header.converter" && isSimpleHeaderConverter(value))
      )
        continue;
      problems.set(key, [`Invalid value ${value} for configuration ${key}: Class ${value.trim()} could not be found.`]);
      unparsed.add(key);
    }
    const wanted = config["connector.plugin.version"]?.trim();
    if (wanted && plugin.version !== undefined && !versionMatches(wanted, plugin.version)) {
      const range = /^[[(]/.test(wanted) ? wanted : `[${wanted},${wanted}]`;
      const message = `Plugin ${plugin.className} not found that matches the version range ${range}, available versions: [${plugin.version}]`;
      problems.set("connector.class", [message]);
      problems.set("connector.plugin.version", [message]);
    }
    return { problems, unparsed };
  }

  /** Validates a config being created or updated; what Sluice accepts but ignores is logged, one warning a setting. */
  async validOrThrow(config: Record<string, string>): Promise<void> {
    for (const [key, value] of Object.entries(config)) {
      if (value === null)
        throw new ConnectRestError(400, `Non-string value found in original settings for key ${key}: null`);
    }
    const infos = await this.validate(config);
    if (infos.error_count > 0) throw connectErrors.badRequest(invalidConfigMessage(infos));
    const ignored = this.ignoredSettings(config);
    for (const warning of [...ignored.noEffect.values(), ...ignored.unknown.values()])
      log.warn({ connector: config.name }, `Connector ${config.name}: ${warning}`);
  }

  /**
   * The settings of a config Sluice accepts and does nothing with, by name with the warning for each:
   * the original's that have no effect in Sluice, and those nothing declares (with the declared name
   * each most likely misspells). Settings under a prefix something reads are not judged here.
   */
  ignoredSettings(config: Record<string, string>): { noEffect: Map<string, string>; unknown: Map<string, string> } {
    const noEffect = new Map<string, string>();
    const unknown = new Map<string, string>();
    const plugin = config["connector.class"]
      ? this.worker.options.plugins.find(config["connector.class"], "source", "sink")
      : undefined;
    if (!plugin) return { noEffect, unknown };
    const definitions = [
      connectorFrameworkDefinition(plugin.type as "source" | "sink", plugin.version),
      (plugin.create() as Connector).config(),
    ];
    for (const def of definitions)
      for (const use of def.unsupportedIn(config).ignored) noEffect.set(use.name, noEffectWarning(use));
    const known = definitions.flatMap((d) => d.names());
    for (const name of Object.keys(config)) {
      if (CONSUMED_PREFIXES.some((p) => name.startsWith(p)) || definitions.some((d) => d.accepts(name))) continue;
      unknown.set(name, unknownSettingWarning(name, known));
    }
    if (plugin.type === "source") {
      const check = exactlyOnceCheck(plugin.create() as SourceConnector, config, this.worker.exactlyOnceEnabled);
      for (const [key, warning] of check.warnings) noEffect.set(key, warning);
      if (config["offsets.storage.topic"] !== undefined && !this.worker.options.offsets.useTopic)
        noEffect.set(
          "offsets.storage.topic",
          "Setting offsets.storage.topic has no effect on a standalone worker: its source offsets are kept in offset.storage.file.filename",
        );
    }
    // Client overrides, judged by Kafka's client settings.
    for (const [key, warning] of clientOverrideWarnings(config)) noEffect.set(key, warning);
    // Settings of the converters, transforms and predicates, each judged by what it declares.
    for (const { prefix, definition, reserved } of this.componentSettings(config)) {
      const own = withoutPrefix(config, prefix);
      for (const use of definition.unsupportedIn(own).ignored)
        noEffect.set(`${prefix}${use.name}`, noEffectWarning({ ...use, name: `${prefix}${use.name}` }));
      for (const key of Object.keys(own)) {
        if (reserved.includes(key) || definitions.some((d) => d.accepts(`${prefix}${key}`)) || definition.accepts(key))
          continue;
        unknown.set(
          `${prefix}${key}`,
          unknownSettingWarning(
            `${prefix}${key}`,
            definition.names().map((n) => `${prefix}${n}`),
          ),
        );
      }
    }
    return { noEffect, unknown };
  }

  /**
   * The converters, transforms and predicates a config names, each with the prefix of its settings and
   * what it declares (those that declare nothing, e.g. a plugin converter without config(), are left out).
   */
  private componentSettings(
    config: Record<string, string>,
  ): { prefix: string; definition: SettingsDefinition; reserved: string[] }[] {
    const plugins = this.worker.options.plugins;
    const out: { prefix: string; definition: SettingsDefinition; reserved: string[] }[] = [];
    for (const key of ["key.converter", "value.converter", "header.converter"]) {
      const className = (
        config[key] ??
        this.worker.options.workerConfig[key] ??
        this.worker.options.settings.string(key)
      ).trim();
      const converter = plugins.find(className, "converter", "header_converter")?.create() as Converter | undefined;
      const definition = converter?.config?.();
      if (definition) out.push({ prefix: `${key}.`, definition, reserved: [] });
    }
    const aliases = (list: string | undefined) =>
      (list ?? "")
        .split(",")
        .map((a) => a.trim())
        .filter(Boolean);
    for (const alias of aliases(config.transforms)) {
      const className = config[`transforms.${alias}.type`]?.trim() ?? "";
      const factory = BUILTIN_TRANSFORMS[className] ?? plugins.find(className, "transformation")?.create;
      const definition = factory ? (factory() as Transformation).config() : undefined;
      if (definition)
        out.push({ prefix: `transforms.${alias}.`, definition, reserved: ["type", "predicate", "negate"] });
    }
    for (const alias of aliases(config.predicates)) {
      const className = config[`predicates.${alias}.type`]?.trim() ?? "";
      const factory = BUILTIN_PREDICATES[className] ?? plugins.find(className, "predicate")?.create;
      const definition = factory ? (factory() as Predicate).config() : undefined;
      if (definition) out.push({ prefix: `predicates.${alias}.`, definition, reserved: ["type"] });
    }
    return out;
  }

  /** Task configs as the worker hands them out: each names its task class (Kafka's task.class). */
  withTaskClass(config: Record<string, string>, taskConfigs: Record<string, string>[]): Record<string, string>[] {
    const plugin = this.worker.options.plugins.find(config["connector.class"]!, "source", "sink");
    if (!plugin || taskConfigs.length === 0) return taskConfigs;
    const taskClass = (plugin.create() as Connector).taskClass();
    // A task class may name its Java class; otherwise it lives in the connector's package.
    const pkg = plugin.className.includes(".") ? plugin.className.slice(0, plugin.className.lastIndexOf(".") + 1) : "";
    const name = taskClass.className ?? `${pkg}${taskClass.name}`;
    return taskConfigs.map((c) => ({ ...c, "task.class": name }));
  }
}

const log = logger("config");

/**
 * Prefixes of a connector config that others than the connector read: transforms, predicates and
 * converters (each validates its own), and the clients' overrides (Kafka's client settings).
 */
const CONSUMED_PREFIXES = [
  "transforms.",
  "predicates.",
  "key.converter.",
  "value.converter.",
  "header.converter.",
  "producer.override.",
  "consumer.override.",
  "admin.override.",
];

/** The settings under a prefix, by their names without it. */
function withoutPrefix(config: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config).flatMap(([k, v]) => (k.startsWith(prefix) ? [[k.slice(prefix.length), v]] : [])),
  );
}

/** Settings the original has that Sluice refuses, each an error on its name, in Kafka's wording. */
function refusedProblems(definitions: SettingsDefinition[], config: Record<string, string>): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  for (const def of definitions) {
    for (const use of def.unsupportedIn(config).refused) {
      // A value its own declaration refuses (a listed setting's) gets that error only.
      if (use.setting.validate?.(use.value.trim())) continue;
      problems.set(use.name, [`Invalid value ${use.value} for configuration ${use.name}: ${refusalReason(use)}`]);
    }
  }
  return problems;
}

/**
 * Java's Map.toString of the HashMap Kafka copies a config into before printing it: entries in the
 * iteration order of `new HashMap<>(config)` (JDK 17's sizing of the copy).
 */
function javaMap(config: Record<string, string>): string {
  return `{${JavaHashKeys.copyOf(Object.keys(config), false, "jdk17")
    .keys()
    .map((k) => `${k}=${config[k]}`)
    .join(", ")}}`;
}

/**
 * Kafka's message for a connector class no plugin provides, listing the installed connectors by class
 * name (Kafka prints its PluginDesc objects, which bury the names) and the nearest name to a typo.
 */
export function unknownConnectorMessage(className: string, plugins: PluginRegistry): string {
  const installed = plugins
    .list("source", "sink")
    .map((p) => p.className)
    .sort()
    .join(", ");
  const message = `Failed to find any class that implements Connector and which name matches ${className}, available connectors are: ${installed}`;
  const near = nearest(className.trim(), plugins.names("source", "sink"));
  return near === undefined ? message : `${message}. Did you mean ${near}?`;
}

/** Whether `version` satisfies a Maven-style version or range ("1.0", "[1.0,2.0)", "[1.0,)"). */
function versionMatches(wanted: string, version: string): boolean {
  const compare = (a: string, b: string) => {
    const pa = a.split(/[.-]/);
    const pb = b.split(/[.-]/);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const x = pa[i] ?? "0";
      const y = pb[i] ?? "0";
      const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
      if (d !== 0) return d;
    }
    return 0;
  };
  const range = /^([[(])\s*([^,]*?)\s*(?:,\s*([^\])]*?)\s*)?([\])])$/.exec(wanted);
  if (!range) return compare(wanted, version) === 0;
  const [, open, low, high, close] = range;
  if (high === undefined) return compare(low!, version) === 0; // [1.0]
  if (low && (open === "[" ? compare(version, low) < 0 : compare(version, low) <= 0)) return false;
  if (high && (close === "]" ? compare(version, high) > 0 : compare(version, high) >= 0)) return false;
  return true;
}
