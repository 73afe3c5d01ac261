// The protobufjs side: one Root holding the schema and every file it imports (references first,
// then the known files), used to encode and decode messages; and the mapping between Confluent's
// message indexes and message types.
import protobuf from "protobufjs";
import "./protobufjs-field-ids.ts";
import { messages, type MessageElement, type ProtoFileElement } from "./elements.ts";
import { knownFiles } from "./known-files.ts";
import { runtimeProtoText } from "./runtime-proto.ts";

/** One .proto file for protobufjs: its element tree, or protobufjs JSON (descriptor.proto). */
export interface RuntimeSource {
  readonly name: string;
  readonly element: ProtoFileElement;
  readonly json: protobuf.INamespace | null;
}

function importsOf(file: ProtoFileElement): string[] {
  return [...file.imports, ...file.publicImports, ...file.weakImports];
}

/**
 * Builds the Root for `main`. Imports resolve to `dependencies` first, then to the known files.
 * Like Confluent, types may also come from known files that were not imported; those are added
 * only when the imported files alone leave a type unresolved.
 */
export function buildRoot(main: RuntimeSource, dependencies: ReadonlyMap<string, RuntimeSource>): protobuf.Root {
  const lookup = (name: string): RuntimeSource | undefined => dependencies.get(name) ?? knownFiles().get(name);
  const ordered: RuntimeSource[] = [];
  const seen = new Set<string>();
  const visit = (source: RuntimeSource): void => {
    for (const name of importsOf(source.element)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const dep = lookup(name);
      // Like Confluent, an import that is neither a reference nor known is skipped; types from it
      // then fail to resolve.
      if (dep === undefined) continue;
      visit(dep);
      ordered.push(dep);
    }
  };
  visit(main);
  try {
    return loadRoot([...ordered, main]);
  } catch (first) {
    const extra = [...knownFiles().values()].filter((k) => !seen.has(k.name));
    try {
      return loadRoot([...extra, ...ordered, main]);
    } catch {
      throw first;
    }
  }
}

function loadRoot(sources: readonly RuntimeSource[]): protobuf.Root {
  const root = new protobuf.Root();
  for (const source of sources) {
    try {
      if (source.json !== null) root.addJSON(source.json.nested ?? {});
      else protobuf.parse(runtimeProtoText(source.element), root);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      throw new Error(source.name === "" ? message : `${source.name}: ${message}`);
    }
  }
  root.resolveAll();
  return root;
}

export interface MessageTypeInfo {
  fullName: string;
  indexes: number[];
}

/** Every message of the file, nested ones included, in file order, with its message-index path. */
export function messageTypesOf(file: ProtoFileElement): MessageTypeInfo[] {
  const out: MessageTypeInfo[] = [];
  const walk = (list: readonly MessageElement[], prefix: string, path: number[]): void => {
    list.forEach((m, i) => {
      const fullName = `${prefix}${m.name}`;
      const indexes = [...path, i];
      out.push({ fullName, indexes });
      walk(messages(m.nestedTypes), `${fullName}.`, indexes);
    });
  };
  walk(messages(file.types), file.packageName ? `${file.packageName}.` : "", []);
  return out;
}

/** Confluent's toMessageName: the full name of the message at `indexes` ([] means [0]). */
export function messageNameFor(file: ProtoFileElement, indexes: readonly number[]): string {
  const path = indexes.length === 0 ? [0] : indexes;
  let list = messages(file.types);
  const names: string[] = [];
  for (const index of path) {
    const m = list[index];
    if (m === undefined) throw new Error(`Invalid message indexes: [${indexes.join(", ")}]`);
    names.push(m.name);
    list = messages(m.nestedTypes);
  }
  return `${file.packageName ? `${file.packageName}.` : ""}${names.join(".")}`;
}

/** Confluent's toMessageIndexes for a message name, with or without the package (or leading dot). */
export function indexesFor(file: ProtoFileElement, fullName: string): number[] {
  let name = fullName.startsWith(".") ? fullName.slice(1) : fullName;
  if (file.packageName && name.startsWith(`${file.packageName}.`)) name = name.slice(file.packageName.length + 1);
  let list = messages(file.types);
  const indexes: number[] = [];
  for (const part of name.split(".")) {
    const i = list.findIndex((m) => m.name === part);
    if (i < 0) throw new Error(`Message ${fullName} not found in the schema`);
    indexes.push(i);
    list = messages(list[i].nestedTypes);
  }
  return indexes;
}
