// Kafka's config providers: values like `${file:/etc/secrets.properties:db.password}` resolved at use,
// so configs shown over REST or in logs keep the reference and never the secret.
// Providers are declared as in Kafka: config.providers=file,env,
// config.providers.<name>.class=org.apache.kafka.common.config.provider.FileConfigProvider and
// config.providers.<name>.param.<param>=… (allowed.paths, allowlist.pattern).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join, posix } from "node:path";
import { JavaPattern } from "../jvm/java-regex.ts";
import { parseProperties } from "./properties.ts";
import { ConfigError } from "./settings.ts";
import { ownEntry } from "./own.ts";

/** Returns the value of `key` under `path` (path may be empty), or undefined when there is none. */
export type ConfigProvider = (path: string, key: string) => string | undefined;
type ProviderFactory = (params: Record<string, string>, prefix: string) => ConfigProvider;

/** Java's Path.normalize(): `.` and `..` resolved lexically, no trailing slash (symlinks are not followed). */
function normalize(path: string): string {
  if (path === "") return "";
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
}

/**
 * Kafka's AllowedPaths: `allowed.paths` is a comma-separated list of absolute, existing paths; a path
 * is allowed when, normalised, it lies under one of them (compared element by element). Unset: all.
 * Returns the path to read, or undefined when it is not allowed.
 */
function allowedPaths(params: Record<string, string>, prefix: string): (path: string) => string | undefined {
  const value = params["allowed.paths"];
  if (value === undefined || value === "") return (path) => path;
  const roots = value.split(",").map((entry) => {
    const root = normalize(entry);
    const problem = !isAbsolute(root) ? "is not absolute" : !existsSync(root) ? "does not exist" : undefined;
    if (problem) throw new ConfigError(`${prefix}allowed.paths`, value, `Path ${root} ${problem}`);
    return root;
  });
  return (path) => {
    const normal = normalize(path);
    return roots.some((root) => normal === root || normal.startsWith(root === "/" ? "/" : `${root}/`))
      ? normal
      : undefined;
  };
}

const fileProvider: ProviderFactory = (params, prefix) => {
  const allowed = allowedPaths(params, prefix);
  return (path, key) => {
    const file = path === "" ? undefined : allowed(path);
    if (file === undefined) return undefined;
    let text: string;
    try {
      // Only regular files: a device (/dev/zero) or a FIFO would hold the process forever, where
      // Kafka's provider holds one herder thread.
      if (!statSync(file).isFile()) throw new Error("not a regular file");
      text = readFileSync(file, "utf8");
    } catch {
      throw new Error(`Could not read properties from file ${path}`);
    }
    return parseProperties(text)[key];
  };
};

const directoryProvider: ProviderFactory = (params, prefix) => {
  const allowed = allowedPaths(params, prefix);
  return (path, key) => {
    const dir = path === "" ? undefined : allowed(path);
    if (dir === undefined || !existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
    // Only regular files directly in the directory (a key naming a subpath matches no entry).
    const file = join(dir, key);
    if (!readdirSync(dir).includes(key) || !statSync(file).isFile()) return undefined;
    return readFileSync(file, "utf8");
  };
};

const envProvider: ProviderFactory = (params) => {
  const pattern = JavaPattern.compile(params["allowlist.pattern"] ?? ".*");
  return (path, key) => {
    if (path !== "") throw new Error(`Path is not supported for EnvVarConfigProvider, invalid value '${path}'`);
    const value = process.env[key];
    return value !== undefined && pattern.matches(key) ? value : undefined;
  };
};

const PROVIDER_CLASSES: Record<string, ProviderFactory> = {
  "org.apache.kafka.common.config.provider.FileConfigProvider": fileProvider,
  "org.apache.kafka.common.config.provider.EnvVarConfigProvider": envProvider,
  "org.apache.kafka.common.config.provider.DirectoryConfigProvider": directoryProvider,
  FileConfigProvider: fileProvider,
  EnvVarConfigProvider: envProvider,
  DirectoryConfigProvider: directoryProvider,
};

// Kafka's ConfigTransformer pattern: ${provider:[path:]key}
const REFERENCE = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

/**
 * Kafka's AbstractHerder.reverseTransform: task configs come from a connector that saw resolved
 * values; each key whose raw connector value holds a reference gets that reference back, so what is
 * stored and shown (GET /connectors/{c}/tasks) never carries the secret.
 */
export function reverseTransform(
  rawConnectorConfig: Record<string, string>,
  taskConfigs: Record<string, string>[],
): Record<string, string>[] {
  const referenced = Object.entries(rawConnectorConfig).filter(([, value]) => new RegExp(REFERENCE.source).test(value));
  return taskConfigs.map((config) => {
    const out = { ...config };
    for (const [key, value] of referenced) if (key in out) out[key] = value;
    return out;
  });
}

/**
 * A text (a status trace) with each resolved value replaced by its reference: a plugin's error may
 * quote a value it was given, and REST answers show references, never what they stand for.
 */
export function hideResolved(text: string, resolved: Map<string, string>): string {
  // Longest first, so a value that contains another is replaced whole.
  return [...resolved]
    .sort(([a], [b]) => b.length - a.length)
    .reduce((out, [value, reference]) => out.split(value).join(reference), text);
}

export class ConfigProviders {
  private constructor(private readonly providers: Map<string, ConfigProvider>) {}

  /** Builds the providers a worker config declares; unknown classes and bad params are errors naming them. */
  static fromWorkerConfig(config: Record<string, string>): ConfigProviders {
    const providers = new Map<string, ConfigProvider>();
    const names = (config["config.providers"] ?? "")
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    for (const name of names) {
      const className = config[`config.providers.${name}.class`];
      const factory = className ? ownEntry(PROVIDER_CLASSES, className) : undefined;
      if (!factory) {
        throw new Error(
          `Invalid value ${JSON.stringify(className ?? "")} for configuration config.providers.${name}.class: allowed are ${Object.keys(
            PROVIDER_CLASSES,
          )
            .filter((k) => k.includes("."))
            .join(", ")}`,
        );
      }
      const prefix = `config.providers.${name}.param.`;
      const params = Object.fromEntries(
        Object.entries(config)
          .filter(([k]) => k.startsWith(prefix))
          .map(([k, v]) => [k.slice(prefix.length), v]),
      );
      providers.set(name, factory(params, prefix));
    }
    return new ConfigProviders(providers);
  }

  /**
   * Replaces every reference to a declared provider; unknown providers and keys are left as written (as
   * Kafka does). `resolved`, when given, learns each value put in and the reference it stands for.
   */
  resolve(config: Record<string, string>, resolved?: Map<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(config)) {
      out[key] = value.replace(REFERENCE, (whole, name: string, path: string | undefined, ref: string) => {
        const provider = this.providers.get(name);
        const found = provider?.(path ?? "", ref);
        if (found === undefined) return whole;
        if (found.trim() !== "") resolved?.set(found, whole);
        return found;
      });
    }
    return out;
  }
}
