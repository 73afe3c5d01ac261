// Type lookup the way Confluent's protobuf diff.Context does it, shared by the compatibility check
// and the normalized printer: every type of the schema and of its dependencies (known files
// included) indexed by full name, names resolved by trying the enclosing scopes from the innermost
// outwards, plus the path ("#/Msg/1") and the differences found so far.
import {
  protoType,
  type ExtendElement,
  type FieldElement,
  type MessageElement,
  type ProtoFileElement,
  type ProtoType,
  type TypeElement,
} from "./elements.ts";

/** Subject and version of a reference; the main schema uses Confluent's dummy ("", -1). */
export interface ReferenceKey {
  subject: string;
  version: number;
}

const DUMMY_REFERENCE: ReferenceKey = { subject: "", version: -1 };

/** What the context needs of a parsed schema. */
export interface SchemaFiles {
  readonly main: ProtoFileElement;
  /** Import path → file: all (transitive) references, then the known files not among them. */
  readonly dependencies: ReadonlyMap<string, ProtoFileElement>;
  /** The schema's direct references by import path. */
  readonly references: ReadonlyMap<string, ReferenceKey>;
}

export interface TypeInfo {
  readonly packageName: string;
  readonly reference: ReferenceKey | null;
  readonly type: TypeElement;
  readonly isMap: boolean;
  readonly key: FieldElement | null;
  readonly value: FieldElement | null;
}

export interface ExtendFieldInfo {
  readonly packageName: string;
  readonly field: FieldElement;
  readonly repeated: boolean;
}

export interface Difference {
  readonly type: string;
  readonly fullPath: string;
}

/** TypeElementInfo.getMapType: the map type a map-entry message stands for. */
export function mapTypeOf(info: TypeInfo): ProtoType | null {
  return info.isMap && info.key && info.value ? protoType(`map<${info.key.type}, ${info.value.type}>`) : null;
}

/** Options by name, as Confluent's ProtobufSchema.mergeOptions keys them (leading dot dropped). */
export function findOptionValue(
  options: readonly { name: string; value: unknown }[],
  name: string,
): string | undefined {
  let found: string | undefined;
  for (const o of options) {
    const key = o.name.startsWith(".") ? o.name.slice(1) : o.name;
    if (key === name) found = String(o.value);
  }
  return found;
}

type Side = 0 | 1;
const side = (isOriginal: boolean): Side => (isOriginal ? 0 : 1);

export class TypeContext {
  protected readonly types: [Map<string, TypeInfo>, Map<string, TypeInfo>] = [new Map(), new Map()];
  protected readonly extendFields: [Map<string, ExtendFieldInfo>, Map<string, ExtendFieldInfo>] = [
    new Map(),
    new Map(),
  ];
  private readonly packages: [string, string] = ["", ""];
  readonly fullPath: string[] = [];
  private readonly fullName: string[] = [];
  readonly differences: Difference[] = [];
  /** Messages being compared (identity), to stop recursion through cyclic type references. */
  readonly schemas: Set<MessageElement> = new Set();

  constructor(readonly compatibleChanges: ReadonlySet<string> = new Set()) {}

  subcontext(): TypeContext {
    const ctx = new TypeContext(this.compatibleChanges);
    for (const s of this.schemas) ctx.schemas.add(s);
    for (const i of [0, 1] as const) {
      for (const [k, v] of this.types[i]) ctx.types[i].set(k, v);
      ctx.packages[i] = this.packages[i];
    }
    ctx.fullPath.push(...this.fullPath);
    ctx.fullName.push(...this.fullName);
    return ctx;
  }

  collectTypeInfo(schema: SchemaFiles, isOriginal: boolean): void {
    for (const [name, file] of schema.dependencies)
      this.collectFile(schema.references.get(name) ?? null, file, isOriginal);
    this.collectFile(DUMMY_REFERENCE, schema.main, isOriginal);
  }

  private collectFile(ref: ReferenceKey | null, file: ProtoFileElement, isOriginal: boolean): void {
    this.setPackageName(file.packageName, isOriginal);
    this.collectExtends(file.extendDeclarations, isOriginal);
    this.collectTypes(ref, file.types, isOriginal);
  }

