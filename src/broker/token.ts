// What every OAUTHBEARER login hands out (login.ts, msk-iam.ts): a token with its expiry, or a failure
// that says where and why, never a secret.

/** A token and when it stops being valid. */
export interface ExpiringToken {
  value: string;
  expiresAtMs: number;
}

/** A login failed: the message says where and why, never a secret. */
export class LoginError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LoginError";
  }
}
