// Loads plugin modules (.js/.ts) from the plugin.path folders at start-up and registers what they
// export under their class names. A broken plugin is reported and skipped; the runtime still starts.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { logger } from "../../common/log.ts";
import { Connector } from "./connector.ts";
import type { PluginRegistry, PluginType } from "./registry.ts";
import { pluginSdk } from "./sdk.ts";

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

/** A module's plugin classes: from its default factory (called with the SDK), else its exports. */
function exportedClasses(module: Record<string, unknown>): PluginClass[] {
  const factory = module.default;
  const exported = typeof factory === "function" && !classify(factory) ? (factory as (sdk: typeof pluginSdk) => unknown)(pluginSdk) : Object.values(module);
  const list = Array.isArray(exported) ? exported : exported && typeof exported === "object" ? Object.values(exported) : [];
  return list.filter((v): v is PluginClass => classify(v) !== undefined);
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
        const module = (await import(file)) as Record<string, unknown>;
        for (const cls of exportedClasses(module)) {
          const type = classify(cls);
          if (!type) continue;
          const className = cls.className ?? cls.name;
          registry.add({ className, type, version: cls.version, aliases: cls.aliases, create: () => new cls() as never });
          log.info({ plugin: className, type, file }, "plugin loaded");
          loaded++;
        }
      } catch (err) {
        log.error({ file, err: err instanceof Error ? err.message : String(err) }, "plugin could not be loaded; skipped");
      }
    }
  }
  return loaded;
}
