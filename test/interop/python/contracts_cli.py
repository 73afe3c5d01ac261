"""Data contracts end to end with Python confluent-kafka's own rule executors, driven by the interop tests.

cel:     registers a schema with metadata and a CEL CONDITION rule, finds it with get_latest_with_metadata,
         then produces through a serializer with use.latest.with.metadata: the record the rule accepts
         goes to Kafka, the one it rejects raises. Consumes what was produced.
encrypt: registers a schema whose PII-tagged field an ENCRYPT rule covers (local KMS, the DEK registry of
         the schema registry under test), produces through the serializer, consumes the raw bytes and,
         through the deserializer, the decrypted record.
decrypt: deserializes given bytes with a given KMS secret.
contexts: registers a schema with metadata under a context-qualified subject and reads it back through
         get_contexts, get_schema(id, subject_name=...) and get_latest_with_metadata.
Each prints one JSON line per step. With --bootstrap none (a registry on its embedded broker, which
speaks no Kafka protocol) the serialized bytes are handed from producer to consumer in memory.
"""
import argparse
import json
import sys
import uuid

from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor
from confluent_kafka.schema_registry.rules.encryption.encrypt_executor import FieldEncryptionExecutor
from confluent_kafka.schema_registry.rules.encryption.localkms.local_driver import LocalKmsDriver
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

CelExecutor.register()
FieldEncryptionExecutor.register()
LocalKmsDriver.register()


def out(**fields):
    print(json.dumps(fields), flush=True)


IN_MEMORY = []


def consume(bootstrap, topic, count):
    if bootstrap == "none":
        return IN_MEMORY[:count]
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"rules-{uuid.uuid4()}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values = []
    while len(values) < count:
        msg = consumer.poll(30)
        if msg is None:
            raise SystemExit(f"timed out consuming {topic} after {len(values)} records")
        if msg.error():
            raise SystemExit(str(msg.error()))
        values.append(msg.value())
    consumer.close()
    return values


def produce(bootstrap, topic, payloads):
    if bootstrap == "none":
        IN_MEMORY.extend(payloads)
        return
    producer = Producer({"bootstrap.servers": bootstrap})
    for p in payloads:
        producer.produce(topic, p)
    if producer.flush(30) != 0:
        raise SystemExit("produce did not complete")


PERSON = {
    "type": "record",
    "name": "Person",
    "fields": [{"name": "name", "type": "string"}, {"name": "ssn", "type": "string", "confluent:tags": ["PII"]}],
}


def cel(args, client):
    schema = Schema.from_dict({
        "schema": json.dumps(PERSON),
        "schemaType": "AVRO",
        "metadata": {"properties": {"application.major.version": "1"}},
        "ruleSet": {"domainRules": [{"name": "checkSsnLen", "kind": "CONDITION", "mode": "WRITE", "type": "CEL", "expr": "size(message.ssn) == 9"}]},
    })
    registered = client.register_schema_full_response(args.subject, schema)
    out(step="registered", id=registered.schema_id, version=registered.version)
    latest = client.get_latest_with_metadata(args.subject, {"application.major.version": "1"})
    out(step="latest_with_metadata", version=latest.version, id=latest.schema_id, rules=[r.name for r in latest.schema.rule_set.domain_rules])
    serializer = AvroSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.with.metadata": {"application.major.version": "1"}})
    ctx = SerializationContext(args.topic, MessageField.VALUE)
    good = serializer({"name": "Ann", "ssn": "123456789"}, ctx)
    try:
        serializer({"name": "Bob", "ssn": "123"}, ctx)
        out(step="rejected", rejected=False)
    except SerializationError as e:
        out(step="rejected", rejected=True, error=str(e.__cause__ or e))
    produce(args.bootstrap, args.topic, [good])
    deserializer = AvroDeserializer(client)
    for raw in consume(args.bootstrap, args.topic, 1):
        out(step="consumed", value=deserializer(raw, ctx))


def encrypt(args, client):
    schema = Schema.from_dict({
        "schema": json.dumps(PERSON),
        "schemaType": "AVRO",
        "ruleSet": {"domainRules": [{
            "name": "encryptPII",
            "kind": "TRANSFORM",
            "mode": "WRITEREAD",
            "type": "ENCRYPT",
            "tags": ["PII"],
            "params": {"encrypt.kek.name": args.kek, "encrypt.kms.type": "local-kms", "encrypt.kms.key.id": "mykey"},
            "onFailure": "ERROR,NONE",
        }]},
    })
    registered = client.register_schema_full_response(args.subject, schema)
    out(step="registered", id=registered.schema_id)
    rule_conf = {"secret": args.secret}
    serializer = AvroSerializer(client, None, conf={"auto.register.schemas": False, "use.latest.version": True}, rule_conf=rule_conf)
    ctx = SerializationContext(args.topic, MessageField.VALUE)
    produce(args.bootstrap, args.topic, [serializer({"name": "Ann", "ssn": "123456789"}, ctx)])
    raw = consume(args.bootstrap, args.topic, 1)[0]
    out(step="raw", plaintext_visible=b"123456789" in raw, name_visible=b"Ann" in raw, hex=raw.hex())
    deserializer = AvroDeserializer(client, rule_conf=rule_conf)
    out(step="decrypted", value=deserializer(raw, ctx))


def decrypt(args, client):
    """Deserializes --raw (hex) with --secret: the rule executors are configured once per process."""
    ctx = SerializationContext(args.topic, MessageField.VALUE)
    deserializer = AvroDeserializer(client, rule_conf={"secret": args.secret})
    try:
        out(step="decrypted", value=deserializer(bytes.fromhex(args.raw), ctx))
    except Exception as e:  # the rule's ERROR action on a READ failure
        out(step="decrypted", error=type(e).__name__)


def contexts(args, client):
    subject = f":.{args.context}:{args.subject}"
    schema = Schema.from_dict({"schema": json.dumps(PERSON), "schemaType": "AVRO", "metadata": {"properties": {"owner": "ctx-team"}}})
    registered = client.register_schema_full_response(subject, schema)
    fetched = client.get_schema(registered.schema_id, subject_name=subject)
    latest = client.get_latest_with_metadata(subject, {"owner": "ctx-team"})
    out(step="contexts", contexts=client.get_contexts(), id=registered.schema_id, schema=json.loads(fetched.schema_str),
        metadata=fetched.metadata.properties.properties, latest=[latest.subject, latest.version, latest.schema_id])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["cel", "encrypt", "decrypt", "contexts"])
    p.add_argument("--url", required=True)
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--subject", required=True)
    p.add_argument("--kek")
    p.add_argument("--secret")
    p.add_argument("--raw")
    p.add_argument("--context")
    args = p.parse_args()
    client = SchemaRegistryClient({"url": args.url})
    {"cel": cel, "encrypt": encrypt, "decrypt": decrypt, "contexts": contexts}[args.mode](args, client)


if __name__ == "__main__":
    sys.exit(main())
