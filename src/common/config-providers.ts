// Kafka's config providers: values like `${file:/etc/secrets.properties:db.password}` resolved at use,
// so configs shown over REST or in logs keep the reference and never the secret.
// Providers are declared as in Kafka: config.providers=file,env and
// config.providers.<name>.class=org.apache.kafka.common.config.provider.FileConfigProvider.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseProperties } from "./properties.ts";

/** Returns the value of `key` under `path` (path may be empty), or undefined when there is none. */
export type ConfigProvider = (path: string, key: string) => string | undefined;

const fileProvider: ConfigProvider = (path, key) => parseProperties(readFileSync(path, "utf8"))[key];
const envProvider: ConfigProvider = (_path, key) => process.env[key];
const directoryProvider: ConfigProvider = (path, key) => {
  const file = join(path, key);
  // As Kafka's DirectoryConfigProvider: only regular files directly in the directory.
  if (!readdirSync(path).includes(key) || !statSync(file).isFile()) return undefined;
  return readFileSync(file, "utf8");
};

const PROVIDER_CLASSES: Record<string, ConfigProvider> = {
  "org.apache.kafka.common.config.provider.FileConfigProvider": fileProvider,
  "org.apache.kafka.common.config.provider.EnvVarConfigProvider": envProvider,
  "org.apache.kafka.common.config.provider.DirectoryConfigProvider": directoryProvider,
  FileConfigProvider: fileProvider,
  EnvVarConfigProvider: envProvider,
  DirectoryConfigProvider: directoryProvider,
};

// Kafka's ConfigTransformer pattern: ${provider:[path:]key}
const REFERENCE = /\$\{([^}]*?):(?:([^}]*?):)?([^}]*?)\}/g;

export class ConfigProviders {
  private constructor(private readonly providers: Map<string, ConfigProvider>) {}

  /** Builds the providers a worker config declares; unknown classes are an error naming them. */
  static fromWorkerConfig(config: Record<string, string>): ConfigProviders {
    const providers = new Map<string, ConfigProvider>();
    const names = (config["config.providers"] ?? "").split(",").map((n) => n.trim()).filter(Boolean);
    for (const name of names) {
      const className = config[`config.providers.${name}.class`];
      const provider = className ? PROVIDER_CLASSES[className] : undefined;
      if (!provider) {
        throw new Error(`Invalid value ${JSON.stringify(className ?? "")} for configuration config.providers.${name}.class: allowed are ${Object.keys(PROVIDER_CLASSES).filter((k) => k.includes(".")).join(", ")}`);
      }
      providers.set(name, provider);
    }
    return new ConfigProviders(providers);
  }

  /** Replaces every reference to a declared provider; unknown providers and keys are left as written (as Kafka does). */
  resolve(config: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(config)) {
      out[key] = value.replace(REFERENCE, (whole, name: string, path: string | undefined, ref: string) => {
        const provider = this.providers.get(name);
        if (!provider) return whole;
        return provider(path ?? "", ref) ?? whole;
      });
    }
    return out;
  }
}
