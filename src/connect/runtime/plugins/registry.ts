// Every plugin the runtime knows, by the names users write: Kafka's fully-qualified class names, the
// simple class name, the simple name without "Connector", and extra aliases (the spec's
// placeholders, short names). Built-ins are registered at start; plugin.path modules add more.
import type { Converter, HeaderConverter } from "../../api/converter.ts";
import type { Connector } from "../../api/connector.ts";
import type { Predicate, Transformation } from "../../api/transformation.ts";

export type PluginType = "source" | "sink" | "converter" | "header_converter" | "transformation" | "predicate";

interface Instances {
  source: Connector;
  sink: Connector;
  converter: Converter;
  header_converter: HeaderConverter;
  transformation: Transformation;
  predicate: Predicate;
}

export interface PluginDescriptor<T extends PluginType = PluginType> {
  className: string;
  type: T;
  version?: string;
  aliases?: string[];
  create(): Instances[T];
}

export class PluginRegistry {
  private readonly plugins: PluginDescriptor[] = [];
  private readonly byName = new Map<string, PluginDescriptor[]>();

  add<T extends PluginType>(descriptor: PluginDescriptor<T>): void {
    this.plugins.push(descriptor as PluginDescriptor);
    const simple = descriptor.className.split(".").pop()!;
    const names = new Set([descriptor.className, simple, ...(descriptor.aliases ?? [])]);
    if (descriptor.type === "source" || descriptor.type === "sink") names.add(simple.replace(/Connector$/, ""));
    for (const name of names) {
      const list = this.byName.get(name) ?? [];
      list.push(descriptor as PluginDescriptor);
      this.byName.set(name, list);
    }
  }

  /** The plugin a name designates, among the given types; undefined when none or ambiguous. */
  find<T extends PluginType>(name: string, ...types: T[]): PluginDescriptor<T> | undefined {
    const matches = (this.byName.get(name.trim()) ?? []).filter(
      (p) => types.length === 0 || types.includes(p.type as T),
    );
    const exact = matches.find((p) => p.className === name.trim());
    return (exact ?? (matches.length === 1 ? matches[0] : undefined)) as PluginDescriptor<T> | undefined;
  }

  /** Every name that designates a plugin of these types (class names, simple names, aliases). */
  names(...types: PluginType[]): string[] {
    return [...this.byName]
      .filter(([, list]) => list.some((p) => types.length === 0 || types.includes(p.type)))
      .map(([name]) => name);
  }

  list(...types: PluginType[]): PluginDescriptor[] {
    return this.plugins.filter((p) => types.length === 0 || types.includes(p.type));
  }
}
