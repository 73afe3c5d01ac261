"""Confluent's Python DekRegistryClient driven against a registry by test/interop/dek-registry.test.ts.

Runs one scenario and prints one JSON line per step: {"step": ..., ...}. The local KMS is done here
with the `cryptography` package (HKDF-SHA256 of the secret, AES-128-GCM, IV || ciphertext || tag), as
Confluent's clients do it with Tink, so what Sluice wraps and what Python wraps must agree.
"""
import argparse
import base64
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.rules.encryption.dek_registry.dek_registry_client import (
    DekAlgorithm,
    DekRegistryClient,
)


def local_kms(secret):
    key = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=b"").derive(secret.encode("utf-8"))
    aead = AESGCM(key)

    def wrap(plaintext):
        iv = os.urandom(12)
        return iv + aead.encrypt(iv, plaintext, b"")

    def unwrap(ciphertext):
        return aead.decrypt(ciphertext[:12], ciphertext[12:], b"")

    return wrap, unwrap


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


def failure(call):
    try:
        call()
    except SchemaRegistryError as e:
        return {"status": e.http_status_code, "code": e.error_code, "message": e.error_message}
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--registry", required=True)
    parser.add_argument("--prefix", required=True)
    args = parser.parse_args()
    secret = "python-secret"
    wrap, unwrap = local_kms(secret)
    client = DekRegistryClient({"url": args.registry})
    kek_name = args.prefix + "-kek"
    subject = args.prefix + "-value"

    kek = client.register_kek(kek_name, "local-kms", "py-key", False, {"secret": secret}, "made by python")
    emit("register_kek", kek=kek.to_dict())
    # A fresh client: get_kek goes to the registry, not to the first client's cache.
    emit("get_kek", kek=DekRegistryClient({"url": args.registry}).get_kek(kek_name).to_dict())

    # A DEK as Confluent's clients make one: Tink's AesGcmKey proto around 32 random bytes, wrapped.
    raw = bytes([0x1A, 32]) + os.urandom(32)
    wrapped = base64.b64encode(wrap(raw)).decode()
    emit("register_dek", dek=client.register_dek(kek_name, subject, wrapped).to_dict())
    raw2 = bytes([0x1A, 32]) + os.urandom(32)
    client.register_dek(kek_name, subject, base64.b64encode(wrap(raw2)).decode(), DekAlgorithm.AES256_GCM, 2)

    reader = DekRegistryClient({"url": args.registry})
    v1 = reader.get_dek(kek_name, subject)
    latest = reader.get_dek(kek_name, subject, version=-1)
    emit(
        "get_dek",
        v1=v1.to_dict(),
        latest=latest.to_dict(),
        v1_unwraps=unwrap(v1.get_encrypted_key_material_bytes()) == raw,
        latest_unwraps=unwrap(latest.get_encrypted_key_material_bytes()) == raw2,
    )

    # A shared KEK: the registry makes and wraps the DEK; what it answers as raw must be what it wrapped.
    shared_name = args.prefix + "-shared"
    client.register_kek(shared_name, "local-kms", "py-shared-key", True, {"secret": secret})
    made = client.register_dek(shared_name, subject, None, DekAlgorithm.AES128_GCM)
    again = DekRegistryClient({"url": args.registry}).get_dek(shared_name, subject, DekAlgorithm.AES128_GCM)
    emit(
        "shared_dek",
        dek=made.to_dict(),
        read_key_material=again.key_material,
        unwraps_to_key_material=unwrap(made.get_encrypted_key_material_bytes()) == made.get_key_material_bytes(),
    )

    emit("missing_dek", error=failure(lambda: reader.get_dek(kek_name, args.prefix + "-nothing")))
    emit("missing_kek", error=failure(lambda: reader.get_kek(args.prefix + "-nokek")))
    emit(
        "conflicting_kek",
        error=failure(lambda: DekRegistryClient({"url": args.registry}).register_kek(kek_name, "local-kms", "other-key", False)),
    )


if __name__ == "__main__":
    main()
