// Parsed forms of the files Confluent resolves without references, built once per process.
import protobuf from "protobufjs";
import { descriptorNamespaceJson } from "./descriptor-types.ts";
import {
  emptyMessage,
  type FieldElement,
  type MessageElement,
  type ProtoFileElement,
  type TypeElement,
} from "./elements.ts";
import { parseProto } from "./parser.ts";
import { DESCRIPTOR_FILE, KNOWN_TEXTS } from "./well-known.ts";

export interface KnownFile {
  readonly name: string;
  readonly element: ProtoFileElement;
  /** protobufjs JSON for descriptor.proto; the others are built from `element`. */
  readonly json: protobuf.INamespace | null;
}

let cache: Map<string, KnownFile> | undefined;

export function knownFiles(): ReadonlyMap<string, KnownFile> {
  if (cache === undefined) {
    const files = new Map<string, KnownFile>();
    files.set(DESCRIPTOR_FILE, {
      name: DESCRIPTOR_FILE,
      element: descriptorElement(),
      json: descriptorNamespaceJson(),
    });
    for (const [name, text] of KNOWN_TEXTS) files.set(name, { name, element: parseProto(text), json: null });
    cache = files;
  }
  return cache;
}

/**
 * descriptor.proto's element tree from protobufjs's reflection of it. Only names, nesting, field
 * types and labels matter here (type resolution); its options are never printed.
 */
function descriptorElement(): ProtoFileElement {
  const root = protobuf.Root.fromJSON(descriptorNamespaceJson());
  const ns = root.lookup("google.protobuf");
  if (!(ns instanceof protobuf.Namespace)) throw new Error("descriptor.json has no google.protobuf");
  return {
    packageName: "google.protobuf",
    syntax: "proto2",
    imports: [],
    publicImports: [],
    weakImports: [],
    types: ns.nestedArray.flatMap(reflectType),
    services: [],
    extendDeclarations: [],
    options: [],
  };
}

function reflectType(obj: protobuf.ReflectionObject): TypeElement[] {
  if (obj instanceof protobuf.Type) {
    const field = (f: protobuf.Field): FieldElement => ({
      label: f.repeated ? "repeated" : f.required ? "required" : "optional",
      type: f.type,
      name: f.name,
      defaultValue: null,
      jsonName: null,
      tag: f.id,
      options: [],
      position: null,
    });
    const inOneOf = new Set(obj.oneofsArray.flatMap((o) => o.fieldsArray));
    const message: MessageElement = {
      ...emptyMessage(obj.name),
      nestedTypes: obj.nestedArray.flatMap(reflectType),
      fields: obj.fieldsArray.filter((f) => !inOneOf.has(f)).map(field),
      oneOfs: obj.oneofsArray.map((o) => ({
        name: o.name,
        fields: o.fieldsArray.map((f) => ({ ...field(f), label: null })),
        groups: [],
        options: [],
      })),
    };
    return [message];
  }
  if (obj instanceof protobuf.Enum) {
    return [
      {
        kind: "enum",
        name: obj.name,
        options: [],
        constants: Object.entries(obj.values).map(([name, tag]) => ({ name, tag, options: [] })),
        reserveds: [],
        position: null,
      },
    ];
  }
  return [];
}
