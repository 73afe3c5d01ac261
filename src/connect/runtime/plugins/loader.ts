// Loads plugin modules (.js/.ts) from the plugin.path folders at start-up and registers what they
// export under their class names. A broken plugin is reported and skipped; the runtime still starts.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { logger } from "../../../platform/log.ts";
import { Connector } from "../../api/connector.ts";
import type { PluginRegistry, PluginType } from "./registry.ts";
import { loadErrorText } from "./load-error.ts";
import { pluginSdk } from "../../api/sdk.ts";

const log = logger("plugins");

type PluginClass = (new () => object) & { className?: string; aliases?: string[]; version?: string };

function classify(cls: unknown): PluginType | undefined {
  if (typeof cls !== "function" || typeof cls.prototype !== "object" || cls.prototype === null) return undefined;
  const proto = cls.prototype as Record<string, unknown>;
  if (proto instanceof Connector || typeof proto.taskClass === "function") {
    const type = (new (cls as PluginClass)() as { type?: string }).type;
    return type === "source" || type === "sink" ? type : undefined;
  }
  if (typeof proto.fromConnectData === "function") return "converter";
  if (typeof proto.fromConnectHeader === "function") return "header_converter";
  if (typeof proto.apply === "function" && typeof proto.configure === "function") return "transformation";
  if (typeof proto.test === "function" && typeof proto.configure === "function") return "predicate";
  return undefined;
}

/**
 * A module's plugin classes: from its default factory (called with the SDK), else its exports; or why
 * it has none, for the log.
 */
function exportedClasses(module: Record<string, unknown>): { classes: PluginClass[] } | { skipped: string } {
  const factory = module.default;
  const fromFactory = typeof factory === "function" && !classify(factory);
  const exported = fromFactory ? (factory as (sdk: typeof pluginSdk) => unknown)(pluginSdk) : Object.values(module);
  const list = Array.isArray(exported)
    ? exported
    : exported && typeof exported === "object"
      ? Object.values(exported)
      : [];
  const classes = list.filter((v): v is PluginClass => classify(v) !== undefined);
  if (classes.length > 0) return { classes };
  const kinds = "connectors, converters, transforms or predicates";
  return {
    skipped: fromFactory
      ? `its default export (sdk) => [...] returned no plugin classes (${kinds})`
      : `it has no default export (sdk) => [...] returning plugin classes, and exports no plugin classes (${kinds}) itself`,
  };
}

/** Kafka's plugin version: the instance's version(), as Kafka asks its Versioned plugins. */
function versionOf(cls: PluginClass): string | undefined {
  if (cls.version !== undefined) return cls.version;
  try {
    const version = (new cls() as { version?: () => unknown }).version?.();
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** Registers the plugins of every module in the folders; returns how many were loaded. */
export async function loadPlugins(folders: string[], registry: PluginRegistry): Promise<number> {
  let loaded = 0;
  for (const folder of folders) {
    const dir = resolve(folder);
    // Entries that are not folders (Kafka's connect-file-<version>.jar) hold no modules.
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name);
      if (!/\.(m?js|ts)$/.test(name) || name.endsWith(".d.ts") || !statSync(file).isFile()) continue;
      try {
        const exported = exportedClasses((await import(file)) as Record<string, unknown>);
        if ("skipped" in exported) {
          log.warn({ file, reason: exported.skipped }, "plugin module skipped");
          continue;
        }
        for (const cls of exported.classes) {
          const type = classify(cls)!;
          const className = cls.className ?? cls.name;
          const version = versionOf(cls);
          registry.add({ className, type, version, aliases: cls.aliases, create: () => new cls() as never });
          log.info({ plugin: className, type, version, file }, "plugin loaded");
          loaded++;
        }
      } catch (err) {
        log.error({ file, err: loadErrorText(err) }, "plugin could not be loaded; skipped");
      }
    }
  }
  return loaded;
}
