# Prints the Amazon MSK IAM token AWS's signer (aws-msk-iam-sasl-signer-python) makes at a fixed time,
# for test/interop/msk-iam.test.ts: argv = region, signing time (ISO, UTC), profile ("" for the default
# credential chain). botocore takes "now" from botocore.auth.get_current_datetime: the test fixes it there.
import datetime
import json
import sys

import botocore.auth
from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

region, at, profile = sys.argv[1], sys.argv[2], sys.argv[3]
fixed = datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")
botocore.auth.get_current_datetime = lambda *args, **kwargs: fixed

if profile:
    token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_profile(region, profile)
else:
    token, expiry_ms = MSKAuthTokenProvider.generate_auth_token(region)
print(json.dumps({"token": token, "expiryMs": expiry_ms}))
