"""Python confluent-kafka serializers driven by the interop tests.

produce: JSON values on stdin (one per line) -> serialized with confluent-kafka's serializer -> Kafka.
consume: N records from Kafka -> deserialized -> one JSON line each: {"id": schema id, "value": ...}.
--header-ids: the serializer puts the schema's GUID in the record's header (header_schema_id_serializer);
produce then prints the header values ({"headers": [hex, ...]}), consume the header each record had.
"""
import argparse
import importlib
import json
import sys
import uuid

from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.serialization import MessageField, SerializationContext


def load_schema(args):
    refs = [SchemaReference(r["name"], r["subject"], r["version"]) for r in json.loads(args.references or "[]")]
    with open(args.schema) as f:
        return Schema(f.read(), {"avro": "AVRO", "json": "JSON", "protobuf": "PROTOBUF"}[args.format], refs)


def message_class(args):
    sys.path.insert(0, args.proto_dir)
    module = importlib.import_module(args.proto_module)
    return getattr(module, args.message)


def serializer(args, client):
    conf = {}
    if args.header_ids:
        from confluent_kafka.schema_registry import header_schema_id_serializer
        conf["schema.id.serializer"] = header_schema_id_serializer
    if args.format == "avro":
        from confluent_kafka.schema_registry.avro import AvroSerializer
        return AvroSerializer(client, load_schema(args), conf=conf)
    if args.format == "json":
        from confluent_kafka.schema_registry.json_schema import JSONSerializer
        return JSONSerializer(load_schema(args), client, conf=conf)
    from confluent_kafka.schema_registry.protobuf import ProtobufSerializer
    from google.protobuf.json_format import ParseDict
    cls = message_class(args)
    inner = ProtobufSerializer(cls, client, {"use.deprecated.format": False, **conf})
    return lambda value, ctx: inner(ParseDict(value, cls()), ctx)


def deserializer(args, client):
    if args.format == "avro":
        from confluent_kafka.schema_registry.avro import AvroDeserializer
        return AvroDeserializer(client)
    if args.format == "json":
        from confluent_kafka.schema_registry.json_schema import JSONDeserializer
        return JSONDeserializer(None, schema_registry_client=client)
    from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer
    from google.protobuf.json_format import MessageToDict
    inner = ProtobufDeserializer(message_class(args), {"use.deprecated.format": False})
    return lambda data, ctx: MessageToDict(inner(data, ctx), preserving_proto_field_name=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["produce", "consume"])
    p.add_argument("--format", required=True, choices=["avro", "json", "protobuf"])
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--registry", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--schema")
    p.add_argument("--references")
    p.add_argument("--proto-dir")
    p.add_argument("--proto-module")
    p.add_argument("--message")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--header-ids", action="store_true")
    args = p.parse_args()
    client = SchemaRegistryClient({"url": args.registry})
    ctx = SerializationContext(args.topic, MessageField.VALUE)

    if args.mode == "produce":
        ser = serializer(args, client)
        producer = Producer({"bootstrap.servers": args.bootstrap})
        ids = []
        headers_out = []
        for line in sys.stdin:
            if line.strip():
                headers = [] if args.header_ids else None
                data = ser(json.loads(line), SerializationContext(args.topic, MessageField.VALUE, headers))
                if args.header_ids:
                    headers_out.append([[k, v.hex()] for k, v in headers])
                    producer.produce(args.topic, value=data, headers=headers)
                else:
                    ids.append(int.from_bytes(data[1:5], "big"))
                    producer.produce(args.topic, value=data)
        if producer.flush(30) != 0:
            sys.exit("messages not delivered")
        print(json.dumps({"headers": headers_out} if args.header_ids else {"ids": ids}))
        return

    de = deserializer(args, client)
    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": "interop-" + uuid.uuid4().hex,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    consumer.subscribe([args.topic])
    seen = 0
    while seen < args.count:
        msg = consumer.poll(30)
        if msg is None:
            sys.exit("timed out waiting for records")
        if msg.error():
            sys.exit(str(msg.error()))
        headers = msg.headers() or []
        value = de(msg.value(), SerializationContext(args.topic, MessageField.VALUE, headers))
        out = {"value": value}
        if args.header_ids:
            out["headers"] = [[k, v.hex() if v is not None else None] for k, v in headers]
        else:
            out["id"] = int.from_bytes(msg.value()[1:5], "big")
        print(json.dumps(out, default=str), flush=True)
        seen += 1
    consumer.close()


if __name__ == "__main__":
    main()
