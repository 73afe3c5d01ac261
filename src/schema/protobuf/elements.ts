// The parsed form of a .proto file, shaped like Square Wire's element tree (ProtoFileElement and
// friends), because Confluent prints its canonical string and runs its compatibility check on that
// tree rather than on descriptors: fields outside oneofs are kept apart from oneof members, types
// keep the names they were written with, option values keep their source text.

export type Syntax = "proto2" | "proto3";
export type Label = "optional" | "required" | "repeated";

/** Wire's 1-based line and column of a declaration (null for elements built from descriptors). */
export interface Position {
  line: number;
  column: number;
}

export type OptionKind = "STRING" | "BOOLEAN" | "NUMBER" | "ENUM" | "MAP" | "LIST" | "OPTION";

/** A boolean, number or enum literal inside an aggregate option value (Wire's OptionPrimitive). */
export interface OptionPrimitive {
  readonly primitive: "BOOLEAN" | "NUMBER" | "ENUM";
  readonly value: string;
}

/** Values inside aggregate (map/list) option values. */
export type OptionValue = string | OptionPrimitive | OptionMap | OptionValue[] | OptionElement;
export type OptionMap = Map<string, OptionValue>;

export interface OptionElement {
  readonly name: string;
  readonly kind: OptionKind;
  /** STRING/BOOLEAN/NUMBER/ENUM: the literal text; MAP: OptionMap; LIST: OptionValue[]; OPTION: OptionElement. */
  readonly value: string | OptionMap | OptionValue[] | OptionElement;
  readonly parenthesized: boolean;
}

export interface FieldElement {
  readonly label: Label | null;
  readonly type: string;
  readonly name: string;
  readonly defaultValue: string | null;
  readonly jsonName: string | null;
  readonly tag: number;
  readonly options: OptionElement[];
  readonly position: Position | null;
}

export interface OneOfElement {
  readonly name: string;
  readonly fields: FieldElement[];
  readonly groups: GroupElement[];
  readonly options: OptionElement[];
}

export interface GroupElement {
  readonly label: Label | null;
  readonly name: string;
  readonly tag: number;
  readonly fields: FieldElement[];
}

/** A reserved/extensions value: a tag, an inclusive range, or (reserved only) a name. */
export type RangeValue = number | { start: number; end: number } | string;

export interface ReservedElement {
  readonly values: RangeValue[];
}

export interface ExtensionsElement {
  readonly values: RangeValue[];
  readonly options: OptionElement[];
}

export interface ExtendElement {
  readonly name: string;
  readonly fields: FieldElement[];
  readonly position: Position | null;
}

export interface MessageElement {
  readonly kind: "message";
  readonly name: string;
  readonly nestedTypes: TypeElement[];
  readonly options: OptionElement[];
  readonly reserveds: ReservedElement[];
  readonly fields: FieldElement[];
  readonly oneOfs: OneOfElement[];
  readonly extensions: ExtensionsElement[];
  readonly groups: GroupElement[];
  readonly extendDeclarations: ExtendElement[];
  readonly position: Position | null;
}

/** A message with nothing in it yet, for a parser or builder to fill (its lists are fresh arrays). */
export function emptyMessage(name: string, position: Position | null = null): MessageElement {
  return {
    kind: "message",
    name,
    nestedTypes: [],
    options: [],
    reserveds: [],
    fields: [],
    oneOfs: [],
    extensions: [],
    groups: [],
    extendDeclarations: [],
    position,
  };
}

export interface EnumConstantElement {
  readonly name: string;
  readonly tag: number;
  readonly options: OptionElement[];
}

export interface EnumElement {
  readonly kind: "enum";
  readonly name: string;
  readonly options: OptionElement[];
  readonly constants: EnumConstantElement[];
  readonly reserveds: ReservedElement[];
  readonly position: Position | null;
}

export type TypeElement = MessageElement | EnumElement;

export interface RpcElement {
  readonly name: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStreaming: boolean;
  readonly responseStreaming: boolean;
  readonly options: OptionElement[];
  readonly position: Position | null;
}

export interface ServiceElement {
  readonly name: string;
  readonly rpcs: RpcElement[];
  readonly options: OptionElement[];
}

export interface ProtoFileElement {
  readonly packageName: string | null;
  readonly syntax: Syntax | null;
  readonly imports: string[];
  readonly publicImports: string[];
  readonly weakImports: string[];
  readonly types: TypeElement[];
  readonly services: ServiceElement[];
  readonly extendDeclarations: ExtendElement[];
  readonly options: OptionElement[];
}

/** Wire's MAX_TAG_VALUE: "to max" in reserved/extensions ranges. */
export const MAX_TAG_VALUE = 536_870_911;

export const SCALAR_TYPES: ReadonlySet<string> = new Set([
  "bool",
  "bytes",
  "double",
  "float",
  "fixed32",
  "fixed64",
  "int32",
  "int64",
  "sfixed32",
  "sfixed64",
  "sint32",
  "sint64",
  "string",
  "uint32",
  "uint64",
]);

/** Wire's ProtoType: a scalar, a map (with key and value types) or a named type, by its text. */
export interface ProtoType {
  readonly text: string;
  readonly isScalar: boolean;
  readonly isMap: boolean;
  readonly keyType: ProtoType | null;
  readonly valueType: ProtoType | null;
}

/** Wire's ProtoType.get; throws Error with Wire's message for an invalid map key. */
export function protoType(text: string): ProtoType {
  if (SCALAR_TYPES.has(text)) return { text, isScalar: true, isMap: false, keyType: null, valueType: null };
  if (text.length === 0 || text.includes("#")) throw new Error(`unexpected name: ${text}`);
  if (text.startsWith("map<") && text.endsWith(">")) {
    const comma = text.indexOf(",");
    if (comma === -1) throw new Error(`expected ',' in map type: ${text}`);
    const keyType = protoType(text.slice(4, comma).trim());
    const valueType = protoType(text.slice(comma + 1, text.length - 1).trim());
    if (!keyType.isScalar || keyType.text === "bytes" || keyType.text === "double" || keyType.text === "float") {
      throw new Error(`map key must be non-byte, non-floating point scalar: ${keyType.text}`);
    }
    return { text, isScalar: false, isMap: true, keyType, valueType };
  }
  return { text, isScalar: false, isMap: false, keyType: null, valueType: null };
}

export function isOptionPrimitive(v: unknown): v is OptionPrimitive {
  return typeof v === "object" && v !== null && "primitive" in v;
}

export function isOptionElement(v: unknown): v is OptionElement {
  return typeof v === "object" && v !== null && "kind" in v && "parenthesized" in v;
}

export function messages(types: readonly TypeElement[]): MessageElement[] {
  return types.filter((t): t is MessageElement => t.kind === "message");
}