  private collectTypes(ref: ReferenceKey | null, types: readonly TypeElement[], isOriginal: boolean): void {
    for (const type of types) {
      this.inName(type.name, () => {
        let isMap = false;
        let key: FieldElement | null = null;
        let value: FieldElement | null = null;
        if (type.kind === "message") {
          this.collectExtends(type.extendDeclarations, isOriginal);
          isMap = findOptionValue(type.options, "map_entry") === "true";
          if (isMap) {
            key = type.fields.find((f) => f.name === "key") ?? null;
            value = type.fields.find((f) => f.name === "value") ?? null;
          }
        }
        const s = side(isOriginal);
        this.types[s].set(this.qualified(s), {
          packageName: this.packages[s],
          reference: ref,
          type,
          isMap,
          key,
          value,
        });
        if (type.kind === "message") this.collectTypes(ref, type.nestedTypes, isOriginal);
      });
    }
  }

  private collectExtends(extendElements: readonly ExtendElement[], isOriginal: boolean): void {
    const s = side(isOriginal);
    for (const e of extendElements) {
      for (const field of e.fields) {
        this.inName(field.name, () => {
          this.extendFields[s].set(this.qualified(s), {
            packageName: this.packages[s],
            field,
            repeated: field.label === "repeated",
          });
        });
      }
    }
  }

  private qualified(s: Side): string {
    const name = this.fullPath.join(".");
    return this.packages[s] === "" ? name : `${this.packages[s]}.${name}`;
  }

  setPackageName(packageName: string | null, isOriginal: boolean): void {
    this.packages[side(isOriginal)] = packageName ?? "";
  }

  /** Makes `name` (dotted) the current scope, as Context.setFullName. */
  setFullName(name: string): void {
    const parts = name.split(".");
    this.fullPath.length = 0;
    this.fullName.length = 0;
    this.fullPath.push(...parts);
    this.fullName.push(...parts);
  }

  inPath<T>(path: string, fn: () => T): T {
    this.fullPath.push(path);
    try {
      return fn();
    } finally {
      this.fullPath.pop();
    }
  }

  inName<T>(name: string, fn: () => T): T {
    this.fullPath.push(name);
    this.fullName.push(name);
    try {
      return fn();
    } finally {
      this.fullName.pop();
      this.fullPath.pop();
    }
  }

  typeForFullName(fullName: string, isOriginal: boolean): TypeInfo | undefined {
    return this.types[side(isOriginal)].get(fullName.startsWith(".") ? fullName.slice(1) : fullName);
  }

  extendFieldForFullName(fullName: string, isOriginal: boolean): ExtendFieldInfo | undefined {
    return this.extendFields[side(isOriginal)].get(fullName.startsWith(".") ? fullName.slice(1) : fullName);
  }

  /** Context.resolve: the full name (no leading dot) `name` refers to from the current scope. */
  resolve(name: string, isOriginal: boolean): string | null {
    return this.resolveWith((n) => this.typeForFullName(n, isOriginal), name, isOriginal);
  }

  resolveExtendField(name: string, isOriginal: boolean): string | null {
    return this.resolveWith((n) => this.extendFieldForFullName(n, isOriginal), name, isOriginal);
  }

  private resolveWith(lookup: (n: string) => unknown, name: string, isOriginal: boolean): string | null {
    const s = side(isOriginal);
    if (this.types[s].size === 0) return null;
    if (name.startsWith(".")) {
      const n = name.slice(1);
      return lookup(n) !== undefined ? n : null;
    }
    const prefix = [...(this.packages[s] === "" ? [] : this.packages[s].split(".")), ...this.fullName];
    while (prefix.length > 0) {
      const n = `${prefix.join(".")}.${name}`;
      if (lookup(n) !== undefined) return n;
      prefix.pop();
    }
    return lookup(name) !== undefined ? name : null;
  }

  getType(name: string, isOriginal: boolean): TypeInfo | undefined {
    const full = this.resolve(name, isOriginal);
    return full === null ? undefined : this.typeForFullName(full, isOriginal);
  }

  addDifference(type: string): void {
    this.differences.push({ type, fullPath: `#/${this.fullPath.join("/")}` });
  }

  isCompatible(): boolean {
    return this.differences.every((d) => this.compatibleChanges.has(d.type));
  }
}
