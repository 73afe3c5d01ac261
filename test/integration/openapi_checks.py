# Schemathesis's checks for test/integration/openapi.test.ts (loaded through SCHEMATHESIS_HOOKS).
# not_a_server_error, except for the registry's 500s Sluice answers on purpose because Confluent's does
# (Kafka Connect's 500s for a caller's mistake are 400s in Sluice):
import re

import schemathesis

# Confluent's DEK registry answers 50070 (DekGenerationException, a 500) when a shared KEK's KMS cannot
# make or unwrap a key: a fuzzed kmsType names no KMS driver.
PINNED_ERROR_CODES = {50070}
# And a shared KEK written with ?testSharing=true whose KMS cannot wrap a key fails as a store error
# (Confluent's "Error while creating key" / "Error while updating key", 50001, a 500).
PINNED_STORE_ERROR = re.compile(r"^Error while (creating|updating) key: ")


@schemathesis.check
def not_a_server_error_unless_pinned(ctx, response, case):
    """No 5xx, except the 500s the original systems answer (above)."""
    if response.status_code < 500:
        return None
    try:
        body = response.json()
    except Exception:
        body = None
    if isinstance(body, dict):
        message = body.get("message")
        if body.get("error_code") in PINNED_ERROR_CODES:
            return None
        if body.get("error_code") == 50001 and isinstance(message, str) and PINNED_STORE_ERROR.search(message):
            return None
    raise AssertionError(f"Server error {response.status_code}: {response.text[:500]}")
