# Prints the Authorization header botocore's SigV4 signer puts on an STS AssumeRole form POST, for
# test/interop/msk-iam.test.ts: argv = url, body, access key id, secret key, session token ("" for none),
# signing region, signing time (ISO, UTC). botocore takes "now" from botocore.auth.get_current_datetime.
import datetime
import sys

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

url, body, key, secret, token, region, at = sys.argv[1:8]
fixed = datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")
botocore.auth.get_current_datetime = lambda *args, **kwargs: fixed

request = AWSRequest(method="POST", url=url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
botocore.auth.SigV4Auth(Credentials(key, secret, token or None), "sts", region).add_auth(request)
print(request.headers["Authorization"])
