// protobufjs 7 checks each field added to a message against a by-id table that it discards after
// every add and rebuilds from all fields on the next one: a message of n fields costs n² (40,000
// fields took 45 s). This keeps one table per type up to date and hands it to protobufjs before each
// add, so the same duplicate-id check is one lookup. Imported for its effect by runtime.ts.
import protobuf from "protobufjs";

type FieldsById = Record<number, protobuf.Field>;
interface TypeInternals {
  _fieldsById: FieldsById | null;
}

const tables = new WeakMap<protobuf.Type, FieldsById>();
const { add, remove } = protobuf.Type.prototype;

protobuf.Type.prototype.add = function (this: protobuf.Type, object: protobuf.ReflectionObject): protobuf.Type {
  if (!(object instanceof protobuf.Field) || object.extend !== undefined) return add.call(this, object);
  const internals = this as unknown as TypeInternals;
  let table = tables.get(this);
  if (table === undefined) {
    table = { ...this.fieldsById };
    tables.set(this, table);
  }
  internals._fieldsById ??= table;
  const result = add.call(this, object);
  if (this.fields[object.name] === object) table[object.id] = object;
  return result;
};

protobuf.Type.prototype.remove = function (this: protobuf.Type, object: protobuf.ReflectionObject): protobuf.Type {
  tables.delete(this);
  return remove.call(this, object);
};
